// Tests of the training RNG (train/data/rng.h) and data sets (train/data/dataset.h): determinism,
// balance, ranges, the stratified split, validation, and that the spirals task needs a
// non-linear model (logistic regression fails where k-nearest-neighbour succeeds).
#include "train/data/dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "train/data/rng.h"

namespace mxu::train {
namespace {

// ---- Rng ----

TEST(RngTest, SameSeedSameStreamOtherSeedOtherStream) {
  Rng a(42), b(42), c(43);
  bool any_difference = false;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t value = a.Next();
    EXPECT_EQ(value, b.Next());
    any_difference |= value != c.Next();
  }
  EXPECT_TRUE(any_difference);
}

TEST(RngTest, ZeroSeedIsUsable) {
  Rng rng(0);
  std::set<uint64_t> values;
  for (int i = 0; i < 100; ++i) values.insert(rng.Next());
  EXPECT_EQ(values.size(), 100u);
}

TEST(RngTest, UniformIsInUnitIntervalWithMeanOneHalf) {
  Rng rng(7);
  double sum = 0;
  constexpr int kDraws = 100000;
  for (int i = 0; i < kDraws; ++i) {
    const double u = rng.Uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / kDraws, 0.5, 0.01);
}

TEST(RngTest, BelowCoversItsRangeEvenly) {
  Rng rng(9);
  constexpr uint64_t kBuckets = 7;
  constexpr int kDraws = 70000;
  std::vector<int> counts(kBuckets, 0);
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t value = rng.Below(kBuckets);
    ASSERT_LT(value, kBuckets);
    ++counts[value];
  }
  for (const int count : counts) EXPECT_NEAR(count, kDraws / kBuckets, 500);
  EXPECT_EQ(rng.Below(1), 0u);
  EXPECT_THROW(rng.Below(0), std::invalid_argument);
  // A range just above 2^63 rejects almost half of all draws; it must still terminate in range.
  const uint64_t huge = (uint64_t{1} << 63) + 12345;
  for (int i = 0; i < 100; ++i) ASSERT_LT(rng.Below(huge), huge);
}

TEST(RngTest, NormalHasZeroMeanAndUnitVariance) {
  Rng rng(11);
  constexpr int kDraws = 100000;
  double sum = 0, sum_squares = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double z = rng.Normal();
    ASSERT_TRUE(std::isfinite(z));
    sum += z;
    sum_squares += z * z;
  }
  const double mean = sum / kDraws;
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(sum_squares / kDraws - mean * mean, 1.0, 0.03);
}

TEST(RngTest, ShuffleIsADeterministicPermutation) {
  std::vector<int> items(50);
  std::iota(items.begin(), items.end(), 0);
  std::vector<int> a = items, b = items, c = items;
  Rng(5).Shuffle(a);
  Rng(5).Shuffle(b);
  Rng(6).Shuffle(c);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, items);
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, items);
  std::vector<int> empty;
  Rng(5).Shuffle(empty);
  EXPECT_TRUE(empty.empty());
}

// ---- Spirals ----

bool BitIdentical(const Dataset& a, const Dataset& b) {
  return a.features == b.features && a.classes == b.classes && a.labels == b.labels &&
         a.x.size() == b.x.size() &&
         std::memcmp(a.x.data(), b.x.data(), a.x.size() * sizeof(float)) == 0;
}

TEST(SpiralsTest, DeterministicForASeedDifferentForAnother) {
  const Dataset a = MakeSpirals(100, 3, kSpiralNoise, 1);
  const Dataset b = MakeSpirals(100, 3, kSpiralNoise, 1);
  const Dataset c = MakeSpirals(100, 3, kSpiralNoise, 2);
  EXPECT_TRUE(BitIdentical(a, b));
  EXPECT_FALSE(BitIdentical(a, c));
  EXPECT_EQ(a.labels, c.labels);  // only the noise differs
}

