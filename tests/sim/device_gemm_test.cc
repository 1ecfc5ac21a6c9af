// GEMM programs on the device: bit-exact results, counters that add up, DMA bytes in whole
// beats, loads overlapping compute, and memory timing that changes cycles, not results.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "tests/sim/device_test_util.h"

namespace mxu::device_test {
namespace {

TEST_F(DeviceTest, GemmProgramIsBitExactAndCountersAddUp) {
  for (bool transposed : {false, true}) {
    const GemmCase g{29, static_cast<int>(3 * config_.rows - 2), static_cast<int>(config_.cols),
                     transposed};
    const GemmData d = WriteGemmInputs(g, 10 + transposed);
    const auto program = GemmProgram(g, config_, false);
    const Outcome out = RunProgram(program);
    ExpectDone(out);
    EXPECT_EQ(CheckGemmOutputs(g, d, config_), 0) << "B transposed: " << transposed;
    const uint64_t tiles = (g.k + config_.rows - 1) / config_.rows;
    EXPECT_EQ(out.counter(csr::Counter::kArrayBusy), tiles * g.m);
    EXPECT_EQ(out.counter(csr::Counter::kMacs), tiles * g.m * config_.rows * config_.cols);
    EXPECT_EQ(out.counter(csr::Counter::kInstructions), program.size());
    EXPECT_EQ(out.counter(csr::Counter::kDmaWriteBytes),
              static_cast<uint64_t>(g.m) * g.n * (4 + 2));
    EXPECT_GT(out.counter(csr::Counter::kCycles), tiles * g.m);
  }
}

// DMA read bytes: whole bus beats of every segment a load reads, plus the fetched program.
TEST_F(DeviceTest, DmaReadBytesCountWholeBeats) {
  const uint32_t rows = 5, lanes = 3;
  const uint64_t src = 0x20000 + 30;  // each 6-byte row straddles a beat boundary: 2 beats
  const std::vector<Instruction> program = {isa::Load(Buffer::kUb, rows, lanes, 0, src, 16),
                                            isa::Halt()};
  const Outcome out = RunProgram(program);
  ExpectDone(out);
  const uint64_t bus = config_.bus_bytes;
  uint64_t beats = (32 + bus - 1) / bus;  // the two 16-byte instructions at kProgramAddr
  for (uint32_t i = 0; i < rows; ++i) {
    const uint64_t a = src + 32ull * i;  // stride 16 elements = 32 bytes
    beats += (a + lanes * 2 - 1) / bus - a / bus + 1;
  }
  EXPECT_EQ(out.counter(csr::Counter::kDmaReadBytes), beats * bus);
}

// Rows shorter than a beat, packed back to back from a beat-aligned address, share their beats:
// the load reads each beat once (not a beat per row), across a 4 KiB page, the last beat part
// full, and every row arrives intact.
TEST_F(DeviceTest, RowsShorterThanABeatShareIt) {
  const uint64_t bus = config_.bus_bytes;
  uint32_t lanes = 1;
  while (2 * lanes <= config_.ub_lanes && 4 * lanes <= bus / 2) lanes *= 2;  // rows < a beat
  const uint32_t rows = 37, per_beat = static_cast<uint32_t>(bus / (2 * lanes));
  ASSERT_GT(per_beat, 1u);
  BitSource bits(9);
  const auto m = RandomBf16(rows * lanes, bits);
  const uint64_t src = 0x21000 - 3 * bus, dst = 0x48000;
  WriteHost(src, m.data(), m.size() * 2);
  const Outcome out =
      RunProgram({isa::Load(Buffer::kUb, rows, lanes, 5, src, lanes), isa::Sync(),
                  isa::Store(Buffer::kUb, rows, lanes, 5, dst, lanes), isa::Halt()});
  ExpectDone(out);
  EXPECT_EQ(ReadHost<uint16_t>(dst, m.size()), m);
  const uint64_t program_beats = (4 * 16 + bus - 1) / bus;  // kProgramAddr is beat aligned
  const uint64_t load_beats = (rows + per_beat - 1) / per_beat;
  EXPECT_EQ(out.counter(csr::Counter::kDmaReadBytes), (program_beats + load_beats) * bus);
}

// Loads of the next tile overlap the current MATMUL: the same program with a SYNC after every
// instruction takes longer.
TEST_F(DeviceTest, LoadsOverlapCompute) {
  const GemmCase g{64, static_cast<int>(4 * config_.rows), static_cast<int>(config_.cols), false};
  const GemmData d = WriteGemmInputs(g, 5);
  const Outcome overlapped = RunProgram(GemmProgram(g, config_, false));
  ExpectDone(overlapped);
  EXPECT_EQ(CheckGemmOutputs(g, d, config_), 0);
  const Outcome serial = RunProgram(GemmProgram(g, config_, true));
  ExpectDone(serial);
  EXPECT_EQ(CheckGemmOutputs(g, d, config_), 0);
  const uint64_t fast = overlapped.counter(csr::Counter::kCycles);
  const uint64_t slow = serial.counter(csr::Counter::kCycles);
  std::printf("gemm %dx%dx%d: %llu cycles overlapped, %llu with a SYNC after each instruction\n",
              g.m, g.k, g.n, static_cast<unsigned long long>(fast),
              static_cast<unsigned long long>(slow));
  EXPECT_LT(fast, slow);
}

// The same program under different memory latencies and bandwidths: identical results, cycle
// counts that grow with latency and shrink with bandwidth.
TEST_F(DeviceTest, MemoryTimingChangesCyclesNotResults) {
  const GemmCase g{48, static_cast<int>(2 * config_.rows + 1), static_cast<int>(config_.cols),
                   true};
  const GemmData d = WriteGemmInputs(g, 6);
  const auto program = GemmProgram(g, config_, false);
  struct Setting {
    unsigned latency, bytes_per_cycle;
  };
  const Setting settings[] = {{10, 32}, {100, 32}, {400, 32}, {100, 4}};
  uint64_t cycles[4];
  for (int s = 0; s < 4; ++s) {
    sim::HostMemory::Config memory;
    memory.timing.latency_cycles = settings[s].latency;
    memory.timing.bytes_per_cycle = settings[s].bytes_per_cycle;
    Dut().Reconfigure(memory);
    Dut().memory().Write(g.c_addr, std::vector<uint8_t>(g.m * g.n * 4, 0).data(), g.m * g.n * 4);
    const Outcome out = RunProgram(program);
    ExpectDone(out);
    EXPECT_EQ(CheckGemmOutputs(g, d, config_), 0);
    cycles[s] = out.counter(csr::Counter::kCycles);
    std::printf("latency %u, %u bytes/cycle: %llu cycles\n", settings[s].latency,
                settings[s].bytes_per_cycle, static_cast<unsigned long long>(cycles[s]));
  }
  EXPECT_LT(cycles[0], cycles[1]);
  EXPECT_LT(cycles[1], cycles[2]);
  EXPECT_LT(cycles[1], cycles[3]);
}

}  // namespace
}  // namespace mxu::device_test
