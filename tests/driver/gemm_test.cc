// Driver regressions: random GEMM shapes across every option combination, with special values
// mixed in, every output bit compared with the golden model; large shapes, programs of several
// GEMMs, and the driver's error paths. The same binary runs on either backend, named by
// MXU_TEST_BACKEND (default rtl): on the RTL, a representative sweep (200 shapes, every dimension
// from 1 to 3 x array + 1, edges and primes included); on the model, the broad one (1,200 shapes
// up to 8 x array + 1). MXU_TEST_DEVICE names any device spec for the model backend to stand for
// (built or not: other PE depths and port widths; it implies MXU_TEST_BACKEND=model). One RTL
// device per process (SystemC elaborates once).
#include "driver/gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "backends/device_factory.h"
#include "common/csr_map.h"
#include "driver/device_config.h"
#include "driver/golden_request.h"
#include "driver/program_runner.h"
#include "golden/float_vectors.h"
#include "golden/gemm.h"
#include "golden/int8.h"
#include "golden/numerics.h"
#include "tests/driver/random_gemm.h"

namespace mxu::driver {
namespace {

Device* g_device = nullptr;
// The broad sweep's size, set from the backend in sc_main: parts of 50 shapes, largest dimension.
int g_sweep_parts = 4, g_sweep_limit_arrays = 3;
constexpr uint64_t kWatchdog = 20'000'000;

using Options = testing::GemmOptions;
using testing::RandomGemm;

std::string Describe(int m, int k, int n, const Options& o) {
  return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
         (o.ta ? " ta" : "") + (o.tb ? " tb" : "") + (o.relu ? " relu" : "") +
         (o.init == 1   ? " bias"
          : o.init == 2 ? " c0"
                        : "") +
         (o.output == OutputType::kBf16 ? " bf16" : " fp32");
}

uint16_t Operand(golden::BitSource& bits) { return testing::RandomOperand(bits); }

Bf16Matrix RandomMatrix(int rows, int cols, golden::BitSource& bits) {
  return testing::RandomOperandMatrix(rows, cols, bits);
}

// Runs one GEMM on the device and compares every output bit with the golden model; returns the
// number of mismatches.
int RunAndCheck(int m, int k, int n, const Options& o, uint64_t seed) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  golden::BitSource bits(seed);
  const RandomGemm gemm(m, k, n, o, bits);
  const Bf16Matrix &a = gemm.a, &b = gemm.b;
  const std::vector<float>& bias = gemm.bias;
  const Fp32Matrix& c0 = gemm.c0;
  const GemmResult result = Gemm(*g_device, config, gemm.request, kWatchdog);

  // Golden: operands in op form, accumulators starting from C0 or the broadcast bias.
  golden::Bf16Matrix ga{m, k, std::vector<uint16_t>(size_t(m) * k)};
  golden::Bf16Matrix gb{k, n, std::vector<uint16_t>(size_t(k) * n)};
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < k; ++j) ga.data[size_t(i) * k + j] = o.ta ? a.at(j, i) : a.at(i, j);
  }
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < n; ++j) gb.data[size_t(i) * n + j] = o.tb ? b.at(j, i) : b.at(i, j);
  }
  golden::Fp32Matrix start{m, n, std::vector<float>(size_t(m) * n)};
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) start.at(i, j) = o.init == 1 ? bias[j] : c0.at(i, j);
  }
  const golden::Fp32Matrix want = golden::Gemm(ga, gb, static_cast<int>(config.rows),
                                               config.subnormals, o.init ? &start : nullptr);
  int mismatches = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      const float w = o.relu ? golden::Relu(want.at(i, j)) : want.at(i, j);
      const uint32_t want_bits = o.output == OutputType::kBf16
                                     ? golden::FloatToBf16(w, config.subnormals)
                                     : golden::FloatBits(w);
      const uint32_t got_bits = o.output == OutputType::kBf16
                                    ? result.c_bf16.at(i, j)
                                    : golden::FloatBits(result.c.at(i, j));
      if (got_bits != want_bits && ++mismatches <= 3) {
        ADD_FAILURE() << Describe(m, k, n, o) << ": C[" << i << "][" << j << "] device 0x"
                      << std::hex << got_bits << ", golden 0x" << want_bits;
      }
    }
  }
  return mismatches;
}

