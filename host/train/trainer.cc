#include "host/train/trainer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "host/train/cnn.h"
#include "host/train/mlp.h"
#include "host/train/softmax_loss.h"

namespace mxu::train {
namespace {

std::vector<int> Widths(const TrainConfig& config, const Dataset& train) {
  std::vector<int> widths = {train.features};
  widths.insert(widths.end(), config.hidden.begin(), config.hidden.end());
  widths.push_back(train.classes);
  return widths;
}

std::unique_ptr<Model> MakeModel(const TrainConfig& config, const Dataset& train) {
  if (config.model == "mlp") return std::make_unique<Mlp>(Widths(config, train), config.seed);
  if (config.model != "cnn") {
    throw std::invalid_argument("unknown model '" + config.model + "' (expected mlp or cnn)");
  }
  if (train.image_rows * train.image_cols != train.features || train.features == 0) {
    throw std::invalid_argument("the CNN needs image data (" + train.name + " is not images)");
  }
  CnnConfig cnn;
  cnn.image_rows = train.image_rows;
  cnn.image_cols = train.image_cols;
  cnn.channels = config.channels;
  cnn.hidden = config.hidden;
  cnn.classes = train.classes;
  return std::make_unique<Cnn>(cnn, config.seed);
}

// Separate streams for the weights and the batch order, both from the one seed.
constexpr uint64_t kShuffleStream = 0x9E3779B97F4A7C15ull;

}  // namespace

Trainer::Trainer(const TrainConfig& config, const Dataset& train, const Dataset& test,
                 MatmulEngine& engine)
    : config_(config),
      train_(train),
      test_(test),
      engine_(engine),
      model_(MakeModel(config, train)),
      optimizer_(MakeOptimizer(config.optimizer)),
      scaler_(config.loss_scaling),
      shuffle_rng_(config.seed ^ kShuffleStream) {
  ValidateDataset(train);
  ValidateDataset(test);
  if (train.size() == 0 || test.size() == 0) {
    throw std::invalid_argument("the training and test sets must not be empty");
  }
  if (test.features != train.features || test.classes != train.classes) {
    throw std::invalid_argument("the training and test sets differ in features or classes");
  }
  if (config.batch_size < 1) throw std::invalid_argument("the batch size must be >= 1");
  if (config.epochs < 1) throw std::invalid_argument("the number of epochs must be >= 1");
  if (config.eval_batch < 1) throw std::invalid_argument("the evaluation batch must be >= 1");
}

int Trainer::steps_per_epoch() const {
  return (train_.size() + config_.batch_size - 1) / config_.batch_size;
}

Fp32Matrix Trainer::Rows(const Dataset& data, const std::vector<int>& order, size_t begin,
                         size_t end, std::vector<int>* labels) const {
  Fp32Matrix x(static_cast<int>(end - begin), data.features);
  labels->clear();
  for (size_t i = begin; i < end; ++i) {
    const int sample = order[i];
    std::copy_n(&data.x[static_cast<size_t>(sample) * data.features], data.features,
                &x.data[(i - begin) * data.features]);
    labels->push_back(data.labels[sample]);
  }
  return x;
}

Trainer::Evaluation Trainer::Evaluate(const Dataset& data) {
  // In batches: the products stay within the device's limits and the host's memory (a CNN's
  // patches), and are still large enough to keep the array busy.
  std::vector<int> order(static_cast<size_t>(data.size()));
  std::iota(order.begin(), order.end(), 0);
  Evaluation result;
  result.confusion.assign(static_cast<size_t>(data.classes),
                          std::vector<int>(static_cast<size_t>(data.classes), 0));
  double loss_sum = 0;
  int correct = 0;
  std::vector<int> labels;
  for (size_t begin = 0; begin < order.size(); begin += config_.eval_batch) {
    const size_t end = std::min(order.size(), begin + config_.eval_batch);
    const Fp32Matrix x = Rows(data, order, begin, end, &labels);
    const Fp32Matrix logits = model_->Forward(engine_, x, /*for_backward=*/false);
    const LossResult loss = SoftmaxCrossEntropy(logits, labels, 1.0f, nullptr);
    loss_sum += loss.loss_sum;
    correct += loss.correct;
    for (int r = 0; r < logits.rows; ++r) {
      // The first largest logit, as SoftmaxCrossEntropy counts a correct row.
      const float* row = &logits.data[static_cast<size_t>(r) * logits.cols];
      float max = -std::numeric_limits<float>::infinity();
      int predicted = 0;
      for (int c = 0; c < logits.cols; ++c) {
        if (row[c] > max) {
          max = row[c];
          predicted = c;
        }
      }
      ++result.confusion[labels[r]][predicted];
    }
  }
  result.loss = loss_sum / data.size();
  result.accuracy = static_cast<double>(correct) / data.size();
  return result;
}

EpochRecord Trainer::RunEpoch(const Progress& progress) {
  ++epoch_;
  std::vector<int> order(static_cast<size_t>(train_.size()));
  std::iota(order.begin(), order.end(), 0);
  shuffle_rng_.Shuffle(order);

  double loss_sum = 0;
  int correct = 0, seen = 0;
  const int steps = steps_per_epoch();
  std::vector<int> labels;
  const EngineStats before = engine_.stats();
  for (int s = 0; s < steps; ++s) {
    ++step_;
    const size_t begin = static_cast<size_t>(s) * config_.batch_size;
    const size_t end = std::min(order.size(), begin + config_.batch_size);
    const Fp32Matrix x = Rows(train_, order, begin, end, &labels);
    const Fp32Matrix logits = model_->Forward(engine_, x, /*for_backward=*/true);
    Fp32Matrix d_logits;
    const float scale = scaler_.scale();
    const LossResult loss = SoftmaxCrossEntropy(logits, labels, scale, &d_logits);
    loss_sum += loss.loss_sum;
    correct += loss.correct;
    seen += static_cast<int>(end - begin);
    if (step_ == config_.inject_overflow_step) {
      d_logits.data[0] = std::numeric_limits<float>::infinity();
    }

    Gradients grads = model_->Backward(engine_, d_logits);
    // Unscaling by a power of two is exact; Inf and NaN survive it and are caught here.
    grads.Scale(1.0f / scale);
    if (scaler_.Update(grads.AllFinite())) {
      optimizer_->Step(model_->Parameters(), grads.Tensors());
    } else {
      skipped_.push_back({step_, epoch_, scale, scaler_.scale()});
      if (on_skip) on_skip(skipped_.back());
    }
    if (progress) progress(s + 1, steps, loss_sum / seen);
  }

  const EngineStats& after = engine_.stats();
  training_stats_.gemms += after.gemms - before.gemms;
  training_stats_.macs += after.macs - before.macs;
  training_stats_.device_cycles += after.device_cycles - before.device_cycles;
  training_stats_.array_busy_cycles += after.array_busy_cycles - before.array_busy_cycles;
  training_stats_.device_wall_seconds += after.device_wall_seconds - before.device_wall_seconds;

  EpochRecord record;
  record.epoch = epoch_;
  record.train_loss = loss_sum / seen;
  record.train_accuracy = static_cast<double>(correct) / seen;
  const Evaluation test = Evaluate(test_);
  record.test_loss = test.loss;
  record.test_accuracy = test.accuracy;
  record.confusion = test.confusion;
  record.loss_scale = scaler_.scale();
  record.steps = step_;
  record.skipped_steps = scaler_.skipped_steps();
  record.engine = engine_.stats();
  record.training = training_stats_;
  return record;
}

}  // namespace mxu::train
