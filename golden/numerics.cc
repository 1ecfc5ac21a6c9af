#include "golden/numerics.h"

#include <cmath>
#include <cstring>

#if !defined(__x86_64__) && !defined(__i386__)
#error "The golden model sets FTZ/DAZ through the x86 MXCSR; port ScopedFpMode to this CPU."
#endif
#include <xmmintrin.h>

namespace mxu::golden {
namespace {

constexpr unsigned kMxcsrFlushToZero = 1u << 15;
constexpr unsigned kMxcsrDenormalsAreZero = 1u << 6;

// Keeps the compiler from moving float arithmetic across an MXCSR write: the empty asm
// statements are ordered with the (volatile) ldmxcsr and pin the values to SSE registers.
inline float Pin(float value) {
  asm volatile("" : "+x"(value));
  return value;
}

float Canonical(float value) {
  return std::isnan(value) ? FloatFromBits(kFp32CanonicalNan) : value;
}

}  // namespace

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float FloatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float Relu(float value) {
  if (std::isnan(value)) return FloatFromBits(kFp32CanonicalNan);
  return value > 0.0f ? value : 0.0f;
}

float Bf16ToFloat(uint16_t bf16) { return FloatFromBits(uint32_t{bf16} << 16); }

uint16_t FloatToBf16(float value, Subnormals mode) {
  // The subnormal rule is applied explicitly below; the host arithmetic must not flush anything.
  ScopedFpMode ieee(Subnormals::kIeee);
  if (std::isnan(value)) return kBf16CanonicalNan;
  const uint32_t bits = FloatBits(value);
  if (value == 0.0f || std::isinf(value)) return static_cast<uint16_t>(bits >> 16);
  if (mode == Subnormals::kFlush && std::fpclassify(value) == FP_SUBNORMAL) {
    return static_cast<uint16_t>((bits >> 16) & 0x8000u);
  }
  // Round to a multiple of the bf16 quantum of value's binade with the host's own round to
  // nearest even (nearbyint in the default rounding mode). Every step but nearbyint is exact in
  // double. Subnormal bf16 share the quantum of the lowest normal binade.
  int exponent;
  std::frexp(static_cast<double>(value), &exponent);  // value = m * 2^exponent, m in [0.5, 1)
  const int quantum_exp = (exponent - 1 < -126 ? -126 : exponent - 1) - 7;
  const double rounded =
      std::ldexp(std::nearbyint(std::ldexp(static_cast<double>(value), -quantum_exp)), quantum_exp);
  if (std::fabs(rounded) >= std::ldexp(1.0, 128)) {
    return static_cast<uint16_t>((bits >> 16 & 0x8000u) | 0x7F80u);
  }
  return static_cast<uint16_t>(FloatBits(static_cast<float>(rounded)) >> 16);
}

ScopedFpMode::ScopedFpMode(Subnormals mode) : saved_(_mm_getcsr()) {
  unsigned csr = saved_ & ~(kMxcsrFlushToZero | kMxcsrDenormalsAreZero);
  if (mode == Subnormals::kFlush) csr |= kMxcsrFlushToZero | kMxcsrDenormalsAreZero;
  _mm_setcsr(csr);
}

ScopedFpMode::~ScopedFpMode() { _mm_setcsr(saved_); }

float Bf16MulInCurrentMode(uint16_t a, uint16_t b) {
  return Canonical(Pin(Pin(Bf16ToFloat(a)) * Pin(Bf16ToFloat(b))));
}

float Fp32AddInCurrentMode(float a, float b) { return Canonical(Pin(Pin(a) + Pin(b))); }

float Bf16Mul(uint16_t a, uint16_t b, Subnormals mode) {
  ScopedFpMode fp_mode(mode);
  return Bf16MulInCurrentMode(a, b);
}

float Fp32Add(float a, float b, Subnormals mode) {
  ScopedFpMode fp_mode(mode);
  return Fp32AddInCurrentMode(a, b);
}

}  // namespace mxu::golden
