// What `mxu gemm` and `mxu bench` make of a GEMM's result: every output checked against the
// golden model (--check), and the device's counters as JSON.
#ifndef MXU_HOST_GEMM_GEMM_RESULT_H_
#define MXU_HOST_GEMM_GEMM_RESULT_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "driver/device_config.h"
#include "driver/gemm.h"

namespace mxu::host {

struct GoldenCheck {
  size_t compared = 0, mismatches = 0;
};

// Every output against the golden model: bit for bit (bf16 operands, fp32 or bf16 out), or
// exactly (the int8 mode). The first five mismatches go to stderr, a bf16 one after `label`
// ("" or "NAME: ").
GoldenCheck CheckWithGolden(const driver::GemmRequest& request, const driver::GemmResult& result,
                            const driver::DeviceConfig& config, const std::string& label);

// The run's counters, in this order: array_busy_cycles, device_macs (the MACS counter: every
// PE's slot of each row entering the array), dma_read_bytes, dma_write_bytes,
// instructions, stall_dependency, stall_weights, stall_fetch, stall_memory, buffer_accesses
// (rows of each buffer read and written, by the program's instructions), wall_seconds,
// sim_cycles_per_second (simulated cycles per wall second, 0 for no time).
void AddRunCounters(const driver::GemmResult& result, nlohmann::ordered_json* json);

// Device cycles per wall second of the run (0 for no time).
double SimCyclesPerSecond(const driver::RunStats& stats);

}  // namespace mxu::host

#endif  // MXU_HOST_GEMM_GEMM_RESULT_H_
