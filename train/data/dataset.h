// Classification data sets for `mxu train`: the in-memory layout, the built-in generated spirals
// task, a stratified train/test split, and a validity check.
#ifndef MXU_TRAIN_DATA_DATASET_H_
#define MXU_TRAIN_DATA_DATASET_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mxu::train {

struct Dataset {
  int features = 0;
  int classes = 0;
  // size() x features, row-major: sample i is x[i * features, (i + 1) * features).
  std::vector<float> x;
  // One label per sample, in [0, classes).
  std::vector<int> labels;
  int size() const { return static_cast<int>(labels.size()); }
  // Images (IDX data): features = image_rows * image_cols pixels, row-major, one channel. 0 for
  // data that are not images (the spirals); the CNN needs images.
  int image_rows = 0, image_cols = 0;
  // For logs and plot titles, e.g. "spirals" or "idx:data/mnist (train)".
  std::string name;
};

// The recommended spirals task (see MakeSpirals): 3 arms of 1 turn each, position noise 0.05.
// Measured over seeds 1-5 with 300 samples per class split 75/25 (the fair-test case of
// tests/train/dataset_test.cc): multinomial logistic regression reaches 36% test accuracy on
// average (at most 40%, chance is 33%), 5-nearest-neighbour 96% (at least 95.6%), so the task
// needs a non-linear model. A plain fp32 MLP 2-64-64-3 (ReLU, Adam lr 0.01, batch 32) reaches
// 94-95% test accuracy after 25 epochs and 95-97% after 100 (seeds 1-3); width 32 does as well.
// More noise or more turns blur the arms near the centre: at noise 0.08, 5-NN drops to 89%.
inline constexpr int kSpiralClasses = 3;
inline constexpr int kSpiralSamplesPerClass = 300;
inline constexpr double kSpiralNoise = 0.05;
inline constexpr double kSpiralTurns = 1.0;
// The share of the spirals `mxu train` holds out for testing (stratified by class).
inline constexpr double kSpiralTestFraction = 0.25;

// K = classes interleaved spiral arms in 2-D. Sample i of arm k has t = (i + 1) / samples_per_class
// in (0, 1], angle t * kSpiralTurns * 2pi + 2pi k / K and radius t, plus N(0, noise^2) on each
// coordinate, so the features lie in [-1, 1] up to the noise. No linear classifier separates the
// arms: each one winds all the way round the origin. Samples come class by class (arm 0 first);
// shuffle or split before use. Deterministic for a seed. Throws std::invalid_argument for
// samples_per_class < 1, classes < 2 or a negative or non-finite noise.
Dataset MakeSpirals(int samples_per_class, int classes, double noise, uint64_t seed);

struct Split {
  Dataset train, test;
};

// A shuffled, stratified split: of each class's n samples, round(n * test_fraction) go to test and
// the rest to train, chosen at random; each part is then shuffled so that classes are interleaved.
// Deterministic for a seed. Names get " (train)" and " (test)" appended. Throws
// std::invalid_argument for a test_fraction outside [0, 1] or an invalid data set.
Split SplitDataset(const Dataset& data, double test_fraction, uint64_t seed);

// Throws std::invalid_argument naming the problem (and the data set) if features < 1,
// classes < 1, x.size() != size() * features, a label is outside [0, classes), or a feature is
// NaN or infinite. An empty data set is valid.
void ValidateDataset(const Dataset& data);

}  // namespace mxu::train

#endif  // MXU_TRAIN_DATA_DATASET_H_
