// Instruction-level tests of the device (mxu_top) on the SystemC platform: programs in host
// memory run to HALT or to a clear error, results are compared bit for bit with host copies and
// the golden model, the performance counters are checked against what the programs moved, and
// the same program runs under different memory timings. Every run is bounded by a watchdog.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "common/csr_map.h"
#include "common/isa.h"
#include "common/pe_pipeline.h"
#include "golden/float_vectors.h"
#include "golden/gemm.h"
#include "golden/numerics.h"
#include "sim/platform.h"

namespace mxu {
namespace {

using golden::BitSource;
using isa::Buffer;
using isa::Instruction;

constexpr uint64_t kProgramAddr = 0x1000;
constexpr uint64_t kWatchdog = 300'000;
// Exact cycle counts of ExactCyclesOfSmallPrograms (16 x 16 device, default memory timing),
// measured on the RTL with per-engine load queues (branch dma-queue); see the test for how each
// splits up.
constexpr uint64_t kHaltCycles = 105;
constexpr uint64_t kLoadStoreCycles = 322;
// At one PE stage the array's latency is 31 (16 + 16 - 1); a deeper PE adds its own latency to
// the weights program's (docs/architecture.md, "The pipelined PE").
constexpr uint64_t kWeightsCyclesBeyondLatency = 484 - 31;
constexpr uint64_t kTransposedCycles = 416;

sim::Platform* g_platform = nullptr;
sim::Platform& Dut() { return *g_platform; }

// The configuration read from the device (nothing here hard-codes the array size).
struct DeviceConfig {
  uint32_t rows, cols, ub_depth, acc_depth, ub_lanes;
  uint64_t bus_bytes;  // the memory port's bytes per beat
};

DeviceConfig ReadConfig() {
  sim::Platform& p = Dut();
  const uint32_t array = p.ReadCsr(csr::kArray);
  const uint32_t features = p.ReadCsr(csr::kFeatures);
  return {csr::ArrayRows(array),          csr::ArrayCols(array),
          p.ReadCsr(csr::kUbDepth),       p.ReadCsr(csr::kAccDepth),
          csr::FeaturesUbLanes(features), uint64_t{1} << csr::FeaturesBusLog2(features)};
}

// The PE pipeline the device reports (PIPELINE CSR), as the C++ table describes that depth.
PePipeline PipelineOfDevice() {
  return PePipelineOf(csr::PipelinePeStages(Dut().ReadCsr(csr::kPipeline)));
}

struct Outcome {
  bool completed = false;  // the interrupt came before the watchdog
  bool done = false;
  bool error = false;
  uint32_t code = 0;
  uint32_t pc = 0;
  uint64_t error_addr = 0;
  uint64_t counters[10] = {};
  uint64_t protocol_errors = 0;  // AXI rule violations the memory transactor saw
};

Outcome RunProgram(const std::vector<Instruction>& program, uint64_t program_addr = kProgramAddr,
                   uint32_t count = UINT32_MAX) {
  sim::Platform& p = Dut();
  std::vector<uint8_t> bytes;
  for (const Instruction& ins : program) isa::AppendBytes(ins, bytes);
  if (!bytes.empty() && program_addr + bytes.size() <= p.memory().config().size_bytes) {
    p.memory().Write(program_addr, bytes.data(), bytes.size());
  }
  p.WriteCsr(csr::kCmdAddrLo, static_cast<uint32_t>(program_addr));
  p.WriteCsr(csr::kCmdAddrHi, static_cast<uint32_t>(program_addr >> 32));
  p.WriteCsr(csr::kCmdCount, count == UINT32_MAX ? static_cast<uint32_t>(program.size()) : count);
  p.WriteCsr(csr::kCtrl, csr::kCtrlStart | csr::kCtrlIrqEnable);
  Outcome out;
  out.completed = p.RunUntilIrq(kWatchdog).completed;
  const uint32_t status = p.ReadCsr(csr::kStatus);
  out.done = status & csr::kStatusDone;
  out.error = status & csr::kStatusError;
  out.code = p.ReadCsr(csr::kErrorCode);
  out.pc = p.ReadCsr(csr::kErrorPc);
  out.error_addr = p.ReadCsr(csr::kErrorAddrLo) | uint64_t{p.ReadCsr(csr::kErrorAddrHi)} << 32;
  for (uint32_t i = 0; i < 10; ++i) {
    out.counters[i] = p.ReadCsr(csr::kCounterBase + 8 * i) |
                      uint64_t{p.ReadCsr(csr::kCounterBase + 8 * i + 4)} << 32;
  }
  p.WriteCsr(csr::kIrqClear, csr::kIrqClearPending);
  out.protocol_errors = p.transactor().protocol_error_count();
  return out;
}

uint64_t Counter(const Outcome& out, csr::Counter c) {
  return out.counters[static_cast<uint32_t>(c)];
}

void ExpectDone(const Outcome& out) {
  ASSERT_TRUE(out.completed) << "no interrupt before the watchdog";
  EXPECT_TRUE(out.done);
  EXPECT_FALSE(out.error) << "error " << csr::ErrorName(out.code) << " at pc " << out.pc;
  EXPECT_EQ(out.protocol_errors, 0u);
}

void ExpectError(const Outcome& out, csr::ErrorCode code, uint32_t pc) {
  ASSERT_TRUE(out.completed) << "no interrupt before the watchdog";
  EXPECT_TRUE(out.error);
  EXPECT_FALSE(out.done);
  EXPECT_EQ(out.code, static_cast<uint32_t>(code))
      << "got " << csr::ErrorName(out.code) << ", want " << csr::ErrorName(code);
  EXPECT_EQ(out.pc, pc);
}

class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Dut().Reset();
    Dut().memory().ClearInjectedErrors();
    Dut().Reconfigure(sim::HostMemory::Config());
    config_ = ReadConfig();
  }

