// The model backend (backends/model_device.h) on its own, no SystemC: its CSRs, every
// instruction, every error code with ERROR_PC and ERROR_ADDR, the exact counters, several
// devices in one process, and driver GEMMs of random shapes over every option combination,
// every output bit compared with the golden model.
#include "backends/model_device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/device_spec.h"
#include "common/memory_timing.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "driver/golden_request.h"
#include "golden/float_vectors.h"
#include "golden/gemm.h"
#include "golden/numerics.h"
#include "tests/backends/program_harness.h"
#include "tests/backends/random_program.h"
#include "tests/driver/random_gemm.h"

namespace mxu {
namespace {

using backends::ModelDevice;
using golden::BitSource;
using isa::Buffer;
using isa::Instruction;
using testing::ExpectDone;
using testing::ExpectError;
using testing::Outcome;
using testing::RunProgram;

std::vector<uint16_t> RandomBf16(size_t n, BitSource& bits) {
  std::vector<uint16_t> v(n);
  for (auto& x : v) {
    x = static_cast<uint16_t>((golden::RandomBf16(bits) & 0x807F) | (117 + bits.Below(20)) << 7);
  }
  return v;
}

template <typename T>
std::vector<T> ReadHost(driver::Device& dev, uint64_t addr, size_t count) {
  std::vector<T> v(count);
  dev.ReadMemory(addr, v.data(), count * sizeof(T));
  return v;
}

TEST(ModelDevice, ReportsTheRtlConfiguration) {
  ModelDevice dev;
  EXPECT_EQ(dev.ReadCsr(csr::kId), csr::kDeviceId);
  EXPECT_EQ(dev.ReadCsr(csr::kVersion), csr::kDeviceVersion);
  EXPECT_EQ(dev.ReadCsr(csr::kArray), (16u << 16) | 16u);
  EXPECT_EQ(dev.ReadCsr(csr::kUbDepth), 8192u);
  EXPECT_EQ(dev.ReadCsr(csr::kAccDepth), 1024u);
  EXPECT_EQ(dev.ReadCsr(csr::kWfifoDepth), 32u);
  const uint32_t features = dev.ReadCsr(csr::kFeatures);
  EXPECT_EQ(csr::FeaturesBusLog2(features), 5u);  // 32 bytes a beat
  EXPECT_FALSE(csr::FeaturesFlushSubnormals(features));
  EXPECT_EQ(csr::FeaturesUbLanes(features), 16u);
  EXPECT_EQ(csr::FeaturesMaxInFlight(features), 8u);
  const driver::DeviceConfig config = driver::ReadDeviceConfig(dev);
  EXPECT_EQ(config.rows, 16u);
  EXPECT_EQ(dev.memory_size(), 1ull << 32);
  EXPECT_STREQ(dev.name(), "model");
  EXPECT_EQ(dev.tracing(), nullptr);
}

TEST(ModelDevice, CsrErrorResponsesThrow) {
  ModelDevice dev;
  EXPECT_THROW(dev.ReadCsr(0x03C), std::runtime_error);         // unknown
  EXPECT_THROW(dev.WriteCsr(csr::kId, 1), std::runtime_error);  // read-only
  EXPECT_THROW(dev.WriteCsr(csr::kStatus, 1), std::runtime_error);
  EXPECT_THROW(dev.ReadCsr(csr::CounterLo(csr::kNumCounters)), std::runtime_error);
  dev.WriteCsr(csr::kCmdAddrLo, 0x1230);
  dev.WriteCsr(csr::kCmdAddrHi, 0x12345);
  EXPECT_EQ(dev.ReadCsr(csr::kCmdAddrLo), 0x1230u);
  EXPECT_EQ(dev.ReadCsr(csr::kCmdAddrHi), 0x2345u);  // 48-bit addresses
  dev.WriteCsr(csr::kCtrl, csr::kCtrlIrqEnable);
  EXPECT_EQ(dev.ReadCsr(csr::kCtrl), csr::kCtrlIrqEnable);
  EXPECT_EQ(dev.ReadCsr(csr::kStatus), 0u);
}

TEST(ModelDevice, HaltAloneAndTheInterrupt) {
  ModelDevice dev;
  const Outcome out = RunProgram(dev, {isa::Halt()});
  ExpectDone(out);
  EXPECT_EQ(out.counter(csr::Counter::kInstructions), 1u);
  EXPECT_EQ(out.counter(csr::Counter::kDmaReadBytes), 32u);
  EXPECT_GT(out.counter(csr::Counter::kCycles), 100u);  // one memory latency at least
  EXPECT_EQ(dev.ReadCsr(csr::kPc), 1u);
  // Without the interrupt enabled the run ends at the watchdog, done but silent.
  std::vector<uint8_t> bytes;
  isa::AppendBytes(isa::Halt(), bytes);
  dev.WriteMemory(0x2000, bytes.data(), bytes.size());
  dev.WriteCsr(csr::kCmdAddrLo, 0x2000);
  dev.WriteCsr(csr::kCmdCount, 1);
  dev.WriteCsr(csr::kCtrl, csr::kCtrlStart);
  EXPECT_TRUE(dev.ReadCsr(csr::kStatus) & csr::kStatusBusy);
  EXPECT_FALSE(dev.RunUntilInterrupt(10'000));
  EXPECT_EQ(dev.ReadCsr(csr::kStatus), csr::kStatusDone | csr::kStatusIrqPending);
  dev.WriteCsr(csr::kIrqClear, csr::kIrqClearPending);
  EXPECT_EQ(dev.ReadCsr(csr::kStatus), csr::kStatusDone);
}

TEST(ModelDevice, LoadStoreUnifiedBufferRoundTrip) {
  ModelDevice dev;
  BitSource bits(1);
  const uint32_t rows = 37, lanes = 16, src_stride = lanes + 5, dst_stride = lanes + 9;
  const uint64_t src = 0x20006, dst = 0x40002;
  const auto data = RandomBf16(rows * src_stride, bits);
  dev.WriteMemory(src, data.data(), data.size() * 2);
  std::vector<uint16_t> canvas(rows * dst_stride, 0xBEEF);
  dev.WriteMemory(dst, canvas.data(), canvas.size() * 2);
  const Outcome out =
      RunProgram(dev, {isa::Load(Buffer::kUb, rows, lanes, 11, src, src_stride), isa::Sync(),
                       isa::Store(Buffer::kUb, rows, lanes, 11, dst, dst_stride), isa::Halt()});
  ExpectDone(out);
  const auto got = ReadHost<uint16_t>(dev, dst, canvas.size());
  for (uint32_t i = 0; i < rows; ++i) {
    for (uint32_t j = 0; j < dst_stride; ++j) {
      ASSERT_EQ(got[i * dst_stride + j], j < lanes ? data[i * src_stride + j] : 0xBEEF);
    }
  }
  EXPECT_EQ(out.counter(csr::Counter::kDmaWriteBytes), uint64_t{rows} * lanes * 2);
  EXPECT_EQ(out.counter(csr::Counter::kInstructions), 4u);
}

TEST(ModelDevice, PackedAccumulatorRowsAndReluStore) {
  ModelDevice dev;
  BitSource bits(4);
  const uint32_t rows = 300, lanes = 16;
  std::vector<uint32_t> data(rows * lanes);
  for (auto& x : data) x = golden::RandomFp32(bits);
  const uint64_t src = 0x21000 - 32 * 7, dst = 0x43000 - 32 * 5;
  dev.WriteMemory(src, data.data(), data.size() * 4);
  const Outcome out =
      RunProgram(dev, {isa::Load(Buffer::kAcc, rows, lanes, 0, src, lanes), isa::Sync(),
                       isa::Store(Buffer::kAcc, rows, lanes, 0, dst, lanes, true), isa::Halt()});
  ExpectDone(out);
  const auto got = ReadHost<uint32_t>(dev, dst, data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    const float x = golden::FloatFromBits(data[i]);
    ASSERT_EQ(got[i], std::isnan(x) ? golden::kFp32CanonicalNan : ((data[i] >> 31) ? 0u : data[i]));
  }
  // Packed rows stream: the bytes read are the rows' beats and the program's.
  EXPECT_EQ(out.counter(csr::Counter::kDmaReadBytes), uint64_t{rows} * lanes * 4 + 2 * 32);
}

TEST(ModelDevice, PartialLanesZeroTheRestAndStrideZeroRepeatsARow) {
  ModelDevice dev;
  BitSource bits(2);
  const uint32_t rows = 9, lanes = 15, stride = 40;
  std::vector<uint32_t> data(rows * stride);
  for (auto& x : data) x = golden::RandomFp32(bits);
  dev.WriteMemory(0x30004, data.data(), data.size() * 4);
  const Outcome out =
      RunProgram(dev, {isa::Load(Buffer::kAcc, rows, lanes, 3, 0x30004, stride), isa::Sync(),
                       isa::Store(Buffer::kAcc, rows, 16, 3, 0x50000, 16),
                       isa::Load(Buffer::kUb, 4, 16, 0, 0x30004, 0), isa::Sync(),
                       isa::Store(Buffer::kUb, 4, 16, 0, 0x60000, 16), isa::Halt()});
  ExpectDone(out);
  const auto got = ReadHost<uint32_t>(dev, 0x50000, rows * 16);
  for (uint32_t i = 0; i < rows; ++i) {
    for (uint32_t j = 0; j < 16; ++j) {
      ASSERT_EQ(got[i * 16 + j], j < lanes ? data[i * stride + j] : 0u);
    }
  }
  const auto rep = ReadHost<uint16_t>(dev, 0x60000, 4 * 16);
  for (uint32_t i = 1; i < 4; ++i) {
    for (uint32_t j = 0; j < 16; ++j) ASSERT_EQ(rep[i * 16 + j], rep[j]);
  }
}

TEST(ModelDevice, TransposedLoad) {
  ModelDevice dev;
  BitSource bits(3);
  const uint32_t rows = 35, lanes = 16, stride = rows + 7;
  const auto m = RandomBf16(lanes * stride, bits);
  dev.WriteMemory(0x60002, m.data(), m.size() * 2);
  const Outcome out =
      RunProgram(dev, {isa::Load(Buffer::kUb, rows, lanes, 0, 0x60002, stride, true), isa::Sync(),
                       isa::Store(Buffer::kUb, rows, lanes, 0, 0x80000, lanes), isa::Halt()});
  ExpectDone(out);
  const auto got = ReadHost<uint16_t>(dev, 0x80000, rows * lanes);
  for (uint32_t i = 0; i < rows; ++i) {
    for (uint32_t j = 0; j < lanes; ++j) ASSERT_EQ(got[i * lanes + j], m[j * stride + i]);
  }
}

TEST(ModelDevice, DmaReadBytesCountWholeBeats) {
  ModelDevice dev;
  const uint32_t rows = 5, lanes = 3;
  const uint64_t src = 0x20000 + 30;
  const Outcome out =
      RunProgram(dev, {isa::Load(Buffer::kUb, rows, lanes, 0, src, 16), isa::Halt()});
  ExpectDone(out);
  uint64_t beats = 1;
  for (uint32_t i = 0; i < rows; ++i) {
    const uint64_t a = src + 32ull * i;
    beats += (a + lanes * 2 - 1) / 32 - a / 32 + 1;
  }
  EXPECT_EQ(out.counter(csr::Counter::kDmaReadBytes), beats * 32);
}

// A GEMM program by hand: A tiles in the UB, weights plain or transposed, MATMULs accumulating,
// an fp32 store, an activation with bias and ReLU and a bf16 store.
TEST(ModelDevice, HandWrittenGemmProgramIsBitExactWithExactCounters) {
  for (bool transposed : {false, true}) {
    ModelDevice dev;
    BitSource bits(10 + transposed);
    const int m = 29, k = 46, n = 16;
    golden::Bf16Matrix a{m, k, {}}, b{k, n, {}};
    for (auto* mat : {&a, &b}) {
      mat->data.resize(static_cast<size_t>(mat->rows) * mat->cols);
      for (auto& x : mat->data) {
        x = bits.Below(50) == 0 ? golden::SpecialBf16()[bits.Below(18)]
                                : static_cast<uint16_t>((golden::RandomBf16(bits) & 0x807F) |
                                                        (117 + bits.Below(20)) << 7);
      }
    }
    const uint64_t a_addr = 0x100000, b_addr = 0x200000, c_addr = 0x300000, y_addr = 0x400000,
                   bias_addr = 0x500000;
    dev.WriteMemory(a_addr, a.data.data(), a.data.size() * 2);
    if (transposed) {
      std::vector<uint16_t> bt(b.data.size());
      for (int kk = 0; kk < k; ++kk) {
        for (int j = 0; j < n; ++j) bt[static_cast<size_t>(j) * k + kk] = b.at(kk, j);
      }
      dev.WriteMemory(b_addr, bt.data(), bt.size() * 2);
    } else {
      dev.WriteMemory(b_addr, b.data.data(), b.data.size() * 2);
    }
    std::vector<float> bias(n);
    for (auto& x : bias) x = golden::Bf16ToFloat(RandomBf16(1, bits)[0]);
    dev.WriteMemory(bias_addr, bias.data(), bias.size() * 4);
    std::vector<Instruction> p;
    const uint32_t tiles = (k + 15) / 16;
    for (uint32_t t = 0; t < tiles; ++t) {
      const uint32_t k0 = t * 16, k_rows = std::min<uint32_t>(16, k - k0);
      p.push_back(isa::Load(Buffer::kUb, m, k_rows, t * m, a_addr + 2 * k0, k));
      p.push_back(transposed
                      ? isa::Load(Buffer::kWeights, k_rows, n, 0, b_addr + 2 * k0, k, true)
                      : isa::Load(Buffer::kWeights, k_rows, n, 0, b_addr + 2ull * k0 * n, n));
      p.push_back(isa::Matmul(m, k_rows, t * m, 0, t > 0, true));
    }
    p.push_back(isa::Load(Buffer::kAcc, 1, n, 1000, bias_addr, n));
    p.push_back(isa::Store(Buffer::kAcc, m, n, 0, c_addr, n));
    p.push_back(isa::Activate(m, 0, 8000, true, true, 1000));
    p.push_back(isa::Store(Buffer::kUb, m, n, 8000, y_addr, n));
    p.push_back(isa::Halt());
    const Outcome out = RunProgram(dev, p);
    ExpectDone(out);
    const golden::Fp32Matrix want = golden::Gemm(a, b, 16, Subnormals::kIeee);
    const auto c = ReadHost<uint32_t>(dev, c_addr, m * n);
    const auto y = ReadHost<uint16_t>(dev, y_addr, m * n);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        const float w = want.at(i, j);
        ASSERT_EQ(c[i * n + j], golden::FloatBits(w)) << i << "," << j;
        const float act = golden::Relu(golden::Fp32Add(w, bias[j], Subnormals::kIeee));
        ASSERT_EQ(y[i * n + j], golden::FloatToBf16(act, Subnormals::kIeee)) << i << "," << j;
      }
    }
    EXPECT_EQ(out.counter(csr::Counter::kArrayBusy), uint64_t{tiles} * m);
    EXPECT_EQ(out.counter(csr::Counter::kMacs), uint64_t{tiles} * m * 256);
    EXPECT_EQ(out.counter(csr::Counter::kInstructions), p.size());
    EXPECT_EQ(out.counter(csr::Counter::kDmaWriteBytes), uint64_t{m} * n * 6);
  }
}

TEST(ModelDevice, MemoryTimingChangesCyclesNotResults) {
  const MemoryTiming settings[] = {{10, 32, 8}, {100, 32, 8}, {400, 32, 8}, {100, 4, 8}};
  uint64_t cycles[4];
  std::vector<uint32_t> first;
  for (int s = 0; s < 4; ++s) {
    ModelDevice dev(settings[s]);
    BitSource bits(6);
    const auto a = RandomBf16(48 * 33, bits);
    const auto b = RandomBf16(33 * 16, bits);
    dev.WriteMemory(0x100000, a.data(), a.size() * 2);
    dev.WriteMemory(0x200000, b.data(), b.size() * 2);
    std::vector<Instruction> p;
    for (uint32_t t = 0; t < 3; ++t) {
      const uint32_t k_rows = std::min<uint32_t>(16, 33 - 16 * t);
      p.push_back(isa::Load(Buffer::kUb, 48, k_rows, t * 48, 0x100000 + 32 * t, 33));
      p.push_back(isa::Load(Buffer::kWeights, k_rows, 16, 0, 0x200000 + 512 * t, 16));
      p.push_back(isa::Matmul(48, k_rows, t * 48, 0, t > 0, true));
    }
    p.push_back(isa::Store(Buffer::kAcc, 48, 16, 0, 0x300000, 16));
    p.push_back(isa::Halt());
    const Outcome out = RunProgram(dev, p);
    ExpectDone(out);
    cycles[s] = out.counter(csr::Counter::kCycles);
    const auto c = ReadHost<uint32_t>(dev, 0x300000, 48 * 16);
    if (s == 0) first = c;
    EXPECT_EQ(c, first);
  }
  EXPECT_LT(cycles[0], cycles[1]);
  EXPECT_LT(cycles[1], cycles[2]);
  EXPECT_LT(cycles[1], cycles[3]);
}

// ------------------------------------------------------------------------------- error paths

TEST(ModelDevice, DecodeErrors) {
  ModelDevice dev;
  ExpectError(RunProgram(dev, {isa::Sync(), isa::Sync(), isa::Raw({0x55, 0, 0, 0}), isa::Halt()}),
              csr::ErrorCode::kIllegalOpcode, 2);
  ExpectError(RunProgram(dev, {isa::Raw({0, 0, 0, 0})}), csr::ErrorCode::kIllegalOpcode, 0);
  Instruction halt = isa::Halt();
  halt.words[3] |= 1u << 4;
  ExpectError(RunProgram(dev, {halt}), csr::ErrorCode::kIllegalField, 0);
  ExpectError(RunProgram(dev, {isa::Load(Buffer::kUb, 0, 1, 0, 0x20000, 1), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);
  ExpectError(RunProgram(dev, {isa::Load(Buffer::kUb, 1, 17, 0, 0x20000, 64), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);
  ExpectError(RunProgram(dev, {isa::Load(Buffer::kAcc, 1, 1, 0, 0x20000, 1, true), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);
  ExpectError(RunProgram(dev, {isa::Matmul(1, 17, 0, 0, false, false), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);
  ExpectError(RunProgram(dev, {isa::Store(Buffer::kUb, 1, 1, 0, 0x20000, 1, true), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);
  ExpectError(RunProgram(dev, {isa::Activate(1, 0, 0, false, false, 5), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);  // a bias address without bias
  ExpectError(RunProgram(dev, {isa::Load(Buffer::kUb, 2, 1, 8191, 0x20000, 1), isa::Halt()}),
              csr::ErrorCode::kUbRange, 0);
  ExpectError(RunProgram(dev, {isa::Sync(), isa::Store(Buffer::kAcc, 1, 1, 1024, 0x20000, 1)}),
              csr::ErrorCode::kAccRange, 1);
  ExpectError(RunProgram(dev, {isa::Matmul(4, 1, 0, 1021, false, false), isa::Halt()}),
              csr::ErrorCode::kAccRange, 0);
  ExpectError(RunProgram(dev, {isa::Activate(1, 0, 0, false, true, 1024), isa::Halt()}),
              csr::ErrorCode::kAccRange, 0);
  ExpectError(RunProgram(dev, {isa::Load(Buffer::kUb, 1, 1, 0, 0x20001, 1), isa::Halt()}),
              csr::ErrorCode::kMisaligned, 0);
  ExpectError(RunProgram(dev, {isa::Store(Buffer::kAcc, 1, 1, 0, 0x20002, 1), isa::Halt()}),
              csr::ErrorCode::kMisaligned, 0);
  Outcome out = RunProgram(dev, {isa::Halt()}, testing::kProgramAddr + 8);
  ExpectError(out, csr::ErrorCode::kMisaligned, 0);
  EXPECT_EQ(out.error_addr, testing::kProgramAddr + 8);
  ExpectError(RunProgram(dev, {isa::Matmul(1, 1, 0, 0, false, true), isa::Halt()}),
              csr::ErrorCode::kNoWeights, 0);
  const Instruction w = isa::Load(Buffer::kWeights, 1, 1, 0, 0x20000, 1);
  ExpectError(RunProgram(dev, {w, w, w, w, isa::Halt()}), csr::ErrorCode::kWeightsFull, 3);
  // Three tiles may wait; a MATMUL with new weights makes room for a fourth.
  ExpectDone(RunProgram(dev, {w, w, w, isa::Matmul(1, 1, 0, 0, false, true), w, isa::Halt()}));
  ExpectError(RunProgram(dev, {isa::Sync(), isa::Sync()}), csr::ErrorCode::kCmdOverrun, 2);
  ExpectError(RunProgram(dev, {isa::Halt()}, testing::kProgramAddr, 0), csr::ErrorCode::kCmdOverrun,
              0);
}

TEST(ModelDevice, MemoryErrorsNameTheirAddress) {
  ModelDevice dev;
  const uint64_t beyond = dev.memory_size() + 0x1000;
  Outcome out =
      RunProgram(dev, {isa::Sync(), isa::Load(Buffer::kUb, 4, 1, 0, beyond, 1), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemRead, 1);
  EXPECT_EQ(out.error_addr, beyond & ~uint64_t{31});
  dev.memory().InjectError(0x70000, 64);
  out = RunProgram(dev, {isa::Store(Buffer::kUb, 8, 1, 0, 0x6FFF0, 32), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemWrite, 0);
  EXPECT_EQ(out.error_addr, 0x70020u);  // the first failing burst: row 1 at 0x70030 & ~31
  out = RunProgram(dev, {isa::Load(Buffer::kWeights, 4, 16, 0, 0x70020, 16), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemRead, 0);
  EXPECT_EQ(out.error_addr, 0x70020u);
  dev.memory().ClearInjectedErrors();
  out = RunProgram(dev, {}, beyond, 4);
  ExpectError(out, csr::ErrorCode::kMemRead, 0);
  EXPECT_EQ(out.error_addr, beyond);
  ExpectDone(RunProgram(dev, {isa::Halt()}));
}

TEST(ModelDevice, SoftResetAbandonsAProgram) {
  ModelDevice dev;
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 50; ++i) isa::AppendBytes(isa::Load(Buffer::kUb, 64, 16, 0, 0, 16), bytes);
  isa::AppendBytes(isa::Halt(), bytes);
  dev.WriteMemory(0x1000, bytes.data(), bytes.size());
  dev.WriteCsr(csr::kCmdAddrLo, 0x1000);
  dev.WriteCsr(csr::kCmdCount, 51);
  dev.WriteCsr(csr::kCtrl, csr::kCtrlStart | csr::kCtrlIrqEnable);
  EXPECT_FALSE(dev.RunUntilInterrupt(300));
  EXPECT_TRUE(dev.ReadCsr(csr::kStatus) & csr::kStatusBusy);
  dev.WriteCsr(csr::kCtrl, csr::kCtrlSoftReset);
  EXPECT_EQ(dev.ReadCsr(csr::kStatus), 0u);
  EXPECT_FALSE(dev.RunUntilInterrupt(2000));
  ExpectDone(RunProgram(dev, {isa::Halt()}));
}

// ------------------------------------------------------------------------- driver GEMMs

using Options = testing::GemmOptions;

int GemmMismatches(driver::Device& dev, int m, int k, int n, const Options& o, uint64_t seed) {
  const driver::DeviceConfig config = driver::ReadDeviceConfig(dev);
  BitSource bits(seed);
  const testing::RandomGemm gemm(m, k, n, o, bits);
  const driver::GemmRequest& request = gemm.request;
  const driver::GemmResult result = driver::Gemm(dev, config, request, 50'000'000);
  const std::vector<uint32_t> want =
      driver::GoldenBits(request, static_cast<int>(config.rows), config.subnormals);
  int mismatches = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      const uint32_t got = o.output == driver::OutputType::kBf16
                               ? result.c_bf16.at(i, j)
                               : golden::FloatBits(result.c.at(i, j));
      if (got != want[static_cast<size_t>(i) * n + j] && ++mismatches <= 3) {
        ADD_FAILURE() << m << "x" << k << "x" << n << " ta " << o.ta << " tb " << o.tb << " relu "
                      << o.relu << " init " << o.init << ": C[" << i << "][" << j << "] model 0x"
                      << std::hex << got << ", golden 0x" << want[static_cast<size_t>(i) * n + j];
      }
    }
  }
  return mismatches;
}

int Dimension(BitSource& bits, int limit) {
  static const int kEdges[] = {1, 2, 3, 5, 7, 13, 15, 16, 17, 31, 32, 33, 47, 48, 49};
  if (bits.Below(2) == 0) {
    const int pick = kEdges[bits.Below(sizeof kEdges / sizeof kEdges[0])];
    if (pick <= limit) return pick;
  }
  return 1 + static_cast<int>(bits.Below(limit));
}

// Every one of the 48 option combinations, several random shapes each, on one device.
TEST(ModelDeviceGemm, RandomShapesOverEveryOptionCombinationAreBitExact) {
  ModelDevice dev;
  BitSource bits(2024);
  for (int i = 0; i < 240; ++i) {
    const int combo = i % 48;
    const Options o{(combo & 1) != 0, (combo & 2) != 0, (combo & 4) != 0, (combo >> 3) % 3,
                    (combo >> 3) >= 3 ? driver::OutputType::kBf16 : driver::OutputType::kFp32};
    const int m = Dimension(bits, 49), k = Dimension(bits, 49), n = Dimension(bits, 49);
    ASSERT_EQ(GemmMismatches(dev, m, k, n, o, 100 + i), 0);
  }
}

TEST(ModelDeviceGemm, LargeShapesAreBitExact) {
  ModelDevice dev;
  EXPECT_EQ(
      GemmMismatches(dev, 300, 257, 130, {false, false, true, 1, driver::OutputType::kFp32}, 7), 0);
  EXPECT_EQ(GemmMismatches(dev, 200, 300, 100, {true, true, true, 2, driver::OutputType::kBf16}, 8),
            0);
}

// A random m x k x n GEMM (seed 39) on a model of `device` behind `timing`.
driver::GemmResult RandomGemmOn(const backends::model::Config& device, const MemoryTiming& timing,
                                int m, int k, int n) {
  backends::model::Config config = device;
  config.timing = timing;
  ModelDevice dev(config);
  BitSource bits(39);
  const testing::RandomGemm gemm(m, k, n, {false, false, false, 0, driver::OutputType::kFp32},
                                 bits);
  return driver::Gemm(dev, driver::ReadDeviceConfig(dev), gemm.request, 50'000'000);
}

uint64_t GemmCycles(const backends::model::Config& device, const MemoryTiming& timing, int m, int k,
                    int n) {
  return RandomGemmOn(device, timing, m, k, n).stats.counter(csr::Counter::kCycles);
}

// The 128x128:bus=512 device.
backends::model::Config Wide() {
  backends::model::Config wide;
  wide.rows = wide.cols = 128;
  wide.wfifo_depth = 256;
  wide.bus_bytes = 512;
  wide.max_in_flight = DmaMaxInFlight(512);
  return wide;
}

// Issue 39, the memory follows the port: unless given, the host memory moves as many bytes a
// cycle as the device's port. A 128 x 128 array behind a 512-byte port runs a GEMM as fast as
// with the width given as 512 and far faster than behind the old 32-byte default; the default
// 16 x 16 device's port is 32 bytes, the old default, so its cycles do not move.
TEST(ModelDeviceGemm, MemoryIsAsWideAsThePortUnlessGiven) {
  const backends::model::Config wide = Wide();
  EXPECT_EQ(ModelDevice(wide).config().timing.bytes_per_cycle, 512u);
  const uint64_t port = GemmCycles(wide, MemoryTiming(), 256, 512, 512);
  EXPECT_EQ(port, GemmCycles(wide, {100, 512, 8}, 256, 512, 512));
  EXPECT_GT(GemmCycles(wide, {100, 32, 8}, 256, 512, 512), 3 * port);
  // Given, the width stands, also narrower than the port.
  ModelDevice narrow(wide);
  narrow.set_timing({100, 16, 8});
  EXPECT_EQ(narrow.config().timing.bytes_per_cycle, 16u);

  const backends::model::Config standard;  // the default device: a 32-byte port
  EXPECT_EQ(ModelDevice().config().timing.bytes_per_cycle, 32u);
  EXPECT_EQ(GemmCycles(standard, MemoryTiming(), 256, 256, 256),
            GemmCycles(standard, {100, 32, 8}, 256, 256, 256));
}

// Issue 66: a commit that narrows its bank's tile waits for the bank's full drain. On 128 x 128
// a 10-row GEMM of N = 300 (its last tile 44 columns, after two of 128) pays that wait over the
// N = 384 one, and the planner's estimate charges it: its estimate grows by the measured wait
// within a quarter, where it used to stay equal.
TEST(ModelDeviceGemm, TheEstimateChargesANarrowingCommit) {
  const driver::GemmResult narrowing = RandomGemmOn(Wide(), MemoryTiming(), 10, 16, 300);
  const driver::GemmResult full = RandomGemmOn(Wide(), MemoryTiming(), 10, 16, 384);
  const auto cycles = [](const driver::GemmResult& r) {
    return double(r.stats.counter(csr::Counter::kCycles));
  };
  const double wait = cycles(narrowing) - cycles(full);
  const double charged =
      double(narrowing.blocking.estimated_cycles) - double(full.blocking.estimated_cycles);
  EXPECT_GT(wait, 200) << cycles(narrowing) << " against " << cycles(full);
  EXPECT_NEAR(charged, wait, wait / 4);
}

// Devices are independent: two of them in one process, interleaved.
TEST(ModelDeviceGemm, SeveralDevicesInOneProcess) {
  ModelDevice one, two(MemoryTiming{10, 8, 4});
  const Options o{false, true, false, 1, driver::OutputType::kFp32};
  EXPECT_EQ(GemmMismatches(one, 40, 33, 20, o, 1), 0);
  EXPECT_EQ(GemmMismatches(two, 17, 70, 50, o, 2), 0);
  EXPECT_EQ(GemmMismatches(one, 64, 64, 64, o, 3), 0);
}

// Found by the random illegal programs: an error while a STORE's write burst was still sending
// its data left the model draining forever (the RTL finishes the burst and stops). Every seed of
// every error code here must stop with its code.
TEST(ModelDevice, RandomIllegalProgramsStopWithTheirCode) {
  ModelDevice dev;
  testing::RandomProgramSpace space;
  space.memory_bytes = dev.memory_size();
  // The program that hung: UB_RANGE at instruction 7 behind a STORE of ACC rows.
  const auto hung = testing::RandomProgram(5352, space, 16, csr::ErrorCode::kUbRange);
  ExpectError(RunProgram(dev, hung), csr::ErrorCode::kUbRange, 7);
  for (uint32_t code = 1; code <= 10; ++code) {
    for (int i = 0; i < 300; ++i) {
      const auto program = testing::RandomProgram(5000 + 100 * code + i, space, 16,
                                                  static_cast<csr::ErrorCode>(code));
      const Outcome out = RunProgram(dev, program);
      ASSERT_TRUE(out.completed && out.error) << csr::ErrorName(code) << " seed " << i;
      ASSERT_EQ(out.code, code) << "seed " << i << ": " << csr::ErrorName(out.code);
      dev.WriteCsr(csr::kCtrl, csr::kCtrlSoftReset);
    }
  }
}

}  // namespace
}  // namespace mxu
