// The device matmul engine on the model backend: products taller than the driver's 65535 rows,
// and chained programs too tall for the unified buffer, run in row chunks, bit-identical to the
// golden model and to the products run one at a time.
#include "train/matmul_engine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "backends/model_device.h"
#include "common/bf16.h"
#include "golden/gemm.h"
#include "golden/numerics.h"
#include "tests/train/golden_operands.h"
#include "train/data/rng.h"

namespace mxu::train {
namespace {

constexpr uint64_t kWatchdog = 500'000'000;

Fp32Matrix Random(int rows, int cols, Rng& rng) {
  Fp32Matrix m(rows, cols);
  for (float& v : m.data) v = static_cast<float>(rng.Normal());
  return m;
}

TEST(DeviceMatmulEngine, ProductsTallerThanTheDriversLimitAreTheGoldenModels) {
  backends::ModelDevice device;
  DeviceMatmulEngine engine(device, kWatchdog);
  Rng rng(4);
  const int m = 70001, k = 5, n = 3;  // two chunks, the second short
  for (const bool trans_a : {false, true}) {
    const Fp32Matrix a = trans_a ? Random(k, m, rng) : Random(m, k, rng);
    const Fp32Matrix b = Random(k, n, rng);
    const std::vector<float> bias = {0.5f, -0.25f, 0.0f};
    MatmulOp op;
    op.a = &a;
    op.trans_a = trans_a;
    op.b = &b;
    op.bias = &bias;
    op.relu = true;
    const Fp32Matrix got = engine.Run(op);
    const Subnormals mode = engine.config().subnormals;
    golden::Fp32Matrix start{m, n, {}};
    for (int r = 0; r < m; ++r) start.data.insert(start.data.end(), bias.begin(), bias.end());
    const golden::Fp32Matrix want =
        golden::Gemm(OpFormBf16(a, trans_a, mode), OpFormBf16(b, false, mode),
                     static_cast<int>(engine.config().rows), mode, &start);
    ASSERT_EQ(got.rows, m);
    ASSERT_EQ(got.cols, n);
    int mismatches = 0;
    for (size_t i = 0; i < got.data.size(); ++i) {
      mismatches += golden::FloatBits(golden::Relu(want.data[i])) != golden::FloatBits(got.data[i]);
    }
    EXPECT_EQ(mismatches, 0) << "trans_a " << trans_a;
  }
  EXPECT_EQ(engine.stats().gemms, 2u);  // products asked for, not chunks
}

// A chained forward pass of 2000 rows through 128 columns needs 16,000 unified-buffer rows (of
// 8192): it runs in chunks, each product's rows as when the layers run one by one.
TEST(DeviceMatmulEngine, ChainedProgramsTooTallForTheBufferRunInChunks) {
  backends::ModelDevice device;
  DeviceMatmulEngine engine(device, kWatchdog);
  Rng rng(5);
  const Fp32Matrix x = Random(2000, 20, rng);
  const Fp32Matrix w1 = Random(20, 128, rng), w2 = Random(128, 10, rng);
  const std::vector<float> b1(128, 0.125f), b2(10, -0.5f);
  std::vector<MatmulOp> ops(2);
  ops[0].a = &x;
  ops[0].b = &w1;
  ops[0].bias = &b1;
  ops[0].relu = true;
  ops[1].chain_from = 0;
  ops[1].b = &w2;
  ops[1].bias = &b2;
  const std::vector<Fp32Matrix> chained = engine.RunProgram(ops);
  ASSERT_EQ(chained.size(), 2u);

  MatmulOp first = ops[0], second = ops[1];
  const Fp32Matrix h = engine.Run(first);
  second.chain_from = -1;
  second.a = &h;
  const Fp32Matrix logits = engine.Run(second);
  EXPECT_TRUE(BitEqual(chained[0], h));
  EXPECT_TRUE(BitEqual(chained[1], logits));

  // Products of different heights in one program, one too tall: each runs alone.
  const Fp32Matrix tall = Random(70000, 3, rng), w = Random(4, 3, rng);
  const Fp32Matrix small = Random(8, 5, rng), v = Random(5, 2, rng);
  std::vector<MatmulOp> mixed(2);
  mixed[0].a = &small;
  mixed[0].b = &v;
  mixed[1].a = &tall;
  mixed[1].b = &w;
  mixed[1].trans_b = true;
  const std::vector<Fp32Matrix> both = engine.RunProgram(mixed);
  EXPECT_TRUE(BitEqual(both[0], engine.Run(mixed[0])));
  EXPECT_TRUE(BitEqual(both[1], engine.Run(mixed[1])));
  EXPECT_EQ(both[1].rows, 70000);
}

// Gradient accumulation's contract: C0 + X1^T dY1, then + X2^T dY2, is X^T dY over both halves
// of K, bit for bit, when the split falls on a multiple of the array's rows (the K tiles add in
// the same order); the host engine adds one product at a time, so any split gives its bits.
TEST(DeviceMatmulEngine, AccumulatingFromC0SplitsKAtTheArraysRowsBitExactly) {
  backends::ModelDevice device;
  DeviceMatmulEngine device_engine(device, kWatchdog);
  HostMatmulEngine host_engine;
  Rng rng(11);
  const int features = 37, outputs = 19;
  const int rows = static_cast<int>(device_engine.config().rows);
  for (MatmulEngine* engine :
       {static_cast<MatmulEngine*>(&device_engine), static_cast<MatmulEngine*>(&host_engine)}) {
    for (const int split : {rows, 2 * rows, 5}) {
      const int batch = 3 * rows + 7;
      const Fp32Matrix x = Random(batch, features, rng), dy = Random(batch, outputs, rng);
      const auto rows_of = [](const Fp32Matrix& m, int begin, int end) {
        Fp32Matrix part(end - begin, m.cols);
        std::copy(m.data.begin() + begin * m.cols, m.data.begin() + end * m.cols,
                  part.data.begin());
        return part;
      };
      MatmulOp whole;
      whole.a = &x;
      whole.trans_a = true;
      whole.b = &dy;
      const Fp32Matrix expected = engine->Run(whole);
      const Fp32Matrix x1 = rows_of(x, 0, split), x2 = rows_of(x, split, batch);
      const Fp32Matrix dy1 = rows_of(dy, 0, split), dy2 = rows_of(dy, split, batch);
      MatmulOp first = whole, second = whole;
      first.a = &x1;
      first.b = &dy1;
      const Fp32Matrix c0 = engine->Run(first);
      second.a = &x2;
      second.b = &dy2;
      second.c0 = &c0;
      const Fp32Matrix got = engine->Run(second);
      const bool aligned = split % rows == 0 || engine == &host_engine;
      EXPECT_EQ(BitEqual(got, expected), aligned) << engine->name() << " split " << split;
      for (size_t i = 0; i < got.data.size(); ++i) {
        ASSERT_NEAR(got.data[i], expected.data[i], 1e-3f * (1 + std::fabs(expected.data[i])));
      }
    }
  }
}

TEST(DeviceMatmulEngine, RefusesAC0OfTheWrongShapeOrWithABias) {
  HostMatmulEngine engine;
  const Fp32Matrix a(2, 3), b(3, 4), c0(2, 5);
  const std::vector<float> bias(4, 0.0f);
  MatmulOp op;
  op.a = &a;
  op.b = &b;
  op.c0 = &c0;
  EXPECT_THROW(engine.Run(op), std::invalid_argument);
  const Fp32Matrix right(2, 4);
  op.c0 = &right;
  op.bias = &bias;
  EXPECT_THROW(engine.Run(op), std::invalid_argument);
}

}  // namespace
}  // namespace mxu::train