  std::vector<uint16_t> RandomBf16(size_t n, BitSource& bits) {
    std::vector<uint16_t> v(n);
    for (auto& x : v) {
      x = static_cast<uint16_t>((golden::RandomBf16(bits) & 0x807F) | (117 + bits.Below(20)) << 7);
    }
    return v;
  }

  void WriteHost(uint64_t addr, const void* data, size_t bytes) {
    Dut().memory().Write(addr, data, bytes);
  }
  template <typename T>
  std::vector<T> ReadHost(uint64_t addr, size_t count) {
    std::vector<T> v(count);
    Dut().memory().Read(addr, v.data(), count * sizeof(T));
    return v;
  }

  DeviceConfig config_{};
};

TEST_F(DeviceTest, ReportsItsConfiguration) {
  EXPECT_EQ(Dut().ReadCsr(csr::kId), csr::kDeviceId);
  EXPECT_GE(config_.rows, 1u);
  EXPECT_GE(config_.cols, 1u);
  EXPECT_EQ(config_.ub_lanes, std::max(config_.rows, config_.cols));
}

#ifdef MXU_DEVICE_ROWS
// The parameters the build gave this device (MXU_DEVICES, cmake/devices.cmake) reached the RTL.
TEST_F(DeviceTest, ReportsItsBuildParameters) {
  EXPECT_EQ(config_.rows, uint32_t{MXU_DEVICE_ROWS});
  EXPECT_EQ(config_.cols, uint32_t{MXU_DEVICE_COLS});
  EXPECT_EQ(config_.ub_depth, uint32_t{MXU_DEVICE_UB_DEPTH});
  EXPECT_EQ(config_.acc_depth, uint32_t{MXU_DEVICE_ACC_DEPTH});
  EXPECT_EQ(Dut().ReadCsr(csr::kWfifoDepth), uint32_t{MXU_DEVICE_WFIFO_DEPTH});
  EXPECT_EQ((Dut().ReadCsr(csr::kFeatures) & csr::kFeaturesFlushSubnormals) != 0,
            MXU_DEVICE_FLUSH != 0);
}
#endif

TEST_F(DeviceTest, HaltAlone) {
  const Outcome out = RunProgram({isa::Halt()});
  ExpectDone(out);
  EXPECT_EQ(Counter(out, csr::Counter::kInstructions), 1u);
  EXPECT_GT(Counter(out, csr::Counter::kCycles), 0u);
}