// Dimensions from 1 to `limit`: edges and primes first, then random ones.
int Dimension(golden::BitSource& bits, int limit) {
  static const int kEdges[] = {1, 2, 3, 5, 7, 13, 15, 16, 17, 31, 32, 33, 47, 48, 49};
  if (bits.Below(2) == 0) {
    const int pick = kEdges[bits.Below(sizeof kEdges / sizeof kEdges[0])];
    if (pick <= limit) return pick;
  }
  return 1 + static_cast<int>(bits.Below(static_cast<uint64_t>(limit)));
}

// 50 random shapes per part, each with the next of the 48 option combinations.
void RandomShapes(int part) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  const int limit = g_sweep_limit_arrays * static_cast<int>(std::max(config.rows, config.cols)) + 1;
  golden::BitSource bits(1000 + part);
  int failures = 0;
  for (int i = 0; i < 50; ++i) {
    const int combo = part * 50 + i;
    const Options o{(combo & 1) != 0, (combo & 2) != 0, (combo & 4) != 0, (combo >> 3) % 3,
                    ((combo / 24) & 1) ? OutputType::kBf16 : OutputType::kFp32};
    const int m = Dimension(bits, limit), k = Dimension(bits, limit), n = Dimension(bits, limit);
    failures += RunAndCheck(m, k, n, o, combo) != 0;
  }
  EXPECT_EQ(failures, 0);
  std::printf("part %d: 50 random shapes, %d with mismatches\n", part, failures);
}

// Parts of the sweep, so that ctest spreads them over the cores; parts beyond the backend's
// sweep are skipped.
class RandomShapesPart : public ::testing::TestWithParam<int> {};
TEST_P(RandomShapesPart, AreBitExact) {
  if (GetParam() >= g_sweep_parts) GTEST_SKIP() << "beyond this backend's sweep";
  RandomShapes(GetParam());
}
INSTANTIATE_TEST_SUITE_P(DriverGemm, RandomShapesPart, ::testing::Range(0, 24));

TEST(DriverGemm, LargeShape) {
  EXPECT_EQ(RunAndCheck(300, 500, 200, {false, false, false, 0, OutputType::kFp32}, 1), 0);
}

TEST(DriverGemm, LargeShapeTransposedWithBiasReluBf16) {
  EXPECT_EQ(RunAndCheck(130, 211, 97, {true, true, true, 1, OutputType::kBf16}, 2), 0);
}

// Compares a result with the golden model's answer to its request; returns the mismatches.
int Mismatches(const GemmRequest& request, const GemmResult& result, const DeviceConfig& config) {
  const std::vector<uint32_t> want =
      GoldenBits(request, static_cast<int>(config.rows), config.subnormals);
  const bool bf16 = request.output == OutputType::kBf16;
  int mismatches = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const uint32_t got = bf16 ? result.c_bf16.data.at(i) : golden::FloatBits(result.c.data.at(i));
    if (got != want[i] && ++mismatches <= 3) {
      ADD_FAILURE() << "output " << i << ": device 0x" << std::hex << got << ", golden 0x"
                    << want[i];
    }
  }
  return mismatches;
}

// Issue 58: a partial last K tile whose products sum to -0 (flush mode flushes -0.5 x 2^-126 to
// -0) gives -0, as the contract's K tiling does: the array's padded rows add nothing. A = ones;
// B's columns: -1.5 x 2^-126, 2^-126 repeated (-0 in flush mode, -2^-127 in IEEE mode); all -0
// (-0 products: +0, the tile's +0 start, in both modes); -2^-126, 2^-126 (x + (-x) = +0);
// 2^-126, -1.5 x 2^-126. K = 2, Rows + 2 (a full tile, then a partial one) and 2 Rows; with
// no start, a -0 bias and a -0 C0, fp32 and bf16 output.
TEST(DriverGemm, APartialTileSummingToMinusZeroStaysMinusZero) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  const int rows = static_cast<int>(config.rows);
  const uint16_t pattern[4][2] = {
      {0x80C0, 0x0080}, {0x8000, 0x8000}, {0x8080, 0x0080}, {0x0080, 0x80C0}};
  const int m = 3, n = 4;
  for (int k : {2, rows + 2, 2 * rows}) {
    Bf16Matrix a(m, k), b(k, n);
    std::fill(a.data.begin(), a.data.end(), uint16_t{0x3F80});
    for (int r = 0; r < k; ++r) {
      for (int c = 0; c < n; ++c) b.data[size_t(r) * n + c] = pattern[c][r % 2];
    }
    const std::vector<float> bias(n, -0.0f);
    Fp32Matrix c0(m, n);
    std::fill(c0.data.begin(), c0.data.end(), -0.0f);
    for (int init = 0; init < 3; ++init) {
      for (OutputType output : {OutputType::kFp32, OutputType::kBf16}) {
        GemmRequest request;
        request.a = &a;
        request.b = &b;
        request.output = output;
        if (init == 1) request.bias = &bias;
        if (init == 2) request.c0 = &c0;
        const GemmResult result = Gemm(*g_device, config, request, kWatchdog);
        EXPECT_EQ(Mismatches(request, result, config), 0)
            << "K " << k << " init " << init << (output == OutputType::kBf16 ? " bf16" : "");
      }
    }
  }
}

