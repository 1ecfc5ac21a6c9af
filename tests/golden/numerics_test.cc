// The golden model's own sanity: hand-worked values of the numeric contract (docs/numerics.md),
// so that a broken reference cannot silently agree with a broken RTL.
#include "golden/numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "golden/gemm.h"

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

// The K tiling (issue 58): a partial tile sums exactly its own products from +0, so its result
// does not depend on the rows the array has beyond the tiling. A 1 x K row of ones times a
// K x 1 column: -1.5 x 2^-126 then 2^-126 sum to -0.5 x 2^-126, a subnormal that flush mode
// flushes to -0 (and keeps), whatever the array's rows; -0 products sum to +0 (+0 + -0).
TEST(GoldenNumerics, APartialTileSumsOnlyItsOwnProducts) {
  const auto gemm = [](const std::vector<uint16_t>& column, int array_rows, Subnormals mode,
                       const Fp32Matrix* c0 = nullptr) {
    const int k = static_cast<int>(column.size());
    const Bf16Matrix a{1, k, std::vector<uint16_t>(column.size(), 0x3F80)};
    const Bf16Matrix b{k, 1, column};
    return FloatBits(Gemm(a, b, array_rows, mode, c0).at(0, 0));
  };
  const std::vector<uint16_t> two = {0x80C0, 0x0080};
  for (int rows : {2, 3, 8, 16}) {
    EXPECT_EQ(gemm(two, rows, Subnormals::kFlush), 0x80000000u) << rows;
    EXPECT_EQ(gemm(two, rows, Subnormals::kIeee), 0x80400000u) << rows;  // -2^-127
    EXPECT_EQ(gemm({0x8000, 0x8000}, rows, Subnormals::kFlush), 0u) << rows;
    EXPECT_EQ(gemm({0x8000, 0x8000}, rows, Subnormals::kIeee), 0u) << rows;
  }
  // K = 10 on 8 rows: the full tile sums to -0, the partial one (2 products) to -0 again.
  std::vector<uint16_t> ten;
  for (int i = 0; i < 5; ++i) ten.insert(ten.end(), two.begin(), two.end());
  EXPECT_EQ(gemm(ten, 8, Subnormals::kFlush), 0x80000000u);
  // Onto a -0 C0 (a bias): -0 + -0.
  const Fp32Matrix c0{1, 1, {-0.0f}};
  EXPECT_EQ(gemm(two, 8, Subnormals::kFlush, &c0), 0x80000000u);
  EXPECT_EQ(gemm(ten, 8, Subnormals::kFlush, &c0), 0x80000000u);
  EXPECT_EQ(gemm({0x8000, 0x8000}, 8, Subnormals::kIeee, &c0), 0u);  // -0 + +0
}

}  // namespace
}  // namespace mxu::golden
