// The cross backend (backends/cross_device.h) over two model devices, no SystemC: agreeing
// devices run driver GEMMs and programs through it unchanged; a candidate made to differ (one
// input byte, an injected memory error, a counter, a CSR, a hang) stops the run with a report
// that names the program, the instruction, the buffer row and lane, the address and both values.
#include "backends/cross_device.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/model_device.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "driver/golden_request.h"
#include "golden/float_vectors.h"
#include "golden/int8.h"
#include "tests/backends/program_harness.h"

namespace mxu {
namespace {

using backends::CrossDevice;
using backends::DivergenceError;
using backends::ModelDevice;
using isa::Buffer;

// Forwards to a model and changes what it answers: a counter, a CSR, or the interrupt.
class AlteredDevice : public driver::Device {
 public:
  uint32_t extra_macs = 0;        // added to MACS (low word)
  uint32_t altered_csr = ~0u;     // this CSR reads one higher
  bool never_interrupts = false;  // RunUntilInterrupt always times out

  uint32_t ReadCsr(uint32_t addr) override {
    uint32_t value = model_.ReadCsr(addr);
    if (addr == csr::CounterLo(static_cast<uint32_t>(csr::Counter::kMacs))) value += extra_macs;
    if (addr == altered_csr) ++value;
    return value;
  }
  void WriteCsr(uint32_t addr, uint32_t value) override { model_.WriteCsr(addr, value); }
  void WriteMemory(uint64_t addr, const void* data, size_t bytes) override {
    model_.WriteMemory(addr, data, bytes);
  }
  void ReadMemory(uint64_t addr, void* data, size_t bytes) override {
    model_.ReadMemory(addr, data, bytes);
  }
  uint64_t memory_size() const override { return model_.memory_size(); }
  bool RunUntilInterrupt(uint64_t max_cycles) override {
    return !never_interrupts && model_.RunUntilInterrupt(max_cycles);
  }
  const char* name() const override { return "altered"; }

 private:
  ModelDevice model_;
};

std::unique_ptr<CrossDevice> TwoModels() {
  return std::make_unique<CrossDevice>(std::make_unique<ModelDevice>(),
                                       std::make_unique<ModelDevice>());
}

std::string Report(CrossDevice& cross, const std::vector<isa::Instruction>& program) {
  try {
    testing::RunProgram(cross, program);
  } catch (const DivergenceError& error) {
    return error.what();
  }
  return "";
}

constexpr uint64_t kIn = 0x20000, kOut = 0x40000;

// 4 rows of 16 bf16 from kIn, through the unified buffer, to kOut with a row stride of 20.
std::vector<isa::Instruction> CopyProgram() {
  return {isa::Load(Buffer::kUb, 4, 16, 100, kIn, 16), isa::Sync(),
          isa::Store(Buffer::kUb, 4, 16, 100, kOut, 20), isa::Halt()};
}

void WriteInput(driver::Device& dev) {
  std::vector<uint16_t> in(64);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint16_t>(0x3F80 + i);
  dev.WriteMemory(kIn, in.data(), in.size() * 2);
}

TEST(CrossDevice, AgreeingDevicesRunGemmsUnchanged) {
  auto cross = TwoModels();
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*cross);
  golden::BitSource bits(5);
  driver::Bf16Matrix a(37, 50), b(50, 29);
  for (auto& x : a.data) x = static_cast<uint16_t>(golden::RandomBf16(bits) & 0xBFFF);
  for (auto& x : b.data) x = static_cast<uint16_t>(golden::RandomBf16(bits) & 0xBFFF);
  driver::GemmRequest request;
  request.a = &a;
  request.b = &b;
  request.relu = true;
  const driver::GemmResult result = driver::Gemm(*cross, config, request, 1'000'000);
  const std::vector<uint32_t> want =
      driver::GoldenBits(request, static_cast<int>(config.rows), config.subnormals);
  ASSERT_EQ(result.c.data.size(), want.size());
  EXPECT_EQ(std::memcmp(result.c.data.data(), want.data(), want.size() * 4), 0);
  EXPECT_EQ(cross->programs_compared(), 1u);
  EXPECT_EQ(cross->bytes_compared(), 37u * 29 * 4);  // the result's rows back to back, fp32
  EXPECT_EQ(cross->reference_cycles(), cross->candidate_cycles());
  EXPECT_NE(cross->Summary().find("1 programs compared"), std::string::npos) << cross->Summary();
  EXPECT_EQ(cross->tracing(), nullptr);  // the model records no waveforms
}

// The int8 mode: int8 results are stored as one byte each, int32 ones four; compared whole.
TEST(CrossDevice, AgreeingDevicesRunInt8GemmsUnchanged) {
  auto cross = TwoModels();
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*cross);
  driver::Int8Matrix a(37, 50), b(50, 29);
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = static_cast<int8_t>(i * 7);
  for (size_t i = 0; i < b.data.size(); ++i) b.data[i] = static_cast<int8_t>(i * 13);
  const std::vector<uint32_t> quant(29, golden::QuantizeMultiplier(0.001).word());
  driver::GemmRequest request;
  request.a_int8 = &a;
  request.b_int8 = &b;
  request.output = driver::OutputType::kInt8;
  request.quant = &quant;
  const driver::GemmResult result = driver::Gemm(*cross, config, request, 1'000'000);
  const std::vector<int8_t> want = golden::RequantizeMatrix(
      golden::Int8Gemm(a.data, b.data, 37, 50, 29, false, false, nullptr, nullptr), 37, 29, nullptr,
      quant, 0, false);
  EXPECT_EQ(result.c_int8.data, want);
  EXPECT_EQ(cross->programs_compared(), 1u);
  // The result's rows back to back, a byte each.
  EXPECT_EQ(cross->bytes_compared(), 37u * 29);
}

