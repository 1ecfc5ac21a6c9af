// The numeric contract (docs/numerics.md) computed with the host CPU's own IEEE-754 arithmetic.
// This is the root of trust of every bit-exact check: it shares no code with the RTL path.
#ifndef MXU_GOLDEN_NUMERICS_H_
#define MXU_GOLDEN_NUMERICS_H_

#include <cstdint>

#include "common/subnormals.h"

namespace mxu::golden {

constexpr uint32_t kFp32CanonicalNan = 0x7FC00000u;
constexpr uint16_t kBf16CanonicalNan = 0x7FC0u;

uint32_t FloatBits(float value);
float FloatFromBits(uint32_t bits);

// bf16 is the top half of a binary32: widening is exact.
float Bf16ToFloat(uint16_t bf16);

// fp32 -> bf16, round to nearest even, overflow to Inf, NaN to 0x7FC0. In flush mode a
// subnormal input reads as signed zero.
uint16_t FloatToBf16(float value, Subnormals mode);

// ReLU as the activation unit and STORE apply it: x for x > 0, NaN stays (canonical) NaN, +0
// otherwise (-0 included).
float Relu(float value);

// bf16 x bf16 formed exactly and rounded once to fp32 by the host's multiply.
float Bf16Mul(uint16_t a, uint16_t b, Subnormals mode);

// binary32 addition by the host's add.
float Fp32Add(float a, float b, Subnormals mode);

// Sets the host's flush-to-zero and denormals-are-zero modes for its lifetime (kFlush), or
// makes sure they are clear (kIeee); restores the previous state on destruction.
class ScopedFpMode {
 public:
  explicit ScopedFpMode(Subnormals mode);
  ~ScopedFpMode();
  ScopedFpMode(const ScopedFpMode&) = delete;
  ScopedFpMode& operator=(const ScopedFpMode&) = delete;

 private:
  unsigned saved_;
};

// The same operations in whatever mode a ScopedFpMode has set (fast loops over many vectors).
float Bf16MulInCurrentMode(uint16_t a, uint16_t b);
float Fp32AddInCurrentMode(float a, float b);

}  // namespace mxu::golden

#endif  // MXU_GOLDEN_NUMERICS_H_
