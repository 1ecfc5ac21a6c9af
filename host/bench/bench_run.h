// `mxu bench`'s runs: every shape under one memory setting on a device of its own, each GEMM
// with random operands, measured against its ideal and its bound (and checked with --check).
#ifndef MXU_HOST_BENCH_BENCH_RUN_H_
#define MXU_HOST_BENCH_BENCH_RUN_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/memory_timing.h"
#include "host/bench/bench_table.h"
#include "host/cli/device_options.h"

namespace mxu::host {

// How each GEMM runs: the device (its timing is the memory setting's), the operands' seed,
// --check.
struct BenchRunOptions {
  DeviceOptions device;
  uint64_t seed = 1;
  bool check = false;
};

// Every shape under one memory setting (number `setting`, with this timing: kPortWidth is the
// device's port width, as the rows say), on a device opened here: {"backend", "device" (its
// configuration), "rows" (one per shape)}. With print, the memory setting's heading and each row
// as it finishes, on stdout.
nlohmann::ordered_json RunSetting(const BenchRunOptions& options,
                                  const std::vector<BenchShape>& shapes, size_t setting,
                                  const MemoryTiming& timing, bool print = true);

// The same run with its GEMMs spread over `jobs` child processes, each GEMM on a device of its
// own (`mxu bench --jobs`): the same rows, cycles and bits as RunSetting's, each row printed (with
// print) once those before it are done; on a terminal, a line of which GEMMs are running.
nlohmann::ordered_json RunSettingInJobs(const BenchRunOptions& options,
                                        const std::vector<BenchShape>& shapes, size_t setting,
                                        const MemoryTiming& timing, size_t jobs, bool print = true);

}  // namespace mxu::host

#endif  // MXU_HOST_BENCH_BENCH_RUN_H_
