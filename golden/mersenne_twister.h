// MT19937-64 (Matsumoto and Nishimura), the same sequence as std::mt19937_64 from the same seed.
// The standard library's twist takes a branch on a random bit, so without -march it mispredicts
// half the time: 5.3 ns a draw here against 1.4 ns for this branchless one (docs/performance.md).
// The random operands of `mxu gemm` are drawn from it, and their seeds must keep giving the same
// matrices: tests/golden/mersenne_twister_test.cc holds it to std::mt19937_64.
#ifndef MXU_GOLDEN_MERSENNE_TWISTER_H_
#define MXU_GOLDEN_MERSENNE_TWISTER_H_

#include <cstdint>

namespace mxu::golden {

class MersenneTwister64 {
 public:
  explicit MersenneTwister64(uint64_t seed) {
    state_[0] = seed;
    for (int i = 1; i < kN; ++i) {
      state_[i] = 6364136223846793005ull * (state_[i - 1] ^ (state_[i - 1] >> 62)) + i;
    }
  }

  uint64_t operator()() {
    if (index_ == kN) Twist();
    uint64_t x = state_[index_++];
    x ^= (x >> 29) & 0x5555555555555555ull;
    x ^= (x << 17) & 0x71D67FFFEDA60000ull;
    x ^= (x << 37) & 0xFFF7EEE000000000ull;
    return x ^ (x >> 43);
  }

 private:
  static constexpr int kN = 312;
  static constexpr int kM = 156;

  // The upper bit of one word and the lower 63 of the next, shifted, and the twist matrix where
  // the lower bit is set: a mask rather than a branch.
  static uint64_t Mix(uint64_t word, uint64_t next, uint64_t far) {
    const uint64_t y = (word & 0xFFFFFFFF80000000ull) | (next & 0x7FFFFFFFull);
    return far ^ (y >> 1) ^ ((0 - (y & 1)) & 0xB5026F5AA96619E9ull);
  }

  void Twist() {
    int i = 0;
    for (; i < kN - kM; ++i) state_[i] = Mix(state_[i], state_[i + 1], state_[i + kM]);
    for (; i < kN - 1; ++i) state_[i] = Mix(state_[i], state_[i + 1], state_[i + kM - kN]);
    state_[kN - 1] = Mix(state_[kN - 1], state_[0], state_[kM - 1]);
    index_ = 0;
  }

  uint64_t state_[kN];
  int index_ = kN;
};

}  // namespace mxu::golden

#endif  // MXU_GOLDEN_MERSENNE_TWISTER_H_