TEST(CrossDevice, ADifferentStoredValueNamesTheStoreRowLaneAndBothValues) {
  auto cross = TwoModels();
  WriteInput(*cross);
  const uint16_t changed = 0x4000;  // 2.0 where the reference has 0x3FA3
  cross->candidate().WriteMemory(kIn + 2 * (2 * 16 + 3), &changed, 2);
  const std::string report = Report(*cross, CopyProgram());
  ASSERT_FALSE(report.empty());
  EXPECT_NE(report.find("program 1, 4 instructions at 0x1000: stored values differ"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("instruction 2: STORE"), std::string::npos) << report;
  EXPECT_NE(report.find("UB row 102, lane 3 -> host 0x40056"), std::string::npos) << report;
  EXPECT_NE(report.find("model 0x3fa3 (1.2734375), model 0x4000 (2)"), std::string::npos) << report;
}

TEST(CrossDevice, ADifferentOutcomeIsReportedBeforeAnyByte) {
  auto cross = TwoModels();
  WriteInput(*cross);
  static_cast<ModelDevice&>(cross->candidate()).memory().InjectError(kIn, 64);
  const std::string report = Report(*cross, CopyProgram());
  EXPECT_NE(report.find("ends differently (model: done)"), std::string::npos) << report;
  EXPECT_NE(report.find("ERROR_CODE: model 0x0, model 0x6"), std::string::npos) << report;
}

TEST(CrossDevice, ADifferentExactCounterIsReported) {
  auto altered = std::make_unique<AlteredDevice>();
  altered->extra_macs = 1;
  CrossDevice cross(std::make_unique<ModelDevice>(), std::move(altered));
  WriteInput(cross);
  const std::string report = Report(cross, CopyProgram());
  EXPECT_NE(report.find("counters differ"), std::string::npos) << report;
  EXPECT_NE(report.find("MACS: model 0, altered 1"), std::string::npos) << report;
  EXPECT_NE(report.find("CYCLES (estimated on the model, not compared)"), std::string::npos)
      << report;
}

TEST(CrossDevice, ADifferentCsrIsReportedWhenRead) {
  auto altered = std::make_unique<AlteredDevice>();
  altered->altered_csr = csr::kUbDepth;
  CrossDevice cross(std::make_unique<ModelDevice>(), std::move(altered));
  EXPECT_THROW(
      {
        try {
          driver::ReadDeviceConfig(cross);
        } catch (const DivergenceError& error) {
          EXPECT_NE(std::string(error.what()).find("CSR 0xc reads 0x2000 on model, 0x2001"),
                    std::string::npos)
              << error.what();
          throw;
        }
      },
      DivergenceError);
}

TEST(CrossDevice, ACandidateThatNeverFinishesIsReportedNotWaitedFor) {
  auto altered = std::make_unique<AlteredDevice>();
  altered->never_interrupts = true;
  CrossDevice cross(std::make_unique<ModelDevice>(), std::move(altered));
  const std::string report = Report(cross, {isa::Halt()});
  EXPECT_NE(report.find("model raised its interrupt, altered did not"), std::string::npos)
      << report;
}

TEST(CrossDevice, AReferenceTimeoutIsTheWatchdogsNotADivergence) {
  CrossDevice cross(std::make_unique<AlteredDevice>(), std::make_unique<ModelDevice>());
  static_cast<AlteredDevice&>(cross.reference()).never_interrupts = true;
  const testing::Outcome out = testing::RunProgram(cross, {isa::Halt()});
  EXPECT_FALSE(out.completed);
  EXPECT_EQ(cross.programs_compared(), 0u);
}

}  // namespace
}  // namespace mxu
