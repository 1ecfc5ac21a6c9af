// Bit-exact checks of the verilated arithmetic units (bf16_mul, fp32_add, fp32_to_bf16) against
// the host CPU's own IEEE-754 arithmetic, in both subnormal modes: random operands spread over
// every sign and exponent, the cross product of the special classes, and targeted cases. Targeted
// generators also count what they hit (ties, overflow, subnormal results, ...), classified by the
// host alone, so a generator that stops reaching its corner cases fails the test.
#include "sim/arith_units.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <ostream>
#include <string>

#include "golden/check_tally.h"
#include "golden/float_vectors.h"
#include "golden/numerics.h"

namespace mxu {

// Readable parameter names in gtest's failure messages.
inline void PrintTo(Subnormals mode, std::ostream* os) { *os << ToString(mode); }

namespace {

using golden::Bf16ToFloat;
using golden::BitSource;
using golden::CheckTally;
using golden::FloatBits;
using golden::FloatFromBits;

constexpr uint64_t kRandomVectors = 2'000'000;  // per unit and mode
constexpr uint64_t kTargetedVectors = 300'000;  // per unit and mode

sim::ArithUnits& Units() {
  static sim::ArithUnits units;
  return units;
}

// Counts of the corner cases a targeted generator reached.
using Coverage = std::map<std::string, uint64_t>;

std::string Describe(const Coverage& coverage) {
  std::string text;
  for (const auto& [name, count] : coverage) text += " " + name + "=" + std::to_string(count);
  return text;
}

// Where a rounded result r lies relative to the exact value (both finite, exact in double).
void ClassifyRounding(double exact, float rounded, Coverage& coverage) {
  const double r = rounded;
  if (r == exact) return;
  ++coverage["inexact"];
  const float neighbour = std::nextafter(rounded, exact > r ? INFINITY : -INFINITY);
  if (exact == (r + static_cast<double>(neighbour)) / 2) {
    ++coverage[std::fabs(r) > std::fabs(exact) ? "tie_rounded_up" : "tie_rounded_down"];
  }
}

class ArithUnitsTest : public ::testing::TestWithParam<Subnormals> {
 protected:
  Subnormals mode() const { return GetParam(); }
  bool ieee() const { return mode() == Subnormals::kIeee; }
  std::string Name(const char* check) const {
    return std::string(check) + " [" + ToString(mode()) + "]";
  }

  void Mul(uint16_t a, uint16_t b, CheckTally& tally) {
    uint32_t want;
    {
      golden::ScopedFpMode fp_mode(mode());
      want = FloatBits(golden::Bf16MulInCurrentMode(a, b));
    }
    tally.Compare(Units().Bf16Mul(a, b, mode()), want, "bf16_mul(0x%04x, 0x%04x)", a, b);
  }

  void Add(uint32_t a, uint32_t b, CheckTally& tally) {
    uint32_t want;
    {
      golden::ScopedFpMode fp_mode(mode());
      want = FloatBits(golden::Fp32AddInCurrentMode(FloatFromBits(a), FloatFromBits(b)));
    }
    tally.Compare(Units().Fp32Add(a, b, mode()), want, "fp32_add(0x%08x, 0x%08x)", a, b);
  }

  void ToBf16(uint32_t a, CheckTally& tally) {
    const uint32_t want = golden::FloatToBf16(FloatFromBits(a), mode());
    tally.Compare(Units().Fp32ToBf16(a, mode()), want, "fp32_to_bf16(0x%08x)", a);
  }

  static void Finish(const CheckTally& tally, const Coverage& coverage = {}) {
    std::cout << tally.Report() << (coverage.empty() ? "" : "\n  covered:") << Describe(coverage)
              << std::endl;
    EXPECT_EQ(tally.mismatches(), 0u) << tally.Report();
  }

