// The size limits of one GEMM, the same for `mxu gemm` and the Python module (python/), checked
// from the shapes before any operand is converted or allocated.
#ifndef MXU_DRIVER_GEMM_LIMITS_H_
#define MXU_DRIVER_GEMM_LIMITS_H_

#include <cstdint>
#include <cstdio>
#include <string>

namespace mxu::driver {

inline constexpr uint64_t kMaxDimension = 65535;
// The operands and the result together: half the device's 4 GiB of host memory, the rest left
// for the tiles' padding and the program.
inline constexpr uint64_t kMaxProblemBytes = uint64_t{2} << 30;

// "" when an m x k x n GEMM fits kMaxProblemBytes, else the one-line reason.
inline std::string GemmSizeProblem(uint64_t m, uint64_t k, uint64_t n, bool bf16_out,
                                   bool accumulate) {
  const uint64_t a = 2 * m * k, b = 2 * k * n, c = (bf16_out ? 2 : 4) * m * n;
  const uint64_t total = a + b + c + (accumulate ? 4 * m * n : 0) + 4 * n;
  if (total <= kMaxProblemBytes) return "";
  const auto gib = [](uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GiB", bytes / double(uint64_t{1} << 30));
    return std::string(text);
  };
  return "a " + std::to_string(m) + " x " + std::to_string(k) + " x " + std::to_string(n) +
         " GEMM needs " + gib(total) + " for A, B and C (A " + gib(a) + ", B " + gib(b) + ", C " +
         gib(c) + "); the limit is " + gib(kMaxProblemBytes) + ", half the device's host memory";
}

}  // namespace mxu::driver

#endif  // MXU_DRIVER_GEMM_LIMITS_H_
