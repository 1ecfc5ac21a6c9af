// The spirals generator, the stratified split and the validity check of train/data/dataset.h.
#include "train/data/dataset.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "train/data/rng.h"

namespace mxu::train {
namespace {

std::string Describe(const Dataset& data) {
  return "dataset" + (data.name.empty() ? std::string() : " '" + data.name + "'");
}

// The samples of data at the given indices, in that order.
Dataset Subset(const Dataset& data, const std::vector<size_t>& indices, const std::string& name) {
  Dataset subset;
  subset.features = data.features;
  subset.classes = data.classes;
  subset.image_rows = data.image_rows;
  subset.image_cols = data.image_cols;
  subset.name = name;
  const size_t features = static_cast<size_t>(data.features);
  subset.x.reserve(indices.size() * features);
  subset.labels.reserve(indices.size());
  for (const size_t i : indices) {
    subset.x.insert(subset.x.end(), data.x.begin() + i * features,
                    data.x.begin() + (i + 1) * features);
    subset.labels.push_back(data.labels[i]);
  }
  return subset;
}

}  // namespace

Dataset MakeSpirals(int samples_per_class, int classes, double noise, uint64_t seed) {
  if (samples_per_class < 1) {
    throw std::invalid_argument("MakeSpirals: samples_per_class must be at least 1, got " +
                                std::to_string(samples_per_class));
  }
  if (classes < 2) {
    throw std::invalid_argument("MakeSpirals: classes must be at least 2, got " +
                                std::to_string(classes));
  }
  if (!(noise >= 0.0) || !std::isfinite(noise)) {
    throw std::invalid_argument("MakeSpirals: noise must be finite and non-negative");
  }
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  Dataset data;
  data.features = 2;
  data.classes = classes;
  data.name = "spirals";
  const size_t total = static_cast<size_t>(samples_per_class) * static_cast<size_t>(classes);
  data.x.reserve(total * 2);
  data.labels.reserve(total);
  Rng rng(seed);
  for (int k = 0; k < classes; ++k) {
    for (int i = 0; i < samples_per_class; ++i) {
      // Evenly spaced along the arm (not drawn at random), so every arm is covered end to end.
      const double t = static_cast<double>(i + 1) / samples_per_class;
      const double angle = t * kSpiralTurns * kTwoPi + kTwoPi * k / classes;
      // Draw both noise terms before use, in a fixed order (argument evaluation order is not).
      const double noise_x = noise * rng.Normal();
      const double noise_y = noise * rng.Normal();
      data.x.push_back(static_cast<float>(t * std::cos(angle) + noise_x));
      data.x.push_back(static_cast<float>(t * std::sin(angle) + noise_y));
      data.labels.push_back(k);
    }
  }
  return data;
}

Split SplitDataset(const Dataset& data, double test_fraction, uint64_t seed) {
  if (!(test_fraction >= 0.0 && test_fraction <= 1.0)) {
    throw std::invalid_argument("SplitDataset: test_fraction must be in [0, 1]");
  }
  ValidateDataset(data);
  std::vector<std::vector<size_t>> by_class(static_cast<size_t>(data.classes));
  for (size_t i = 0; i < data.labels.size(); ++i) {
    by_class[static_cast<size_t>(data.labels[i])].push_back(i);
  }
  Rng rng(seed);
  std::vector<size_t> train_indices, test_indices;
  for (std::vector<size_t>& members : by_class) {
    rng.Shuffle(members);
    const size_t test_count =
        static_cast<size_t>(std::llround(static_cast<double>(members.size()) * test_fraction));
    test_indices.insert(test_indices.end(), members.begin(), members.begin() + test_count);
    train_indices.insert(train_indices.end(), members.begin() + test_count, members.end());
  }
  // Otherwise each part would still be sorted by class.
  rng.Shuffle(train_indices);
  rng.Shuffle(test_indices);
  Split split;
  split.train = Subset(data, train_indices, data.name + " (train)");
  split.test = Subset(data, test_indices, data.name + " (test)");
  return split;
}

void ValidateDataset(const Dataset& data) {
  if (data.features < 1) {
    throw std::invalid_argument(Describe(data) + ": features must be at least 1, got " +
                                std::to_string(data.features));
  }
  if (data.classes < 1) {
    throw std::invalid_argument(Describe(data) + ": classes must be at least 1, got " +
                                std::to_string(data.classes));
  }
  const size_t samples = data.labels.size();
  const size_t features = static_cast<size_t>(data.features);
  if (samples > SIZE_MAX / features || data.x.size() != samples * features) {
    throw std::invalid_argument(
        Describe(data) + ": inconsistent sizes: " + std::to_string(samples) + " labels x " +
        std::to_string(features) + " features needs " + std::to_string(samples * features) +
        " values in x, found " + std::to_string(data.x.size()));
  }
  for (size_t i = 0; i < samples; ++i) {
    if (data.labels[i] < 0 || data.labels[i] >= data.classes) {
      throw std::invalid_argument(Describe(data) + ": label " + std::to_string(data.labels[i]) +
                                  " of sample " + std::to_string(i) + " is out of range [0, " +
                                  std::to_string(data.classes) + ")");
    }
  }
  for (size_t i = 0; i < data.x.size(); ++i) {
    if (!std::isfinite(data.x[i])) {
      throw std::invalid_argument(Describe(data) + ": non-finite feature " +
                                  std::to_string(i % features) + " of sample " +
                                  std::to_string(i / features));
    }
  }
}

}  // namespace mxu::train
