// What `mxu bench` runs: its GEMM shapes, from the built-in table (square GEMMs, 64x784x128 and
// its permutations, the int8 mode, the GEMMs of two training steps) or --shape, and its host-memory
// settings (--mem).
#ifndef MXU_HOST_BENCH_BENCH_TABLE_H_
#define MXU_HOST_BENCH_BENCH_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/memory_timing.h"

namespace mxu::host {

// --quick keeps the shapes with M * K * N at most this.
inline constexpr uint64_t kQuickMacs = uint64_t{1} << 21;

struct BenchShape {
  std::string name;
  int m = 0, k = 0, n = 0;
  bool ta = false, tb = false;
  bool bias = false, relu = false;  // the training loop's forward GEMMs: bias (and ReLU)
  bool int8 = false;                // the int8 mode: int8 operands, int32 output
  uint64_t macs() const { return uint64_t(m) * k * n; }
};

// "40x24x56:ta:tb": the --shape syntax.
std::string ShapeText(const BenchShape& s);

// "MxKxN[:ta][:tb][:int8]"; every dimension in [1, 65535], A, B and C within the size limit
// (driver/gemm_limits.h, as for `mxu gemm`). Throws UsageError naming the --shape.
BenchShape ParseShape(const std::string& text);

// "LATENCY:BYTES_PER_CYCLE:IN_FLIGHT", each in the range of --mem-latency,
// --mem-bytes-per-cycle and --mem-in-flight. Throws UsageError naming the --mem.
MemoryTiming ParseMem(const std::string& text);

// The table the bench runs without --shape or --topology.
std::vector<BenchShape> BuiltInTable();

}  // namespace mxu::host

#endif  // MXU_HOST_BENCH_BENCH_TABLE_H_
