#include "host/train/trainer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

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

// Zero gradients in the layout of the model's parameters, which come in (weights, bias) pairs:
// weights inputs x outputs (a convolution's patch x filters), one bias per output. A rank with no
// samples in a step contributes these to the all-reduce.
Gradients ZeroGradientsLike(Model& model) {
  const std::vector<std::vector<float>*> params = model.Parameters();
  Gradients grads;
  for (size_t i = 0; i + 1 < params.size(); i += 2) {
    const int outputs = static_cast<int>(params[i + 1]->size());
    grads.w.emplace_back(static_cast<int>(params[i]->size()) / outputs, outputs);
    grads.b.emplace_back(params[i + 1]->size(), 0.0f);
  }
  return grads;
}

}  // namespace

Trainer::Trainer(const TrainConfig& config, const Dataset& train, const Dataset& test,
                 MatmulEngine& engine, Collective* collective)
    : config_(config),
      train_(train),
      test_(test),
      engine_(engine),
      model_(MakeModel(config, train)),
      optimizer_(MakeOptimizer(config.optimizer)),
      scaler_(config.loss_scaling),
      shuffle_rng_(config.seed ^ kShuffleStream),
      collective_(collective ? *collective : single_) {
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
  const int global_batch = config_.batch_size * collective_.size();
  return (train_.size() + global_batch - 1) / global_batch;
}

std::pair<size_t, size_t> Trainer::Shard(size_t count) const {
  const size_t ranks = static_cast<size_t>(collective_.size());
  const size_t rank = static_cast<size_t>(collective_.rank());
  return {count * rank / ranks, count * (rank + 1) / ranks};
}

void Trainer::AllReduce(Gradients& grads) {
  if (collective_.size() == 1) return;
  const std::vector<std::vector<float>*> tensors = grads.Tensors();
  std::vector<float> flat;
  for (const std::vector<float>* t : tensors) flat.insert(flat.end(), t->begin(), t->end());
  collective_.SumInRankOrder(flat);
  size_t at = 0;
  for (std::vector<float>* t : tensors) {
    std::copy_n(flat.begin() + static_cast<std::ptrdiff_t>(at), t->size(), t->begin());
    at += t->size();
  }
  communication_cycles_ +=
      config_.interconnect.AllReduceCycles(flat.size() * sizeof(float), collective_.size());
}

uint64_t Trainer::WeightsHash() {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const std::vector<float>* v : model_->Parameters()) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(v->data());
    for (size_t i = 0; i < v->size() * sizeof(float); ++i) {
      hash = (hash ^ bytes[i]) * 0x100000001b3ull;
    }
  }
  return hash;
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
  // In batches over this rank's share of the set: the products stay within the device's limits
  // and the host's memory (a CNN's patches), and are still large enough to keep the array busy.
  std::vector<int> order(static_cast<size_t>(data.size()));
  std::iota(order.begin(), order.end(), 0);
  Evaluation result;
  result.confusion.assign(static_cast<size_t>(data.classes),
                          std::vector<int>(static_cast<size_t>(data.classes), 0));
  double loss_sum = 0;
  int correct = 0;
  std::vector<int> labels;
  const auto [shard_begin, shard_end] = Shard(order.size());
  for (size_t begin = shard_begin; begin < shard_end; begin += config_.eval_batch) {
    const size_t end = std::min(shard_end, begin + config_.eval_batch);
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
  // The ranks' sums, in rank order: loss, correct, then the confusion matrix.
  std::vector<double> sums = {loss_sum, static_cast<double>(correct)};
  for (const std::vector<int>& row : result.confusion)
    sums.insert(sums.end(), row.begin(), row.end());
  collective_.SumInRankOrder(sums);
  size_t at = 2;
  for (std::vector<int>& row : result.confusion) {
    for (int& count : row) count = static_cast<int>(sums[at++]);
  }
  result.loss = sums[0] / data.size();
  result.accuracy = sums[1] / data.size();
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
  const size_t global_batch = static_cast<size_t>(config_.batch_size) * collective_.size();
  for (int s = 0; s < steps; ++s) {
    ++step_;
    if (step_ == config_.inject_failure_step && collective_.rank() == collective_.size() - 1) {
      throw std::runtime_error("injected failure at step " + std::to_string(step_) +
                               " (test hook --inject-failure)");
    }
    // The step's samples [begin, end) of the order, and this rank's shard of them.
    const size_t begin = static_cast<size_t>(s) * global_batch;
    const size_t end = std::min(order.size(), begin + global_batch);
    const auto [first, last] = Shard(end - begin);
    const float scale = scaler_.scale();
    Gradients grads = ZeroGradientsLike(*model_);
    if (last > first) {
      const Fp32Matrix x = Rows(train_, order, begin + first, begin + last, &labels);
      const Fp32Matrix logits = model_->Forward(engine_, x, /*for_backward=*/true);
      Fp32Matrix d_logits;
      // The loss is the mean over the whole step's samples: a shard's gradient is weighted by
      // its share (1 with one rank, so a lone process computes exactly what it always did).
      const float share = static_cast<float>(last - first) / static_cast<float>(end - begin);
      const LossResult loss = SoftmaxCrossEntropy(logits, labels, scale * share, &d_logits);
      loss_sum += loss.loss_sum;
      correct += loss.correct;
      seen += static_cast<int>(last - first);
      if (step_ == config_.inject_overflow_step) {
        d_logits.data[0] = std::numeric_limits<float>::infinity();
      }
      grads = model_->Backward(engine_, d_logits);
    }
    AllReduce(grads);
    // Unscaling by a power of two is exact; Inf and NaN survive it and are caught here.
    grads.Scale(1.0f / scale);
    if (scaler_.Update(grads.AllFinite())) {
      optimizer_->Step(model_->Parameters(), grads.Tensors());
    } else {
      skipped_.push_back({step_, epoch_, scale, scaler_.scale()});
      if (on_skip) on_skip(skipped_.back());
    }
    if (progress) progress(s + 1, steps, seen ? loss_sum / seen : 0.0);
  }

  const EngineStats& after = engine_.stats();
  training_stats_.gemms += after.gemms - before.gemms;
  training_stats_.macs += after.macs - before.macs;
  training_stats_.device_cycles += after.device_cycles - before.device_cycles;
  training_stats_.array_busy_cycles += after.array_busy_cycles - before.array_busy_cycles;
  training_stats_.device_wall_seconds += after.device_wall_seconds - before.device_wall_seconds;

  std::vector<double> totals = {loss_sum, static_cast<double>(correct), static_cast<double>(seen)};
  collective_.SumInRankOrder(totals);
  EpochRecord record;
  record.epoch = epoch_;
  record.train_loss = totals[0] / totals[2];
  record.train_accuracy = totals[1] / totals[2];
  const Evaluation test = Evaluate(test_);
  record.test_loss = test.loss;
  record.test_accuracy = test.accuracy;
  record.confusion = test.confusion;
  record.loss_scale = scaler_.scale();
  record.steps = step_;
  record.skipped_steps = scaler_.skipped_steps();
  record.engine = engine_.stats();
  record.training = training_stats_;
  record.communication_cycles = communication_cycles_;
  record.weights_hash = WeightsHash();
  const std::vector<uint64_t> hashes = collective_.AllGather(record.weights_hash);
  for (size_t r = 1; r < hashes.size(); ++r) {
    if (hashes[r] != hashes[0]) {
      throw std::runtime_error("the master weights of rank " + std::to_string(r) +
                               " differ from rank 0's after epoch " + std::to_string(epoch_));
    }
  }
  return record;
}

}  // namespace mxu::train
