// TestFloat-style pattern checks (label `exhaustive`, opt-in): the RTL fp32 adder and fp32 -> bf16
// rounding against the host CPU on 10^8 generated cases each, in both subnormal modes. The
// operands follow Berkeley TestFloat's practice rather than uniform bits, which almost never hit
// a corner: exponents drawn half the time from the boundaries (zero, subnormal, one, the top of
// the range, Inf/NaN), significands from edge values and from random runs of ones and zeros, the
// adder's second operand half the time within 30 binades of the first (alignment, cancellation,
// carries), and the low 16 bits of the rounded value half the time at or next to the tie. Each
// kind of case is counted, and the test fails if one was never generated. MXU_PATTERN_CASES sets
// the count (default 10^8). Threads: one per core; progress on stderr.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "golden/check_tally.h"
#include "golden/numerics.h"
#include "sim/arith_units.h"

namespace mxu {
namespace {

using golden::CheckTally;

constexpr Subnormals kModes[2] = {Subnormals::kIeee, Subnormals::kFlush};

uint64_t CaseCount() {
  const char* text = std::getenv("MXU_PATTERN_CASES");
  return text ? std::strtoull(text, nullptr, 10) : 100'000'000ull;
}

// The kinds of case the generator makes, counted so that none goes missing.
enum Kind : int {
  kBoundaryExponent,
  kEdgeSignificand,
  kRunsSignificand,
  kNearExponents,  // the adder's b within 30 binades of a
  kTieLowBits,     // a's low 16 bits at or next to the bf16 tie
  // What the host's results show was reached (IEEE mode):
  kSumSubnormal,  // a + b is subnormal
  kSumCancels,    // nonzero a + b is exactly zero
  kSumOverflows,  // finite a + b is Inf
  kRoundTie,      // a normal a exactly halfway between two bf16 values
  kRoundCarries,  // rounding a up carries into its exponent
  kKinds
};

class PatternSource {
 public:
  explicit PatternSource(uint64_t seed) : rng_(seed) {}

  uint32_t Bits(uint32_t n) {
    return n >= 32 ? uint32_t(rng_()) : uint32_t(rng_()) & ((1u << n) - 1);
  }
  bool Half() { return rng_() & 1; }

  // A significand of random runs of ones and zeros (TestFloat's "random integer" shape).
  uint32_t Runs() {
    uint32_t v = Half() ? 0x7FFFFFu : 0;
    for (int flips = 1 + Bits(2); flips > 0; --flips) {
      const uint32_t lo = Bits(5) % 23, hi = lo + Bits(5) % (23 - lo) + 1;
      v ^= ((hi >= 32 ? 0 : (1u << hi)) - 1) & ~((1u << lo) - 1);
    }
    return v & 0x7FFFFFu;
  }

  uint32_t Exponent(std::array<uint64_t, kKinds>* kinds) {
    static constexpr uint32_t kBoundaries[] = {0,   1,   2,   23,  24,  25,  126, 127,
                                               128, 129, 150, 151, 252, 253, 254, 255};
    if (Half()) {
      ++(*kinds)[kBoundaryExponent];
      return kBoundaries[Bits(4)];
    }
    return Bits(8);
  }

  uint32_t Significand(std::array<uint64_t, kKinds>* kinds) {
    static constexpr uint32_t kEdges[] = {
        0,        1,        2,        0x7FFFFF, 0x7FFFFE, 0x400000, 0x3FFFFF, 0x400001,
        0x000080, 0x00007F, 0x000081, 0x008000, 0x7F8000, 0x7F7FFF, 0x7F8001, 0x010000};
    switch (Bits(2)) {
      case 0:
        ++(*kinds)[kEdgeSignificand];
        return kEdges[Bits(4)];
      case 1:
        ++(*kinds)[kRunsSignificand];
        return Runs();
      default:
        return Bits(23);
    }
  }

  uint32_t Operand(std::array<uint64_t, kKinds>* kinds) {
    return Bits(1) << 31 | Exponent(kinds) << 23 | Significand(kinds);
  }

  // b for a + b: half the time an exponent within 30 binades of a's (either sign).
  uint32_t Addend(uint32_t a, std::array<uint64_t, kKinds>* kinds) {
    uint32_t b = Operand(kinds);
    if (Half()) {
      ++(*kinds)[kNearExponents];
      const int e = int(a >> 23 & 0xFF) + int(Bits(6) % 61) - 30;
      b = (b & 0x807FFFFFu) | uint32_t(std::clamp(e, 0, 255)) << 23;
    }
    return b;
  }

  // a for the rounding: half the time its low 16 bits at or next to the tie.
  uint32_t WithTie(uint32_t a, std::array<uint64_t, kKinds>* kinds) {
    static constexpr uint32_t kLow[] = {0x8000, 0x7FFF, 0x8001, 0x0000,
                                        0xFFFF, 0x0001, 0x7FFE, 0x8002};
    if (!Half()) return a;
    ++(*kinds)[kTieLowBits];
    return (a & 0xFFFF0000u) | kLow[Bits(3)];
  }