TEST(DriverGemm, ProgramsOfSeveralGemmsAreBitExact) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  golden::BitSource bits(21);
  const Bf16Matrix a1 = RandomMatrix(70, 33, bits), b1 = RandomMatrix(33, 45, bits);
  const Bf16Matrix a2 = RandomMatrix(50, 20, bits), b2 = RandomMatrix(40, 50, bits);
  const Bf16Matrix a3 = RandomMatrix(17, 64, bits), b3 = RandomMatrix(64, 9, bits);
  std::vector<float> bias3(9);
  for (float& x : bias3) x = golden::Bf16ToFloat(Operand(bits));
  std::vector<GemmRequest> requests(3);
  requests[0].a = &a1, requests[0].b = &b1, requests[0].relu = true;
  requests[1].a = &a2, requests[1].b = &b2, requests[1].trans_a = true, requests[1].trans_b = true;
  requests[1].output = OutputType::kBf16;
  requests[2].a = &a3, requests[2].b = &b3, requests[2].bias = &bias3;
  GemmProgram program(*g_device, config);
  for (const GemmRequest& r : requests) program.Add(r);
  const std::vector<GemmResult> results = program.Run(kWatchdog);
  ASSERT_EQ(results.size(), 3u);
  uint64_t separate = 0;
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(Mismatches(requests[i], results[i], config), 0) << "GEMM " << i;
    separate +=
        Gemm(*g_device, config, requests[i], kWatchdog).stats.counter(csr::Counter::kCycles);
  }
  // One program pays the fixed costs once and overlaps one GEMM's tail with the next's head.
  EXPECT_LT(results[0].stats.counter(csr::Counter::kCycles), separate);
}

// Programs of two or three random GEMMs, as the training loop builds them: the driver moves one
// GEMM's last stores into the next GEMM's instructions and continues the accumulator regions;
// no reordering may let a GEMM overwrite rows a store still has to read.
TEST(DriverGemm, RandomProgramsOfSeveralGemmsAreBitExact) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  golden::BitSource bits(24);
  for (int program_index = 0; program_index < 8; ++program_index) {
    const int count = 2 + static_cast<int>(bits.Below(2));
    std::vector<Bf16Matrix> as, bs;
    std::vector<std::vector<float>> biases;
    as.reserve(count), bs.reserve(count), biases.reserve(count);
    std::vector<GemmRequest> requests(count);
    for (int i = 0; i < count; ++i) {
      const int m = Dimension(bits, 70), k = Dimension(bits, 70), n = Dimension(bits, 70);
      const Options o{bits.Below(2) == 1, bits.Below(2) == 1, bits.Below(2) == 1, 0,
                      bits.Below(4) == 0 ? OutputType::kBf16 : OutputType::kFp32};
      as.push_back(o.ta ? RandomMatrix(k, m, bits) : RandomMatrix(m, k, bits));
      bs.push_back(o.tb ? RandomMatrix(n, k, bits) : RandomMatrix(k, n, bits));
      biases.emplace_back(n);
      for (float& x : biases.back()) x = golden::Bf16ToFloat(Operand(bits));
      requests[i].a = &as.back(), requests[i].b = &bs.back();
      requests[i].trans_a = o.ta, requests[i].trans_b = o.tb, requests[i].relu = o.relu;
      requests[i].output = o.output;
      if (bits.Below(2) == 1) requests[i].bias = &biases.back();
    }
    GemmProgram program(*g_device, config);
    for (const GemmRequest& r : requests) program.Add(r);
    const std::vector<GemmResult> results = program.Run(kWatchdog);
    for (int i = 0; i < count; ++i) {
      EXPECT_EQ(Mismatches(requests[i], results[i], config), 0)
          << "program " << program_index << ", GEMM " << i;
    }
  }
}

Int8Matrix RandomInt8(int rows, int cols, golden::BitSource& bits);

