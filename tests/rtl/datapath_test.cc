// Datapath-level tests of a verilated mxu_datapath (one array configuration per binary, chosen
// at compile time): GEMM tiles through unified buffer -> array -> accumulators, K accumulated
// over several tiles, partial tiles, C0 preloads, the activation unit; every output bit compared
// with the golden model (golden/gemm.h), and the cycle counts of single and back-to-back
// tiles asserted exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include MXU_DP_HEADER
#include "common/device_table.h"
#include "common/pe_pipeline.h"
#include "golden/float_vectors.h"
#include "golden/gemm.h"
#include "golden/numerics.h"
#include "tests/rtl/datapath_harness.h"

namespace mxu {
namespace {

using golden::Bf16Matrix;
using golden::BitSource;
using golden::Fp32Matrix;
using test::ActivateCmd;
using test::MatmulCmd;

constexpr int kRows = MXU_DP_ROWS;
constexpr int kCols = MXU_DP_COLS;
constexpr Subnormals kMode = MXU_DP_FLUSH ? Subnormals::kFlush : Subnormals::kIeee;
constexpr PePipeline kPe = PePipelineOf(MXU_DP_PE_STAGES);
// From a row entering the array to its result row (Rows + Cols - 1 at one PE stage).
constexpr uint64_t kArrayLatency = ArrayLatency(kRows, kCols, kPe);
// Cycles from a MATMUL's accept to its done pulse beyond M + the array's latency: one to issue
// the first row from the command register, one into the array, kAccAddCycles from the result's
// arrival at the accumulators to its write (docs/architecture.md).
constexpr uint64_t kLatencyExtra = 2 + kAccAddCycles;

using Harness = test::DatapathHarness<MXU_DP_MODEL>;

Harness& Dut() {
  static Harness harness(kRows, kCols, MXU_DP_UB_DEPTH, MXU_DP_ACC_DEPTH);
  return harness;
}

// Mostly moderate values (sums that mean something), with every other class mixed in:
// arbitrary exponents, values near the subnormal range, and the special classes.
uint16_t RandomOperand(BitSource& bits, unsigned special_percent = 1) {
  static const std::vector<uint16_t> specials = golden::SpecialBf16();
  const uint64_t pick = bits.Below(100);
  const uint16_t raw = golden::RandomBf16(bits);
  if (pick < special_percent) return specials[bits.Below(specials.size())];
  if (pick < special_percent + 4) return raw;                             // any exponent
  if (pick < special_percent + 7) return raw & 0x80FF;                    // exponent 0 or 1: tiny
  const uint16_t exponent = static_cast<uint16_t>(117 + bits.Below(20));  // 2^-10 .. 2^9
  return static_cast<uint16_t>((raw & 0x807F) | exponent << 7);
}

Bf16Matrix RandomMatrix(int rows, int cols, BitSource& bits, unsigned special_percent = 1) {
  Bf16Matrix m{rows, cols, std::vector<uint16_t>(static_cast<size_t>(rows) * cols)};
  for (auto& v : m.data) v = RandomOperand(bits, special_percent);
  return m;
}

int Tiles(int k) { return (k + kRows - 1) / kRows; }

// Loads A's K tiles into the unified buffer at ub_base (tile t, row m at ub_base + t*M + m);
// lanes beyond K hold NaN, which the datapath must mask.
void LoadActivations(const Bf16Matrix& a, uint32_t ub_base) {
  Harness& dut = Dut();
  for (int t = 0; t < Tiles(a.cols); ++t) {
    for (int m = 0; m < a.rows; ++m) {
      std::vector<uint16_t> lanes(dut.ub_lanes(), 0x7FC1);
      for (int r = 0; r < kRows && t * kRows + r < a.cols; ++r) lanes[r] = a.at(m, t * kRows + r);
      dut.WriteUbRow(ub_base + static_cast<uint32_t>(t * a.rows + m), lanes);
    }
  }
}

// Queues tile t of B: k_rows weight rows (columns beyond N hold random garbage) and its WLOAD.
void QueueWeights(const Bf16Matrix& b, int t, BitSource& bits) {
  Harness& dut = Dut();
  const int k_rows = std::min(kRows, b.rows - t * kRows);
  for (int r = 0; r < k_rows; ++r) {
    std::vector<uint16_t> lanes(kCols);
    for (int n = 0; n < kCols; ++n) {
      lanes[n] = n < b.cols ? b.at(t * kRows + r, n) : golden::RandomBf16(bits);
    }
    dut.QueueWeightRow(lanes);
  }
  dut.QueueWload(static_cast<uint32_t>(k_rows));
}

MatmulCmd TileMatmul(const Bf16Matrix& a, int t, uint32_t ub_base, uint32_t acc_base,
                     bool accumulate) {
  MatmulCmd cmd;
  cmd.ub_addr = ub_base + static_cast<uint32_t>(t * a.rows);
  cmd.acc_addr = acc_base;
  cmd.rows = static_cast<uint32_t>(a.rows);
  cmd.k_rows = static_cast<uint32_t>(std::min(kRows, a.cols - t * kRows));
  cmd.accumulate = accumulate;
  cmd.new_weights = true;
  return cmd;
}

// Compares accumulator rows acc_base .. acc_base+M-1 (lanes < N) with `want`; returns mismatches.
int ExpectAccEquals(const Fp32Matrix& want, uint32_t acc_base, const std::string& what) {
  int mismatches = 0;
  for (int m = 0; m < want.rows; ++m) {
    const std::vector<uint32_t> row = Dut().ReadAccRow(acc_base + static_cast<uint32_t>(m));
    for (int n = 0; n < want.cols; ++n) {
      const uint32_t expected = golden::FloatBits(want.at(m, n));
      if (row[n] != expected && ++mismatches <= 5) {
        ADD_FAILURE() << what << ": C[" << m << "][" << n << "] rtl 0x" << std::hex << row[n]
                      << ", golden 0x" << expected;
      }
    }
  }
  std::printf("%s: %d x %d outputs, %d mismatches\n", what.c_str(), want.rows, want.cols,
              mismatches);
  return mismatches;
}

// A whole GEMM of A x B (+ C0) on the datapath (N <= Cols): all K tiles back to back,
// accumulating; `bits` gives the garbage weight lanes beyond N.
int RunGemmOf(const Bf16Matrix& a, const Bf16Matrix& b, BitSource& bits,
              const Fp32Matrix* c0 = nullptr) {
  Harness& dut = Dut();
  dut.Reset();
  const int m = a.rows, k = a.cols, n = b.cols;
  constexpr uint32_t kUbBase = 3, kAccBase = 5;  // away from 0: addressing is tested too
  LoadActivations(a, kUbBase);
  if (c0) {
    for (int row = 0; row < m; ++row) {
      std::vector<uint32_t> lanes(kCols, 0x7F800001u);
      for (int col = 0; col < n; ++col) lanes[col] = golden::FloatBits(c0->at(row, col));
      dut.WriteAccRow(kAccBase + static_cast<uint32_t>(row), lanes);
    }
  }
  for (int t = 0; t < Tiles(k); ++t) {
    QueueWeights(b, t, bits);
    dut.QueueMatmul(TileMatmul(a, t, kUbBase, kAccBase, t > 0 || c0 != nullptr));
  }
  dut.RunUntilIdle();
  char what[96];
  std::snprintf(what, sizeof what, "gemm %dx%dx%d%s on %dx%d", m, k, n, c0 ? " +C0" : "", kRows,
                kCols);
  return ExpectAccEquals(golden::Gemm(a, b, kRows, kMode, c0), kAccBase, what);
}

int RunGemm(int m, int k, int n, uint64_t seed, const Fp32Matrix* c0 = nullptr,
            unsigned special_percent = 1) {
  BitSource bits(seed);
  const Bf16Matrix a = RandomMatrix(m, k, bits, special_percent);
  const Bf16Matrix b = RandomMatrix(k, n, bits, special_percent);
  return RunGemmOf(a, b, bits, c0);
}

TEST(Datapath, SingleFullTileIsBitExact) {
  for (int m : {1, 2, kRows, 37}) EXPECT_EQ(RunGemm(m, kRows, kCols, 100 + m), 0);
}

TEST(Datapath, HundredsOfRows) { EXPECT_EQ(RunGemm(300, kRows, kCols, 7), 0); }

TEST(Datapath, KAccumulatesOverTilesWithPartialLastTile) {
  const int ks[] = {kRows > 1 ? kRows - 1 : 1, 2 * kRows + 1, 3 * kRows - 1, 4 * kRows};
  for (int k : ks) {
    for (int n : {kCols, kCols > 1 ? kCols - 1 : 1, 1}) {
      for (int m : {1, 5, 64}) EXPECT_EQ(RunGemm(m, k, n, 1000 * k + 10 * n + m), 0);
    }
  }
}

TEST(Datapath, AccumulatesOntoPreloadedRows) {
  BitSource bits(55);
  for (int k : {kRows, 3 * kRows - 1}) {
    Fp32Matrix c0{9, kCols, std::vector<float>(9 * kCols)};
    for (float& v : c0.data) v = golden::Bf16ToFloat(RandomOperand(bits));
    EXPECT_EQ(RunGemm(9, k, kCols, 77 + k, &c0), 0);
  }
}

TEST(Datapath, SpecialValuesEverywhere) {
  EXPECT_EQ(RunGemm(40, 2 * kRows + 1, kCols, 31337, nullptr, 30), 0);
}

// Issue 58: a partial last K tile whose products sum to -0 keeps the -0 (the padded lanes add
// nothing), alone, after a full tile and onto a -0 C0. A = ones; column 0 of B is
// -1.5 x 2^-126, 2^-126 (a -0.5 x 2^-126 sum: flushed to -0 in flush mode, kept in IEEE mode),
// column 1 all -0 (-0 products: the tile's sum is +0 + -0 = +0 in both modes, the contract's
// +0 start), column 2 -2^-126, +2^-126 (x + (-x) = +0), column 3 +2^-126, -1.5 x 2^-126.
TEST(Datapath, APartialTileSummingToMinusZeroStaysMinusZero) {
  constexpr uint16_t kOne = 0x3F80, kMinZero = 0x8000, kMin = 0x0080, kMinNeg = 0x8080;
  constexpr uint16_t kMinus1p5 = 0x80C0;  // -1.5 x 2^-126
  const uint16_t pattern[4][2] = {
      {kMinus1p5, kMin}, {kMinZero, kMinZero}, {kMinNeg, kMin}, {kMin, kMinus1p5}};
  BitSource bits(58);
  const int n = std::min(kCols, 4);
  // K = 2 (a partial tile where the array has more rows), K = Rows + 2 (a full tile, then a
  // partial one), K = 2 Rows (full tiles only, for comparison).
  for (int k : {2, kRows + 2, 2 * kRows}) {
    for (bool with_c0 : {false, true}) {
      Bf16Matrix a{3, k, std::vector<uint16_t>(size_t(3) * k, kOne)};
      Bf16Matrix b{k, n, std::vector<uint16_t>(size_t(k) * n, kMinZero)};
      for (int r = 0; r < k; ++r) {
        for (int c = 0; c < n; ++c) b.data[size_t(r) * n + c] = pattern[c][r % 2];
      }
      Fp32Matrix c0{3, n, std::vector<float>(size_t(3) * n, -0.0f)};
      EXPECT_EQ(RunGemmOf(a, b, bits, with_c0 ? &c0 : nullptr), 0) << "K " << k;
    }
  }
}

// A tile of M rows: accept at cycle a, first row issued at a+1, last row enters the array at
// a+M+1, leaves the de-skew at a+M+1+Latency, is written at a+M+1+Latency+kAccAddCycles.
TEST(Datapath, SingleTileTakesMPlusArrayLatencyPlusTwoPlusTheAdd) {
  Harness& dut = Dut();
  for (int m : {1, 3, kRows, 100}) {
    dut.Reset();
    BitSource bits(9);
    const Bf16Matrix a = RandomMatrix(m, kRows, bits);
    const Bf16Matrix b = RandomMatrix(kRows, kCols, bits);
    LoadActivations(a, 0);
    QueueWeights(b, 0, bits);
    dut.RunUntilIdle();  // weights loaded into the shadow chain beforehand
    dut.ClearTimestamps();
    dut.QueueMatmul(TileMatmul(a, 0, 0, 0, false));
    dut.RunUntilIdle();
    ASSERT_EQ(dut.mm_accepts().size(), 1u);
    ASSERT_EQ(dut.mm_dones().size(), 1u);
    const uint64_t cycles = dut.mm_dones()[0] - dut.mm_accepts()[0] + 1;
    std::printf("tile of M=%d on %dx%d, %u PE stages: %llu cycles (M + latency %llu + %llu)\n", m,
                kRows, kCols, kPe.stages, static_cast<unsigned long long>(cycles),
                static_cast<unsigned long long>(kArrayLatency),
                static_cast<unsigned long long>(cycles - m - kArrayLatency));
    EXPECT_EQ(cycles, m + kArrayLatency + kLatencyExtra);
    EXPECT_EQ(ExpectAccEquals(golden::Gemm(a, b, kRows, kMode), 0, "latency tile"), 0);
  }
}

// T tiles of M >= Rows rows, each with new weights, run back to back: fill and drain overlap and
// the weight switch costs nothing, so T tiles take T*M + latency + 2 + A cycles, not T*(M +
// latency + 2 + A); tiles shorter than A = kAccAddCycles, accumulating into the same rows, start
// A apart. A commit also waits until the bank it overwrites has drained: tile t >= 2 overwrites
// tile t-2's bank, whose last row reaches PE row Rows-1 (Rows-1) x add_cycles cycles after
// entering and is multiplied there a cycle later (from the PE's activation register), so tile t
// starts at max(start(t-1) + M, start(t-2) + M + (Rows-1) x add_cycles + 1): no bubble while
// M >= (Rows-1) x add_cycles + 1 (always at one stage). A tile is accepted as its predecessor
// issues its last row.
TEST(Datapath, BackToBackTilesOverlapFillDrainAndWeightSwitch) {
  Harness& dut = Dut();
  constexpr int kTiles = 4;
  for (int m : {kRows, kRows + 1, 2 * kRows, 50}) {
    dut.Reset();
    BitSource bits(21 + m);
    const Bf16Matrix a = RandomMatrix(m, kTiles * kRows, bits);
    const Bf16Matrix b = RandomMatrix(kTiles * kRows, kCols, bits);
    LoadActivations(a, 0);
    QueueWeights(b, 0, bits);
    dut.RunUntilIdle();
    dut.ClearTimestamps();
    for (int t = 0; t < kTiles; ++t) {
      if (t > 0) QueueWeights(b, t, bits);
      dut.QueueMatmul(TileMatmul(a, t, 0, 0, t > 0));
    }
    dut.RunUntilIdle();
    ASSERT_EQ(dut.mm_accepts().size(), static_cast<size_t>(kTiles));
    std::vector<uint64_t> start(kTiles, 0);  // each tile's first row, from the first's
    for (int t = 1; t < kTiles; ++t) {
      // Each tile accumulates into the previous one's rows: no sooner than the add allows.
      start[t] = start[t - 1] + std::max<uint64_t>(m, kAccAddCycles);
      if (t >= 2) {
        start[t] = std::max(start[t], start[t - 2] + m + uint64_t{kRows - 1} * kPe.add_cycles + 1);
      }
      const uint64_t gap = t == 1 ? m : start[t - 1] - start[t - 2];
      EXPECT_EQ(dut.mm_accepts()[t] - dut.mm_accepts()[t - 1], gap) << "bubble before tile " << t;
    }
    const uint64_t starts = start.back() + 1;  // the first tile's accept to the last's first row
    const uint64_t cycles = dut.mm_dones().back() - dut.mm_accepts().front() + 1;
    std::printf(
        "%d back-to-back tiles of M=%d on %dx%d, %u PE stages: %llu cycles (T*M + "
        "latency + %lld)\n",
        kTiles, m, kRows, kCols, kPe.stages, static_cast<unsigned long long>(cycles),
        static_cast<long long>(cycles - kTiles * m - kArrayLatency));
    EXPECT_EQ(cycles, starts + m + kArrayLatency + kLatencyExtra - 1);
    EXPECT_EQ(ExpectAccEquals(golden::Gemm(a, b, kRows, kMode), 0, "back-to-back"), 0);
  }
}

// Tiles of K < Rows rows (issue 66): a tile shifts in in K cycles and its bank drains once its
// rows have passed PE row K-1, so T tiles of M = max(K, (K-1) x add_cycles + 1, A) rows, new
// weights each, run back to back with no bubble. The array's rows below K hold the weights of an
// earlier full tile of Inf and NaN, and the MATMULs name k_rows = Rows over unified-buffer lanes
// of NaN past K: a row sums its first min(k_rows, K) lanes and the rows below pass its partial
// sum through, so every bit is the golden GEMM's with tiles of K rows.
TEST(Datapath, ShortKTilesLoadInKCyclesAndDrainPastTheirOwnRows) {
  Harness& dut = Dut();
  constexpr int kTiles = 4;
  for (int k : {1, std::max(1, kRows / 2), std::max(1, kRows - 1)}) {
    dut.Reset();
    BitSource bits(300 + k);
    const int m = std::max(
        {k, (k - 1) * static_cast<int>(kPe.add_cycles) + 1, static_cast<int>(kAccAddCycles)});
    // A full tile of Inf and NaN weights, committed and used once: it stays in the rows below K.
    for (int r = 0; r < kRows; ++r) {
      dut.QueueWeightRow(std::vector<uint16_t>(kCols, r % 2 ? 0x7F80 : 0xFFC3));
    }
    dut.QueueWload(kRows);
    MatmulCmd poison;
    poison.ub_addr = 0;  // whatever it holds: tile 0 overwrites the result
    poison.acc_addr = 0;
    poison.rows = 1;
    poison.k_rows = kRows;
    poison.new_weights = true;
    dut.QueueMatmul(poison);
    dut.RunUntilIdle();
    const Bf16Matrix a = RandomMatrix(m, kTiles * k, bits);
    const Bf16Matrix b = RandomMatrix(kTiles * k, kCols, bits);
    for (int t = 0; t < kTiles; ++t) {
      for (int i = 0; i < m; ++i) {
        std::vector<uint16_t> lanes(dut.ub_lanes(), 0x7FC1);
        for (int r = 0; r < k; ++r) lanes[r] = a.at(i, t * k + r);
        dut.WriteUbRow(static_cast<uint32_t>(t * m + i), lanes);
      }
    }
    dut.ClearTimestamps();
    for (int t = 0; t < kTiles; ++t) {
      for (int r = 0; r < k; ++r) {
        std::vector<uint16_t> lanes(kCols);
        for (int n = 0; n < kCols; ++n) lanes[n] = b.at(t * k + r, n);
        dut.QueueWeightRow(lanes);
      }
      dut.QueueWload(static_cast<uint32_t>(k));
      MatmulCmd cmd;
      cmd.ub_addr = static_cast<uint32_t>(t * m);
      cmd.acc_addr = 0;
      cmd.rows = static_cast<uint32_t>(m);
      cmd.k_rows = kRows;
      cmd.accumulate = t > 0;
      cmd.new_weights = true;
      dut.QueueMatmul(cmd);
    }
    dut.RunUntilIdle();
    ASSERT_EQ(dut.mm_accepts().size(), static_cast<size_t>(kTiles));
    for (int t = 2; t < kTiles; ++t) {
      EXPECT_EQ(dut.mm_accepts()[t] - dut.mm_accepts()[t - 1], static_cast<uint64_t>(m))
          << "K=" << k << ": bubble before tile " << t;
    }
    EXPECT_EQ(ExpectAccEquals(golden::Gemm(a, b, k, kMode), 0, "K=" + std::to_string(k) + " tiles"),
              0);
  }
}

// Tiles of N < Cols columns (issue 66): the tile's shifts and commit reach its columns only,
// so the columns past N keep an earlier full tile of Inf and NaN weights, and a row's result
// lanes past N are +0 whatever those columns hold; lanes < N are the golden GEMM's.
TEST(Datapath, NarrowTilesLeaveTheColumnsPastNAtRestAndTheirLanesZero) {
  Harness& dut = Dut();
  for (int n : {1, std::max(1, kCols / 2), std::max(1, kCols - 1)}) {
    dut.Reset();
    BitSource bits(500 + n);
    for (int r = 0; r < kRows; ++r) {
      dut.QueueWeightRow(std::vector<uint16_t>(kCols, r % 2 ? 0xFF80 : 0x7FC5));
    }
    dut.QueueWload(kRows);
    MatmulCmd poison;
    poison.rows = 1;
    poison.k_rows = kRows;
    poison.new_weights = true;
    dut.QueueMatmul(poison);
    dut.RunUntilIdle();
    constexpr int kM = 20;
    const Bf16Matrix a = RandomMatrix(kM, kRows, bits);
    const Bf16Matrix b = RandomMatrix(kRows, n, bits);
    LoadActivations(a, 0);
    for (int r = 0; r < kRows; ++r) {
      std::vector<uint16_t> lanes(kCols, 0x7FC7);  // past N: never shifted in
      for (int c = 0; c < n; ++c) lanes[c] = b.at(r, c);
      dut.QueueWeightRow(lanes);
    }
    dut.QueueWload(kRows, static_cast<uint32_t>(n));
    MatmulCmd cmd;
    cmd.rows = kM;
    cmd.k_rows = kRows;
    cmd.new_weights = true;
    dut.QueueMatmul(cmd);
    dut.RunUntilIdle();
    const Fp32Matrix tile = golden::Gemm(a, b, kRows, kMode);
    Fp32Matrix want{kM, kCols, std::vector<float>(size_t(kM) * kCols, 0.0f)};
    for (int m = 0; m < kM; ++m) {
      for (int c = 0; c < n; ++c) want.data[size_t(m) * kCols + c] = tile.at(m, c);
    }
    EXPECT_EQ(ExpectAccEquals(want, 0, "N=" + std::to_string(n) + " tile"), 0);
  }
}

// Rows shorter than the weight load: correct, with the bubbles the weight shifting needs.
TEST(Datapath, ShortTilesWaitForTheirWeights) {
  Harness& dut = Dut();
  dut.Reset();
  BitSource bits(5);
  const int m = std::max(1, kRows / 2);
  const Bf16Matrix a = RandomMatrix(m, 5 * kRows, bits);
  const Bf16Matrix b = RandomMatrix(5 * kRows, kCols, bits);
  LoadActivations(a, 0);
  for (int t = 0; t < 5; ++t) {
    QueueWeights(b, t, bits);
    dut.QueueMatmul(TileMatmul(a, t, 0, 0, t > 0));
  }
  dut.RunUntilIdle();
  EXPECT_EQ(ExpectAccEquals(golden::Gemm(a, b, kRows, kMode), 0, "short tiles"), 0);
}

// When each row of a chain of MATMULs issues, by the sequencer's rules (mxu_matmul_seq): one row
// a cycle, a command accepted as its predecessor issues its last row and issuing from the next
// cycle, and an accumulating row no sooner than kAccAddCycles after the last row issued for the
// same accumulator row (whose add must be written first). Returns each command's accept cycle,
// counted from the first's.
std::vector<uint64_t> ExpectedAccepts(const std::vector<MatmulCmd>& cmds) {
  std::vector<uint64_t> accepts;
  std::vector<int64_t> last_issue(4096, -1000);
  int64_t accept = 0, t = 0;
  for (const MatmulCmd& cmd : cmds) {
    accepts.push_back(static_cast<uint64_t>(accept));
    t = std::max(t, accept) + 1;
    for (uint32_t r = 0; r < cmd.rows; ++r) {
      if (r > 0) ++t;
      if (cmd.accumulate) t = std::max(t, last_issue[cmd.acc_addr + r] + int64_t{kAccAddCycles});
      last_issue[cmd.acc_addr + r] = t;
    }
    accept = t;  // the next command is accepted as this one issues its last row
    t -= 1;      // ... and issues from the cycle after
  }
  return accepts;
}

// One-row MATMULs accumulating into the same accumulator row (same weights): each waits until
// the previous one's add is written, kAccAddCycles after it, and reads the written value.
TEST(Datapath, BackToBackAccumulationIntoOneRowWaitsForTheAdd) {
  Harness& dut = Dut();
  dut.Reset();
  BitSource bits(8);
  constexpr int kUpdates = 12;
  const Bf16Matrix a = RandomMatrix(kUpdates, kRows, bits);
  const Bf16Matrix b = RandomMatrix(kRows, kCols, bits);
  LoadActivations(a, 0);
  QueueWeights(b, 0, bits);
  dut.RunUntilIdle();
  dut.ClearTimestamps();
  std::vector<MatmulCmd> cmds;
  for (int i = 0; i < kUpdates; ++i) {
    MatmulCmd cmd;
    cmd.ub_addr = static_cast<uint32_t>(i);
    cmd.acc_addr = 2;
    cmd.rows = 1;
    cmd.k_rows = kRows;
    cmd.accumulate = i > 0;
    cmd.new_weights = i == 0;
    cmds.push_back(cmd);
    dut.QueueMatmul(cmd);
  }
  dut.RunUntilIdle();
  const std::vector<uint64_t> want_accepts = ExpectedAccepts(cmds);
  ASSERT_EQ(dut.mm_accepts().size(), cmds.size());
  for (size_t i = 1; i < cmds.size(); ++i) {
    EXPECT_EQ(dut.mm_accepts()[i] - dut.mm_accepts()[i - 1], i == 1 ? 1u : kAccAddCycles)
        << "accept " << i;
    EXPECT_EQ(dut.mm_accepts()[i] - dut.mm_accepts()[0], want_accepts[i]) << "accept " << i;
  }
  // Golden: acc = row0 result, then += each further row's result, in order.
  Fp32Matrix want{1, kCols, {}};
  for (int i = 0; i < kUpdates; ++i) {
    const Bf16Matrix row{
        1, kRows,
        std::vector<uint16_t>(a.data.begin() + i * kRows, a.data.begin() + (i + 1) * kRows)};
    want = golden::Gemm(row, b, kRows, kMode, i == 0 ? nullptr : &want);
  }
  EXPECT_EQ(ExpectAccEquals(want, 2, "waited accumulation"), 0);
}

// Tiles shorter than the add's cycles, accumulating into the same rows or into rows shifted by
// one: every sum is the golden one (no add lost to the pipeline) and each tile starts exactly
// when the hazard rule lets it; tiles at least kAccAddCycles long never wait.
TEST(Datapath, ShortTilesAccumulatingIntoTheSameRowsWaitOnlyAsLongAsTheAdd) {
  Harness& dut = Dut();
  constexpr int kTiles = 6;
  for (int m : {1, 2, 3, static_cast<int>(kAccAddCycles), static_cast<int>(kAccAddCycles) + 1}) {
    for (int shift : {0, 1}) {
      dut.Reset();
      BitSource bits(40 + m * 2 + shift);
      const Bf16Matrix a = RandomMatrix(kTiles * m, kRows, bits);
      const Bf16Matrix b = RandomMatrix(kRows, kCols, bits);
      LoadActivations(a, 0);
      QueueWeights(b, 0, bits);
      dut.RunUntilIdle();
      dut.ClearTimestamps();
      // Tile t: UB rows t*m .. t*m+m-1 into accumulator rows base(t) .. base(t)+m-1, base(t)
      // alternating between 0 and `shift`; the first tile of each base overwrites, so that
      // every row accumulated into was written first.
      const int rows = m + shift;
      std::vector<MatmulCmd> cmds;
      for (int t = 0; t < kTiles; ++t) {
        MatmulCmd cmd;
        cmd.ub_addr = static_cast<uint32_t>(t * m);
        cmd.acc_addr = static_cast<uint32_t>(t % 2 == 1 ? shift : 0);
        cmd.rows = static_cast<uint32_t>(m);
        cmd.k_rows = kRows;
        cmd.accumulate = t > 1 || (t == 1 && shift == 0);
        cmd.new_weights = t == 0;
        cmds.push_back(cmd);
        dut.QueueMatmul(cmd);
      }
      dut.RunUntilIdle();
      ASSERT_EQ(dut.mm_accepts().size(), cmds.size());
      const std::vector<uint64_t> want_accepts = ExpectedAccepts(cmds);
      for (size_t i = 1; i < cmds.size(); ++i) {
        EXPECT_EQ(dut.mm_accepts()[i] - dut.mm_accepts()[0], want_accepts[i])
            << "m=" << m << " shift=" << shift << " accept " << i;
      }
      if (m >= static_cast<int>(kAccAddCycles) && shift == 0) {
        EXPECT_EQ(want_accepts.back(), (kTiles - 1) * uint64_t(m)) << "m=" << m;
      }
      // Golden: the accumulator rows after every tile's results were added in order.
      Fp32Matrix want{rows, kCols, std::vector<float>(size_t(rows) * kCols, 0.0f)};
      for (int t = 0; t < kTiles; ++t) {
        const int base = t % 2 == 1 ? shift : 0;
        for (int r = 0; r < m; ++r) {
          const Bf16Matrix row{1, kRows,
                               std::vector<uint16_t>(a.data.begin() + (t * m + r) * kRows,
                                                     a.data.begin() + (t * m + r + 1) * kRows)};
          Fp32Matrix old{1, kCols,
                         std::vector<float>(want.data.begin() + (base + r) * kCols,
                                            want.data.begin() + (base + r + 1) * kCols)};
          const Fp32Matrix sum =
              golden::Gemm(row, b, kRows, kMode, cmds[t].accumulate ? &old : nullptr);
          std::copy(sum.data.begin(), sum.data.end(), want.data.begin() + (base + r) * kCols);
        }
      }
      EXPECT_EQ(ExpectAccEquals(want, 0, "short tiles m=" + std::to_string(m)), 0);
    }
  }
}

// Two ACTIVATEs back to back over the same accumulator rows, the second with other settings
// into the same unified-buffer rows and a third into other rows: each row holds the last
// ACTIVATE's result, every one of the unit's stages drained between them.
TEST(Datapath, BackToBackActivatesOnTheSameRows) {
  Harness& dut = Dut();
  dut.Reset();
  BitSource bits(77);
  constexpr int kM = 3;  // shorter than the unit's pipeline
  std::vector<std::vector<uint32_t>> acc(kM, std::vector<uint32_t>(kCols));
  for (int m = 0; m < kM; ++m) {
    for (auto& v : acc[m]) v = golden::FloatBits(golden::Bf16ToFloat(RandomOperand(bits)) * 1.37f);
    dut.WriteAccRow(static_cast<uint32_t>(m), acc[m]);
  }
  std::vector<uint32_t> bias_row(kCols);
  for (auto& v : bias_row) v = golden::FloatBits(golden::Bf16ToFloat(RandomOperand(bits)));
  dut.WriteAccRow(50, bias_row);
  ActivateCmd first;
  first.rows = kM;
  first.ub_addr = 10;
  first.relu = false;
  ActivateCmd second = first;
  second.relu = true;
  second.bias = true;
  second.bias_addr = 50;
  ActivateCmd third = first;
  third.ub_addr = 20;
  dut.QueueActivate(first);
  dut.QueueActivate(second);
  dut.QueueActivate(third);
  dut.RunUntilIdle();
  EXPECT_EQ(dut.ac_dones().size(), 3u);
  int mismatches = 0;
  for (int m = 0; m < kM; ++m) {
    const std::vector<uint16_t> got_second = dut.ReadUbRow(10 + static_cast<uint32_t>(m));
    const std::vector<uint16_t> got_third = dut.ReadUbRow(20 + static_cast<uint32_t>(m));
    for (int n = 0; n < kCols; ++n) {
      float x = golden::Fp32Add(golden::FloatFromBits(acc[m][n]),
                                golden::FloatFromBits(bias_row[n]), kMode);
      if (!(x > 0.0f) && !std::isnan(x)) x = 0.0f;
      mismatches += got_second[n] != golden::FloatToBf16(x, kMode);
      mismatches += got_third[n] != golden::FloatToBf16(golden::FloatFromBits(acc[m][n]), kMode);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// ACTIVATE: accumulator rows -> (+ bias row) -> (ReLU) -> bf16 -> unified buffer.
TEST(Datapath, ActivationUnitBiasReluAndRounding) {
  Harness& dut = Dut();
  BitSource bits(12);
  constexpr int kM = 20;
  for (int variant = 0; variant < 4; ++variant) {
    const bool relu = variant & 1, bias = variant & 2;
    dut.Reset();
    std::vector<std::vector<uint32_t>> acc(kM, std::vector<uint32_t>(kCols));
    for (int m = 0; m < kM; ++m) {
      for (int n = 0; n < kCols; ++n) {
        // Every fp32 class: random patterns, moderate values, specials.
        const uint64_t pick = bits.Below(10);
        acc[m][n] = pick < 4   ? golden::RandomFp32(bits)
                    : pick < 9 ? golden::FloatBits(golden::Bf16ToFloat(RandomOperand(bits)) * 1.37f)
                               : golden::SpecialFp32()[bits.Below(18)];
      }
      dut.WriteAccRow(static_cast<uint32_t>(m), acc[m]);
    }
    std::vector<uint32_t> bias_row(kCols);
    for (auto& v : bias_row) v = golden::FloatBits(golden::Bf16ToFloat(RandomOperand(bits, 5)));
    dut.WriteAccRow(100, bias_row);
    ActivateCmd cmd;
    cmd.acc_addr = 0;
    cmd.ub_addr = 40;
    cmd.rows = kM;
    cmd.relu = relu;
    cmd.bias = bias;
    cmd.bias_addr = 100;
    dut.QueueActivate(cmd);
    dut.RunUntilIdle();
    EXPECT_EQ(dut.ac_dones().size(), 1u);
    int mismatches = 0;
    for (int m = 0; m < kM; ++m) {
      const std::vector<uint16_t> got = dut.ReadUbRow(40 + static_cast<uint32_t>(m));
      for (int n = 0; n < dut.ub_lanes(); ++n) {
        uint16_t want = 0;  // lanes beyond Cols are written as zero
        if (n < kCols) {
          float x = golden::FloatFromBits(acc[m][n]);
          if (bias) x = golden::Fp32Add(x, golden::FloatFromBits(bias_row[n]), kMode);
          if (relu && !(x > 0.0f) && !std::isnan(x)) x = 0.0f;
          want = golden::FloatToBf16(x, kMode);
        }
        if (got[n] != want && ++mismatches <= 5) {
          ADD_FAILURE() << "activate relu=" << relu << " bias=" << bias << " [" << m << "][" << n
                        << "] acc 0x" << std::hex << acc[m][n] << ": rtl 0x" << got[n]
                        << ", golden 0x" << want;
        }
      }
    }
    std::printf("activate relu=%d bias=%d: %d x %d outputs, %d mismatches\n", relu, bias, kM,
                dut.ub_lanes(), mismatches);
  }
}

}  // namespace
}  // namespace mxu
