// The model's maths on the host engine: softmax cross-entropy and the backward pass against
// central finite differences computed in double precision, and the training loop on the host.
#include "train/mlp.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/train/finite_differences.h"
#include "train/data/dataset.h"
#include "train/softmax_loss.h"
#include "train/trainer.h"

namespace mxu::train {
namespace {

// Mean loss of the model on (x, labels), evaluated in double from the fp32 parameters.
double LossInDouble(const Mlp& mlp, const Fp32Matrix& x, const std::vector<int>& labels) {
  std::vector<std::vector<double>> h(x.rows);
  for (int r = 0; r < x.rows; ++r)
    h[r].assign(x.data.begin() + r * x.cols, x.data.begin() + (r + 1) * x.cols);
  const auto& layers = mlp.layers();
  for (size_t l = 0; l < layers.size(); ++l) {
    for (auto& row : h) {
      std::vector<double> out(layers[l].b.begin(), layers[l].b.end());
      for (int i = 0; i < layers[l].w.rows; ++i) {
        for (int j = 0; j < layers[l].w.cols; ++j) out[j] += row[i] * layers[l].w.at(i, j);
      }
      if (l + 1 < layers.size()) {
        for (double& v : out) v = v > 0 ? v : 0;
      }
      row = out;
    }
  }
  double loss = 0;
  for (int r = 0; r < x.rows; ++r) {
    double max = h[r][0], sum = 0;
    for (double v : h[r]) max = std::max(max, v);
    for (double v : h[r]) sum += std::exp(v - max);
    loss += std::log(sum) - (h[r][labels[r]] - max);
  }
  return loss / x.rows;
}

TEST(SoftmaxCrossEntropy, UniformLogitsGiveLogClassesAndScaledGradients) {
  Fp32Matrix logits(2, 4);
  Fp32Matrix d;
  const LossResult result = SoftmaxCrossEntropy(logits, {1, 3}, 8.0f, &d);
  EXPECT_NEAR(result.loss_sum, 2 * std::log(4.0), 1e-6);
  // (1/4 - onehot) * 8 / 2 rows
  EXPECT_FLOAT_EQ(d.at(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(d.at(0, 1), -3.0f);
  EXPECT_FLOAT_EQ(d.at(1, 3), -3.0f);
  EXPECT_THROW(SoftmaxCrossEntropy(logits, {1, 4}, 1.0f, nullptr), std::invalid_argument);
}

TEST(Mlp, BackwardMatchesFiniteDifferences) {
  Mlp mlp({3, 5, 4, 3}, 7);
  Rng rng(11);
  Fp32Matrix x(6, 3);
  for (float& v : x.data) v = static_cast<float>(rng.Normal());
  const std::vector<int> labels = {0, 2, 1, 1, 0, 2};
  HostMatmulEngine engine;
  const ForwardPass pass = mlp.Forward(engine, x);
  Fp32Matrix d_logits;
  SoftmaxCrossEntropy(pass.logits, labels, 1.0f, &d_logits);
  Gradients grads = mlp.Backward(engine, pass, d_logits);
  // 3 layers: 3 weight GEMMs forward, 3 dW and 2 dX backward.
  EXPECT_EQ(engine.stats().gemms, 8u);

  const FiniteDifferenceCount count = ExpectGradientsMatchFiniteDifferences(
      mlp.Parameters(), grads.Tensors(), [&] { return LossInDouble(mlp, x, labels); }, 1e-2);
  EXPECT_EQ(count.checked, static_cast<int>(mlp.parameter_count()));
  EXPECT_GT(count.nonzero, count.checked / 2);
}

TEST(Trainer, HostRunLearnsTheSpiralsAndIsReproducible) {
  const Split data = SplitDataset(MakeSpirals(100, 3, kSpiralNoise, 5), 0.25, 5);
  TrainConfig config;
  config.hidden = {32, 32};
  config.epochs = 30;
  config.batch_size = 32;
  config.seed = 5;
  const auto run = [&] {
    HostMatmulEngine engine;
    Trainer trainer(config, data.train, data.test, engine);
    std::vector<EpochRecord> records;
    for (int e = 0; e < config.epochs; ++e) records.push_back(trainer.RunEpoch());
    return records;
  };
  const std::vector<EpochRecord> a = run();
  const std::vector<EpochRecord> b = run();
  EXPECT_LT(a.back().train_loss, 0.5 * a.front().train_loss);
  EXPECT_GT(a.back().test_accuracy, 0.85);
  for (size_t e = 0; e < a.size(); ++e) {
    EXPECT_EQ(a[e].train_loss, b[e].train_loss);
    EXPECT_EQ(a[e].test_accuracy, b[e].test_accuracy);
  }
}

TEST(Trainer, InjectedOverflowSkipsTheStepAndHalvesTheScale) {
  const Split data = SplitDataset(MakeSpirals(40, 3, kSpiralNoise, 2), 0.25, 2);
  TrainConfig config;
  config.hidden = {8};
  config.epochs = 1;
  config.batch_size = 30;  // 90 training samples: 3 steps
  config.inject_overflow_step = 2;
  HostMatmulEngine engine;
  Trainer trainer(config, data.train, data.test, engine);
  int callbacks = 0;
  trainer.on_skip = [&](const SkippedStep&) { ++callbacks; };
  const EpochRecord record = trainer.RunEpoch();
  EXPECT_EQ(record.steps, 3u);
  EXPECT_EQ(record.skipped_steps, 1u);
  EXPECT_EQ(callbacks, 1);
  ASSERT_EQ(trainer.skipped().size(), 1u);
  EXPECT_EQ(trainer.skipped()[0].step, 2u);
  EXPECT_EQ(trainer.skipped()[0].scale_after, trainer.skipped()[0].scale_before / 2);
  EXPECT_EQ(record.loss_scale, config.loss_scaling.initial_scale / 2);
}

}  // namespace
}  // namespace mxu::train
