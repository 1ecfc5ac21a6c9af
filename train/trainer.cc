#include "train/trainer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "train/cnn.h"
#include "train/evaluate.h"
#include "train/mlp.h"
#include "train/softmax_loss.h"
#include "train/tensor_parallel_mlp.h"

namespace mxu::train {
namespace {

std::vector<int> Widths(const TrainConfig& config, const Dataset& train) {
  std::vector<int> widths = {train.features};
  widths.insert(widths.end(), config.hidden.begin(), config.hidden.end());
  widths.push_back(train.classes);
  return widths;
}

}  // namespace

std::unique_ptr<Model> MakeModel(const TrainConfig& config, const Dataset& train,
                                 Collective& ranks) {
  if (config.model_parallel) {
    if (config.model != "mlp") {
      throw std::invalid_argument("model parallelism splits an MLP's dense layers, not a " +
                                  config.model + "'s");
    }
    return std::make_unique<TensorParallelMlp>(Widths(config, train), config.seed, ranks,
                                               config.interconnect);
  }
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

namespace {

// Separate streams for the weights, the batch order and the dropout masks, all from the one seed.
constexpr uint64_t kShuffleStream = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kDropoutStream = 0xD1B54A32D192ED03ull;

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
      optimizer_(MakeOptimizer(config.optimizer)),
      scaler_(config.loss_scaling),
      shuffle_rng_(config.seed ^ kShuffleStream),
      collective_(collective ? *collective : single_) {
  model_ = MakeModel(config, train, collective_);
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
  if (config.accumulate_steps < 1) {
    throw std::invalid_argument("the accumulation steps must be >= 1");
  }
  if (!(config.dropout >= 0.0f && config.dropout < 1.0f)) {
    throw std::invalid_argument("the dropout rate must be in [0, 1)");
  }
  if (!(config.clip_norm >= 0.0f) || !std::isfinite(config.clip_norm)) {
    throw std::invalid_argument("the clipping norm must be >= 0 (0: off)");
  }
}

int Trainer::samples_per_step() const {
  return config_.batch_size * data_ranks() * config_.accumulate_steps;
}

int Trainer::steps_per_epoch() const {
  const int global_batch = samples_per_step();
  return (train_.size() + global_batch - 1) / global_batch;
}

std::pair<size_t, size_t> Trainer::Shard(size_t count) const {
  const size_t ranks = static_cast<size_t>(data_ranks());
  const size_t rank = ranks == 1 ? 0 : static_cast<size_t>(collective_.rank());
  return {count * rank / ranks, count * (rank + 1) / ranks};
}

uint64_t Trainer::CommunicationCycles() const {
  const auto* sliced = dynamic_cast<const TensorParallelMlp*>(model_.get());
  return communication_cycles_ + (sliced ? sliced->communication_cycles() : 0);
}

void Trainer::AllReduce(Gradients& grads) {
  if (data_ranks() == 1) return;
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
  if (!config_.model_parallel) return hash;
  // Each rank holds its slices: the hash of the ranks' hashes names the whole model.
  uint64_t whole = 0xcbf29ce484222325ull;
  for (uint64_t rank_hash : collective_.AllGather(hash)) {
    for (int byte = 0; byte < 8; ++byte) {
      whole = (whole ^ ((rank_hash >> (8 * byte)) & 0xff)) * 0x100000001b3ull;
    }
  }
  return whole;
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
  const auto [begin, end] = Shard(static_cast<size_t>(data.size()));
  const EvaluationSums part =
      EvaluateSamples(*model_, engine_, data, begin, end, config_.eval_batch);
  // The ranks' sums, in rank order: loss, correct, then the confusion matrix (with model
  // parallelism every rank evaluated the whole set).
  std::vector<double> sums = {part.loss_sum, static_cast<double>(part.correct)};
  for (const std::vector<int>& row : part.confusion)
    sums.insert(sums.end(), row.begin(), row.end());
  if (data_ranks() > 1) collective_.SumInRankOrder(sums);
  Evaluation result;
  result.confusion = part.confusion;
  size_t at = 2;
  for (std::vector<int>& row : result.confusion) {
    for (int& count : row) count = static_cast<int>(sums[at++]);
  }
  result.loss = sums[0] / data.size();
  result.accuracy = sums[1] / data.size();
  return result;
}

void Trainer::Step(size_t begin, size_t end) {
  ++step_;
  if (step_ == config_.inject_failure_step && collective_.rank() == collective_.size() - 1) {
    throw std::runtime_error("injected failure at step " + std::to_string(step_) +
                             " (test hook --inject-failure)");
  }
  const EngineStats before = engine_.stats();
  const uint64_t communication_before = CommunicationCycles();
  const float scale = scaler_.scale();
  // Micro-batches of batch x ranks samples, each cut into the ranks' shards; the loss is the mean
  // over the whole step's samples, so every row's gradient is scaled by scale / (end - begin)
  // however the step is split.
  const size_t micro = static_cast<size_t>(config_.batch_size) * data_ranks();
  const float mean_over = static_cast<float>(end - begin);
  Gradients grads;
  bool have_grads = false;
  std::vector<int> labels;
  for (size_t m_begin = begin; m_begin < end; m_begin += micro) {
    const size_t m_end = std::min(end, m_begin + micro);
    const auto [first, last] = Shard(m_end - m_begin);
    if (last == first) continue;
    const size_t rows_begin = m_begin + first, rows_end = m_begin + last;
    const Fp32Matrix x = Rows(train_, order_, rows_begin, rows_end, &labels);
    if (config_.dropout > 0.0f) {
      // Each sample's masks from its own stream: (seed, epoch, position in the epoch's order).
      Dropout dropout;
      dropout.rate = config_.dropout;
      const uint64_t epoch_seed = MixSeed(config_.seed ^ kDropoutStream, epoch_);
      for (size_t i = rows_begin; i < rows_end; ++i) {
        dropout.row_seeds.push_back(MixSeed(epoch_seed, i));
      }
      model_->SetDropout(std::move(dropout));
    }
    const Fp32Matrix logits = model_->Forward(engine_, x, /*for_backward=*/true);
    Fp32Matrix d_logits;
    const LossResult loss = SoftmaxCrossEntropy(logits, labels, scale, &d_logits, mean_over);
    loss_sum_ += loss.loss_sum;
    correct_ += static_cast<uint64_t>(loss.correct);
    seen_ += last - first;
    if (step_ == config_.inject_overflow_step && !have_grads) {
      d_logits.data[0] = std::numeric_limits<float>::infinity();
    }
    grads = model_->Backward(engine_, d_logits, have_grads ? &grads : nullptr);
    have_grads = true;
  }
  if (!have_grads) grads = ZeroGradientsLike(*model_);
  AllReduce(grads);
  // Unscaling by a power of two is exact; Inf and NaN survive it and are caught here.
  grads.Scale(1.0f / scale);
  if (scaler_.Update(grads.AllFinite())) {
    if (config_.clip_norm > 0.0f) {
      // The global norm of the whole model's gradients (a sliced model's, summed over the ranks).
      std::vector<double> squares = {0.0};
      for (const std::vector<float>* t : grads.Tensors()) {
        for (float g : *t) squares[0] += double{g} * g;
      }
      if (config_.model_parallel) collective_.SumInRankOrder(squares);
      const double norm = std::sqrt(squares[0]);
      if (norm > config_.clip_norm) {
        grads.Scale(static_cast<float>(config_.clip_norm / norm));
        ++clipped_steps_;
      }
    }
    optimizer_->Step(model_->Parameters(), grads.Tensors());
  } else {
    skipped_.push_back({step_, epoch_, scale, scaler_.scale()});
    if (on_skip) on_skip(skipped_.back());
  }
  const EngineStats& after = engine_.stats();
  training_stats_.gemms += after.gemms - before.gemms;
  training_stats_.macs += after.macs - before.macs;
  training_stats_.device_cycles += after.device_cycles - before.device_cycles;
  training_stats_.array_busy_cycles += after.array_busy_cycles - before.array_busy_cycles;
  training_stats_.device_wall_seconds += after.device_wall_seconds - before.device_wall_seconds;
  training_communication_cycles_ += CommunicationCycles() - communication_before;
}

EpochRecord Trainer::RunEpoch(const Progress& progress) {
  const int steps = steps_per_epoch();
  if (!in_epoch()) {
    ++epoch_;
    order_.resize(static_cast<size_t>(train_.size()));
    std::iota(order_.begin(), order_.end(), 0);
    shuffle_rng_.Shuffle(order_);
    epoch_step_ = 0;
    loss_sum_ = 0;
    correct_ = seen_ = 0;
  }
  const size_t global_batch = static_cast<size_t>(samples_per_step());
  EpochRecord record;
  record.epoch = epoch_;
  while (epoch_step_ < steps) {
    // The step's samples [begin, end) of the order.
    const size_t begin = static_cast<size_t>(epoch_step_) * global_batch;
    Step(begin, std::min(order_.size(), begin + global_batch));
    ++epoch_step_;
    if (progress) progress(epoch_step_, steps, seen_ ? loss_sum_ / seen_ : 0.0);
    if (epoch_step_ < steps && stop_requested && stop_requested()) {
      record.complete = false;
      record.steps = step_;
      return record;
    }
  }

  std::vector<double> totals = {loss_sum_, static_cast<double>(correct_),
                                static_cast<double>(seen_)};
  if (data_ranks() > 1) collective_.SumInRankOrder(totals);
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
  record.communication_cycles = CommunicationCycles();
  record.training_communication_cycles = training_communication_cycles_;
  record.weights_hash = WeightsHash();
  if (!config_.model_parallel) {
    const std::vector<uint64_t> hashes = collective_.AllGather(record.weights_hash);
    for (size_t r = 1; r < hashes.size(); ++r) {
      if (hashes[r] != hashes[0]) {
        throw std::runtime_error("the master weights of rank " + std::to_string(r) +
                                 " differ from rank 0's after epoch " + std::to_string(epoch_));
      }
    }
  }
  return record;
}

TrainerState Trainer::state() {
  TrainerState s;
  for (const std::vector<float>* p : model_->Parameters()) s.parameters.push_back(*p);
  s.optimizer = optimizer_->state();
  if (auto* sliced = dynamic_cast<TensorParallelMlp*>(model_.get())) {
    s.parameters = sliced->GatherWhole(s.parameters);
    if (!s.optimizer.first.empty()) s.optimizer.first = sliced->GatherWhole(s.optimizer.first);
    if (!s.optimizer.second.empty()) s.optimizer.second = sliced->GatherWhole(s.optimizer.second);
  }
  s.scaler = scaler_.state();
  s.shuffle_rng = shuffle_rng_.state();
  s.epoch = epoch_;
  s.epoch_step = epoch_step_;
  s.order = order_;
  s.step = step_;
  s.loss_sums = {loss_sum_};
  s.corrects = {correct_};
  s.seens = {seen_};
  if (data_ranks() > 1) {
    // Every rank's own sums: each goes on from them when the run resumes.
    uint64_t loss_bits;
    std::memcpy(&loss_bits, &loss_sum_, sizeof loss_bits);
    s.corrects = collective_.AllGather(correct_);
    s.seens = collective_.AllGather(seen_);
    s.loss_sums.clear();
    for (const uint64_t bits : collective_.AllGather(loss_bits)) {
      double sum;
      std::memcpy(&sum, &bits, sizeof sum);
      s.loss_sums.push_back(sum);
    }
  }
  s.engine = engine_.stats();
  s.training = training_stats_;
  s.communication_cycles = CommunicationCycles();
  s.training_communication_cycles = training_communication_cycles_;
  s.clipped_steps = clipped_steps_;
  return s;
}

void Trainer::set_state(const TrainerState& whole) {
  TrainerState s = whole;
  if (const auto* sliced = dynamic_cast<const TensorParallelMlp*>(model_.get())) {
    s.parameters = sliced->SliceOf(whole.parameters);
    if (!s.optimizer.first.empty()) s.optimizer.first = sliced->SliceOf(whole.optimizer.first);
    if (!s.optimizer.second.empty()) s.optimizer.second = sliced->SliceOf(whole.optimizer.second);
  }
  const std::vector<std::vector<float>*> params = model_->Parameters();
  if (s.parameters.size() != params.size()) {
    throw std::invalid_argument("the state has " + std::to_string(s.parameters.size()) +
                                " parameter tensors, the model " + std::to_string(params.size()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (s.parameters[i].size() != params[i]->size()) {
      throw std::invalid_argument("parameter tensor " + std::to_string(i) + " has " +
                                  std::to_string(s.parameters[i].size()) + " values, expected " +
                                  std::to_string(params[i]->size()));
    }
  }
  const int steps = steps_per_epoch();
  if (s.epoch < 0 || s.epoch_step < 0 || s.epoch_step > steps ||
      (s.epoch > 0) != !s.order.empty()) {
    throw std::invalid_argument("the position in the data (epoch " + std::to_string(s.epoch) +
                                ", step " + std::to_string(s.epoch_step) + " of " +
                                std::to_string(steps) + ") does not fit the data");
  }
  if (!s.order.empty()) {
    // A permutation of the training samples.
    std::vector<bool> seen(static_cast<size_t>(train_.size()), false);
    if (s.order.size() != seen.size())
      throw std::invalid_argument("the data order has the wrong size");
    for (int i : s.order) {
      if (i < 0 || i >= train_.size() || seen[static_cast<size_t>(i)]) {
        throw std::invalid_argument("the data order is not a permutation of the samples");
      }
      seen[static_cast<size_t>(i)] = true;
    }
  }
  const size_t ranks = static_cast<size_t>(data_ranks());
  if (s.loss_sums.size() != ranks || s.corrects.size() != ranks || s.seens.size() != ranks) {
    throw std::invalid_argument("the running totals are of " + std::to_string(s.seens.size()) +
                                " rank(s), this run has " + std::to_string(ranks));
  }
  // Every step of an epoch is counted: epochs before this one whole, then its finished steps.
  const uint64_t expected_step =
      s.epoch == 0 ? 0 : static_cast<uint64_t>(s.epoch - 1) * steps + s.epoch_step;
  if (s.step != expected_step) {
    throw std::invalid_argument("the step count " + std::to_string(s.step) + " is not epoch " +
                                std::to_string(s.epoch) + "'s step " +
                                std::to_string(s.epoch_step) + " at " + std::to_string(steps) +
                                " steps an epoch (" + std::to_string(expected_step) + ")");
  }
  optimizer_->set_state(s.optimizer, params);
  scaler_.set_state(s.scaler);
  shuffle_rng_.set_state(s.shuffle_rng);
  for (size_t i = 0; i < params.size(); ++i) *params[i] = s.parameters[i];
  epoch_ = s.epoch;
  epoch_step_ = s.epoch_step;
  order_ = s.order;
  step_ = s.step;
  const size_t mine = data_ranks() > 1 ? static_cast<size_t>(collective_.rank()) : 0;
  loss_sum_ = s.loss_sums[mine];
  correct_ = s.corrects[mine];
  seen_ = s.seens[mine];
  engine_.set_stats(s.engine);
  training_stats_ = s.training;
  auto* sliced = dynamic_cast<TensorParallelMlp*>(model_.get());
  communication_cycles_ = s.communication_cycles;
  if (sliced) communication_cycles_ -= sliced->communication_cycles();
  training_communication_cycles_ = s.training_communication_cycles;
  clipped_steps_ = s.clipped_steps;
}

}  // namespace mxu::train
