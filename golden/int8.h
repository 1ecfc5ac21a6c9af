// The matrix unit's integer mode as docs/numerics.md ("The integer mode") defines it, in the
// host's own integer arithmetic: the int8 x int8 -> int32 GEMM and the requantization of an int32
// accumulator to int8. This is the reference the device is checked against, so it shares no code
// with the RTL path and uses only int64 (the rule's bounds make wider arithmetic unnecessary).
#ifndef MXU_GOLDEN_INT8_H_
#define MXU_GOLDEN_INT8_H_

#include <cstdint>
#include <vector>

namespace mxu::golden {

// C = A x B in int32, row-major M x N. `a` is stored M x K row-major (K x M if trans_a), `b` is
// stored K x N (N x K if trans_b). The product sum is formed in int64 and must lie in int32 (it
// does for any K <= 65,535; the check is on the value, so a larger K throws only when the sum
// would really overflow, never silently). The start value, bias[n] (N values) or c0 (M x N),
// at most one of them, is then added modulo 2^32, as the device's two's-complement adder does.
// Throws std::invalid_argument for negative or mismatched sizes, both bias and c0, or a product
// sum outside int32.
std::vector<int32_t> Int8Gemm(const std::vector<int8_t>& a, const std::vector<int8_t>& b, int m,
                              int k, int n, bool trans_a, bool trans_b,
                              const std::vector<int32_t>* bias, const std::vector<int32_t>* c0);

// One lane of ACTIVATE with `integer`: x = acc + bias (exact), p = x * m with m = quant_word
// bits 31:8 and s = bits 5:0 (bits 7:6 ignored), r = p / 2^s rounded half away from zero,
// y = clamp(r + zero_point, relu ? zero_point : -128, 127). Throws std::invalid_argument for a
// zero point outside int8.
int8_t Requantize(int32_t acc, int32_t bias, uint32_t quant_word, int zero_point, bool relu);

// Requantize over a row-major M x N accumulator matrix: column j uses bias[j] (0 when bias is
// null) and quant_words[j]. Throws std::invalid_argument for mismatched sizes.
std::vector<int8_t> RequantizeMatrix(const std::vector<int32_t>& acc, int m, int n,
                                     const std::vector<int32_t>* bias,
                                     const std::vector<uint32_t>& quant_words, int zero_point,
                                     bool relu);

// A real scale as the device applies it: multiplier / 2^shift.
struct QuantMultiplier {
  uint32_t multiplier = 0;  // < 2^24
  int shift = 0;            // 0 .. 63
  // The quantization word: multiplier << 8 | shift.
  uint32_t word() const;
  // multiplier / 2^shift, exactly (a double holds 24 bits).
  double scale() const;
};

// The nearest multiplier / 2^shift to a positive finite `scale`, with multiplier in
// [2^23, 2^24) (24 significant bits) rounded to nearest, ties away from zero; a multiplier that
// rounds up to 2^24 becomes 2^23 with shift - 1. Scales below 2^-40 (shift would exceed 63) are
// not refused: the shift stays 63 and the multiplier is denormalized, round(scale * 2^63), down
// to possibly 0. That is harmless: |acc + bias| <= 2^32, so any such scale yields
// |p / 2^63| <= 2^-8 and r = 0, as the exact real product |x * scale| < 2^-8 rounds to.
// Throws std::invalid_argument naming the value for a scale that is NaN, infinite, <= 0, or too
// large (>= 2^24 - 0.5, where the shift would be negative).
QuantMultiplier QuantizeMultiplier(double scale);

// The tools' real -> int8 quantization: x / scale (computed in double, where the quotient of two
// floats is correctly rounded) rounded half away from zero, plus zero_point, saturated to int8.
// Throws std::invalid_argument for a NaN x, a scale that is not positive and finite, or a zero
// point outside int8.
int8_t QuantizeValue(float x, float scale, int zero_point);

}  // namespace mxu::golden

#endif  // MXU_GOLDEN_INT8_H_
