// Instruction-level tests of the device (mxu_top) on the SystemC platform: programs in host
// memory run to HALT or to a clear error, results are compared bit for bit with host copies and
// the golden model, the performance counters are checked against what the programs moved, and
// the same program runs under different memory timings. Every run is bounded by a watchdog.
// This file: the device's configuration, plain, packed and transposed transfers, and sc_main;
// GEMMs in device_gemm_test.cc, load queues and exact timing in device_load_queue_test.cc, error
// paths in device_error_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <systemc>
#include <vector>

#include "tests/sim/device_test_util.h"

namespace mxu::device_test {
namespace {

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
  EXPECT_EQ(out.counter(csr::Counter::kInstructions), 1u);
  EXPECT_GT(out.counter(csr::Counter::kCycles), 0u);
}

// A program that starts one beat before a 4 KiB page and runs across it: the fetch splits its
// bursts at the page (AXI bursts never cross one) and every instruction runs once, in order.
TEST_F(DeviceTest, ProgramsRunAcrossA4KiBPage) {
  const uint32_t lanes = config_.ub_lanes;
  std::vector<uint16_t> row(lanes);
  for (uint32_t j = 0; j < lanes; ++j) row[j] = static_cast<uint16_t>(0x3F80 + j);
  WriteHost(0x20000, row.data(), row.size() * 2);
  std::vector<Instruction> program(20, isa::Sync());
  program[9] = isa::Load(Buffer::kUb, 1, lanes, 5, 0x20000, lanes);
  program[14] = isa::Store(Buffer::kUb, 1, lanes, 5, 0x30000, lanes);
  program.push_back(isa::Halt());
  const uint64_t page = 0x3000, start = page - uint64_t(config_.bus_bytes);
  const Outcome out = RunProgram(program, start);
  ExpectDone(out);
  EXPECT_EQ(out.counter(csr::Counter::kInstructions), program.size());
  EXPECT_EQ(ReadHost<uint16_t>(0x30000, lanes), row);
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
  EXPECT_EQ(out.counter(csr::Counter::kDmaWriteBytes), uint64_t{rows} * lanes * 2);
  EXPECT_EQ(out.counter(csr::Counter::kInstructions), 4u);
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
  EXPECT_EQ(out.counter(csr::Counter::kDmaWriteBytes), uint64_t{rows} * lanes * 4);
}

// Rows back to back of any length stream too (the store engine's carry): each of these STOREs
// writes exactly its rows (the canvas around them untouched), and the same rows at a stride of
// one more lane, a burst each, take more than twice the cycles. Lengths: bf16 rows of 3 lanes
// (several rows inside a beat, some sending no beat of their own), fp32 rows of 10 lanes (40
// bytes: one row's end and the next's start share a beat), from addresses off the bus.
TEST_F(DeviceTest, RowsOfAnyLengthStreamBackToBack) {
  BitSource bits(6);
  struct Case {
    Buffer source;
    uint32_t lanes, size;
    uint64_t dst;
  };
  const uint32_t rows = std::min(64u, config_.acc_depth);
  for (const Case c : {Case{Buffer::kUb, std::min(3u, config_.ub_lanes), 2, 0x40006},
                       Case{Buffer::kAcc, std::min(10u, config_.cols), 4, 0x4100C}}) {
    // Whole buffer rows in (a fast load), c.lanes of each out.
    const uint32_t full = c.source == Buffer::kUb ? config_.ub_lanes : config_.cols;
    const auto data = RandomBf16(rows * full * c.size / 2, bits);
    WriteHost(0x20000, data.data(), data.size() * 2);
    uint64_t cycles[2] = {0, 0};
    for (const uint32_t stride : {c.lanes, c.lanes + 1}) {
      const uint64_t canvas_bytes = uint64_t{rows} * stride * c.size + 64;
      const std::vector<uint8_t> canvas(canvas_bytes, 0xA5);
      WriteHost(c.dst - 32, canvas.data(), canvas.size());
      const Outcome out =
          RunProgram({isa::Load(c.source, rows, full, 0, 0x20000, full), isa::Sync(),
                      isa::Store(c.source, rows, c.lanes, 0, c.dst, stride), isa::Halt()});
      ExpectDone(out);
      cycles[stride != c.lanes] = out.counter(csr::Counter::kCycles);
      const auto got = ReadHost<uint8_t>(c.dst - 32, canvas.size());
      const auto* want = reinterpret_cast<const uint8_t*>(data.data());
      int mismatches = 0;
      for (uint64_t k = 0; k < canvas_bytes; ++k) {
        const int64_t at = int64_t(k) - 32;  // bytes from dst
        const int64_t pitch = int64_t{stride} * c.size, row = at / pitch, in_row = at % pitch;
        const bool ours = at >= 0 && row < rows && in_row < int64_t{c.lanes} * c.size;
        mismatches += got[k] != (ours ? want[row * full * c.size + in_row] : 0xA5);
      }
      EXPECT_EQ(mismatches, 0) << "lanes " << c.lanes << ", stride " << stride;
      EXPECT_EQ(out.counter(csr::Counter::kDmaWriteBytes), uint64_t{rows} * c.lanes * c.size);
    }
    EXPECT_GT(cycles[1], 2 * cycles[0]) << "lanes " << c.lanes << ": back to back " << cycles[0]
                                        << " cycles, strided " << cycles[1];
  }
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

}  // namespace
}  // namespace mxu::device_test

int sc_main(int argc, char** argv) {
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  ::testing::InitGoogleTest(&argc, argv);
  mxu::sim::Platform::Config config;
  // What GoogleTest leaves are Verilator's own options: the reset-randomization runs pass
  // +verilator+rand+reset+2 +verilator+seed+N (tests/CMakeLists.txt).
  for (int i = 1; i < argc; ++i) config.verilator_args.push_back(argv[i]);
  auto platform = std::make_unique<mxu::sim::Platform>("platform", config);
  mxu::device_test::g_platform = platform.get();
  const int result = RUN_ALL_TESTS();
  mxu::device_test::g_platform = nullptr;
  return result;
}