// A batch of random GEMMs (GemmBatch: one program, planned as one stream), each with its own
// options, some in the int8 mode: every output as the golden model's, and fewer cycles than the
// same GEMMs run one program each.
TEST(DriverGemm, RandomBatchesAreBitExactAndOverlap) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  golden::BitSource bits(25);
  for (int batch_index = 0; batch_index < 6; ++batch_index) {
    const bool same_shape = batch_index % 2 == 0;  // a bmm's batch
    const int count = 2 + static_cast<int>(bits.Below(same_shape ? 15 : 5));
    const int sm = Dimension(bits, 40), sk = Dimension(bits, 40), sn = Dimension(bits, 40);
    std::vector<Bf16Matrix> as, bs;
    std::vector<Int8Matrix> as8, bs8;
    std::vector<std::vector<float>> biases;
    std::vector<std::vector<int32_t>> biases8;
    std::vector<std::vector<uint32_t>> quants;
    for (auto* v : {&as, &bs}) v->reserve(count);
    for (auto* v : {&as8, &bs8}) v->reserve(count);
    biases.reserve(count), biases8.reserve(count), quants.reserve(count);
    std::vector<GemmRequest> requests(count);
    for (int i = 0; i < count; ++i) {
      const int m = same_shape ? sm : Dimension(bits, 70),
                k = same_shape ? sk : Dimension(bits, 70),
                n = same_shape ? sn : Dimension(bits, 70);
      GemmRequest& r = requests[i];
      r.trans_a = bits.Below(2) == 1, r.trans_b = bits.Below(2) == 1, r.relu = bits.Below(2) == 1;
      if (!same_shape && bits.Below(3) == 0) {  // the int8 mode
        as8.push_back(r.trans_a ? RandomInt8(k, m, bits) : RandomInt8(m, k, bits));
        bs8.push_back(r.trans_b ? RandomInt8(n, k, bits) : RandomInt8(k, n, bits));
        r.a_int8 = &as8.back(), r.b_int8 = &bs8.back();
        biases8.emplace_back(n);
        for (int32_t& x : biases8.back()) x = static_cast<int32_t>(bits.Below(1 << 16)) - (1 << 15);
        if (bits.Below(2) == 1) r.bias_int32 = &biases8.back();
        r.output = OutputType::kInt32;
        if (bits.Below(2) == 1) {
          quants.emplace_back(n);
          for (uint32_t& q : quants.back()) {
            q = golden::QuantizeMultiplier(127 / (4096.0 * std::sqrt(double(k)))).word();
          }
          r.output = OutputType::kInt8, r.quant = &quants.back();
          r.zero_point = static_cast<int>(bits.Below(256)) - 128;
        }
        continue;
      }
      as.push_back(r.trans_a ? RandomMatrix(k, m, bits) : RandomMatrix(m, k, bits));
      bs.push_back(r.trans_b ? RandomMatrix(n, k, bits) : RandomMatrix(k, n, bits));
      biases.emplace_back(n);
      for (float& x : biases.back()) x = golden::Bf16ToFloat(Operand(bits));
      r.a = &as.back(), r.b = &bs.back();
      r.output = bits.Below(4) == 0 ? OutputType::kBf16 : OutputType::kFp32;
      if (bits.Below(2) == 1) r.bias = &biases.back();
    }
    const std::vector<GemmResult> results = GemmBatch(*g_device, config, requests, kWatchdog);
    ASSERT_EQ(results.size(), requests.size());
    uint64_t separate = 0;
    for (int i = 0; i < count; ++i) {
      const GemmRequest& r = requests[i];
      if (r.a_int8) {
        const std::vector<int32_t> want = GoldenInt8Values(r);
        for (size_t j = 0; j < want.size(); ++j) {
          const int32_t got = r.output == OutputType::kInt8 ? results[i].c_int8.data.at(j)
                                                            : results[i].c_int32.data.at(j);
          ASSERT_EQ(got, want[j]) << "batch " << batch_index << ", GEMM " << i << ", output " << j;
        }
      } else {
        EXPECT_EQ(Mismatches(r, results[i], config), 0)
            << "batch " << batch_index << ", GEMM " << i;
      }
      separate += Gemm(*g_device, config, r, kWatchdog).stats.counter(csr::Counter::kCycles);
    }
    EXPECT_LT(results[0].stats.counter(csr::Counter::kCycles), separate) << "batch " << batch_index;
  }
}