TEST(SpiralsTest, ShapeAndClassBalance) {
  const Dataset data = MakeSpirals(123, 4, 0.1, 3);
  EXPECT_EQ(data.features, 2);
  EXPECT_EQ(data.classes, 4);
  EXPECT_EQ(data.size(), 123 * 4);
  EXPECT_EQ(data.x.size(), 123u * 4 * 2);
  std::vector<int> counts(4, 0);
  for (const int label : data.labels) ++counts.at(label);
  for (const int count : counts) EXPECT_EQ(count, 123);
  EXPECT_NO_THROW(ValidateDataset(data));
}

TEST(SpiralsTest, FeaturesSpanRoughlyMinusOneToOne) {
  const double noise = 0.1;
  const Dataset data = MakeSpirals(500, 3, noise, 4);
  float max_abs = 0;
  for (const float value : data.x) {
    ASSERT_TRUE(std::isfinite(value));
    max_abs = std::max(max_abs, std::abs(value));
  }
  // Radius <= 1, plus Gaussian noise: six standard deviations is never reached in practice.
  EXPECT_LE(max_abs, 1.0 + 6 * noise);
  EXPECT_GE(max_abs, 0.9);
  // Without noise every point lies exactly on its arm, within the unit disc.
  const Dataset clean = MakeSpirals(50, 3, 0.0, 4);
  for (int i = 0; i < clean.size(); ++i) {
    EXPECT_LE(std::hypot(clean.x[2 * i], clean.x[2 * i + 1]), 1.0f + 1e-6f);
  }
}

TEST(SpiralsTest, RejectsBadArguments) {
  EXPECT_THROW(MakeSpirals(0, 3, 0.1, 1), std::invalid_argument);
  EXPECT_THROW(MakeSpirals(10, 1, 0.1, 1), std::invalid_argument);
  EXPECT_THROW(MakeSpirals(10, 3, -0.1, 1), std::invalid_argument);
  EXPECT_THROW(MakeSpirals(10, 3, std::numeric_limits<double>::quiet_NaN(), 1),
               std::invalid_argument);
}

// ---- Split ----

using Sample = std::tuple<float, float, int>;

std::multiset<Sample> Samples(const Dataset& data) {
  std::multiset<Sample> samples;
  for (int i = 0; i < data.size(); ++i) {
    samples.emplace(data.x[2 * i], data.x[2 * i + 1], data.labels[i]);
  }
  return samples;
}

TEST(SplitTest, StratifiedDisjointAndCoveringEverySample) {
  const Dataset data = MakeSpirals(101, 3, kSpiralNoise, 5);
  const Split split = SplitDataset(data, 0.25, 9);
  EXPECT_EQ(split.train.features, 2);
  EXPECT_EQ(split.test.classes, 3);
  EXPECT_NO_THROW(ValidateDataset(split.train));
  EXPECT_NO_THROW(ValidateDataset(split.test));
  // Each class: round(101 * 0.25) = 25 to test, 76 to train.
  std::map<int, int> train_counts, test_counts;
  for (const int label : split.train.labels) ++train_counts[label];
  for (const int label : split.test.labels) ++test_counts[label];
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(test_counts[k], 25) << "class " << k;
    EXPECT_EQ(train_counts[k], 76) << "class " << k;
  }
  const std::multiset<Sample> train = Samples(split.train), test = Samples(split.test);
  for (const Sample& sample : test) EXPECT_EQ(train.count(sample), 0u);
  std::multiset<Sample> both = train;
  both.insert(test.begin(), test.end());
  EXPECT_EQ(both, Samples(data));
  // The parts are shuffled, not left sorted by class.
  EXPECT_FALSE(std::is_sorted(split.train.labels.begin(), split.train.labels.end()));
}

TEST(SplitTest, DeterministicForASeedDifferentForAnother) {
  const Dataset data = MakeSpirals(50, 3, kSpiralNoise, 5);
  const Split a = SplitDataset(data, 0.3, 1), b = SplitDataset(data, 0.3, 1);
  const Split c = SplitDataset(data, 0.3, 2);
  EXPECT_TRUE(BitIdentical(a.train, b.train));
  EXPECT_TRUE(BitIdentical(a.test, b.test));
  EXPECT_FALSE(BitIdentical(a.test, c.test));
}

