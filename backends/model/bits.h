// Internal to the model backend: the bit-level views of the datapath's words that several engines
// share (fp32 accumulator words, int8 operands in 16-bit lanes).
#ifndef MXU_BACKENDS_MODEL_BITS_H_
#define MXU_BACKENDS_MODEL_BITS_H_

#include <cstdint>
#include <cstring>

namespace mxu::backends::model {

constexpr uint32_t kNan = 0x7FC00000u;  // the canonical NaN the RTL writes

inline float F(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline uint32_t U(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline bool IsNan(uint32_t b) { return (b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu) != 0; }
inline uint32_t Canon(float f) { return f != f ? kNan : U(f); }
// ReLU as the RTL applies it to raw fp32 bits: NaN -> canonical NaN, sign set -> +0.
inline uint32_t ReluBits(uint32_t b) { return IsNan(b) ? kNan : ((b >> 31) ? 0u : b); }

// An int8 host byte as the DMA writes it into a 16-bit lane: sign-extended.
inline uint16_t Int8Lane(uint8_t byte) {
  return static_cast<uint16_t>(static_cast<int16_t>(static_cast<int8_t>(byte)));
}
// The int8 operand the PE takes from a 16-bit lane (UB or weight): its low byte.
inline int32_t LaneInt8(uint16_t lane) {
  return static_cast<int8_t>(static_cast<uint8_t>(lane & 0xFF));
}

}  // namespace mxu::backends::model

#endif  // MXU_BACKENDS_MODEL_BITS_H_