// The bmm of attention (10 x 16 x 10 products, 64 of them): one stream costs a fraction of a
// program per product.
TEST(DriverGemm, ABatchOfSmallProductsStreams) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  golden::BitSource bits(26);
  std::vector<Bf16Matrix> as, bs;
  std::vector<GemmRequest> requests(64);
  as.reserve(64), bs.reserve(64);
  for (GemmRequest& r : requests) {
    as.push_back(RandomMatrix(10, 16, bits));
    bs.push_back(RandomMatrix(16, 10, bits));
    r.a = &as.back(), r.b = &bs.back();
  }
  const std::vector<GemmResult> results = GemmBatch(*g_device, config, requests, kWatchdog);
  for (size_t i = 0; i < requests.size(); ++i) {
    ASSERT_EQ(Mismatches(requests[i], results[i], config), 0) << "GEMM " << i;
  }
  const uint64_t one =
      Gemm(*g_device, config, requests[0], kWatchdog).stats.counter(csr::Counter::kCycles);
  const uint64_t batch = results[0].stats.counter(csr::Counter::kCycles);
  std::printf("64 products of 10 x 16 x 10: %llu cycles as one batch (%.1f each), %llu alone\n",
              static_cast<unsigned long long>(batch), batch / 64.0,
              static_cast<unsigned long long>(one));
  // Every device gains; the default one (16 x 16, 32-byte port) at least fourfold, where one
  // stream runs at the memory port's pace (A, B and C of a product: 1,472 bytes, 46 beats).
  EXPECT_LT(batch, 64 * one * 3 / 4);
  if (config.rows == 16 && config.cols == 16 && config.bus_bytes == 32) {
    EXPECT_LT(batch, 64 * one / 4);
  }
}

TEST(DriverGemm, ABatchRefusesABadElementBeforeRunning) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  golden::BitSource bits(27);
  const Bf16Matrix a = RandomMatrix(8, 8, bits), b = RandomMatrix(8, 8, bits);
  const Bf16Matrix wrong = RandomMatrix(9, 8, bits);
  GemmRequest good, bad;
  good.a = &a, good.b = &b;
  bad.a = &a, bad.b = &wrong;
  const uint32_t before = g_device->ReadCsr(csr::CounterLo(0));
  try {
    GemmBatch(*g_device, config, {good, good, bad}, kWatchdog);
    ADD_FAILURE() << "a batch with mismatched shapes ran";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("batch element 2: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("inner dimensions differ"), std::string::npos);
  }
  EXPECT_EQ(g_device->ReadCsr(csr::CounterLo(0)), before) << "something ran";
  EXPECT_THROW(GemmBatch(*g_device, config, {}, kWatchdog), std::invalid_argument);
}

TEST(DriverGemm, ChainedLayersKeepActivationsOnChip) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  golden::BitSource bits(22);
  const Bf16Matrix x = RandomMatrix(70, 40, bits);
  const Bf16Matrix w1 = RandomMatrix(40, 50, bits), w2 = RandomMatrix(50, 30, bits);
  const Bf16Matrix w3 = RandomMatrix(30, 20, bits);
  std::vector<float> b1(50), b2(30);
  for (float& v : b1) v = golden::Bf16ToFloat(Operand(bits));
  for (float& v : b2) v = golden::Bf16ToFloat(Operand(bits));
  GemmRequest l1, l2, l3;
  l1.a = &x, l1.b = &w1, l1.bias = &b1, l1.relu = true;
  l2.b = &w2, l2.bias = &b2, l2.relu = true;
  l3.b = &w3, l3.output = OutputType::kBf16;
  GemmProgram program(*g_device, config);
  const size_t i1 = program.Add(l1);
  const size_t i2 = program.AddChained(i1, l2);
  program.AddChained(i2, l3);
  program.SetReturned(i2, false);  // layer 2's activations never leave the chip
  const std::vector<GemmResult> results = program.Run(kWatchdog);
  EXPECT_EQ(results[1].c.data.size(), 0u);

  // Golden: each layer's input is the one before's result (bias, ReLU) rounded to bf16.
  const auto next_input = [&](const GemmRequest& r, int rows, int cols) {
    const std::vector<uint32_t> out =
        GoldenBits(r, static_cast<int>(config.rows), config.subnormals);
    Bf16Matrix m(rows, cols);
    for (size_t i = 0; i < out.size(); ++i) {
      m.data[i] = golden::FloatToBf16(golden::FloatFromBits(out[i]), config.subnormals);
    }
    return m;
  };
  EXPECT_EQ(Mismatches(l1, results[0], config), 0) << "layer 1";
  const Bf16Matrix h1 = next_input(l1, 70, 50);
  l2.a = &h1;
  const Bf16Matrix h2 = next_input(l2, 70, 30);
  l3.a = &h2;
  EXPECT_EQ(Mismatches(l3, results[2], config), 0) << "layer 3";
}