TEST(SplitTest, EdgeFractionsAndBadArguments) {
  const Dataset data = MakeSpirals(20, 2, kSpiralNoise, 5);
  EXPECT_EQ(SplitDataset(data, 0.0, 1).test.size(), 0);
  EXPECT_EQ(SplitDataset(data, 1.0, 1).train.size(), 0);
  EXPECT_THROW(SplitDataset(data, -0.1, 1), std::invalid_argument);
  EXPECT_THROW(SplitDataset(data, 1.5, 1), std::invalid_argument);
  Dataset broken = data;
  broken.labels[0] = 7;
  EXPECT_THROW(SplitDataset(broken, 0.5, 1), std::invalid_argument);
}

// ---- ValidateDataset ----

// The message of the std::invalid_argument ValidateDataset throws, or "" if it does not throw.
std::string ValidationError(const Dataset& data) {
  try {
    ValidateDataset(data);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(ValidateDatasetTest, NamesEachProblem) {
  Dataset good;
  good.features = 2;
  good.classes = 3;
  good.x = {0.f, 1.f, 2.f, 3.f};
  good.labels = {0, 2};
  good.name = "tiny";
  EXPECT_EQ(ValidationError(good), "");

  Dataset bad = good;
  bad.x.pop_back();
  EXPECT_NE(ValidationError(bad).find("inconsistent sizes"), std::string::npos);
  EXPECT_NE(ValidationError(bad).find("'tiny'"), std::string::npos);
  bad = good;
  bad.labels.push_back(1);
  EXPECT_NE(ValidationError(bad).find("inconsistent sizes"), std::string::npos);
  bad = good;
  bad.labels[1] = 3;
  EXPECT_NE(ValidationError(bad).find("label 3 of sample 1 is out of range"), std::string::npos);
  bad = good;
  bad.labels[0] = -1;
  EXPECT_NE(ValidationError(bad).find("label -1"), std::string::npos);
  bad = good;
  bad.x[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(ValidationError(bad).find("non-finite feature 1 of sample 1"), std::string::npos);
  bad = good;
  bad.x[0] = -std::numeric_limits<float>::infinity();
  EXPECT_NE(ValidationError(bad).find("non-finite feature 0 of sample 0"), std::string::npos);
  bad = good;
  bad.features = 0;
  EXPECT_NE(ValidationError(bad).find("features must be at least 1"), std::string::npos);
  bad = good;
  bad.classes = 0;
  EXPECT_NE(ValidationError(bad).find("classes must be at least 1"), std::string::npos);

  Dataset empty;
  empty.features = 4;
  empty.classes = 2;
  EXPECT_EQ(ValidationError(empty), "");
}

// ---- The spirals need a non-linear model ----

// Multinomial logistic regression (softmax of a linear map plus bias), full-batch gradient
// descent in fp32; returns the accuracy on test.
double LogisticRegressionAccuracy(const Dataset& train, const Dataset& test, int steps,
                                  float learning_rate) {
  const int features = train.features, classes = train.classes;
  std::vector<float> weights(static_cast<size_t>(features) * classes, 0.f), bias(classes, 0.f);
  auto logits = [&](const Dataset& data, int i, std::vector<float>& out) {
    for (int k = 0; k < classes; ++k) {
      float z = bias[k];
      for (int f = 0; f < features; ++f) z += weights[f * classes + k] * data.x[i * features + f];
      out[k] = z;
    }
  };
  std::vector<float> z(classes), weight_grad(weights.size()), bias_grad(classes);
  for (int step = 0; step < steps; ++step) {
    std::fill(weight_grad.begin(), weight_grad.end(), 0.f);
    std::fill(bias_grad.begin(), bias_grad.end(), 0.f);
    for (int i = 0; i < train.size(); ++i) {
      logits(train, i, z);
      const float max_z = *std::max_element(z.begin(), z.end());
      float total = 0;
      for (float& value : z) total += value = std::exp(value - max_z);
      for (int k = 0; k < classes; ++k) {
        // d(cross-entropy)/d(logit k) = softmax_k - [k == label]
        const float delta = z[k] / total - (k == train.labels[i] ? 1.f : 0.f);
        bias_grad[k] += delta;
        for (int f = 0; f < features; ++f) {
          weight_grad[f * classes + k] += delta * train.x[i * features + f];
        }
      }
    }
    const float scale = learning_rate / train.size();
    for (size_t j = 0; j < weights.size(); ++j) weights[j] -= scale * weight_grad[j];
    for (int k = 0; k < classes; ++k) bias[k] -= scale * bias_grad[k];
  }
  int correct = 0;
  for (int i = 0; i < test.size(); ++i) {
    logits(test, i, z);
    correct += static_cast<int>(std::max_element(z.begin(), z.end()) - z.begin()) == test.labels[i];
  }
  return static_cast<double>(correct) / test.size();
}

// k-nearest-neighbour (Euclidean, majority vote, ties to the nearest) accuracy on test.
double NearestNeighbourAccuracy(const Dataset& train, const Dataset& test, int k) {
  const int features = train.features;
  int correct = 0;
  for (int i = 0; i < test.size(); ++i) {
    std::vector<std::pair<float, int>> distances;
    for (int j = 0; j < train.size(); ++j) {
      float d = 0;
      for (int f = 0; f < features; ++f) {
        const float diff = test.x[i * features + f] - train.x[j * features + f];
        d += diff * diff;
      }
      distances.emplace_back(d, train.labels[j]);
    }
    std::partial_sort(distances.begin(), distances.begin() + k, distances.end());
    std::vector<int> votes(train.classes, 0);
    for (int n = 0; n < k; ++n) ++votes[distances[n].second];
    int best = distances[0].second;
    for (int c = 0; c < train.classes; ++c) {
      if (votes[c] > votes[best]) best = c;
    }
    correct += best == test.labels[i];
  }
  return static_cast<double>(correct) / test.size();
}

// A task a linear model does solve: one Gaussian blob per class, well apart. It shows that the
// logistic regression above works, so its failure on the spirals is the data's doing.
Dataset MakeBlobs(int samples_per_class, int classes, uint64_t seed) {
  Dataset data;
  data.features = 2;
  data.classes = classes;
  Rng rng(seed);
  for (int k = 0; k < classes; ++k) {
    const double angle = 6.283185307179586 * k / classes;
    for (int i = 0; i < samples_per_class; ++i) {
      const double noise_x = 0.15 * rng.Normal(), noise_y = 0.15 * rng.Normal();
      data.x.push_back(static_cast<float>(0.7 * std::cos(angle) + noise_x));
      data.x.push_back(static_cast<float>(0.7 * std::sin(angle) + noise_y));
      data.labels.push_back(k);
    }
  }
  return data;
}

TEST(SpiralsTest, LinearClassifierFailsWhereNearestNeighbourSucceeds) {
  const Split blobs = SplitDataset(MakeBlobs(kSpiralSamplesPerClass, kSpiralClasses, 3), 0.25, 4);
  const double blob_linear = LogisticRegressionAccuracy(blobs.train, blobs.test, 300, 1.0f);
  EXPECT_GT(blob_linear, 0.95) << "the logistic regression reference itself is broken";

  for (const uint64_t seed : {1, 2, 3}) {
    const Dataset spirals = MakeSpirals(kSpiralSamplesPerClass, kSpiralClasses, kSpiralNoise, seed);
    const Split split = SplitDataset(spirals, 0.25, seed + 100);
    const double linear = LogisticRegressionAccuracy(split.train, split.test, 300, 1.0f);
    const double linear_on_train = LogisticRegressionAccuracy(split.train, split.train, 300, 1.0f);
    const double knn = NearestNeighbourAccuracy(split.train, split.test, 5);
    std::printf("spirals seed %llu: logistic regression %.1f%% test (%.1f%% train), 5-NN %.1f%%\n",
                static_cast<unsigned long long>(seed), 100 * linear, 100 * linear_on_train,
                100 * knn);
    EXPECT_LT(linear, 0.60) << "seed " << seed;
    EXPECT_LT(linear_on_train, 0.60) << "seed " << seed;
    EXPECT_GT(knn, 0.90) << "seed " << seed;
  }
}

}  // namespace
}  // namespace mxu::train
