#include "golden/float_vectors.h"

#include <algorithm>

namespace mxu::golden {

uint16_t RandomBf16(BitSource& bits) {
  // sign (1) | exponent (8) | significand (7): every field uniform and independent.
  return static_cast<uint16_t>(bits.Next() >> 48);
}

uint32_t RandomFp32(BitSource& bits) { return static_cast<uint32_t>(bits.Next() >> 32); }

uint32_t RandomFp32Near(BitSource& bits, uint32_t near, int max_offset) {
  const int near_exp = static_cast<int>((near >> 23) & 0xFF);
  const int offset = static_cast<int>(bits.Below(2 * max_offset + 1)) - max_offset;
  const int exp = std::clamp(near_exp + offset, 0, 254);
  const uint64_t draw = bits.Next();
  const uint32_t sign = static_cast<uint32_t>(draw >> 63) << 31;
  const uint32_t significand = static_cast<uint32_t>(draw) & 0x7FFFFFu;
  return sign | static_cast<uint32_t>(exp) << 23 | significand;
}

std::vector<uint16_t> SpecialBf16() {
  const uint16_t magnitudes[] = {
      0x0000,  // zero
      0x0001,  // smallest subnormal
      0x007F,  // largest subnormal
      0x0080,  // smallest normal
      0x7F7F,  // largest normal
      0x3F80,  // one
      0x7F80,  // infinity
      0x7FC1,  // quiet NaN (with payload)
      0x7F81,  // signalling NaN
  };
  std::vector<uint16_t> values;
  for (uint16_t m : magnitudes) {
    values.push_back(m);
    values.push_back(static_cast<uint16_t>(m | 0x8000u));
  }
  return values;
}

std::vector<uint32_t> SpecialFp32() {
  const uint32_t magnitudes[] = {
      0x00000000u,  // zero
      0x00000001u,  // smallest subnormal
      0x007FFFFFu,  // largest subnormal
      0x00800000u,  // smallest normal
      0x7F7FFFFFu,  // largest normal
      0x3F800000u,  // one
      0x7F800000u,  // infinity
      0x7FC00001u,  // quiet NaN (with payload)
      0x7F800001u,  // signalling NaN
  };
  std::vector<uint32_t> values;
  for (uint32_t m : magnitudes) {
    values.push_back(m);
    values.push_back(m | 0x80000000u);
  }
  return values;
}

}  // namespace mxu::golden