// A^T streams through the DMA's transpose buffer at burst speed: a mid-size GEMM with A
// transposed costs within 5% of the plain one (cycle counts are exact, so this is no timing
// flake). B^T is not asserted: a transposed weight tile is 16 runs of one or two beats, bound by
// the memory's requests in flight (docs/performance.md). Nor is A^T on a device whose
// accumulators hold M blocks shorter than a 16-beat run of A^T's rows (the CI's 8 x 4, 256 rows
// on a 64-byte port): its runs are bound by the requests in flight the same way, while plain rows
// pack several to a beat.
TEST(DriverGemm, TransposedAStreamsAboutAsFastAsPlain) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  if (2ull * config.acc_depth < 16ull * config.bus_bytes) {
    GTEST_SKIP() << "M blocks of at most " << config.acc_depth
                 << " rows are A^T runs under 16 beats";
  }
  golden::BitSource bits(23);
  const Bf16Matrix a = RandomMatrix(256, 256, bits), b = RandomMatrix(256, 128, bits);
  GemmRequest plain;
  plain.a = &a, plain.b = &b;
  GemmRequest transposed = plain;
  transposed.trans_a = true;  // the same 256 x 256 data read as A^T
  const GemmResult p = Gemm(*g_device, config, plain, kWatchdog);
  const GemmResult t = Gemm(*g_device, config, transposed, kWatchdog);
  EXPECT_EQ(Mismatches(transposed, t, config), 0);
  const uint64_t pc = p.stats.counter(csr::Counter::kCycles);
  const uint64_t tc = t.stats.counter(csr::Counter::kCycles);
  EXPECT_LE(tc, pc + pc / 20) << "plain " << pc << " cycles, A^T " << tc;
}

TEST(DriverGemm, ChainsNeedTheirProducer) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  const Bf16Matrix a(4, 5), b(5, 3);
  GemmRequest request;
  request.b = &b;
  GemmProgram program(*g_device, config);
  EXPECT_THROW(program.AddChained(0, request), std::invalid_argument);
  GemmRequest first;
  first.a = &a, first.b = &b;
  program.Add(first);
  EXPECT_THROW(program.AddChained(0, request), std::invalid_argument);  // K 5 != N 3
}

TEST(DriverGemm, ConfigurationComesFromTheDevice) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  const uint32_t array = g_device->ReadCsr(csr::kArray);
  EXPECT_EQ(config.rows, csr::ArrayRows(array));
  EXPECT_EQ(config.cols, csr::ArrayCols(array));
  EXPECT_EQ(config.ub_depth, g_device->ReadCsr(csr::kUbDepth));
  EXPECT_EQ(config.acc_depth, g_device->ReadCsr(csr::kAccDepth));
}

// ---- The int8 mode: int8 operands, int32 sums, int32 or requantized int8 output.

Int8Matrix RandomInt8(int rows, int cols, golden::BitSource& bits) {
  Int8Matrix m(rows, cols);
  for (auto& x : m.data) {
    // The extremes (the products' range ends at -128 x -128) now and then.
    const uint64_t pick = bits.Below(16);
    x = pick == 0 ? int8_t{-128} : pick == 1 ? int8_t{127} : static_cast<int8_t>(bits.Below(256));
  }
  return m;
}

