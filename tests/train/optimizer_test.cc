// Optimizers and loss scaling against hand-worked and double-precision reference updates.
#include "train/optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "train/loss_scaler.h"

namespace mxu::train {
namespace {

TEST(SgdMomentum, HandWorkedSteps) {
  OptimizerConfig config;
  config.kind = "sgd";
  config.learning_rate = 0.5f;
  config.momentum = 0.5f;
  auto sgd = MakeOptimizer(config);
  std::vector<float> p = {1.0f, -2.0f}, g = {2.0f, 4.0f};
  sgd->Step({&p}, {&g});  // v = g; p -= 0.5 v
  EXPECT_EQ(p, (std::vector<float>{0.0f, -4.0f}));
  sgd->Step({&p}, {&g});  // v = 0.5 g + g = 1.5 g; p -= 0.75 g
  EXPECT_EQ(p, (std::vector<float>{-1.5f, -7.0f}));
}

TEST(Adam, MatchesADoublePrecisionReference) {
  OptimizerConfig config;
  config.kind = "adam";
  config.learning_rate = 0.01f;
  auto adam = MakeOptimizer(config);
  std::vector<float> p = {0.5f, -0.25f, 3.0f};
  std::vector<double> ref(p.begin(), p.end()), m(3, 0), v(3, 0);
  for (int t = 1; t <= 20; ++t) {
    std::vector<float> g = {0.1f * t, -1.0f / t, t % 2 ? 1e-3f : -2.0f};
    adam->Step({&p}, {&g});
    for (int i = 0; i < 3; ++i) {
      m[i] = 0.9 * m[i] + 0.1 * g[i];
      v[i] = 0.999 * v[i] + 0.001 * double(g[i]) * g[i];
      const double m_hat = m[i] / (1 - std::pow(0.9, t));
      const double v_hat = v[i] / (1 - std::pow(0.999, t));
      ref[i] -= 0.01 * m_hat / (std::sqrt(v_hat) + 1e-8);
    }
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(p[i], ref[i], 1e-5) << "step " << t << " i " << i;
  }
  // The first step of Adam moves every parameter by about lr, whatever the gradient's size.
  auto fresh = MakeOptimizer(config);
  std::vector<float> q = {0.0f, 0.0f}, g = {1e-6f, -1e3f};
  fresh->Step({&q}, {&g});
  EXPECT_NEAR(q[0], -0.01f, 1e-4f);
  EXPECT_NEAR(q[1], 0.01f, 1e-6f);
}

TEST(Optimizer, RejectsBadConfigurationsAndShapes) {
  OptimizerConfig config;
  config.kind = "rmsprop";
  EXPECT_THROW(MakeOptimizer(config), std::invalid_argument);
  config.kind = "sgd";
  config.learning_rate = 0.0f;
  EXPECT_THROW(MakeOptimizer(config), std::invalid_argument);
  config.learning_rate = 0.1f;
  auto sgd = MakeOptimizer(config);
  std::vector<float> p(3), g(2);
  EXPECT_THROW(sgd->Step({&p}, {&g}), std::invalid_argument);
}

TEST(LossScaler, HalvesAndSkipsOnOverflowGrowsAfterARunOfGoodSteps) {
  LossScalerConfig config;
  config.initial_scale = 1024.0f;
  config.growth_interval = 3;
  config.min_scale = 256.0f;
  config.max_scale = 4096.0f;
  LossScaler scaler(config);
  EXPECT_TRUE(scaler.Update(true));
  EXPECT_TRUE(scaler.Update(true));
  EXPECT_EQ(scaler.scale(), 1024.0f);
  EXPECT_TRUE(scaler.Update(true));  // third good step in a row
  EXPECT_EQ(scaler.scale(), 2048.0f);
  EXPECT_TRUE(scaler.Update(true));
  EXPECT_TRUE(scaler.Update(true));
  EXPECT_FALSE(scaler.Update(false));  // an overflow resets the run
  EXPECT_EQ(scaler.scale(), 1024.0f);
  EXPECT_EQ(scaler.skipped_steps(), 1u);
  EXPECT_TRUE(scaler.Update(true));
  EXPECT_TRUE(scaler.Update(true));
  EXPECT_EQ(scaler.scale(), 1024.0f);
  EXPECT_FALSE(scaler.Update(false));
  EXPECT_FALSE(scaler.Update(false));
  EXPECT_FALSE(scaler.Update(false));
  EXPECT_EQ(scaler.scale(), 256.0f);  // clamped at the minimum
  EXPECT_EQ(scaler.skipped_steps(), 4u);
  for (int i = 0; i < 30; ++i) scaler.Update(true);
  EXPECT_EQ(scaler.scale(), 4096.0f);  // clamped at the maximum
}

TEST(LossScaler, RejectsScalesThatAreNotPowersOfTwo) {
  LossScalerConfig config;
  config.initial_scale = 1000.0f;
  EXPECT_THROW(LossScaler{config}, std::invalid_argument);
  config.initial_scale = std::numeric_limits<float>::infinity();
  EXPECT_THROW(LossScaler{config}, std::invalid_argument);
  config.initial_scale = 0.5f;  // below min_scale = 1
  EXPECT_THROW(LossScaler{config}, std::invalid_argument);
}

}  // namespace
}  // namespace mxu::train