 private:
  std::mt19937_64 rng_;
};

// Counts the corners the host's IEEE-mode results show a case reached.
void CountResults(uint32_t a, uint32_t b, uint32_t sum, uint16_t rounded,
                  std::array<uint64_t, kKinds>* kinds) {
  const auto exponent = [](uint32_t x) { return x >> 23 & 0xFF; };
  const auto finite = [&](uint32_t x) { return exponent(x) != 0xFF; };
  const uint32_t mag = sum & 0x7FFFFFFFu;
  if (exponent(sum) == 0 && mag != 0) ++(*kinds)[kSumSubnormal];
  if (mag == 0 && (a & 0x7FFFFFFFu) != 0 && (b & 0x7FFFFFFFu) != 0) ++(*kinds)[kSumCancels];
  if (finite(a) && finite(b) && mag == 0x7F800000u) ++(*kinds)[kSumOverflows];
  if (exponent(a) != 0 && finite(a) && (a & 0xFFFF) == 0x8000) ++(*kinds)[kRoundTie];
  if (finite(a) && exponent(uint32_t(rounded) << 16) > exponent(a)) ++(*kinds)[kRoundCarries];
}

TEST(ArithPatterns, Fp32AddAndRoundingOnTestFloatPatterns) {
  const uint64_t total = CaseCount();
  std::vector<CheckTally> add, round;
  for (Subnormals mode : kModes) {
    add.emplace_back(std::string("fp32_add patterns [") + ToString(mode) + "]");
    round.emplace_back(std::string("fp32_to_bf16 patterns [") + ToString(mode) + "]");
  }
  std::array<uint64_t, kKinds> kinds{};
  std::mutex merge;
  std::atomic<uint64_t> done{0};
  constexpr uint64_t kChunk = 1 << 16;
  std::atomic<uint64_t> next{0};

  auto worker = [&] {
    sim::ArithUnits units;
    std::vector<CheckTally> local_add, local_round;
    for (int m = 0; m < 2; ++m) local_add.emplace_back(""), local_round.emplace_back("");
    std::array<uint64_t, kKinds> local_kinds{};
    std::vector<uint32_t> as(kChunk), bs(kChunk), want_add[2], want_round[2];
    for (int m = 0; m < 2; ++m) want_add[m].resize(kChunk), want_round[m].resize(kChunk);
    for (uint64_t start; (start = next.fetch_add(kChunk)) < total;) {
      const uint64_t n = std::min(kChunk, total - start);
      PatternSource source(start);  // each chunk its own seed: the same cases on any thread count
      for (uint64_t i = 0; i < n; ++i) {
        as[i] = source.WithTie(source.Operand(&local_kinds), &local_kinds);
        bs[i] = source.Addend(as[i], &local_kinds);
      }
      for (int m = 0; m < 2; ++m) {
        golden::ScopedFpMode fp_mode(kModes[m]);
        for (uint64_t i = 0; i < n; ++i) {
          want_add[m][i] = golden::FloatBits(golden::Fp32AddInCurrentMode(
              golden::FloatFromBits(as[i]), golden::FloatFromBits(bs[i])));
        }
      }
      for (int m = 0; m < 2; ++m) {
        for (uint64_t i = 0; i < n; ++i) {
          want_round[m][i] = golden::FloatToBf16(golden::FloatFromBits(as[i]), kModes[m]);
        }
      }
      for (uint64_t i = 0; i < n; ++i)
        CountResults(as[i], bs[i], want_add[0][i], want_round[0][i], &local_kinds);
      for (uint64_t i = 0; i < n; ++i) {
        const auto out = units.Evaluate(as[i], bs[i]);
        for (int m = 0; m < 2; ++m) {
          local_add[m].Compare(out.add[m], want_add[m][i], "(0x%08x, 0x%08x)", as[i], bs[i]);
          local_round[m].Compare(out.to_bf16[m], want_round[m][i], "(0x%08x)", as[i]);
        }
      }
      done += n;
    }
    std::lock_guard<std::mutex> lock(merge);
    for (int m = 0; m < 2; ++m) add[m].Merge(local_add[m]), round[m].Merge(local_round[m]);
    for (int k = 0; k < kKinds; ++k) kinds[k] += local_kinds[k];
  };

  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  const auto start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (int tick = 1; done.load() < total; ++tick) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (tick % 50) continue;  // progress every 5 s
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "patterns: %5.1f%% (%.0f s)\n", 100.0 * double(done) / double(total),
                 seconds);
  }
  for (auto& thread : pool) thread.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  for (const auto* tallies : {&add, &round}) {
    for (const CheckTally& tally : *tallies) {
      std::printf("%s\n", tally.Report().c_str());
      EXPECT_EQ(tally.vectors(), total);
      EXPECT_EQ(tally.mismatches(), 0u) << tally.Report();
    }
  }
  static constexpr const char* kNames[kKinds] = {
      "boundary exponent", "edge significand", "runs significand", "near exponents",
      "tie low bits",      "sum subnormal",    "sum cancels",      "sum overflows",
      "round tie",         "round carries"};
  for (int k = 0; k < kKinds; ++k) {
    std::printf("  %-18s %llu\n", kNames[k], (unsigned long long)kinds[k]);
    EXPECT_GT(kinds[k], 0u) << kNames[k] << " was never generated";
  }
  std::printf("%llu cases, %.0f s on %u threads\n", (unsigned long long)total, seconds, threads);
}

}  // namespace
}  // namespace mxu