// Runs one int8 GEMM and compares every output with golden::Int8Gemm (and RequantizeMatrix);
// returns the mismatches. init: 0 none, 1 bias, 2 C0.
int RunAndCheckInt8(int m, int k, int n, bool ta, bool tb, bool relu, int init, bool int8_out,
                    uint64_t seed) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  golden::BitSource bits(seed);
  const Int8Matrix a = ta ? RandomInt8(k, m, bits) : RandomInt8(m, k, bits);
  const Int8Matrix b = tb ? RandomInt8(n, k, bits) : RandomInt8(k, n, bits);
  std::vector<int32_t> bias(n);
  for (int32_t& x : bias) x = static_cast<int32_t>(bits.Below(1 << 20)) - (1 << 19);
  Int32Matrix c0(m, n);
  for (int32_t& x : c0.data) x = static_cast<int32_t>(bits.Below(1 << 24)) - (1 << 23);
  // Scales that map the sums' spread (about 128 x 128 x sqrt(K)) onto the int8 range, per column.
  std::vector<uint32_t> quant(n);
  for (uint32_t& q : quant) {
    const double spread = 16384.0 * std::sqrt(double(k)) / 4;
    q = golden::QuantizeMultiplier((0.5 + double(bits.Below(1000)) / 1000) * 127 / spread).word();
  }
  const int zero_point = static_cast<int>(bits.Below(256)) - 128;

  GemmRequest request;
  request.a_int8 = &a;
  request.b_int8 = &b;
  request.trans_a = ta;
  request.trans_b = tb;
  request.relu = relu;
  request.output = int8_out ? OutputType::kInt8 : OutputType::kInt32;
  if (init == 1) request.bias_int32 = &bias;
  if (init == 2) request.c0_int32 = &c0;
  if (int8_out) request.quant = &quant, request.zero_point = zero_point;
  const GemmResult result = Gemm(*g_device, config, request, kWatchdog);

  const std::vector<int32_t> sums = golden::Int8Gemm(
      a.data, b.data, m, k, n, ta, tb, init == 1 ? &bias : nullptr, init == 2 ? &c0.data : nullptr);
  const std::vector<int8_t> requantized =
      int8_out ? golden::RequantizeMatrix(sums, m, n, nullptr, quant, zero_point, relu)
               : std::vector<int8_t>();
  const std::string what = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                           (ta ? " ta" : "") + (tb ? " tb" : "") + (relu ? " relu" : "") +
                           (init == 1   ? " bias"
                            : init == 2 ? " c0"
                                        : "") +
                           (int8_out ? " int8" : " int32");
  int mismatches = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      const size_t at = size_t(i) * n + j;
      const int64_t want = int8_out ? requantized[at] : (relu ? std::max(0, sums[at]) : sums[at]);
      const int64_t got = int8_out ? result.c_int8.at(i, j) : result.c_int32.at(i, j);
      if (got != want && ++mismatches <= 3) {
        ADD_FAILURE() << what << ": C[" << i << "][" << j << "] device " << got << ", golden "
                      << want;
      }
    }
  }
  return mismatches;
}

TEST(DriverGemm, Int8RandomShapesAreExact) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  const int limit = 2 * static_cast<int>(std::max(config.rows, config.cols)) + 1;
  golden::BitSource bits(77);
  int failures = 0;
  for (int combo = 0; combo < 24; ++combo) {
    const int m = Dimension(bits, limit), k = Dimension(bits, limit), n = Dimension(bits, limit);
    failures += RunAndCheckInt8(m, k, n, combo & 1, (combo >> 1) & 1, (combo >> 2) & 1,
                                (combo / 8) % 3, combo % 3 != 0, 500 + combo) != 0;
  }
  EXPECT_EQ(failures, 0);
}

TEST(DriverGemm, Int8LargeShape) {
  EXPECT_EQ(RunAndCheckInt8(150, 300, 70, false, true, true, 1, true, 9), 0);
  EXPECT_EQ(RunAndCheckInt8(70, 260, 90, true, false, false, 2, false, 10), 0);
}

// The int8 mode moves half the operand bytes of bf16 over the memory port: exactly half where
// every tile is whole bus beats in both modes, fewer bytes on any device (packed rows stream from
// any row boundary, so an int8 tile that starts mid-beat reads no beat twice).
TEST(DriverGemm, Int8OperandsTakeHalfTheBytes) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  const int m = 64, k = 96, n = 48;
  golden::BitSource bits(5);
  const Bf16Matrix a = RandomMatrix(m, k, bits), b = RandomMatrix(k, n, bits);
  const Int8Matrix a8 = RandomInt8(m, k, bits), b8 = RandomInt8(k, n, bits);
  GemmRequest f;
  f.a = &a;
  f.b = &b;
  GemmRequest i;
  i.a_int8 = &a8;
  i.b_int8 = &b8;
  i.output = OutputType::kInt32;
  const GemmResult rf = Gemm(*g_device, config, f, kWatchdog);
  const GemmResult ri = Gemm(*g_device, config, i, kWatchdog);
  const uint64_t read_f = rf.stats.counter(csr::Counter::kDmaReadBytes);
  const uint64_t read_i = ri.stats.counter(csr::Counter::kDmaReadBytes);
  EXPECT_LT(read_i, read_f);
  const bool whole_beats = (config.rows * config.cols) % config.bus_bytes == 0 &&
                           (uint64_t(m) * config.rows) % config.bus_bytes == 0;
  if (whole_beats) {
    const uint64_t program_bytes = rf.instructions * isa::kInstructionBytes;
    EXPECT_EQ(ri.instructions, rf.instructions);
    EXPECT_EQ(read_i - program_bytes, (read_f - program_bytes) / 2);
  }
}

