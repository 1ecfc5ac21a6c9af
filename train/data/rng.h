// A tiny deterministic random number generator for the training code (data generation, splits,
// shuffling, weight initialisation): xoshiro256** seeded through splitmix64.
//
// Everything here is built from integer operations and a fixed formula on top of them, never
// from std::*_distribution, whose algorithms differ between standard libraries: a seed gives the
// same stream of Next(), Uniform(), Below() and Shuffle() results on every platform. Normal() also
// calls std::log, std::sqrt and std::cos, which are correctly rounded or nearly so in the usual C
// libraries; it is bit-identical between runs on one platform.
#ifndef MXU_TRAIN_DATA_RNG_H_
#define MXU_TRAIN_DATA_RNG_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mxu::train {

// One 64-bit value from two, every bit of each affecting every bit of the result (splitmix64's
// finalizer over a combination): streams keyed by (seed, epoch, sample, layer) and the like.
inline uint64_t MixSeed(uint64_t a, uint64_t b) {
  uint64_t z = a + 0x9E3779B97F4A7C15ull * (b + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    // splitmix64 spreads any seed (0 included) over the 256-bit state, which must not be all zero;
    // four successive splitmix64 outputs never are.
    uint64_t x = seed;
    for (uint64_t& word : state_) {
      x += 0x9E3779B97F4A7C15ull;
      uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      word = z ^ (z >> 31);
    }
  }

  // The next 64 random bits (xoshiro256**).
  uint64_t Next() {
    const uint64_t result = RotateLeft(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = RotateLeft(state_[3], 45);
    return result;
  }

  // Uniform on [0, 1) with 53 random bits: every value is a multiple of 2^-53, exactly.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Uniform on {0, ..., n-1}, without modulo bias: draws below 2^64 mod n are rejected, so the
  // accepted range is a whole number of copies of [0, n). Throws std::invalid_argument if n == 0.
  uint64_t Below(uint64_t n) {
    if (n == 0) throw std::invalid_argument("Rng::Below: n must be positive");
    const uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    for (;;) {
      const uint64_t r = Next();
      if (r >= threshold) return r % n;
    }
  }

  // A standard normal sample (Box-Muller). Each call consumes exactly two Next() values, so the
  // stream position never depends on a cached spare.
  double Normal() {
    const double u1 = 1.0 - Uniform();  // (0, 1]: log(u1) is finite
    const double u2 = Uniform();
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
  }

  // Fisher-Yates: every permutation equally likely.
  template <class T>
  void Shuffle(std::vector<T>& items) {
    for (size_t i = items.size(); i > 1; --i) {
      const size_t j = static_cast<size_t>(Below(i));
      std::swap(items[i - 1], items[j]);
    }
  }

  // The whole state, for checkpoints: a generator given it again continues the same stream.
  std::array<uint64_t, 4> state() const { return {state_[0], state_[1], state_[2], state_[3]}; }
  // Throws std::invalid_argument for the all-zero state, which xoshiro never leaves.
  void set_state(const std::array<uint64_t, 4>& state) {
    if ((state[0] | state[1] | state[2] | state[3]) == 0) {
      throw std::invalid_argument("Rng::set_state: the all-zero state is not a xoshiro state");
    }
    for (int i = 0; i < 4; ++i) state_[i] = state[i];
  }

 private:
  static uint64_t RotateLeft(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t state_[4];
};

}  // namespace mxu::train

#endif  // MXU_TRAIN_DATA_RNG_H_
