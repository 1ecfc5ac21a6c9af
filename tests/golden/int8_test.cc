// The integer-mode reference itself (docs/numerics.md, "The integer mode") against hand-worked
// values and an independent long double computation, so that a broken reference cannot silently
// agree with a broken RTL. Integer results are compared exactly.
#include "golden/int8.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

namespace mxu::golden {
namespace {

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();

uint32_t Word(uint32_t m, uint32_t s) { return m << 8 | s; }

// The std::invalid_argument message of `f`, or "" when it does not throw one.
template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// A = [[1, -2, 3], [4, 5, -6]], B = [[7, -8], [9, 10], [-11, 12]]: C = [[-44, 8], [139, -54]].
const std::vector<int8_t> kA = {1, -2, 3, 4, 5, -6};
const std::vector<int8_t> kAt = {1, 4, -2, 5, 3, -6};  // A stored transposed (K x M)
const std::vector<int8_t> kB = {7, -8, 9, 10, -11, 12};
const std::vector<int8_t> kBt = {7, 9, -11, -8, 10, 12};  // B stored transposed (N x K)
const std::vector<int32_t> kC = {-44, 8, 139, -54};

TEST(GoldenInt8, GemmHandWorked) {
  EXPECT_EQ(Int8Gemm(kA, kB, 2, 3, 2, false, false, nullptr, nullptr), kC);
  EXPECT_EQ(Int8Gemm(kAt, kB, 2, 3, 2, true, false, nullptr, nullptr), kC);
  EXPECT_EQ(Int8Gemm(kA, kBt, 2, 3, 2, false, true, nullptr, nullptr), kC);
  EXPECT_EQ(Int8Gemm(kAt, kBt, 2, 3, 2, true, true, nullptr, nullptr), kC);
  const std::vector<int32_t> bias = {100, -100};
  EXPECT_EQ(Int8Gemm(kA, kB, 2, 3, 2, false, false, &bias, nullptr),
            (std::vector<int32_t>{56, -92, 239, -154}));
  const std::vector<int32_t> c0 = {1, 2, 3, 4};
  EXPECT_EQ(Int8Gemm(kAt, kBt, 2, 3, 2, true, true, nullptr, &c0),
            (std::vector<int32_t>{-43, 10, 142, -50}));
  // A non-square transposed A (M = 3, K = 2) catches a stride taken from the wrong dimension.
  const std::vector<int8_t> at = {1, 2, 3, 4, 5, 6};  // A = [[1, 4], [2, 5], [3, 6]]
  const std::vector<int8_t> b = {1, 2};               // B = [[1], [2]]
  EXPECT_EQ(Int8Gemm(at, b, 3, 2, 1, true, false, nullptr, nullptr),
            (std::vector<int32_t>{9, 12, 15}));
  EXPECT_EQ(Int8Gemm({}, {}, 2, 0, 2, false, false, nullptr, nullptr),
            (std::vector<int32_t>{0, 0, 0, 0}));
}

TEST(GoldenInt8, GemmOperandExtremes) {
  EXPECT_EQ(Int8Gemm({-128}, {-128}, 1, 1, 1, false, false, nullptr, nullptr),
            (std::vector<int32_t>{16384}));
  EXPECT_EQ(Int8Gemm({-128}, {127}, 1, 1, 1, false, false, nullptr, nullptr),
            (std::vector<int32_t>{-16256}));
}

TEST(GoldenInt8, GemmStartWrapsModulo2To32) {
  const std::vector<int32_t> c0_max = {kMax32};
  EXPECT_EQ(Int8Gemm({1}, {1}, 1, 1, 1, false, false, nullptr, &c0_max),
            (std::vector<int32_t>{kMin32}));
  const std::vector<int32_t> bias_min = {kMin32};
  EXPECT_EQ(Int8Gemm({-1}, {1}, 1, 1, 1, false, false, &bias_min, nullptr),
            (std::vector<int32_t>{kMax32}));
  const std::vector<int32_t> just_fits = {kMax32 - 16384};
  EXPECT_EQ(Int8Gemm({-128}, {-128}, 1, 1, 1, false, false, nullptr, &just_fits),
            (std::vector<int32_t>{kMax32}));
  const std::vector<int32_t> one_over = {kMax32 - 16383};
  EXPECT_EQ(Int8Gemm({-128}, {-128}, 1, 1, 1, false, false, &one_over, nullptr),
            (std::vector<int32_t>{kMin32}));
}

TEST(GoldenInt8, GemmProductSumMustFitInt32) {
  // 131,071 x 16,384 = 2^31 - 16,384 fits; one more product reaches 2^31.
  EXPECT_EQ(Int8Gemm(std::vector<int8_t>(131071, -128), std::vector<int8_t>(131071, -128), 1,
                     131071, 1, false, false, nullptr, nullptr),
            (std::vector<int32_t>{2147467264}));
  EXPECT_NE(ErrorOf([] {
              Int8Gemm(std::vector<int8_t>(131072, -128), std::vector<int8_t>(131072, -128), 1,
                       131072, 1, false, false, nullptr, nullptr);
            }).find("2147483648"),
            std::string::npos);
  // Negative side: 132,104 x -16,256 >= -2^31, 132,105 x -16,256 < -2^31.
  EXPECT_EQ(Int8Gemm(std::vector<int8_t>(132104, -128), std::vector<int8_t>(132104, 127), 1, 132104,
                     1, false, false, nullptr, nullptr),
            (std::vector<int32_t>{-2147482624}));
  EXPECT_NE(ErrorOf([] {
              Int8Gemm(std::vector<int8_t>(132105, -128), std::vector<int8_t>(132105, 127), 1,
                       132105, 1, false, false, nullptr, nullptr);
            }),
            "");
  // K > 65,535 itself is not refused here (that is the driver's rule); the value is checked.
  EXPECT_EQ(Int8Gemm(std::vector<int8_t>(70000, 1), std::vector<int8_t>(70000, 1), 1, 70000, 1,
                     false, false, nullptr, nullptr),
            (std::vector<int32_t>{70000}));
}

TEST(GoldenInt8, GemmRefusesBadShapes) {
  const std::vector<int32_t> bias2 = {0, 0}, bias3 = {0, 0, 0}, c0 = {0, 0, 0, 0};
  EXPECT_NE(ErrorOf([&] { Int8Gemm(kA, kB, 2, 2, 2, false, false, nullptr, nullptr); }), "");
  EXPECT_NE(ErrorOf([&] { Int8Gemm(kA, kB, 3, 2, 2, false, false, nullptr, nullptr); }), "");
  EXPECT_NE(ErrorOf([&] { Int8Gemm(kA, kB, 2, 3, 3, false, false, nullptr, nullptr); }), "");
  EXPECT_NE(ErrorOf([&] { Int8Gemm(kA, kB, -2, -3, 2, false, false, nullptr, nullptr); }), "");
  EXPECT_NE(ErrorOf([&] { Int8Gemm(kA, kB, 2, 3, 2, false, false, &bias3, nullptr); }), "");
  EXPECT_NE(ErrorOf([&] { Int8Gemm(kA, kB, 2, 3, 2, false, false, nullptr, &bias3); }), "");
  EXPECT_NE(ErrorOf([&] { Int8Gemm(kA, kB, 2, 3, 2, false, false, &bias2, &c0); }), "");
  EXPECT_EQ(ErrorOf([&] { Int8Gemm(kA, kB, 2, 3, 2, false, false, &bias2, nullptr); }), "");
}

TEST(GoldenInt8, RequantizeRoundsHalfAwayFromZero) {
  EXPECT_EQ(Requantize(3, 0, Word(1, 1), 0, false), 2);    // 1.5
  EXPECT_EQ(Requantize(-3, 0, Word(1, 1), 0, false), -2);  // -1.5
  EXPECT_EQ(Requantize(-1, 0, Word(1, 1), 0, false), -1);  // -0.5
  EXPECT_EQ(Requantize(1, 0, Word(1, 1), 0, false), 1);    // 0.5
  EXPECT_EQ(Requantize(5, 0, Word(1, 1), 0, false), 3);    // 2.5: not to even
  EXPECT_EQ(Requantize(-5, 0, Word(1, 1), 0, false), -3);  // -2.5
  EXPECT_EQ(Requantize(5, 0, Word(1, 2), 0, false), 1);    // 1.25
  EXPECT_EQ(Requantize(-5, 0, Word(1, 2), 0, false), -1);  // -1.25
  EXPECT_EQ(Requantize(7, 0, Word(1, 2), 0, false), 2);    // 1.75
  EXPECT_EQ(Requantize(-7, 0, Word(1, 2), 0, false), -2);  // -1.75
  EXPECT_EQ(Requantize(-1, 0, Word(1, 2), 0, false), 0);   // -0.25
  EXPECT_EQ(Requantize(-3, 0, Word(3, 2), 0, false), -2);  // -9 / 4 = -2.25
  EXPECT_EQ(Requantize(-3, 0, Word(5, 3), 0, false), -2);  // -15 / 8 = -1.875
  EXPECT_EQ(Requantize(11, -1, Word(3, 2), 0, false), 8);  // 30 / 4 = 7.5
}

TEST(GoldenInt8, RequantizeShiftZeroBiasAndZeroPoint) {
  EXPECT_EQ(Requantize(3, 4, Word(5, 0), 0, false), 35);
  EXPECT_EQ(Requantize(3, 4, Word(5, 0), -10, false), 25);
  EXPECT_EQ(Requantize(100, -200, Word(1, 0), 0, false), -100);
  EXPECT_EQ(Requantize(100, -200, Word(0, 0), 7, false), 7);  // m = 0: everything to z
  // Bits 7:6 of the word are not part of the shift.
  EXPECT_EQ(Requantize(3, 0, Word(1, 1) | 0xC0u, 0, false), 2);
  EXPECT_EQ(Requantize(3, 0, Word(1, 0) | 0x40u, 0, false), 3);
}

TEST(GoldenInt8, RequantizeReluClampsAtTheZeroPoint) {
  EXPECT_EQ(Requantize(-10, 0, Word(1, 0), 5, true), 5);
  EXPECT_EQ(Requantize(-10, 0, Word(1, 0), 5, false), -5);
  EXPECT_EQ(Requantize(10, 0, Word(1, 0), 5, true), 15);
  EXPECT_EQ(Requantize(-10, 0, Word(1, 0), -20, true), -20);
  EXPECT_EQ(Requantize(-1000, 0, Word(1, 0), -128, true), -128);
  EXPECT_EQ(Requantize(-1, 0, Word(1, 1), 3, true), 3);  // r = -1 -> 2, clamped to z = 3
  EXPECT_EQ(Requantize(1000, 0, Word(1, 0), 100, true), 127);
}

TEST(GoldenInt8, RequantizeSaturates) {
  EXPECT_EQ(Requantize(1000, 0, Word(1, 0), 0, false), 127);
  EXPECT_EQ(Requantize(-1000, 0, Word(1, 0), 0, false), -128);
  EXPECT_EQ(Requantize(120, 0, Word(1, 0), 10, false), 127);
  EXPECT_EQ(Requantize(-120, 0, Word(1, 0), -10, false), -128);
  EXPECT_EQ(Requantize(127, 0, Word(1, 0), 0, false), 127);
  EXPECT_EQ(Requantize(-128, 0, Word(1, 0), 0, false), -128);
  // The largest |p| (~2^56) at s = 0 must saturate, not wrap.
  EXPECT_EQ(Requantize(kMax32, kMax32, Word(0xFFFFFF, 0), 0, false), 127);
  EXPECT_EQ(Requantize(kMin32, kMin32, Word(0xFFFFFF, 0), 0, false), -128);
}

TEST(GoldenInt8, RequantizeLargeShifts) {
  // x = -2^32, m = 2^24 - 1: p = -(2^56 - 2^32).
  EXPECT_EQ(Requantize(kMin32, kMin32, Word(0xFFFFFF, 55), 0, false), -2);  // -(2 - 2^-23)
  EXPECT_EQ(Requantize(kMin32, kMin32, Word(0xFFFFFF, 56), 0, false), -1);  // -(1 - 2^-24)
  EXPECT_EQ(Requantize(kMin32, kMin32, Word(0xFFFFFF, 57), 0, false), 0);   // -(0.5 - 2^-25)
  EXPECT_EQ(Requantize(kMin32, kMin32, Word(0xFFFFFF, 63), 0, false), 0);
  // x = -2^32, m = 2^23: p = -2^55, an exact tie at s = 56.
  EXPECT_EQ(Requantize(kMin32, kMin32, Word(0x800000, 56), 0, false), -1);
  EXPECT_EQ(Requantize(kMin32, kMin32, Word(0x800000, 57), 0, false), 0);
  // x = 2^32 - 2, m = 2^24 - 1.
  EXPECT_EQ(Requantize(kMax32, kMax32, Word(0xFFFFFF, 56), 0, false), 1);
  EXPECT_EQ(Requantize(kMax32, kMax32, Word(0xFFFFFF, 57), 0, false), 0);
}

TEST(GoldenInt8, RequantizeRefusesAZeroPointOutsideInt8) {
  EXPECT_NE(ErrorOf([] { Requantize(0, 0, Word(1, 0), 128, false); }), "");
  EXPECT_NE(ErrorOf([] { Requantize(0, 0, Word(1, 0), -129, false); }), "");
  EXPECT_EQ(ErrorOf([] { Requantize(0, 0, Word(1, 0), -128, false); }), "");
}

// The rule computed independently: x * m / 2^s in long double, exact because |x * m| < 2^57
// fits the 64-bit significand, rounded half away from zero by std::round.
int ReferenceRequantize(int32_t acc, int32_t bias, uint32_t word, int z, bool relu) {
  const long double x = static_cast<long double>(acc) + static_cast<long double>(bias);
  const long double q =
      std::ldexp(x * static_cast<long double>(word >> 8), -static_cast<int>(word & 63));
  long double y = std::round(q) + z;
  if (y < (relu ? z : -128)) y = relu ? z : -128;
  if (y > 127) y = 127;
  return static_cast<int>(y);
}

TEST(GoldenInt8, RequantizeMatchesLongDoubleOnRandomLanes) {
  static_assert(std::numeric_limits<long double>::digits >= 58, "the reference needs it exact");
  std::mt19937_64 rng(20240611);
  auto bits = [&rng] { return static_cast<uint32_t>(rng()); };
  auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int ties = 0, inside = 0, relu_clamped = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    int32_t acc = static_cast<int32_t>(bits()), bias = static_cast<int32_t>(bits());
    uint32_t word = bits();  // bits 7:6 random too
    const int z = uniform(-128, 127);
    const bool relu = rng() & 1;
    switch (i % 3) {
      case 0:  // anything
        break;
      case 1: {  // a shift that lands |r| near the int8 range
        if (i % 2) bias = 0;
        const long double xm = std::fabs(static_cast<long double>(acc) + bias) * (word >> 8);
        const int s = xm == 0 ? 0 : std::ilogb(xm) - 7 + uniform(-2, 3);
        word = (word & ~63u) | static_cast<uint32_t>(s < 0 ? 0 : s > 63 ? 63 : s);
        break;
      }
      case 2: {  // an exact tie: x * m = (j + 1/2) * 2^s
        const int s = uniform(1, 23), t = uniform(0, 23);
        acc = uniform(-200, 200) * (1 << s) + (1 << (s - 1));
        bias = 0;
        word = Word(1u << t, s + t);
        ++ties;
        break;
      }
    }
    const int want = ReferenceRequantize(acc, bias, word, z, relu);
    ASSERT_EQ(Requantize(acc, bias, word, z, relu), want)
        << "acc " << acc << " bias " << bias << " word " << word << " z " << z << " relu " << relu;
    inside += want > -128 && want < 127 && want != z;
    relu_clamped += relu && want == z;
  }
  // The generator must reach the cases that matter, or the comparison proves little.
  EXPECT_GT(ties, 300'000);
  EXPECT_GT(inside, 250'000);
  EXPECT_GT(relu_clamped, 200'000);
}

TEST(GoldenInt8, RequantizeMatrixUsesEachColumnsWordAndBias) {
  const std::vector<int32_t> acc = {3, 10, -3, -10};
  const std::vector<int32_t> bias = {0, 5};
  const std::vector<uint32_t> words = {Word(1, 1), Word(3, 0)};
  EXPECT_EQ(RequantizeMatrix(acc, 2, 2, &bias, words, 1, false),
            (std::vector<int8_t>{3, 46, -1, -14}));  // 2+1, 45+1, -2+1, -15+1
  EXPECT_EQ(RequantizeMatrix(acc, 2, 2, nullptr, words, 1, true),
            (std::vector<int8_t>{3, 31, 1, 1}));
  EXPECT_NE(ErrorOf([&] { RequantizeMatrix(acc, 2, 1, &bias, words, 0, false); }), "");
  EXPECT_NE(ErrorOf([&] { RequantizeMatrix(acc, 1, 4, &bias, words, 0, false); }), "");
  EXPECT_NE(ErrorOf([&] { RequantizeMatrix(acc, 2, 2, &bias, {Word(1, 0)}, 0, false); }), "");
  EXPECT_NE(ErrorOf([&] { RequantizeMatrix(acc, 2, 2, &bias, words, 200, false); }), "");
}

void ExpectMultiplier(double scale, uint32_t m, int s) {
  const QuantMultiplier q = QuantizeMultiplier(scale);
  EXPECT_EQ(q.multiplier, m) << scale;
  EXPECT_EQ(q.shift, s) << scale;
}

TEST(GoldenInt8, QuantizeMultiplierHandWorked) {
  ExpectMultiplier(0.5, 1u << 23, 24);
  ExpectMultiplier(1.0, 1u << 23, 23);
  ExpectMultiplier(0.75, 0xC00000, 24);
  ExpectMultiplier(3.7e-5, 10170483, 38);  // 3.7e-5 * 2^38 = 10170482.56
  ExpectMultiplier(16777215.0, 0xFFFFFF, 0);
  ExpectMultiplier(16777215.49, 0xFFFFFF, 0);
  ExpectMultiplier(0x1p-40, 1u << 23, 63);  // the smallest normalized scale
  EXPECT_EQ(QuantizeMultiplier(0.5).word(), 0x80000018u);
  EXPECT_EQ((QuantMultiplier{0xABCDEF, 37}.word()), 0xABCDEF25u);
  EXPECT_EQ(QuantizeMultiplier(3.7e-5).scale(), 10170483.0 / 0x1p38);
}

TEST(GoldenInt8, QuantizeMultiplierRoundsOutOf24Bits) {
  // (2^24 - 1/2) / 2^30 rounds (ties away) to 2^24 / 2^30 = 2^23 / 2^29.
  ExpectMultiplier((0x1p24 - 0.5) / 0x1p30, 1u << 23, 29);
  ExpectMultiplier(std::nextafter(0x1p24 - 0.5, 0.0) / 0x1p30, 0xFFFFFF, 30);
  ExpectMultiplier((0x1p24 - 0.25) / 0x1p30, 1u << 23, 29);
  ExpectMultiplier((0x800000 + 0.5) / 0x1p30, 0x800001, 30);  // a tie inside: away from zero
  // Just below 2^-40 the carry brings the shift back to 63.
  ExpectMultiplier((0x1p24 - 0.5) / 0x1p64, 1u << 23, 63);
}

TEST(GoldenInt8, QuantizeMultiplierDenormalizesBelow2ToMinus40) {
  ExpectMultiplier(0x1p-41, 1u << 22, 63);
  ExpectMultiplier(3 * 0x1p-50, 3u << 13, 63);
  ExpectMultiplier(0x1p-64, 1, 63);  // 0.5: ties away
  ExpectMultiplier(0x1p-70, 0, 63);
  ExpectMultiplier(std::numeric_limits<double>::denorm_min(), 0, 63);
}

TEST(GoldenInt8, QuantizeMultiplierRefusesNamingTheValue) {
  auto error = [](double scale) { return ErrorOf([scale] { QuantizeMultiplier(scale); }); };
  EXPECT_NE(error(std::nan("")).find("nan"), std::string::npos);
  EXPECT_NE(error(0.0).find("scale 0 "), std::string::npos);
  EXPECT_NE(error(-0.0).find("scale -0 "), std::string::npos);
  EXPECT_NE(error(-1.0).find("scale -1 "), std::string::npos);
  EXPECT_NE(error(INFINITY).find("inf"), std::string::npos);
  EXPECT_NE(error(-INFINITY).find("-inf"), std::string::npos);
  EXPECT_NE(error(0x1p24).find("16777216"), std::string::npos);
  EXPECT_NE(error(16777215.5).find("too large"), std::string::npos);
  EXPECT_EQ(error(16777215.0), "");
}

TEST(GoldenInt8, QuantizeValue) {
  EXPECT_EQ(QuantizeValue(1.5f, 1.0f, 0), 2);
  EXPECT_EQ(QuantizeValue(-1.5f, 1.0f, 0), -2);
  EXPECT_EQ(QuantizeValue(-0.5f, 1.0f, 0), -1);
  EXPECT_EQ(QuantizeValue(0.49f, 1.0f, 0), 0);
  EXPECT_EQ(QuantizeValue(1.25f, 0.5f, 10), 13);  // 2.5 -> 3, + 10
  EXPECT_EQ(QuantizeValue(1000.0f, 1.0f, 0), 127);
  EXPECT_EQ(QuantizeValue(100.0f, 1.0f, 50), 127);
  EXPECT_EQ(QuantizeValue(-1000.0f, 1.0f, 0), -128);
  EXPECT_EQ(QuantizeValue(-INFINITY, 1.0f, 0), -128);
  EXPECT_EQ(QuantizeValue(INFINITY, 1.0f, -128), 127);
  EXPECT_NE(ErrorOf([] { QuantizeValue(NAN, 1.0f, 0); }), "");
  EXPECT_NE(ErrorOf([] { QuantizeValue(1.0f, 0.0f, 0); }), "");
  EXPECT_NE(ErrorOf([] { QuantizeValue(1.0f, -1.0f, 0); }), "");
  EXPECT_NE(ErrorOf([] { QuantizeValue(1.0f, INFINITY, 0); }), "");
  EXPECT_NE(ErrorOf([] { QuantizeValue(1.0f, 1.0f, 128); }), "");
}

}  // namespace
}  // namespace mxu::golden