TEST(DriverGemm, Int8BadRequestsAreRejectedWithClearMessages) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  const Int8Matrix a(4, 5), b(5, 3);
  const Bf16Matrix b16(5, 3);
  const auto message = [&](const GemmRequest& r) -> std::string {
    try {
      Gemm(*g_device, config, r, kWatchdog);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  GemmRequest mixed;
  mixed.a_int8 = &a;
  mixed.b = &b16;
  EXPECT_NE(message(mixed).find("mixed types"), std::string::npos) << message(mixed);
  GemmRequest fp32_out;
  fp32_out.a_int8 = &a;
  fp32_out.b_int8 = &b;
  EXPECT_NE(message(fp32_out).find("int32 or int8"), std::string::npos) << message(fp32_out);
  GemmRequest no_quant = fp32_out;
  no_quant.output = OutputType::kInt8;
  EXPECT_NE(message(no_quant).find("quantization words"), std::string::npos) << message(no_quant);
  const std::vector<uint32_t> quant(3, golden::QuantizeMultiplier(0.01).word());
  GemmRequest bad_zero = no_quant;
  bad_zero.quant = &quant;
  bad_zero.zero_point = 128;
  EXPECT_NE(message(bad_zero).find("zero point 128"), std::string::npos) << message(bad_zero);
}

TEST(DriverGemm, BadShapesAreRejectedWithClearMessages) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  const Bf16Matrix a(4, 5), b(6, 3), empty(0, 3), b_ok(5, 3);
  GemmRequest request;
  request.a = &a;
  request.b = &b;
  try {
    Gemm(*g_device, config, request, kWatchdog);
    ADD_FAILURE() << "mismatched shapes accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("inner dimensions differ"), std::string::npos) << e.what();
  }
  request.a = &empty;
  EXPECT_THROW(Gemm(*g_device, config, request, kWatchdog), std::invalid_argument);
  request.a = &a;
  request.b = &b_ok;
  const std::vector<float> bias(7);
  request.bias = &bias;
  EXPECT_THROW(Gemm(*g_device, config, request, kWatchdog), std::invalid_argument);
  const Fp32Matrix c0(4, 4);
  request.bias = nullptr;
  request.c0 = &c0;
  EXPECT_THROW(Gemm(*g_device, config, request, kWatchdog), std::invalid_argument);
}

TEST(DriverGemm, WatchdogExpiryIsAnErrorAndTheDeviceRecovers) {
  const DeviceConfig config = ReadDeviceConfig(*g_device);
  golden::BitSource bits(3);
  const Bf16Matrix a = RandomMatrix(64, 64, bits), b = RandomMatrix(64, 64, bits);
  GemmRequest request;
  request.a = &a;
  request.b = &b;
  try {
    Gemm(*g_device, config, request, 50);
    ADD_FAILURE() << "a 50-cycle watchdog did not fire";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("watchdog"), std::string::npos) << e.what();
  }
  EXPECT_EQ(RunAndCheck(20, 20, 20, {false, false, false, 0, OutputType::kFp32}, 4), 0);
}

TEST(DriverGemm, DeviceErrorsNameTheInstruction) {
  ProgramRunner runner(*g_device, kWatchdog);
  try {
    runner.Run({isa::Sync(), isa::Raw({0x42, 0, 0, 0})}, 0x1000);
    ADD_FAILURE() << "an illegal instruction ran";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("ILLEGAL_OPCODE at instruction 1"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace mxu::driver

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const char* backend = std::getenv("MXU_TEST_BACKEND");
  const char* spec = std::getenv("MXU_TEST_DEVICE");
  auto device = mxu::backends::OpenDevice(
      {backend ? backend : (spec ? "model" : "rtl"), mxu::MemoryTiming(), spec ? spec : ""});
  if (std::string(device->name()) == "model") {
    mxu::driver::g_sweep_parts = 24;
    mxu::driver::g_sweep_limit_arrays = 8;
  }
  mxu::driver::g_device = device.get();
  const int result = RUN_ALL_TESTS();
  mxu::driver::g_device = nullptr;
  return result;
}
