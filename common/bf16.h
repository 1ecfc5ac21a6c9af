// Host-side bf16 conversions for the driver and tools (the device does its own on chip):
// widening is exact; narrowing rounds to nearest even, overflows to Inf, and turns every NaN into
// the canonical 0x7FC0 (docs/numerics.md).
#ifndef MXU_COMMON_BF16_H_
#define MXU_COMMON_BF16_H_

#include <cstdint>
#include <cstring>

#include "common/subnormals.h"

namespace mxu {

inline float Bf16ToFloat(uint16_t bits) {
  const uint32_t wide = uint32_t{bits} << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

// Branch-free, so that a loop over an array vectorizes (the training library rounds every
// operand of every step: issue 68).
inline uint16_t FloatToBf16(float value, Subnormals mode = Subnormals::kIeee) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const uint32_t exponent = bits & 0x7F800000u;
  const bool nan = exponent == 0x7F800000u && (bits & 0x007FFFFFu) != 0;
  const bool flush = mode == Subnormals::kFlush && exponent == 0;
  // Adding 0x7FFF plus the kept LSB rounds to nearest, ties to even; a carry into the exponent
  // is exactly the rounded value (up to Inf).
  uint32_t out = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
  out = flush ? (bits >> 16) & 0x8000u : out;
  return static_cast<uint16_t>(nan ? 0x7FC0u : out);
}

}  // namespace mxu

#endif  // MXU_COMMON_BF16_H_