  static void ExpectCovered(const Coverage& coverage, const char* what) {
    const auto it = coverage.find(what);
    EXPECT_TRUE(it != coverage.end() && it->second > 0)
        << "targeted vectors never hit '" << what << "':" << Describe(coverage);
  }
};

// ---------------------------------------------------------------------------------- bf16_mul

TEST_P(ArithUnitsTest, MulRandom) {
  BitSource bits(0xB16A);
  CheckTally tally(Name("bf16_mul random"));
  for (uint64_t i = 0; i < kRandomVectors; ++i) {
    Mul(golden::RandomBf16(bits), golden::RandomBf16(bits), tally);
  }
  Finish(tally);
  EXPECT_EQ(tally.vectors(), kRandomVectors);
}

TEST_P(ArithUnitsTest, MulSpecialCross) {
  CheckTally tally(Name("bf16_mul specials x specials"));
  for (uint16_t a : golden::SpecialBf16()) {
    for (uint16_t b : golden::SpecialBf16()) Mul(a, b, tally);
  }
  Finish(tally);
  EXPECT_EQ(tally.vectors(), 18u * 18u);
}

// Products near the bottom of the fp32 range (into, out of and below the subnormals) and near the
// top (overflow), where the one rounding of the multiplier actually happens.
TEST_P(ArithUnitsTest, MulTargeted) {
  BitSource bits(0x7A76);
  CheckTally tally(Name("bf16_mul targeted"));
  Coverage coverage;
  for (uint64_t i = 0; i < kTargetedVectors; ++i) {
    uint16_t a = golden::RandomBf16(bits);
    uint16_t b = golden::RandomBf16(bits);
    const int a_exp = static_cast<int>(bits.Below(254)) + 1;  // a normal
    int b_exp = 0;
    switch (i % 4) {
      case 0:  // product exponent field around -25 .. 2: subnormal results and underflow
      case 1:
        b_exp = 127 - a_exp + static_cast<int>(bits.Below(28)) - 25;
        break;
      case 2:
        b_exp = 127 - a_exp + static_cast<int>(bits.Below(6)) + 251;
        break;  // overflow
      case 3:
        b_exp = 0;
        break;  // subnormal operand, product leaving the subnormal range or not
    }
    if (b_exp < 0 || b_exp > 254) continue;
    a = static_cast<uint16_t>((a & 0x807Fu) | a_exp << 7);
    b = static_cast<uint16_t>((b & 0x807Fu) | b_exp << 7);
    Mul(a, b, tally);

    // What the host says this vector exercises.
    const double exact = static_cast<double>(Bf16ToFloat(a)) * Bf16ToFloat(b);
    const float result = golden::Bf16Mul(a, b, mode());
    if (std::isinf(result)) {
      ++coverage["overflow"];
    } else if (result == 0.0f && exact != 0.0) {
      ++coverage["underflow_to_zero"];
    } else if (std::fpclassify(result) == FP_SUBNORMAL) {
      ++coverage["subnormal_result"];
    } else if (b_exp == 0 && std::fpclassify(Bf16ToFloat(b)) == FP_SUBNORMAL) {
      ++coverage["subnormal_operand_normal_result"];
    }
    if (std::isfinite(result)) ClassifyRounding(exact, result, coverage);
  }
  Finish(tally, coverage);
  ExpectCovered(coverage, "overflow");
  ExpectCovered(coverage, "underflow_to_zero");
  if (ieee()) {
    for (const char* what : {"subnormal_result", "subnormal_operand_normal_result",
                             "tie_rounded_up", "tie_rounded_down"}) {
      ExpectCovered(coverage, what);
    }
  }
}

// ---------------------------------------------------------------------------------- fp32_add

TEST_P(ArithUnitsTest, AddRandom) {
  BitSource bits(0xADD0);
  CheckTally tally(Name("fp32_add random"));
  for (uint64_t i = 0; i < kRandomVectors; ++i) {
    const uint32_t a = golden::RandomFp32(bits);
    // Half the pairs independent, half with exponents within the alignment window, where the
    // significands interact.
    const uint32_t b = (i & 1) ? golden::RandomFp32Near(bits, a, 26) : golden::RandomFp32(bits);
    Add(a, b, tally);
  }
  Finish(tally);
  EXPECT_EQ(tally.vectors(), kRandomVectors);
}

TEST_P(ArithUnitsTest, AddSpecialCross) {
  BitSource bits(0x5BEC);
  CheckTally tally(Name("fp32_add specials x specials and x random"));
  for (uint32_t a : golden::SpecialFp32()) {
    for (uint32_t b : golden::SpecialFp32()) Add(a, b, tally);
    for (int i = 0; i < 1000; ++i) {
      const uint32_t r = golden::RandomFp32(bits);
      Add(a, r, tally);
      Add(r, a, tally);
    }
  }
  Finish(tally);
}

// Ties to even and to odd, near ties, carries out of the significand, rounding carries, exact and
// near-total cancellation, overflow, results landing in and leaving the subnormal range.
TEST_P(ArithUnitsTest, AddTargeted) {
  BitSource bits(0x7A44);
  CheckTally tally(Name("fp32_add targeted"));
  Coverage coverage;
  auto with_exp = [](uint32_t x, int exp) {
    return (x & 0x807FFFFFu) | static_cast<uint32_t>(exp) << 23;
  };
  for (uint64_t i = 0; i < kTargetedVectors; ++i) {
    uint32_t a = golden::RandomFp32(bits);
    uint32_t b = golden::RandomFp32(bits);
    const int a_exp = static_cast<int>(bits.Below(254)) + 1;
    a = with_exp(a, a_exp);
    switch (i % 8) {
      case 0:  // b exactly half an ulp of a, either sign: ties
        b = (b & 0x80000000u) | (a_exp > 24 ? static_cast<uint32_t>(a_exp - 24) << 23 : 0u);
        break;
      case 1:  // b around half an ulp of a: near ties and sticky bits
        b = with_exp(b, std::max(0, a_exp - 23 - static_cast<int>(bits.Below(4))));
        break;
      case 2:  // same sign, exponents within one: carry out of the significand
        b = with_exp((b & 0x7FFFFFFFu) | (a & 0x80000000u),
                     std::min(254, a_exp + static_cast<int>(bits.Below(2))));
        break;
      case 3:  // all-ones significand plus a little: the rounding carries into the exponent
        a |= 0x007FFFFFu;
        b = with_exp((b & 0x7FFFFFFFu) | (a & 0x80000000u), std::max(0, a_exp - 24));
        break;
      case 4:  // exact cancellation and near-total cancellation (a few ulps apart)
        b = (a ^ 0x80000000u) + static_cast<uint32_t>(bits.Below(5)) - 2u;
        if (i % 16 == 4) b = a ^ 0x80000000u;
        break;
      case 5:  // both near the top of the range: overflow to Inf or not
        a = with_exp(a, 254);
        b = with_exp(b, 250 + static_cast<int>(bits.Below(5)));
        break;
      case 6:  // opposite signs around 2^-126: results in the subnormal range
        a = with_exp(a, static_cast<int>(bits.Below(3)));
        b = with_exp((b & 0x7FFFFFFFu) | (~a & 0x80000000u), static_cast<int>(bits.Below(3)));
        break;
      case 7:  // same sign, subnormal plus subnormal or min-normal: leaving the subnormal range
        a = with_exp(a, 0);
        b = with_exp((b & 0x7FFFFFFFu) | (a & 0x80000000u), static_cast<int>(bits.Below(2)));
        break;
    }
    Add(a, b, tally);

    const float fa = FloatFromBits(a);
    const float fb = FloatFromBits(b);
    const float result = golden::Fp32Add(fa, fb, mode());
    const double exact = static_cast<double>(fa) + fb;
    const bool exact_in_double = (exact - fa) == fb && (exact - fb) == fa;
    if (std::isinf(result)) {
      ++coverage["overflow"];
    } else if (result == 0.0f && exact != 0.0) {
      ++coverage["flushed_to_zero"];
    } else if (result == 0.0f && fa != 0.0f) {
      ++coverage["exact_cancellation"];
    } else if (std::fpclassify(result) == FP_SUBNORMAL) {
      ++coverage["subnormal_result"];
    } else if (std::fpclassify(fa) == FP_SUBNORMAL && std::fpclassify(fb) == FP_SUBNORMAL) {
      ++coverage["subnormals_to_normal"];
    }
    const int result_exp = static_cast<int>(FloatBits(result) >> 23 & 0xFF);
    const int max_exp = std::max<int>(a >> 23 & 0xFF, b >> 23 & 0xFF);
    if (std::isfinite(result) && result_exp > max_exp) ++coverage["carry_out"];
    if (result != 0.0f && result_exp + 8 < max_exp) ++coverage["massive_cancellation"];
    if (std::isfinite(result) && exact_in_double) ClassifyRounding(exact, result, coverage);
  }
  Finish(tally, coverage);
  for (const char* what : {"overflow", "exact_cancellation", "carry_out", "massive_cancellation",
                           "tie_rounded_up", "tie_rounded_down", "inexact"}) {
    ExpectCovered(coverage, what);
  }
  ExpectCovered(coverage, ieee() ? "subnormal_result" : "flushed_to_zero");
  if (ieee()) ExpectCovered(coverage, "subnormals_to_normal");
}

// ------------------------------------------------------------------------------ fp32_to_bf16

TEST_P(ArithUnitsTest, ToBf16Random) {
  BitSource bits(0xCF70);
  CheckTally tally(Name("fp32_to_bf16 random"));
  for (uint64_t i = 0; i < kRandomVectors; ++i) ToBf16(golden::RandomFp32(bits), tally);
  Finish(tally);
  EXPECT_EQ(tally.vectors(), kRandomVectors);
}

TEST_P(ArithUnitsTest, ToBf16Special) {
  CheckTally tally(Name("fp32_to_bf16 specials"));
  for (uint32_t a : golden::SpecialFp32()) ToBf16(a, tally);
  Finish(tally);
  EXPECT_EQ(tally.vectors(), 18u);
}

// Ties (even and odd), near ties, carries into the exponent, overflow, subnormals, and NaNs whose
// payload sits only in the bits that rounding drops.
TEST_P(ArithUnitsTest, ToBf16Targeted) {
  BitSource bits(0x7A7B);
  CheckTally tally(Name("fp32_to_bf16 targeted"));
  Coverage coverage;
  const uint32_t kLowPatterns[] = {0x8000u, 0x8000u, 0x7FFFu, 0x8001u, 0xFFFFu, 0x0001u};
  for (uint64_t i = 0; i < kTargetedVectors; ++i) {
    uint32_t a = golden::RandomFp32(bits);
    switch (i % 5) {
      case 0:  // tie or near tie below a random value
        a = (a & 0xFFFF0000u) | kLowPatterns[bits.Below(6)];
        break;
      case 1:  // significand all ones above the rounding point: the carry reaches the exponent
        a = (a & 0xFF800000u) | 0x007F0000u | kLowPatterns[bits.Below(6)];
        break;
      case 2:  // just below the overflow threshold and beyond
        a = (a & 0x80000000u) | 0x7F7F0000u | static_cast<uint32_t>(bits.Below(0x10000));
        break;
      case 3:  // subnormal inputs
        a &= 0x807FFFFFu;
        break;
      case 4:  // NaN with a payload only in the low half, either sign
        a = (a & 0x80000000u) | 0x7F800000u | (static_cast<uint32_t>(bits.Below(0xFFFF)) + 1u);
        break;
    }
    ToBf16(a, tally);

    const float value = FloatFromBits(a);
    const uint16_t result = golden::FloatToBf16(value, mode());
    if (std::isnan(value)) {
      ++coverage["nan"];
    } else if (std::isinf(Bf16ToFloat(result)) && !std::isinf(value)) {
      ++coverage["overflow"];
    } else if (std::fpclassify(value) == FP_SUBNORMAL) {
      ++coverage["subnormal_input"];
    } else if ((result >> 7 & 0xFF) > (a >> 23 & 0xFF)) {
      ++coverage["carry_into_exponent"];
    }
    // Exactly half a bf16 ulp dropped: a tie, rounded up when the kept part was odd.
    if (std::isfinite(value) && (a & 0xFFFFu) == 0x8000u &&
        !(mode() == Subnormals::kFlush && std::fpclassify(value) == FP_SUBNORMAL)) {
      ++coverage[(a >> 16 & 1u) ? "tie_rounded_up" : "tie_rounded_down"];
    }
  }
  Finish(tally, coverage);
  for (const char* what : {"nan", "overflow", "subnormal_input", "carry_into_exponent",
                           "tie_rounded_up", "tie_rounded_down"}) {
    ExpectCovered(coverage, what);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, ArithUnitsTest,
                         ::testing::Values(Subnormals::kIeee, Subnormals::kFlush),
                         [](const ::testing::TestParamInfo<Subnormals>& info) {
                           return std::string(ToString(info.param));
                         });

}  // namespace
}  // namespace mxu
