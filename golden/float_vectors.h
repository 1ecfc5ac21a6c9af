// Operand generators for arithmetic checks: random bit patterns spread evenly over every sign
// and exponent (zeros, subnormals, infinities and NaNs included), and the special classes.
#ifndef MXU_GOLDEN_FLOAT_VECTORS_H_
#define MXU_GOLDEN_FLOAT_VECTORS_H_

#include <cstdint>
#include <vector>

#include "golden/mersenne_twister.h"

namespace mxu::golden {

// Raw 64-bit draws only: std::*_distribution differs between standard libraries, and a seed must
// reproduce the same vectors everywhere.
class BitSource {
 public:
  explicit BitSource(uint64_t seed) : engine_(seed) {}
  uint64_t Next() { return engine_(); }
  // Uniform in [0, bound) for bound > 0 (rejection sampling, no modulo bias). Inline, so that a
  // constant bound's divisions become multiplications.
  uint64_t Below(uint64_t bound) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t draw;
    do {
      draw = Next();
    } while (draw >= limit);
    return draw % bound;
  }

 private:
  MersenneTwister64 engine_;  // std::mt19937_64's sequence
};

// Uniform sign, uniform exponent field (0..255), uniform significand.
uint16_t RandomBf16(BitSource& bits);
uint32_t RandomFp32(BitSource& bits);
// A finite fp32 whose exponent field is that of `near` plus a uniform offset in
// [-max_offset, max_offset], clamped to 0..254: operands that really interact in an add.
uint32_t RandomFp32Near(BitSource& bits, uint32_t near, int max_offset);

// Both signs of: zero, smallest and largest subnormal, smallest and largest normal, one,
// infinity, a quiet NaN and a signalling NaN.
std::vector<uint16_t> SpecialBf16();
std::vector<uint32_t> SpecialFp32();

}  // namespace mxu::golden

#endif  // MXU_GOLDEN_FLOAT_VECTORS_H_
