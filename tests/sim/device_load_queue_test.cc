// Load queues and timing: exact cycle counts of small programs, transposed loads at burst speed,
// several loads in flight and the hazards between them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "common/device_table.h"
#include "tests/sim/device_test_util.h"

namespace mxu::device_test {
namespace {

// Exact cycle counts of ExactCyclesOfSmallPrograms (16 x 16 device, default memory timing),
// measured on the RTL with per-engine load queues (branch dma-queue); see the test for how each
// splits up.
constexpr uint64_t kHaltCycles = 105;
constexpr uint64_t kLoadStoreCycles = 321;
// At one PE stage the array's latency is 31 (16 + 16 - 1); a deeper PE adds its own latency to
// the weights program's (docs/architecture.md, "The pipelined PE"), and the accumulators' add
// its cycles beyond the one it took unpipelined (484 was measured with that one).
constexpr uint64_t kWeightsCyclesBeyondLatency = 484 - 31 + (kAccAddCycles - 1);
constexpr uint64_t kTransposedCycles = 416;

// ------------------------------------------------------------------- load queues and timing

// Exact cycle counts of small programs under the default memory timing (latency 100, 32 bytes
// per cycle, 8 requests in flight): the device is deterministic, so any change to the pipeline's
// timing shows here. Each number is derived in its comment; CYCLES counts from START to the
// interrupt's cycle.
// The RTL's cut table (rtl/mxu_pkg.sv) and the C++ one (common/pe_pipeline.h) agree on this
// device's depth: the model backend and the planner time the array with the C++ one.
TEST_F(DeviceTest, PipelineCsrMatchesTheCppTable) {
  const uint32_t pipeline = Dut().ReadCsr(csr::kPipeline);
  const uint32_t stages = csr::PipelinePeStages(pipeline);
  ASSERT_GE(stages, 1u);
  ASSERT_LE(stages, kPeMaxStages);
  EXPECT_EQ(csr::PipelineMulCycles(pipeline), PePipelineOf(stages).mul_cycles);
  EXPECT_EQ(csr::PipelineAddCycles(pipeline), PePipelineOf(stages).add_cycles);
  EXPECT_EQ(stages, PePipelineOf(stages).stages);
}

TEST_F(DeviceTest, ExactCyclesOfSmallPrograms) {
  if (config_.rows != 16 || config_.cols != 16) GTEST_SKIP() << "numbers for a 16 x 16 array";
  BitSource bits(21);
  const auto a = RandomBf16(64 * 16, bits), w = RandomBf16(2 * 16 * 16, bits);
  WriteHost(0x20000, a.data(), a.size() * 2);
  WriteHost(0x30000, w.data(), w.size() * 2);
  struct Case {
    const char* name;
    std::vector<Instruction> program;
    uint64_t cycles;
  };
  const Case cases[] = {
      // 105 = the fetch's 100-cycle latency + 5: START to the clear cycle and the fetch request,
      // the beat into the instruction buffer, HALT's dispatch, the drain and the done.
      {"halt", {isa::Halt()}, kHaltCycles},
      // 321 = 105 (as HALT) + about 104 for the LOAD (one latency, 2 beats, the row writes and
      // its done) + about 113 for the STORE after the SYNC (rows read back to back, one 2-beat
      // write burst,
      // its response after one more latency).
      {"load+store",
       {isa::Load(Buffer::kUb, 2, 16, 0, 0x20000, 16), isa::Sync(),
        isa::Store(Buffer::kUb, 2, 16, 0, 0x50000, 16), isa::Halt()},
       kLoadStoreCycles},
      // 456 + the array's latency (487 at one PE stage) = 105 (fetch) + about 100 + 64 + 16
      // for the A rows and the first weight tile, requested back to back and returned in order
      // (the second weight LOAD is queued behind the first: one latency for all three) + 2 x 64
      // + latency + 2 + kAccAddCycles for the two MATMULs back to back with new weights (no bubble:
      // 64 rows >=
      // 15 x the PE's add cycles; docs/architecture.md, Timing) + about 53 of dispatch, RAW wait
      // on the A rows, drain and done. One LOAD per engine at a time would add a latency.
      {"2 x (weights + matmul)",
       {isa::Load(Buffer::kUb, 64, 16, 0, 0x20000, 16),
        isa::Load(Buffer::kWeights, 16, 16, 0, 0x30000, 16),
        isa::Load(Buffer::kWeights, 16, 16, 0, 0x30000 + 512, 16),
        isa::Matmul(64, 16, 0, 0, false, true), isa::Matmul(64, 16, 0, 64, false, true),
        isa::Halt()},
       kWeightsCyclesBeyondLatency + ArrayLatency(16, 16, PipelineOfDevice())},
      // 416 = 105 (fetch) + 2 x ~110 for the 16 host-row bursts of 4 beats (the memory takes 8
      // requests at a time: two rounds of latency) + 64 rows written out once every lane is in,
      // + about 27 of pipeline, done and drain.
      {"transposed load",
       {isa::Load(Buffer::kUb, 64, 16, 0, 0x20000, 64, true), isa::Halt()},
       kTransposedCycles},
  };
  for (const Case& c : cases) {
    const Outcome out = RunProgram(c.program);
    ExpectDone(out);
    std::printf("%s: %llu cycles\n", c.name,
                static_cast<unsigned long long>(out.counter(csr::Counter::kCycles)));
    EXPECT_EQ(out.counter(csr::Counter::kCycles), c.cycles) << c.name;
  }
}

// A transposed UB load (op(A) = A^T from a K x M matrix) runs at burst speed: host rows are read
// TransposeRows elements at a time (16-beat bursts) into a double-buffered transpose buffer, so a
// long transposed load takes within 5% of the plain load of the same data; a single block pays
// one block's emission more (its last row needs every lane), no more. The data are exact, from
// an unaligned address with an odd stride.
TEST_F(DeviceTest, TransposedLoadRunsAtBurstSpeed) {
  BitSource bits(22);
  const uint32_t lanes = config_.ub_lanes;
  struct Case {
    uint32_t rows;
    bool aligned;  // host rows bus aligned (address and stride), as a K x M operand usually is
  };
  for (const Case c : {Case{256, true}, Case{config_.ub_depth, true}, Case{256, false},
                       Case{config_.ub_depth, false}}) {
    const uint32_t rows = c.rows, stride = c.aligned ? rows : rows + 3;   // odd: offsets differ
    const uint64_t src = 0x100000 + (c.aligned ? 0 : 6), dst = 0x400000;  // K x M
    const uint64_t packed = 0x800000;  // the same data as M x K rows, for the plain load
    const auto m = RandomBf16(static_cast<size_t>(lanes) * stride, bits);
    WriteHost(src, m.data(), m.size() * 2);
    std::vector<uint16_t> rows_major(static_cast<size_t>(rows) * lanes);
    for (uint32_t i = 0; i < rows; ++i) {
      for (uint32_t j = 0; j < lanes; ++j) rows_major[i * lanes + j] = m[j * stride + i];
    }
    WriteHost(packed, rows_major.data(), rows_major.size() * 2);
    const Outcome plain =
        RunProgram({isa::Load(Buffer::kUb, rows, lanes, 0, packed, lanes), isa::Halt()});
    ExpectDone(plain);
    const Outcome transposed =
        RunProgram({isa::Load(Buffer::kUb, rows, lanes, 0, src, stride, true), isa::Halt()});
    ExpectDone(transposed);
    const uint64_t p = plain.counter(csr::Counter::kCycles);
    const uint64_t t = transposed.counter(csr::Counter::kCycles);
    std::printf("%u x %u %s: plain load %llu cycles, transposed %llu\n", rows, lanes,
                c.aligned ? "aligned" : "unaligned", static_cast<unsigned long long>(p),
                static_cast<unsigned long long>(t));
    if (c.aligned) {
      // The last block's emission (its last row needs every lane) and a few cycles of pipeline:
      // a block is mxu_pkg::TransposeRows rows, 8 x the bus bytes (256 at 32), at most 2,048.
      const uint32_t block = static_cast<uint32_t>(std::min<uint64_t>(8 * config_.bus_bytes, 2048));
      EXPECT_LE(t, p + std::min(rows, block) + 8) << rows << " rows";
      if (rows >= 4096) {
        EXPECT_LE(t * 100, p * 105) << rows << " rows";
      }
    } else {
      // Blocks of 240 rows (a host row's run must fit 16 beats at any offset), some of them
      // split at a 4 KiB boundary into two requests: at most 25% slower (measured: 19%).
      EXPECT_LE(t * 100, (p + std::min(rows, 240u) + 8) * 125) << rows << " rows";
    }
    ExpectDone(RunProgram({isa::Store(Buffer::kUb, rows, lanes, 0, dst, lanes), isa::Halt()}));
    EXPECT_EQ(ReadHost<uint16_t>(dst, rows_major.size()), rows_major) << rows << " rows";
  }
}

// Transposed loads of several blocks and commands in a row, lanes < UbLanes, rows not a multiple
// of the block, mixed with plain loads in the same engine: every row lands where it should.
TEST_F(DeviceTest, QueuedTransposedAndPlainLoadsMix) {
  BitSource bits(23);
  const uint32_t lanes = config_.ub_lanes - 3, rows = 600, stride = 611;
  const uint64_t src = 0x100000 + 2;
  const auto m = RandomBf16(static_cast<size_t>(lanes) * stride, bits);
  WriteHost(src, m.data(), m.size() * 2);
  const auto plain = RandomBf16(37 * config_.ub_lanes, bits);
  WriteHost(0x300000, plain.data(), plain.size() * 2);
  const Outcome out = RunProgram(
      {isa::Load(Buffer::kUb, rows, lanes, 0, src, stride, true),
       isa::Load(Buffer::kUb, 37, config_.ub_lanes, rows, 0x300000, config_.ub_lanes),
       isa::Load(Buffer::kUb, 5, lanes, rows + 37, src + 2 * 7, stride, true),
       isa::Load(Buffer::kUb, 300, lanes, rows + 42, src + 2 * 300, stride, true), isa::Sync(),
       isa::Store(Buffer::kUb, rows + 342, config_.ub_lanes, 0, 0x500000, config_.ub_lanes),
       isa::Halt()});
  ExpectDone(out);
  const auto got = ReadHost<uint16_t>(0x500000, (rows + 342) * config_.ub_lanes);
  int mismatches = 0;
  auto expect_t = [&](uint32_t row0, uint32_t first, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
      for (uint32_t j = 0; j < config_.ub_lanes; ++j) {
        const uint16_t want = j < lanes ? m[j * stride + first + i] : 0;
        mismatches += got[(row0 + i) * config_.ub_lanes + j] != want;
      }
    }
  };
  expect_t(0, 0, rows);
  for (uint32_t i = 0; i < 37 * config_.ub_lanes; ++i) {
    mismatches += got[rows * config_.ub_lanes + i] != plain[i];
  }
  expect_t(rows + 37, 7, 5);
  expect_t(rows + 42, 300, 300);
  EXPECT_EQ(mismatches, 0);
}

// Several loads in flight and the hazards between them: LOAD X, LOAD Y, MATMUL reading X (waits
// for LOAD X: RAW), LOAD overwriting X (waits for the MATMUL: WAR), MATMULs reading Y and the new
// X. The results are exact, and the second LOAD did overlap the first.
TEST_F(DeviceTest, HazardsWithSeveralLoadsInFlight) {
  const int m = 64, k = static_cast<int>(config_.rows), n = static_cast<int>(config_.cols);
  BitSource bits(24);
  golden::Bf16Matrix a[3], b{k, n, RandomBf16(static_cast<size_t>(k) * n, bits)};
  const uint64_t a_addr[3] = {0x100000, 0x110000, 0x120000}, b_addr = 0x130000;
  for (int i = 0; i < 3; ++i) {
    a[i] = {m, k, RandomBf16(static_cast<size_t>(m) * k, bits)};
    WriteHost(a_addr[i], a[i].data.data(), a[i].data.size() * 2);
  }
  WriteHost(b_addr, b.data.data(), b.data.size() * 2);
  const uint32_t x = 0, y = std::min(1000u, config_.ub_depth - m);
  const std::vector<Instruction> program = {
      isa::Load(Buffer::kWeights, k, n, 0, b_addr, n),
      isa::Load(Buffer::kUb, m, k, x, a_addr[0], k),
      isa::Load(Buffer::kUb, m, k, y, a_addr[1], k),
      isa::Matmul(m, k, x, 0, false, true),
      isa::Load(Buffer::kUb, m, k, x, a_addr[2], k),  // WAR on X
      isa::Matmul(m, k, y, m, false, false),
      isa::Matmul(m, k, x, 2 * m, false, false),  // RAW on the new X
      isa::Store(Buffer::kAcc, 3 * m, n, 0, 0x200000, n),
      isa::Halt()};
  const Outcome out = RunProgram(program);
  ExpectDone(out);
  const Subnormals mode = SubnormalsOfDevice();
  const auto got = ReadHost<uint32_t>(0x200000, static_cast<size_t>(3 * m) * n);
  int mismatches = 0;
  for (int i = 0; i < 3; ++i) {
    const golden::Fp32Matrix want = golden::Gemm(a[i], b, k, mode);
    for (int r = 0; r < m; ++r) {
      for (int c = 0; c < n; ++c) {
        mismatches +=
            got[static_cast<size_t>(i * m + r) * n + c] != golden::FloatBits(want.at(r, c));
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
  // The same program with a SYNC after each of the first three LOADs runs them one at a time.
  std::vector<Instruction> serial;
  for (size_t i = 0; i < program.size(); ++i) {
    serial.push_back(program[i]);
    if (i < 3) serial.push_back(isa::Sync());
  }
  const Outcome slow = RunProgram(serial);
  ExpectDone(slow);
  std::printf("three loads queued: %llu cycles, one at a time: %llu\n",
              static_cast<unsigned long long>(out.counter(csr::Counter::kCycles)),
              static_cast<unsigned long long>(slow.counter(csr::Counter::kCycles)));
  // Queued, the loads save at least one memory latency (about 300 cycles on a 16 x 16 array,
  // 110 on an 8 x 4 one, whose rows are shorter).
  const uint64_t latency = Dut().memory().config().timing.latency_cycles;
  EXPECT_LT(out.counter(csr::Counter::kCycles) + latency, slow.counter(csr::Counter::kCycles));
}

// A STORE holds its buffer rows only until it has read them: the MATMUL that overwrites the
// accumulator rows it stores (WAR) starts before the STORE's write responses are back, and the
// stored values are still those of the first MATMUL.
TEST_F(DeviceTest, StoreReleasesItsRowsOnceRead) {
  const int m = 64, k = static_cast<int>(config_.rows), n = static_cast<int>(config_.cols);
  BitSource bits(25);
  golden::Bf16Matrix a[2], b{k, n, RandomBf16(static_cast<size_t>(k) * n, bits)};
  const uint64_t a_addr[2] = {0x100000, 0x110000}, b_addr = 0x130000,
                 c_addr[2] = {0x200000, 0x210000};
  for (int i = 0; i < 2; ++i) {
    a[i] = {m, k, RandomBf16(static_cast<size_t>(m) * k, bits)};
    WriteHost(a_addr[i], a[i].data.data(), a[i].data.size() * 2);
  }
  WriteHost(b_addr, b.data.data(), b.data.size() * 2);
  auto program = [&](bool sync) {
    std::vector<Instruction> p = {isa::Load(Buffer::kWeights, k, n, 0, b_addr, n),
                                  isa::Load(Buffer::kUb, m, k, 0, a_addr[0], k),
                                  isa::Load(Buffer::kUb, m, k, m, a_addr[1], k),
                                  isa::Matmul(m, k, 0, 0, false, true),
                                  isa::Store(Buffer::kAcc, m, n, 0, c_addr[0], n)};
    if (sync) p.push_back(isa::Sync());
    p.push_back(isa::Matmul(m, k, m, 0, false, false));  // overwrites the stored rows
    p.push_back(isa::Store(Buffer::kAcc, m, n, 0, c_addr[1], n));
    p.push_back(isa::Halt());
    return p;
  };
  const Subnormals mode = SubnormalsOfDevice();
  uint64_t cycles[2];
  for (const bool sync : {false, true}) {
    const Outcome out = RunProgram(program(sync));
    ExpectDone(out);
    cycles[sync] = out.counter(csr::Counter::kCycles);
    int mismatches = 0;
    for (int i = 0; i < 2; ++i) {
      const golden::Fp32Matrix want = golden::Gemm(a[i], b, k, mode);
      const auto got = ReadHost<uint32_t>(c_addr[i], static_cast<size_t>(m) * n);
      for (int r = 0; r < m; ++r) {
        for (int c = 0; c < n; ++c) {
          mismatches += got[static_cast<size_t>(r) * n + c] != golden::FloatBits(want.at(r, c));
        }
      }
    }
    EXPECT_EQ(mismatches, 0) << "sync: " << sync;
  }
  std::printf("store then overwrite: %llu cycles, with a SYNC between them: %llu\n",
              static_cast<unsigned long long>(cycles[0]),
              static_cast<unsigned long long>(cycles[1]));
  // The SYNC waits for the write responses too: one memory latency (100) more.
  EXPECT_LT(cycles[0] + 80, cycles[1]);
}

// An error in the second of two queued loads names that LOAD and its burst, also while the first
// (transposed) is still being written out, and in the weight engine.
TEST_F(DeviceTest, ErrorInSecondQueuedLoadNamesIt) {
  const uint64_t beyond = Dut().memory().config().size_bytes + 0x1000;
  const uint32_t lanes = config_.ub_lanes;
  // Disjoint buffer rows (512 at 0, then rows 1024 and 2048 on a UB of 4096 rows or more).
  const uint32_t first = std::min(512u, config_.ub_depth / 4),
                 second = std::min(1024u, config_.ub_depth / 2),
                 third = std::min(2048u, config_.ub_depth / 4 * 3);
  Outcome out = RunProgram({isa::Load(Buffer::kUb, first, lanes, 0, 0x100000, lanes),
                            isa::Load(Buffer::kUb, 4, lanes, second, beyond + 64, lanes),
                            isa::Load(Buffer::kUb, 4, lanes, third, 0x100000, lanes), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemRead, 1);
  const uint64_t beat_mask = ~(config_.bus_bytes - 1);  // bursts start at a beat
  EXPECT_EQ(out.error_addr, (beyond + 64) & beat_mask);
  out = RunProgram({isa::Sync(), isa::Load(Buffer::kUb, 256, lanes, 0, 0x100000, 300, true),
                    isa::Load(Buffer::kUb, 2, lanes, second, beyond + 2, lanes), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemRead, 2);
  EXPECT_EQ(out.error_addr, beyond);
  out = RunProgram(
      {isa::Load(Buffer::kWeights, config_.rows, config_.cols, 0, 0x100000, config_.cols, true),
       isa::Load(Buffer::kWeights, config_.rows, config_.cols, 0, beyond + 32, config_.cols),
       isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemRead, 1);
  EXPECT_EQ(out.error_addr, (beyond + 32) & beat_mask);
}

}  // namespace
}  // namespace mxu::device_test
