// The golden model's own sanity: hand-worked values of the numeric contract (docs/numerics.md),
// so that a broken reference cannot silently agree with a broken RTL.
#include "golden/numerics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mxu::golden {
namespace {

uint16_t ToBf16(uint32_t bits, Subnormals mode = Subnormals::kIeee) {
  return FloatToBf16(FloatFromBits(bits), mode);
}

TEST(GoldenNumerics, FloatToBf16RoundsToNearestEven) {
  EXPECT_EQ(ToBf16(0x3F800000u), 0x3F80u);  // 1.0 exact
  EXPECT_EQ(ToBf16(0x3F808000u), 0x3F80u);  // tie, kept part even: down
  EXPECT_EQ(ToBf16(0x3F818000u), 0x3F82u);  // tie, kept part odd: up
  EXPECT_EQ(ToBf16(0x3F807FFFu), 0x3F80u);  // below the tie
  EXPECT_EQ(ToBf16(0x3F808001u), 0x3F81u);  // above the tie
  EXPECT_EQ(ToBf16(0xBF818000u), 0xBF82u);  // sign-magnitude: same for negatives
  EXPECT_EQ(ToBf16(0x3FFF8000u), 0x4000u);  // carry into the exponent
}

TEST(GoldenNumerics, FloatToBf16Extremes) {
  EXPECT_EQ(ToBf16(0x7F7F7FFFu), 0x7F7Fu);  // largest bf16
  EXPECT_EQ(ToBf16(0x7F7F8000u), 0x7F80u);  // tie at the top rounds to Inf
  EXPECT_EQ(ToBf16(0xFF7FFFFFu), 0xFF80u);
  EXPECT_EQ(ToBf16(0x7F800000u), 0x7F80u);
  EXPECT_EQ(ToBf16(0x7F800001u), kBf16CanonicalNan);  // sNaN with a low payload is still NaN
  EXPECT_EQ(ToBf16(0xFFC12345u), kBf16CanonicalNan);
  EXPECT_EQ(ToBf16(0x00008000u), 0x0000u);  // half the smallest bf16 subnormal: tie to even
  EXPECT_EQ(ToBf16(0x00018000u), 0x0002u);
  EXPECT_EQ(ToBf16(0x007FFFFFu), 0x0080u);  // largest fp32 subnormal rounds to min normal
  EXPECT_EQ(ToBf16(0x807F0000u, Subnormals::kFlush), 0x8000u);
  EXPECT_EQ(ToBf16(0x00800000u, Subnormals::kFlush), 0x0080u);
}

TEST(GoldenNumerics, MulIsExactThenRoundedOnce) {
  EXPECT_EQ(FloatBits(Bf16Mul(0x3FC0, 0x3FC0, Subnormals::kIeee)), 0x40100000u);  // 1.5^2
  // 2^-100 * 2^-40 = 2^-140: an fp32 subnormal, kept in IEEE mode, flushed in flush mode.
  EXPECT_EQ(FloatBits(Bf16Mul(0x0D80, 0x2B80, Subnormals::kIeee)), 0x00000200u);
  EXPECT_EQ(FloatBits(Bf16Mul(0x0D80, 0xAB80, Subnormals::kFlush)), 0x80000000u);
  // A bf16 subnormal operand reads as zero in flush mode.
  EXPECT_EQ(FloatBits(Bf16Mul(0x0001, 0x3F80, Subnormals::kIeee)), 0x00010000u);
  EXPECT_EQ(FloatBits(Bf16Mul(0x0001, 0x3F80, Subnormals::kFlush)), 0x00000000u);
  EXPECT_EQ(FloatBits(Bf16Mul(0x7F80, 0x0000, Subnormals::kIeee)), kFp32CanonicalNan);
  EXPECT_EQ(FloatBits(Bf16Mul(0x7F7F, 0x7F7F, Subnormals::kIeee)), 0x7F800000u);
}

TEST(GoldenNumerics, AddFollowsTheHostAndCanonicalizesNan) {
  EXPECT_EQ(FloatBits(Fp32Add(1.0f, FloatFromBits(0x33800000u), Subnormals::kIeee)),
            0x3F800000u);  // 1 + 2^-24: tie, even stays
  EXPECT_EQ(
      FloatBits(Fp32Add(FloatFromBits(0x3F800001u), FloatFromBits(0x33800000u), Subnormals::kIeee)),
      0x3F800002u);  // odd rounds up
  EXPECT_EQ(FloatBits(Fp32Add(-0.0f, -0.0f, Subnormals::kIeee)), 0x80000000u);
  EXPECT_EQ(FloatBits(Fp32Add(-0.0f, 0.0f, Subnormals::kIeee)), 0x00000000u);
  EXPECT_EQ(FloatBits(Fp32Add(INFINITY, -INFINITY, Subnormals::kIeee)), kFp32CanonicalNan);
  // 1.5 * 2^-126 - 2^-126 = 2^-127: subnormal, flushed to +0 in flush mode.
  const float a = FloatFromBits(0x00C00000u), b = FloatFromBits(0x80800000u);
  EXPECT_EQ(FloatBits(Fp32Add(a, b, Subnormals::kIeee)), 0x00400000u);
  EXPECT_EQ(FloatBits(Fp32Add(a, b, Subnormals::kFlush)), 0x00000000u);
}

TEST(GoldenNumerics, ReluKeepsPositivesAndNanZeroesTheRest) {
  EXPECT_EQ(FloatBits(Relu(1.5f)), FloatBits(1.5f));
  EXPECT_EQ(FloatBits(Relu(-2.0f)), 0u);
  EXPECT_EQ(FloatBits(Relu(-0.0f)), 0u);  // -0 leaves as +0
  EXPECT_EQ(FloatBits(Relu(FloatFromBits(0xFFC12345u))), kFp32CanonicalNan);
  EXPECT_EQ(FloatBits(Relu(FloatFromBits(0x00000001u))), 1u);  // smallest subnormal stays
}

TEST(GoldenNumerics, ScopedFpModeRestoresTheEnvironment) {
  const float tiny = FloatFromBits(0x00000001u);
  {
    ScopedFpMode flush(Subnormals::kFlush);
    EXPECT_EQ(FloatBits(Fp32AddInCurrentMode(tiny, tiny)), 0u);
  }
  EXPECT_EQ(FloatBits(Fp32AddInCurrentMode(tiny, tiny)), 0x00000002u);
}

}  // namespace
}  // namespace mxu::golden