// LOAD then STORE of the unified buffer through unaligned, strided host rows: every byte that
// should move does, and the bytes between rows stay untouched.
TEST_F(DeviceTest, LoadStoreUnifiedBufferRoundTrip) {
  BitSource bits(1);
  const uint32_t rows = 37, lanes = config_.ub_lanes, src_stride = lanes + 5,
                 dst_stride = lanes + 9;
  const uint64_t src = 0x20006, dst = 0x40002;  // 2-byte aligned, not bus aligned
  const auto data = RandomBf16(rows * src_stride, bits);
  WriteHost(src, data.data(), data.size() * 2);
  std::vector<uint16_t> canvas(rows * dst_stride, 0xBEEF);
  WriteHost(dst, canvas.data(), canvas.size() * 2);
  const Outcome out =
      RunProgram({isa::Load(Buffer::kUb, rows, lanes, 11, src, src_stride), isa::Sync(),
                  isa::Store(Buffer::kUb, rows, lanes, 11, dst, dst_stride), isa::Halt()});
  ExpectDone(out);
  const auto got = ReadHost<uint16_t>(dst, canvas.size());
  int mismatches = 0;
  for (uint32_t i = 0; i < rows; ++i) {
    for (uint32_t j = 0; j < dst_stride; ++j) {
      const uint16_t want = j < lanes ? data[i * src_stride + j] : 0xBEEF;
      mismatches += got[i * dst_stride + j] != want;
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(Counter(out, csr::Counter::kDmaWriteBytes), uint64_t{rows} * lanes * 2);
  EXPECT_EQ(Counter(out, csr::Counter::kInstructions), 4u);
}

// Rows packed back to back and bus aligned stream as long bursts across row and 4 KiB boundaries
// (linear mode), in both directions; a store with ReLU on the way out.
TEST_F(DeviceTest, PackedRowsStreamAcrossBoundaries) {
  BitSource bits(4);
  const uint32_t rows = std::min(300u, config_.acc_depth), lanes = config_.cols;
  std::vector<uint32_t> data(rows * lanes);
  for (auto& x : data) x = golden::RandomFp32(bits);
  const uint64_t src = 0x21000 - 32 * 7, dst = 0x43000 - 32 * 5;  // straddle 4 KiB pages
  WriteHost(src, data.data(), data.size() * 4);
  const Outcome out =
      RunProgram({isa::Load(Buffer::kAcc, rows, lanes, 0, src, lanes), isa::Sync(),
                  isa::Store(Buffer::kAcc, rows, lanes, 0, dst, lanes, true), isa::Halt()});
  ExpectDone(out);
  const auto got = ReadHost<uint32_t>(dst, data.size());
  int mismatches = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    const float x = golden::FloatFromBits(data[i]);
    const uint32_t want =
        std::isnan(x) ? golden::kFp32CanonicalNan : ((data[i] >> 31) ? 0u : data[i]);
    mismatches += got[i] != want;
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(Counter(out, csr::Counter::kDmaWriteBytes), uint64_t{rows} * lanes * 4);
}

TEST_F(DeviceTest, LoadStoreAccumulatorsRoundTripPartialLanes) {
  BitSource bits(2);
  const uint32_t rows = 9, lanes = config_.cols > 1 ? config_.cols - 1 : 1, stride = 40;
  std::vector<uint32_t> data(rows * stride);
  for (auto& x : data) x = golden::RandomFp32(bits);
  WriteHost(0x30004, data.data(), data.size() * 4);
  const Outcome out =
      RunProgram({isa::Load(Buffer::kAcc, rows, lanes, 3, 0x30004, stride), isa::Sync(),
                  isa::Store(Buffer::kAcc, rows, lanes, 3, 0x50000, lanes), isa::Halt()});
  ExpectDone(out);
  const auto got = ReadHost<uint32_t>(0x50000, rows * lanes);
  for (uint32_t i = 0; i < rows; ++i) {
    for (uint32_t j = 0; j < lanes; ++j) ASSERT_EQ(got[i * lanes + j], data[i * stride + j]);
  }
}

// A transposed load: UB row i, lane j <- host element (j, i).
TEST_F(DeviceTest, TransposedLoadIntoUnifiedBuffer) {
  BitSource bits(3);
  const uint32_t rows = 2 * config_.ub_lanes + 3, lanes = config_.ub_lanes, stride = rows + 7;
  const auto m = RandomBf16(lanes * stride, bits);  // lanes host rows of `stride` elements
  WriteHost(0x60002, m.data(), m.size() * 2);
  const Outcome out =
      RunProgram({isa::Load(Buffer::kUb, rows, lanes, 0, 0x60002, stride, true), isa::Sync(),
                  isa::Store(Buffer::kUb, rows, lanes, 0, 0x80000, lanes), isa::Halt()});
  ExpectDone(out);
  const auto got = ReadHost<uint16_t>(0x80000, rows * lanes);
  int mismatches = 0;
  for (uint32_t i = 0; i < rows; ++i) {
    for (uint32_t j = 0; j < lanes; ++j) mismatches += got[i * lanes + j] != m[j * stride + i];
  }
  EXPECT_EQ(mismatches, 0);
}

// Host layout of a GEMM and the program that computes it tile by tile (N <= cols): all K tiles of
// A loaded into the unified buffer, each weight tile loaded (plain or transposed from B^T) before
// its MATMUL, results stored as fp32 and, after a ReLU activation, as bf16.
struct GemmCase {
  int m, k, n;
  bool b_transposed;
  uint64_t a_addr = 0x100000, b_addr = 0x200000, c_addr = 0x300000, y_addr = 0x400000;
};

std::vector<Instruction> GemmProgram(const GemmCase& g, const DeviceConfig& cfg, bool sync_each) {
  std::vector<Instruction> p;
  const uint32_t tiles = (g.k + cfg.rows - 1) / cfg.rows;
  for (uint32_t t = 0; t < tiles; ++t) {
    const uint32_t k0 = t * cfg.rows, k_rows = std::min<uint32_t>(cfg.rows, g.k - k0);
    // A tile: rows m, lanes k0 .. k0+k_rows-1 of A (M x K, row-major).
    p.push_back(isa::Load(Buffer::kUb, g.m, k_rows, t * g.m, g.a_addr + 2 * k0, g.k));
    if (sync_each) p.push_back(isa::Sync());
    if (g.b_transposed) {  // B^T is N x K in memory: weight row r, lane n <- B^T[n][k0 + r]
      p.push_back(isa::Load(Buffer::kWeights, k_rows, g.n, 0, g.b_addr + 2 * k0, g.k, true));
    } else {
      p.push_back(isa::Load(Buffer::kWeights, k_rows, g.n, 0, g.b_addr + 2ull * k0 * g.n, g.n));
    }
    if (sync_each) p.push_back(isa::Sync());
    p.push_back(isa::Matmul(g.m, k_rows, t * g.m, 0, t > 0, true));
    if (sync_each) p.push_back(isa::Sync());
  }
  p.push_back(isa::Store(Buffer::kAcc, g.m, g.n, 0, g.c_addr, g.n));
  p.push_back(isa::Activate(g.m, 0, cfg.ub_depth - g.m, true, false));
  p.push_back(isa::Store(Buffer::kUb, g.m, g.n, cfg.ub_depth - g.m, g.y_addr, g.n));
  p.push_back(isa::Halt());
  return p;
}

struct GemmData {
  golden::Bf16Matrix a, b;
};

GemmData WriteGemmInputs(const GemmCase& g, uint64_t seed) {
  BitSource bits(seed);
  GemmData d{{g.m, g.k, {}}, {g.k, g.n, {}}};
  for (auto* mat : {&d.a, &d.b}) {
    mat->data.resize(static_cast<size_t>(mat->rows) * mat->cols);
    for (auto& x : mat->data) {
      x = bits.Below(50) == 0 ? golden::SpecialBf16()[bits.Below(18)]
                              : static_cast<uint16_t>((golden::RandomBf16(bits) & 0x807F) |
                                                      (117 + bits.Below(20)) << 7);
    }
  }
  Dut().memory().Write(g.a_addr, d.a.data.data(), d.a.data.size() * 2);
  if (g.b_transposed) {
    std::vector<uint16_t> bt(d.b.data.size());
    for (int k = 0; k < g.k; ++k) {
      for (int n = 0; n < g.n; ++n) bt[static_cast<size_t>(n) * g.k + k] = d.b.at(k, n);
    }
    Dut().memory().Write(g.b_addr, bt.data(), bt.size() * 2);
  } else {
    Dut().memory().Write(g.b_addr, d.b.data.data(), d.b.data.size() * 2);
  }
  return d;
}

// Compares C (fp32) and ReLU(C) as bf16 in host memory with the golden model.
int CheckGemmOutputs(const GemmCase& g, const GemmData& d, const DeviceConfig& cfg) {
  const Subnormals mode = csr::FeaturesFlushSubnormals(Dut().ReadCsr(csr::kFeatures))
                              ? Subnormals::kFlush
                              : Subnormals::kIeee;
  const golden::Fp32Matrix want = golden::Gemm(d.a, d.b, static_cast<int>(cfg.rows), mode);
  std::vector<uint32_t> c(static_cast<size_t>(g.m) * g.n);
  std::vector<uint16_t> y(c.size());
  Dut().memory().Read(g.c_addr, c.data(), c.size() * 4);
  Dut().memory().Read(g.y_addr, y.data(), y.size() * 2);
  int mismatches = 0;
  for (int i = 0; i < g.m; ++i) {
    for (int j = 0; j < g.n; ++j) {
      const float w = want.at(i, j);
      const size_t at = static_cast<size_t>(i) * g.n + j;
      if (c[at] != golden::FloatBits(w) || y[at] != golden::FloatToBf16(golden::Relu(w), mode)) {
        if (++mismatches <= 5) {
          ADD_FAILURE() << "C[" << i << "][" << j << "] device 0x" << std::hex << c[at] << "/0x"
                        << y[at] << ", golden 0x" << golden::FloatBits(w);
        }
      }
    }
  }
  return mismatches;
}

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
    EXPECT_EQ(Counter(out, csr::Counter::kArrayBusy), tiles * g.m);
    EXPECT_EQ(Counter(out, csr::Counter::kMacs), tiles * g.m * config_.rows * config_.cols);
    EXPECT_EQ(Counter(out, csr::Counter::kInstructions), program.size());
    EXPECT_EQ(Counter(out, csr::Counter::kDmaWriteBytes),
              static_cast<uint64_t>(g.m) * g.n * (4 + 2));
    EXPECT_GT(Counter(out, csr::Counter::kCycles), tiles * g.m);
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
  EXPECT_EQ(Counter(out, csr::Counter::kDmaReadBytes), beats * bus);
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
  EXPECT_EQ(Counter(out, csr::Counter::kDmaReadBytes), (program_beats + load_beats) * bus);
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
  const uint64_t fast = Counter(overlapped, csr::Counter::kCycles);
  const uint64_t slow = Counter(serial, csr::Counter::kCycles);
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
    cycles[s] = Counter(out, csr::Counter::kCycles);
    std::printf("latency %u, %u bytes/cycle: %llu cycles\n", settings[s].latency,
                settings[s].bytes_per_cycle, static_cast<unsigned long long>(cycles[s]));
  }
  EXPECT_LT(cycles[0], cycles[1]);
  EXPECT_LT(cycles[1], cycles[2]);
  EXPECT_LT(cycles[1], cycles[3]);
}

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
      // 322 = 105 (as HALT) + about 104 for the LOAD (one latency, 2 beats, the row writes and
      // its done) + about 114 for the STORE after the SYNC (rows read, one 2-beat write burst,
      // its response after one more latency).
      {"load+store",
       {isa::Load(Buffer::kUb, 2, 16, 0, 0x20000, 16), isa::Sync(),
        isa::Store(Buffer::kUb, 2, 16, 0, 0x50000, 16), isa::Halt()},
       kLoadStoreCycles},
      // 453 + the array's latency (484 at one PE stage) = 105 (fetch) + about 100 + 64 + 16
      // for the A rows and the first weight tile, requested back to back and returned in order
      // (the second weight LOAD is queued behind the first: one latency for all three) + 2 x 64
      // + latency + 3 for the two MATMULs back to back with new weights (no bubble: 64 rows >=
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
                static_cast<unsigned long long>(Counter(out, csr::Counter::kCycles)));
    EXPECT_EQ(Counter(out, csr::Counter::kCycles), c.cycles) << c.name;
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
    const uint64_t p = Counter(plain, csr::Counter::kCycles);
    const uint64_t t = Counter(transposed, csr::Counter::kCycles);
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
  const Subnormals mode = csr::FeaturesFlushSubnormals(Dut().ReadCsr(csr::kFeatures))
                              ? Subnormals::kFlush
                              : Subnormals::kIeee;
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
              static_cast<unsigned long long>(Counter(out, csr::Counter::kCycles)),
              static_cast<unsigned long long>(Counter(slow, csr::Counter::kCycles)));
  // Queued, the loads save at least one memory latency (about 300 cycles on a 16 x 16 array,
  // 110 on an 8 x 4 one, whose rows are shorter).
  const uint64_t latency = Dut().memory().config().timing.latency_cycles;
  EXPECT_LT(Counter(out, csr::Counter::kCycles) + latency, Counter(slow, csr::Counter::kCycles));
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
  const Subnormals mode = csr::FeaturesFlushSubnormals(Dut().ReadCsr(csr::kFeatures))
                              ? Subnormals::kFlush
                              : Subnormals::kIeee;
  uint64_t cycles[2];
  for (const bool sync : {false, true}) {
    const Outcome out = RunProgram(program(sync));
    ExpectDone(out);
    cycles[sync] = Counter(out, csr::Counter::kCycles);
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

// ------------------------------------------------------------------------------- error paths

TEST_F(DeviceTest, IllegalOpcodeStopsWithItsPc) {
  ExpectError(RunProgram({isa::Sync(), isa::Sync(), isa::Raw({0x55, 0, 0, 0}), isa::Halt()}),
              csr::ErrorCode::kIllegalOpcode, 2);
  ExpectError(RunProgram({isa::Raw({0, 0, 0, 0})}), csr::ErrorCode::kIllegalOpcode, 0);
}

TEST_F(DeviceTest, IllegalFieldsAreRejected) {
  Instruction halt = isa::Halt();
  halt.words[3] |= 1u << 4;  // a reserved bit
  ExpectError(RunProgram({halt}), csr::ErrorCode::kIllegalField, 0);
  ExpectError(RunProgram({isa::Load(Buffer::kUb, 0, 1, 0, 0x20000, 1), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);  // zero rows
  ExpectError(
      RunProgram({isa::Load(Buffer::kUb, 1, config_.ub_lanes + 1, 0, 0x20000, 64), isa::Halt()}),
      csr::ErrorCode::kIllegalField, 0);  // too many lanes
  ExpectError(RunProgram({isa::Load(Buffer::kAcc, 1, 1, 0, 0x20000, 1, true), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);  // transposed accumulator load
  ExpectError(RunProgram({isa::Matmul(1, config_.rows + 1, 0, 0, false, false), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);  // k_rows beyond the array
  ExpectError(RunProgram({isa::Store(Buffer::kUb, 1, 1, 0, 0x20000, 1, true), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);  // ReLU on a unified-buffer store
}

TEST_F(DeviceTest, BufferRangesAreChecked) {
  ExpectError(
      RunProgram({isa::Load(Buffer::kUb, 2, 1, config_.ub_depth - 1, 0x20000, 1), isa::Halt()}),
      csr::ErrorCode::kUbRange, 0);
  ExpectError(
      RunProgram({isa::Sync(), isa::Store(Buffer::kAcc, 1, 1, config_.acc_depth, 0x20000, 1)}),
      csr::ErrorCode::kAccRange, 1);
  ExpectError(RunProgram({isa::Matmul(4, 1, 0, config_.acc_depth - 3, false, false), isa::Halt()}),
              csr::ErrorCode::kAccRange, 0);
}

TEST_F(DeviceTest, MisalignedHostAddressesAreRejected) {
  ExpectError(RunProgram({isa::Load(Buffer::kUb, 1, 1, 0, 0x20001, 1), isa::Halt()}),
              csr::ErrorCode::kMisaligned, 0);
  ExpectError(RunProgram({isa::Store(Buffer::kAcc, 1, 1, 0, 0x20002, 1), isa::Halt()}),
              csr::ErrorCode::kMisaligned, 0);
  ExpectError(RunProgram({isa::Halt()}, kProgramAddr + 8), csr::ErrorCode::kMisaligned, 0);
}

TEST_F(DeviceTest, WeightTilesAreAccountedFor) {
  ExpectError(RunProgram({isa::Matmul(1, 1, 0, 0, false, true), isa::Halt()}),
              csr::ErrorCode::kNoWeights, 0);
  const Instruction w = isa::Load(Buffer::kWeights, 1, 1, 0, 0x20000, 1);
  ExpectError(RunProgram({w, w, w, w, isa::Halt()}), csr::ErrorCode::kWeightsFull, 3);
}

TEST_F(DeviceTest, RunningOffTheProgramIsAnError) {
  ExpectError(RunProgram({isa::Sync(), isa::Sync()}), csr::ErrorCode::kCmdOverrun, 2);
  ExpectError(RunProgram({isa::Halt()}, kProgramAddr, 0), csr::ErrorCode::kCmdOverrun, 0);
}

TEST_F(DeviceTest, MemoryErrorsStopTheDevice) {
  const uint64_t beyond = Dut().memory().config().size_bytes + 0x1000;
  Outcome out = RunProgram({isa::Sync(), isa::Load(Buffer::kUb, 4, 1, 0, beyond, 1), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemRead, 1);
  EXPECT_EQ(out.error_addr, beyond & ~uint64_t{31});
  Dut().memory().InjectError(0x70000, 64);
  out = RunProgram({isa::Store(Buffer::kUb, 8, 1, 0, 0x6FFF0, 32), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemWrite, 0);
  EXPECT_GE(out.error_addr, 0x6FFE0u);
  // A program that cannot even be fetched.
  ExpectError(RunProgram({}, beyond, 4), csr::ErrorCode::kMemRead, 0);
}

// After every kind of stop the device runs the next program normally.
TEST_F(DeviceTest, RecoversAfterErrorsAndSoftReset) {
  ExpectError(RunProgram({isa::Raw({0x77, 0, 0, 0})}), csr::ErrorCode::kIllegalOpcode, 0);
  ExpectDone(RunProgram({isa::Halt()}));
  // Abort a long program in the middle with a soft reset.
  const GemmCase g{200, static_cast<int>(4 * config_.rows), static_cast<int>(config_.cols), false};
  const GemmData d = WriteGemmInputs(g, 7);
  std::vector<uint8_t> bytes;
  for (const Instruction& ins : GemmProgram(g, config_, false)) isa::AppendBytes(ins, bytes);
  Dut().memory().Write(kProgramAddr, bytes.data(), bytes.size());
  Dut().WriteCsr(csr::kCmdAddrLo, kProgramAddr);
  Dut().WriteCsr(csr::kCmdAddrHi, 0);
  Dut().WriteCsr(csr::kCmdCount, static_cast<uint32_t>(bytes.size() / 16));
  Dut().WriteCsr(csr::kCtrl, csr::kCtrlStart);
  Dut().RunCycles(300);
  EXPECT_TRUE(Dut().ReadCsr(csr::kStatus) & csr::kStatusBusy);
  Dut().WriteCsr(csr::kCtrl, csr::kCtrlSoftReset);
  Dut().RunCycles(2000);
  EXPECT_FALSE(Dut().ReadCsr(csr::kStatus) & csr::kStatusBusy);
  const Outcome out = RunProgram(GemmProgram(g, config_, false));
  ExpectDone(out);
  EXPECT_EQ(CheckGemmOutputs(g, d, config_), 0);
}

}  // namespace
}  // namespace mxu

int sc_main(int argc, char** argv) {
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  ::testing::InitGoogleTest(&argc, argv);
  mxu::sim::Platform::Config config;
  // What GoogleTest leaves are Verilator's own options: the reset-randomization runs pass
  // +verilator+rand+reset+2 +verilator+seed+N (tests/CMakeLists.txt).
  for (int i = 1; i < argc; ++i) config.verilator_args.push_back(argv[i]);
  auto platform = std::make_unique<mxu::sim::Platform>("platform", config);
  mxu::g_platform = platform.get();
  const int result = RUN_ALL_TESTS();
  mxu::g_platform = nullptr;
  return result;
}
