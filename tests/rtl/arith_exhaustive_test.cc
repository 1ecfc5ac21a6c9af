// Exhaustive checks (label `exhaustive`, opt-in): all 2^32 bf16 x bf16 pairs through bf16_mul and
// all 2^32 bf16 pairs, widened to fp32, through fp32_add, each in both subnormal modes, against
// the host CPU. Rows of the first operand are shared out to one thread per core; progress goes to
// stderr.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "golden/check_tally.h"
#include "golden/numerics.h"
#include "sim/arith_units.h"

namespace mxu {
namespace {

using golden::CheckTally;

constexpr int kModes = 2;
constexpr Subnormals kAllModes[kModes] = {Subnormals::kIeee, Subnormals::kFlush};

enum class Unit { kMul, kAdd };

// Checks every (a, b) bf16 pair for one unit in both modes; returns the tallies per mode.
std::vector<CheckTally> RunAllPairs(Unit unit) {
  const char* name = unit == Unit::kMul ? "bf16_mul all pairs" : "fp32_add all bf16 pairs";
  std::vector<CheckTally> tallies;
  for (Subnormals mode : kAllModes)
    tallies.emplace_back(std::string(name) + " [" + ToString(mode) + "]");
  std::mutex tallies_mutex;
  std::atomic<uint32_t> next_row{0};
  std::atomic<uint32_t> rows_done{0};

  auto worker = [&] {
    sim::ArithUnits units;
    std::vector<CheckTally> local;
    for (int m = 0; m < kModes; ++m) local.emplace_back("");
    std::vector<uint32_t> want[kModes];
    for (auto& row : want) row.resize(1u << 16);
    for (uint32_t a; (a = next_row++) < (1u << 16);) {
      // The host's results for the whole row, one floating-point mode at a time.
      for (int m = 0; m < kModes; ++m) {
        golden::ScopedFpMode fp_mode(kAllModes[m]);
        const float fa = golden::Bf16ToFloat(static_cast<uint16_t>(a));
        for (uint32_t b = 0; b < (1u << 16); ++b) {
          const float r =
              unit == Unit::kMul
                  ? golden::Bf16MulInCurrentMode(static_cast<uint16_t>(a), static_cast<uint16_t>(b))
                  : golden::Fp32AddInCurrentMode(fa, golden::Bf16ToFloat(static_cast<uint16_t>(b)));
          want[m][b] = golden::FloatBits(r);
        }
      }
      for (uint32_t b = 0; b < (1u << 16); ++b) {
        const auto out =
            unit == Unit::kMul ? units.Evaluate(a, b) : units.Evaluate(a << 16, b << 16);
        for (int m = 0; m < kModes; ++m) {
          const uint32_t got = unit == Unit::kMul ? out.mul[m] : out.add[m];
          local[m].Compare(got, want[m][b], "(0x%04x, 0x%04x)", a, b);
        }
      }
      ++rows_done;
    }
    std::lock_guard<std::mutex> lock(tallies_mutex);
    for (int m = 0; m < kModes; ++m) tallies[m].Merge(local[m]);
  };

  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t done; (done = rows_done.load()) < (1u << 16);) {
    std::this_thread::sleep_for(std::chrono::seconds(5));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "%s: %5.1f%% (%.0f s)\n", name, 100.0 * rows_done / 65536.0, seconds);
  }
  for (auto& thread : pool) thread.join();
  return tallies;
}

void ExpectAllMatch(const std::vector<CheckTally>& tallies) {
  for (const CheckTally& tally : tallies) {
    std::printf("%s\n", tally.Report().c_str());
    EXPECT_EQ(tally.vectors(), uint64_t{1} << 32);
    EXPECT_EQ(tally.mismatches(), 0u) << tally.Report();
  }
}

TEST(ArithExhaustive, Bf16MulAllPairs) { ExpectAllMatch(RunAllPairs(Unit::kMul)); }

TEST(ArithExhaustive, Fp32AddAllBf16Pairs) { ExpectAllMatch(RunAllPairs(Unit::kAdd)); }

}  // namespace
}  // namespace mxu
