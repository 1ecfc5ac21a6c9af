// The project's MT19937-64 against the standard library's: the random operands that seeds name
// (`mxu gemm --seed`, the benchmarks, the recorded figures) must not move.
#include "golden/mersenne_twister.h"

#include <gtest/gtest.h>

#include <random>

#include "golden/float_vectors.h"

namespace mxu::golden {
namespace {

TEST(MersenneTwister64, GivesStdMt19937_64sSequence) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{5489}, uint64_t{UINT64_MAX},
                        uint64_t{0x0123456789ABCDEF}}) {
    MersenneTwister64 ours(seed);
    std::mt19937_64 reference(seed);
    for (int i = 0; i < 20000; ++i) {  // 64 twists
      ASSERT_EQ(ours(), reference()) << "seed " << seed << ", draw " << i;
    }
  }
}

TEST(MersenneTwister64, TheStandardsTenThousandthDraw) {
  // [rand.predef]: the 10000th consecutive draw of a default-constructed mt19937_64 (seed 5489).
  MersenneTwister64 engine(5489);
  for (int i = 1; i < 10000; ++i) engine();
  EXPECT_EQ(engine(), 9981545732273789042ull);
}

TEST(BitSource, BelowIsUniformRejectionOverTheSameDraws) {
  // Below(bound) keeps its rule (draws at or above the largest multiple of bound are redrawn),
  // whatever the bound; here against the rule written out over the standard engine.
  BitSource bits(7);
  std::mt19937_64 reference(7);
  for (uint64_t bound : {uint64_t{1}, uint64_t{2}, uint64_t{12}, uint64_t{18}, uint64_t{1000},
                         (uint64_t{1} << 63) + 1, uint64_t{UINT64_MAX}}) {
    for (int i = 0; i < 200; ++i) {
      const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
      uint64_t draw = reference();
      while (draw >= limit) draw = reference();
      ASSERT_EQ(bits.Below(bound), draw % bound) << "bound " << bound << ", draw " << i;
    }
  }
}

}  // namespace
}  // namespace mxu::golden
