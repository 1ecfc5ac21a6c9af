// The training loop on the RTL device: the device engine's products are the golden model's,
// a short training run learns the spirals and lands within 2 points of the host fp32 run with the
// same seed, an injected overflow is skipped, and a seed reproduces a run bit for bit (device
// cycles included). One RtlDevice per process (SystemC elaborates once).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <systemc>  // declares sc_main, which libsystemc calls

#include "backends/model_device.h"
#include "backends/rtl_device.h"
#include "common/bf16.h"
#include "golden/gemm.h"
#include "golden/numerics.h"
#include "tests/train/golden_operands.h"
#include "train/data/dataset.h"
#include "train/data/rng.h"
#include "train/matmul_engine.h"
#include "train/trainer.h"

namespace mxu::train {
namespace {

backends::RtlDevice* g_device = nullptr;
constexpr uint64_t kWatchdog = 50'000'000;

std::vector<EpochRecord> Train(MatmulEngine& engine, const TrainConfig& config, const Split& data,
                               std::vector<float>* final_weights = nullptr) {
  Trainer trainer(config, data.train, data.test, engine);
  std::vector<EpochRecord> records;
  for (int e = 0; e < config.epochs; ++e) records.push_back(trainer.RunEpoch());
  if (final_weights) {
    for (const std::vector<float>* p : trainer.model().Parameters()) {
      final_weights->insert(final_weights->end(), p->begin(), p->end());
    }
  }
  return records;
}

TEST(DeviceMatmulEngine, ProductsAreTheGoldenModelsOnBf16Operands) {
  DeviceMatmulEngine engine(*g_device, kWatchdog);
  Rng rng(3);
  for (int variant = 0; variant < 4; ++variant) {
    const bool ta = variant & 1, tb = variant & 2;
    const int m = 37, k = 21, n = 19;
    Fp32Matrix a(ta ? k : m, ta ? m : k), b(tb ? n : k, tb ? k : n);
    for (float& v : a.data) v = static_cast<float>(rng.Normal());
    for (float& v : b.data) v = static_cast<float>(rng.Normal());
    std::vector<float> bias(n);
    for (float& v : bias) v = static_cast<float>(rng.Normal());
    MatmulOp op;
    op.a = &a;
    op.b = &b;
    op.trans_a = ta;
    op.trans_b = tb;
    op.bias = variant == 3 ? &bias : nullptr;
    op.relu = variant >= 2;
    const Fp32Matrix got = engine.Run(op);

    const Subnormals mode = engine.config().subnormals;
    golden::Fp32Matrix start{m, n, {}};
    for (int r = 0; r < m; ++r) {
      for (int c = 0; c < n; ++c) start.data.push_back(op.bias ? bias[c] : 0.0f);
    }
    const golden::Fp32Matrix want =
        golden::Gemm(OpFormBf16(a, ta, mode), OpFormBf16(b, tb, mode),
                     static_cast<int>(engine.config().rows), mode, op.bias ? &start : nullptr);
    ASSERT_EQ(got.rows, m);
    ASSERT_EQ(got.cols, n);
    int mismatches = 0;
    for (int r = 0; r < m; ++r) {
      for (int c = 0; c < n; ++c) {
        const float w = op.relu ? golden::Relu(want.at(r, c)) : want.at(r, c);
        mismatches += golden::FloatBits(w) != golden::FloatBits(got.at(r, c));
      }
    }
    EXPECT_EQ(mismatches, 0) << "variant " << variant;
  }
  EXPECT_EQ(engine.stats().gemms, 4u);
  EXPECT_GT(engine.stats().device_cycles, 0u);
}

// The stated level: 88% test accuracy on the spirals after the default run of `mxu train`
// (20 epochs of 11 steps), on the RTL and on the host alike, and the two within 2 points. (A
// linear classifier stays below 40% on these spirals; seed 1's split is the hardest of seeds 1-10
// for this run: the host reaches 91.1% on it, 92-97% on the others.)
TEST(RtlTraining, LearnsTheSpiralsWithinTwoPointsOfHostFp32) {
  const TrainConfig config;  // the defaults: MLP 2-32-32-3, Adam, batch 64, 20 epochs, seed 1
  const Split data =
      SplitDataset(MakeSpirals(kSpiralSamplesPerClass, kSpiralClasses, kSpiralNoise, config.seed),
                   0.25, config.seed);

  DeviceMatmulEngine device(*g_device, kWatchdog);
  const std::vector<EpochRecord> rtl = Train(device, config, data);
  HostMatmulEngine host;
  const std::vector<EpochRecord> reference = Train(host, config, data);

  std::printf("test accuracy: rtl %.4f, host fp32 %.4f; loss %.4f -> %.4f; %llu device cycles\n",
              rtl.back().test_accuracy, reference.back().test_accuracy, rtl.front().train_loss,
              rtl.back().train_loss, (unsigned long long)rtl.back().engine.device_cycles);
  EXPECT_LT(rtl.back().train_loss, 0.5 * rtl.front().train_loss);
  EXPECT_GE(rtl.back().test_accuracy, 0.88);
  EXPECT_GE(reference.back().test_accuracy, 0.88);
  EXPECT_LE(std::fabs(rtl.back().test_accuracy - reference.back().test_accuracy), 0.02);
  EXPECT_EQ(rtl.back().skipped_steps, 0u);
  // Every step ran its GEMMs on the device: 3 forward, 3 dW and 2 dX per step, 3 per evaluation.
  EXPECT_EQ(rtl.back().engine.gemms, rtl.back().steps * 8 + config.epochs * 3);
  EXPECT_GT(rtl.back().engine.array_busy_cycles, 0u);
}

TEST(RtlTraining, InjectedOverflowIsSkippedAndLowersTheScale) {
  TrainConfig config;
  config.hidden = {16};
  config.epochs = 1;
  config.batch_size = 32;
  config.inject_overflow_step = 2;
  const Split data = SplitDataset(MakeSpirals(40, 3, kSpiralNoise, 4), 0.25, 4);
  DeviceMatmulEngine engine(*g_device, kWatchdog);
  Trainer trainer(config, data.train, data.test, engine);
  const EpochRecord record = trainer.RunEpoch();
  EXPECT_EQ(record.steps, 3u);
  EXPECT_EQ(record.skipped_steps, 1u);
  ASSERT_EQ(trainer.skipped().size(), 1u);
  EXPECT_EQ(trainer.skipped()[0].step, 2u);
  EXPECT_EQ(record.loss_scale, config.loss_scaling.initial_scale / 2);
  // The skipped step still ran on the device: the overflow travelled through its GEMMs.
  EXPECT_EQ(record.engine.gemms, 3u * 5 + 2);
}

TEST(RtlTraining, OneSeedReproducesARunBitForBit) {
  TrainConfig config;
  config.hidden = {16, 16};
  config.epochs = 2;
  config.batch_size = 48;
  config.seed = 9;
  const Split data = SplitDataset(MakeSpirals(60, 3, kSpiralNoise, 9), 0.25, 9);
  std::vector<float> weights_a, weights_b;
  DeviceMatmulEngine first(*g_device, kWatchdog);
  const std::vector<EpochRecord> a = Train(first, config, data, &weights_a);
  DeviceMatmulEngine second(*g_device, kWatchdog);
  const std::vector<EpochRecord> b = Train(second, config, data, &weights_b);
  ASSERT_EQ(a.size(), b.size());
  for (size_t e = 0; e < a.size(); ++e) {
    EXPECT_EQ(a[e].train_loss, b[e].train_loss);
    EXPECT_EQ(a[e].test_loss, b[e].test_loss);
    EXPECT_EQ(a[e].test_accuracy, b[e].test_accuracy);
    EXPECT_EQ(a[e].engine.device_cycles, b[e].engine.device_cycles);
    EXPECT_EQ(a[e].engine.array_busy_cycles, b[e].engine.array_busy_cycles);
  }
  ASSERT_EQ(weights_a.size(), weights_b.size());
  EXPECT_EQ(0, std::memcmp(weights_a.data(), weights_b.data(), weights_a.size() * sizeof(float)));
  // And the device run is not the host run: bf16 operands change the numbers.
  HostMatmulEngine host;
  std::vector<float> weights_host;
  Train(host, config, data, &weights_host);
  EXPECT_NE(0,
            std::memcmp(weights_a.data(), weights_host.data(), weights_a.size() * sizeof(float)));
}

// Images for the short runs: class c of `classes` is a bright bar (rows for even c, columns for
// odd c) at a class-dependent place in a size x size image, plus uniform noise.
Dataset Bars(int count, int size, int classes, uint64_t seed) {
  Rng rng(seed);
  Dataset data;
  data.features = size * size;
  data.classes = classes;
  data.image_rows = data.image_cols = size;
  data.name = "bars";
  for (int i = 0; i < count; ++i) {
    const int label = static_cast<int>(rng.Below(static_cast<uint64_t>(classes)));
    const int at = 1 + (label / 2) * (size - 2) / ((classes + 1) / 2);
    for (int y = 0; y < size; ++y) {
      for (int x = 0; x < size; ++x) {
        const bool on = (label % 2 == 0 ? y : x) == at;
        data.x.push_back(static_cast<float>((on ? 0.7 : 0.0) + 0.3 * rng.Uniform()));
      }
    }
    data.labels.push_back(label);
  }
  return data;
}

// The model backend is the RTL's fast stand-in: a short run on each, one seed, gives the same
// weights bit for bit and the same losses and accuracies (cycles are the model's estimates, so
// they are not compared).
void ExpectModelRunIsTheRtlRun(const TrainConfig& config, const Split& data) {
  std::vector<float> rtl_weights, model_weights;
  DeviceMatmulEngine rtl_engine(*g_device, kWatchdog);
  const std::vector<EpochRecord> rtl = Train(rtl_engine, config, data, &rtl_weights);
  backends::ModelDevice model_device;
  DeviceMatmulEngine model_engine(model_device, kWatchdog);
  const std::vector<EpochRecord> model = Train(model_engine, config, data, &model_weights);
  ASSERT_EQ(rtl.size(), model.size());
  for (size_t e = 0; e < rtl.size(); ++e) {
    EXPECT_EQ(rtl[e].train_loss, model[e].train_loss) << "epoch " << e + 1;
    EXPECT_EQ(rtl[e].train_accuracy, model[e].train_accuracy);
    EXPECT_EQ(rtl[e].test_loss, model[e].test_loss);
    EXPECT_EQ(rtl[e].test_accuracy, model[e].test_accuracy);
    EXPECT_EQ(rtl[e].confusion, model[e].confusion);
    EXPECT_EQ(rtl[e].engine.gemms, model[e].engine.gemms);
    EXPECT_EQ(rtl[e].engine.macs, model[e].engine.macs);
    EXPECT_EQ(rtl[e].engine.array_busy_cycles, model[e].engine.array_busy_cycles);
  }
  ASSERT_EQ(rtl_weights.size(), model_weights.size());
  EXPECT_EQ(
      0, std::memcmp(rtl_weights.data(), model_weights.data(), rtl_weights.size() * sizeof(float)));
  // Not vacuous: the run learned, and the device's bf16 run is not host fp32's.
  EXPECT_LT(rtl.back().train_loss, rtl.front().train_loss);
  HostMatmulEngine host;
  std::vector<float> host_weights;
  Train(host, config, data, &host_weights);
  EXPECT_NE(
      0, std::memcmp(rtl_weights.data(), host_weights.data(), rtl_weights.size() * sizeof(float)));
}

TEST(RtlTraining, ModelBackendGivesTheRtlsMlpRunBitForBit) {
  TrainConfig config;
  config.hidden = {32};
  config.epochs = 2;
  config.seed = 5;
  config.eval_batch = 48;  // two evaluation batches, the second short
  const Split data = {Bars(256, 12, 4, 1), Bars(64, 12, 4, 2)};
  ExpectModelRunIsTheRtlRun(config, data);  // 8 steps of 144-32-4, batch 64
}

TEST(RtlTraining, ModelBackendGivesTheRtlsCnnRunBitForBit) {
  TrainConfig config;
  config.model = "cnn";
  config.channels = {4, 8};
  config.hidden = {16};
  config.epochs = 2;
  config.batch_size = 32;
  config.seed = 6;
  const Split data = {Bars(64, 8, 4, 3), Bars(32, 8, 4, 4)};
  ExpectModelRunIsTheRtlRun(config, data);  // 4 steps of conv 8x8x4, conv 4x4x8, dense 32-16-4
}

}  // namespace
}  // namespace mxu::train

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto device = std::make_unique<mxu::backends::RtlDevice>();
  mxu::train::g_device = device.get();
  const int result = RUN_ALL_TESTS();
  mxu::train::g_device = nullptr;
  return result;
}
