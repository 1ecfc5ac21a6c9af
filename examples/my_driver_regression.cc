// A user's own driver-level regression in GoogleTest, built against the installed package:
// shapes and options of interest, every output bit compared with the golden model, plus the
// counters and an error path. One RTL device per process (SystemC elaborates once): sc_main
// opens it, the tests share it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

#include "backends/device_factory.h"
#include "common/csr_map.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "golden/float_vectors.h"
#include "golden/gemm.h"
#include "golden/numerics.h"

namespace {

using namespace mxu;

driver::Device* g_device = nullptr;
constexpr uint64_t kWatchdog = 50'000'000;

driver::Bf16Matrix RandomMatrix(int rows, int cols, golden::BitSource& bits) {
  driver::Bf16Matrix m(rows, cols);
  for (uint16_t& x : m.data) {
    x = static_cast<uint16_t>((golden::RandomBf16(bits) & 0x807F) | (118 + bits.Below(18)) << 7);
  }
  return m;
}

struct Outcome {
  size_t mismatches = 0;
  driver::GemmResult result;
};

// C = A x B (+ bias) (ReLU) on the device and in the golden model, compared bit for bit.
Outcome RunAndCheck(int m, int k, int n, bool relu, bool with_bias, uint64_t seed) {
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*g_device);
  golden::BitSource bits(seed);
  const driver::Bf16Matrix a = RandomMatrix(m, k, bits), b = RandomMatrix(k, n, bits);
  std::vector<float> bias(n);
  for (float& x : bias) x = golden::Bf16ToFloat(golden::RandomBf16(bits) & 0xBFFF);
  driver::GemmRequest request;
  request.a = &a;
  request.b = &b;
  request.relu = relu;
  if (with_bias) request.bias = &bias;
  Outcome outcome;
  outcome.result = driver::Gemm(*g_device, config, request, kWatchdog);

  golden::Fp32Matrix start{m, n, {}};
  for (int r = 0; r < m && with_bias; ++r) {
    start.data.insert(start.data.end(), bias.begin(), bias.end());
  }
  const golden::Fp32Matrix want =
      golden::Gemm({m, k, a.data}, {k, n, b.data}, static_cast<int>(config.rows), config.subnormals,
                   with_bias ? &start : nullptr);
  for (size_t i = 0; i < want.data.size(); ++i) {
    const float w = relu ? golden::Relu(want.data[i]) : want.data[i];
    outcome.mismatches += golden::FloatBits(w) != golden::FloatBits(outcome.result.c.data[i]);
  }
  return outcome;
}

TEST(MyRegression, ShapesAroundTheArraySizeAreBitExact) {
  for (int size : {1, 15, 16, 17, 33}) {
    EXPECT_EQ(RunAndCheck(size, size, size, false, false, size).mismatches, 0u) << size;
  }
}

TEST(MyRegression, BiasAndReluAreBitExact) {
  EXPECT_EQ(RunAndCheck(40, 24, 20, true, true, 7).mismatches, 0u);
}

TEST(MyRegression, CountersAccountForTheWork) {
  const Outcome outcome = RunAndCheck(32, 32, 32, false, false, 3);
  const driver::RunStats& stats = outcome.result.stats;
  EXPECT_GE(stats.counter(csr::Counter::kCycles), outcome.result.ideal_cycles);
  EXPECT_GT(stats.counter(csr::Counter::kArrayBusy), 0u);
  EXPECT_GE(stats.counter(csr::Counter::kDmaReadBytes), 2u * (32 * 32 + 32 * 32));
  EXPECT_EQ(stats.counter(csr::Counter::kDmaWriteBytes), 4u * 32 * 32);
}

TEST(MyRegression, MismatchedShapesAreRejected) {
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*g_device);
  const driver::Bf16Matrix a(4, 5), b(6, 4);
  driver::GemmRequest request;
  request.a = &a;
  request.b = &b;
  EXPECT_THROW(driver::Gemm(*g_device, config, request, kWatchdog), std::invalid_argument);
}

}  // namespace

// libsystemc owns main() and calls sc_main: open the device here, then run the tests.
// SystemC declares sc_main extern "C" (in <systemc>, which this file does not need to include).
extern "C" int sc_main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);  // no SystemC banner in the output
  ::testing::InitGoogleTest(&argc, argv);
  // Any backend the build offers; the RTL one takes the host memory's timing (options.timing,
  // MemoryTiming's defaults here). Fields set by name: a braced {"rtl", MemoryTiming()} would
  // leave device_spec out, which -Wextra warns about.
  backends::BackendOptions options;
  options.backend = "rtl";
  std::unique_ptr<driver::Device> device = backends::OpenDevice(options);
  g_device = device.get();
  const int result = RUN_ALL_TESTS();
  g_device = nullptr;
  return result;
}
