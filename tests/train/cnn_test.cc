// The CNN on the host engine: its backward pass (im2col GEMMs, col2im, pooling and ReLU
// gradients, the dense head) against central finite differences of its forward pass, every
// parameter of a tiny net; and it learns on the host.
#include "train/cnn.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/train/finite_differences.h"
#include "train/data/rng.h"
#include "train/softmax_loss.h"
#include "train/trainer.h"

namespace mxu::train {
namespace {

CnnConfig Tiny() {
  CnnConfig config;
  config.image_rows = 6;
  config.image_cols = 5;  // odd: the pooling drops a column
  config.channels = {3, 4};
  config.hidden = {5};
  config.classes = 3;
  return config;
}

double MeanLoss(Cnn& cnn, const Fp32Matrix& x, const std::vector<int>& labels) {
  HostMatmulEngine engine;
  const Fp32Matrix logits = cnn.Forward(engine, x, /*for_backward=*/false);
  return SoftmaxCrossEntropy(logits, labels, 1.0f, nullptr).loss_sum / x.rows;
}

TEST(Cnn, ShapesAndParameters) {
  Cnn cnn(Tiny(), 1);
  // conv 1: 9 x 3 + 3; conv 2: 27 x 4 + 4; 6x5 -> 3x2 -> 1x1, so the head is 4-5-3.
  EXPECT_EQ(cnn.parameter_count(), size_t(30 + 112 + 25 + 18));
  EXPECT_EQ(cnn.Describe(), "CNN 6x5 conv3x3-3 pool2 conv3x3-4 pool2 dense 4-5-3");
  EXPECT_EQ(cnn.Parameters().size(), 8u);
  CnnConfig too_deep = Tiny();
  too_deep.channels = {2, 2, 2};
  EXPECT_THROW(Cnn(too_deep, 1), std::invalid_argument);
}

TEST(Cnn, BackwardMatchesFiniteDifferences) {
  Cnn cnn(Tiny(), 3);
  Rng rng(8);
  const int batch = 4;
  Fp32Matrix x(batch, 30);
  for (float& v : x.data) v = static_cast<float>(rng.Uniform());
  const std::vector<int> labels = {0, 2, 1, 2};
  // Non-zero biases, so that no ReLU sits exactly at its kink.
  for (std::vector<float>* p : cnn.Parameters()) {
    if (p->size() <= 5) {
      for (float& b : *p) b = static_cast<float>(0.1 * rng.Normal());
    }
  }
  HostMatmulEngine engine;
  const Fp32Matrix logits = cnn.Forward(engine, x, /*for_backward=*/true);
  Fp32Matrix d_logits;
  SoftmaxCrossEntropy(logits, labels, 1.0f, &d_logits);
  Gradients grads = cnn.Backward(engine, d_logits);
  // Forward: 2 conv GEMMs + 2 dense; backward: 2 conv dW + 1 conv dX, 2 dense dW + 2 dX.
  EXPECT_EQ(engine.stats().gemms, 11u);

  const FiniteDifferenceCount count = ExpectGradientsMatchFiniteDifferences(
      cnn.Parameters(), grads.Tensors(), [&] { return MeanLoss(cnn, x, labels); }, 2e-2);
  EXPECT_EQ(count.checked, 185);
  EXPECT_GT(count.nonzero, count.checked / 2);
}

// Blobs: class c is a bright 3x3 square in one of three corners of an 8x8 image, plus noise.
Dataset Blobs(int count, uint64_t seed) {
  Rng rng(seed);
  Dataset data;
  data.features = 64;
  data.classes = 3;
  data.image_rows = data.image_cols = 8;
  data.name = "blobs";
  for (int i = 0; i < count; ++i) {
    const int label = static_cast<int>(rng.Below(3));
    const int top = label == 2 ? 4 : 1, left = label == 1 ? 4 : 1;
    for (int y = 0; y < 8; ++y) {
      for (int x = 0; x < 8; ++x) {
        const bool on = y >= top && y < top + 3 && x >= left && x < left + 3;
        data.x.push_back(static_cast<float>((on ? 0.8 : 0.1) + 0.1 * rng.Uniform()));
      }
    }
    data.labels.push_back(label);
  }
  return data;
}

TEST(Cnn, LearnsOnTheHost) {
  TrainConfig config;
  config.model = "cnn";
  config.channels = {4, 8};
  config.hidden = {16};
  config.epochs = 3;
  config.batch_size = 16;
  config.eval_batch = 50;  // more than one evaluation batch
  const Dataset train = Blobs(192, 1), test = Blobs(120, 2);
  HostMatmulEngine engine;
  Trainer trainer(config, train, test, engine);
  EpochRecord first = trainer.RunEpoch(), last;
  for (int e = 1; e < config.epochs; ++e) last = trainer.RunEpoch();
  EXPECT_GE(last.test_accuracy, 0.9);
  EXPECT_LT(last.train_loss, first.train_loss);
  // The confusion matrix counts the test set: rows are the true classes.
  ASSERT_EQ(last.confusion.size(), 3u);
  int total = 0, diagonal = 0;
  std::vector<int> per_class(3, 0);
  for (int label : test.labels) ++per_class[label];
  for (int r = 0; r < 3; ++r) {
    int row = 0;
    for (int c = 0; c < 3; ++c) row += last.confusion[r][c];
    EXPECT_EQ(row, per_class[r]);
    total += row;
    diagonal += last.confusion[r][r];
  }
  EXPECT_EQ(total, test.size());
  EXPECT_EQ(diagonal, static_cast<int>(std::lround(last.test_accuracy * test.size())));
  // The MLP refuses nothing, the CNN needs images.
  Dataset flat = train;
  flat.image_rows = flat.image_cols = 0;
  EXPECT_THROW(Trainer(config, flat, flat, engine), std::invalid_argument);
}

}  // namespace
}  // namespace mxu::train
