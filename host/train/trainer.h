// The training loop: epochs of shuffled mini-batches through the model (MLP or CNN), every GEMM on
// the matmul engine, softmax cross-entropy, loss-scaled gradients checked for Inf/NaN, an optimizer
// step on the fp32 master weights, and an evaluation of the held-out set after each epoch.
#ifndef MXU_HOST_TRAIN_TRAINER_H_
#define MXU_HOST_TRAIN_TRAINER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "host/train/collective.h"
#include "host/train/dataset.h"
#include "host/train/interconnect.h"
#include "host/train/loss_scaler.h"
#include "host/train/matmul_engine.h"
#include "host/train/model.h"
#include "host/train/optimizer.h"
#include "host/train/rng.h"

namespace mxu::train {

struct TrainConfig {
  // "mlp" (dense layers only) or "cnn" (conv layers on image data, then dense layers).
  std::string model = "mlp";
  // The hidden dense layers (the CNN's head).
  std::vector<int> hidden = {32, 32};
  // The CNN's conv layers (3x3, each followed by 2x2 max pooling).
  std::vector<int> channels = {16, 32};
  // Evaluation runs the held-out set in batches of this many samples.
  int eval_batch = 1024;
  int epochs = 20;
  int batch_size = 64;  // per rank: a step takes batch_size x ranks samples in all
  uint64_t seed = 1;
  OptimizerConfig optimizer;
  LossScalerConfig loss_scaling;
  // Test hook: poisons one logit gradient of this step (1-based) with +Inf before the backward
  // GEMMs, as an fp16-style overflow would. 0: never.
  uint64_t inject_overflow_step = 0;
  // Test hook: the last rank throws at this step (1-based), as a failing chip would. 0: never.
  uint64_t inject_failure_step = 0;
  // The chips' ring, for the all-reduce's simulated cycles.
  RingInterconnect interconnect;
};

struct EpochRecord {
  int epoch = 0;
  double train_loss = 0;      // mean over the epoch's batches' samples (forward before update)
  double train_accuracy = 0;  // fraction, same passes
  double test_loss = 0;
  double test_accuracy = 0;
  // Test-set counts after this epoch: confusion[true class][predicted class].
  std::vector<std::vector<int>> confusion;
  float loss_scale = 0;  // at the end of the epoch
  uint64_t steps = 0;    // steps so far, skipped ones included
  uint64_t skipped_steps = 0;
  EngineStats engine;    // cumulative, evaluation included
  EngineStats training;  // cumulative, training steps only (this rank's device)
  // Cumulative simulated cycles of the gradient all-reduces on the ring (0 on one rank).
  uint64_t communication_cycles = 0;
  // FNV-1a of the fp32 master weights' bytes after the epoch: equal on every rank (checked).
  uint64_t weights_hash = 0;
};

struct SkippedStep {
  uint64_t step = 0;
  int epoch = 0;
  float scale_before = 0, scale_after = 0;
};

class Trainer {
 public:
  // progress(step_in_epoch, steps_in_epoch, running mean loss) after every step.
  using Progress = std::function<void(int, int, double)>;

  // Throws std::invalid_argument for a bad configuration or data. With a collective of N ranks
  // (data parallelism: every rank constructs its Trainer alike), each step's batch of
  // batch_size x N samples is cut into N shards, rank r computes the gradients of shard r on its
  // engine, and the gradients are summed in rank order, so every rank applies the same update;
  // the evaluation is sharded too. nullptr: one process.
  Trainer(const TrainConfig& config, const Dataset& train, const Dataset& test,
          MatmulEngine& engine, Collective* collective = nullptr);

  EpochRecord RunEpoch(const Progress& progress = nullptr);
  const std::vector<SkippedStep>& skipped() const { return skipped_; }
  // Called for every skipped step, as it happens (for the log).
  std::function<void(const SkippedStep&)> on_skip;

  const Model& model() const { return *model_; }
  Model& model() { return *model_; }
  int steps_per_epoch() const;

 private:
  struct Evaluation {
    double loss = 0, accuracy = 0;
    std::vector<std::vector<int>> confusion;
  };
  Evaluation Evaluate(const Dataset& data);
  Fp32Matrix Rows(const Dataset& data, const std::vector<int>& order, size_t begin, size_t end,
                  std::vector<int>* labels) const;
  // This rank's part [begin, end) of the samples [0, count).
  std::pair<size_t, size_t> Shard(size_t count) const;
  // Sums the gradients over the ranks; adds the all-reduce's cycles.
  void AllReduce(Gradients& grads);
  uint64_t WeightsHash();

  TrainConfig config_;
  const Dataset& train_;
  const Dataset& test_;
  MatmulEngine& engine_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Optimizer> optimizer_;
  LossScaler scaler_;
  Rng shuffle_rng_;
  int epoch_ = 0;
  uint64_t step_ = 0;
  std::vector<SkippedStep> skipped_;
  EngineStats training_stats_;
  SingleProcess single_;
  Collective& collective_;
  uint64_t communication_cycles_ = 0;
};

}  // namespace mxu::train

#endif  // MXU_HOST_TRAIN_TRAINER_H_
