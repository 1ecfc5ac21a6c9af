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

// The bytes of one element of each matrix in host memory, as the driver lays them out.
struct GemmElementBytes {
  uint64_t a, b, c;  // C0 and the bias are 4 (fp32 or int32)
};
// bf16 operands; fp32 C, or bf16 C (out_bf16).
inline GemmElementBytes Bf16ElementBytes(bool bf16_out) { return {2, 2, bf16_out ? 2u : 4u}; }
// int8 operands; int32 C, or int8 C requantized (int8_out).
inline GemmElementBytes Int8ElementBytes(bool int8_out) { return {1, 1, int8_out ? 1u : 4u}; }

// What an m x k x n GEMM holds in host memory: A, B, C, C0 when it accumulates, and a bias's or
// quantization's N words.
inline uint64_t GemmProblemBytes(uint64_t m, uint64_t k, uint64_t n, const GemmElementBytes& bytes,
                                 bool accumulate) {
  return bytes.a * m * k + bytes.b * k * n + bytes.c * m * n + (accumulate ? 4 * m * n : 0) + 4 * n;
}

// "" when an m x k x n GEMM fits kMaxProblemBytes, else the one-line reason.
inline std::string GemmSizeProblem(uint64_t m, uint64_t k, uint64_t n,
                                   const GemmElementBytes& bytes, bool accumulate) {
  const uint64_t a = bytes.a * m * k, b = bytes.b * k * n, c = bytes.c * m * n;
  const uint64_t total = GemmProblemBytes(m, k, n, bytes, accumulate);
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

// The bf16 mode's.
inline std::string GemmSizeProblem(uint64_t m, uint64_t k, uint64_t n, bool bf16_out,
                                   bool accumulate) {
  return GemmSizeProblem(m, k, n, Bf16ElementBytes(bf16_out), accumulate);
}

}  // namespace mxu::driver

#endif  // MXU_DRIVER_GEMM_LIMITS_H_
