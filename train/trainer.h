// The training loop: epochs of shuffled mini-batches through the model (MLP or CNN), every GEMM on
// the matmul engine, softmax cross-entropy, loss-scaled gradients checked for Inf/NaN, an optimizer
// step on the fp32 master weights, and an evaluation of the held-out set after each epoch.
#ifndef MXU_TRAIN_TRAINER_H_
#define MXU_TRAIN_TRAINER_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "train/collective.h"
#include "train/data/dataset.h"
#include "train/data/rng.h"
#include "train/interconnect.h"
#include "train/loss_scaler.h"
#include "train/matmul_engine.h"
#include "train/model.h"
#include "train/optimizer.h"

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
  // Per rank and micro-batch: a step takes batch_size x ranks x accumulate_steps samples in all
  // (data parallelism), batch_size x accumulate_steps with model parallelism.
  int batch_size = 64;
  // Micro-batches per update: their weight gradients are summed on the device (C += A x B).
  int accumulate_steps = 1;
  // Inverted dropout after every hidden ReLU (0: none), masks keyed by the seed and the sample.
  float dropout = 0;
  // Clips the unscaled gradients to this global L2 norm (Keras's global_clipnorm); 0: off.
  float clip_norm = 0;
  // Model (tensor) parallelism under a collective of N ranks: an MLP's weights sliced by output
  // columns, the whole batch on every rank. Otherwise data parallelism.
  bool model_parallel = false;
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
  // Cumulative simulated cycles of the gradient all-reduces on the ring (0 on one rank); with
  // model parallelism of the activations' all-gathers and the input gradients' all-reduces,
  // evaluation passes included. training_communication_cycles: the training steps' alone.
  uint64_t communication_cycles = 0;
  uint64_t training_communication_cycles = 0;
  // FNV-1a of the fp32 master weights' bytes after the epoch: equal on every rank (checked). With
  // model parallelism, FNV-1a over the ranks' hashes of their slices.
  uint64_t weights_hash = 0;
  // False when the epoch was stopped early (Trainer::stop_requested): no evaluation then.
  bool complete = true;
};

// Everything a run needs to continue where it stopped, bit for bit (train/checkpoint.h keeps
// it in a file). The engine's cumulative statistics are part of it: the log reports them.
struct TrainerState {
  std::vector<std::vector<float>> parameters;  // Model::Parameters() order (this rank's slices)
  OptimizerState optimizer;
  LossScaler::State scaler;
  std::array<uint64_t, 4> shuffle_rng{};  // after the current epoch's shuffle
  int epoch = 0;                          // epochs begun
  int epoch_step = 0;                     // steps finished in it; steps_per_epoch(): complete
  std::vector<int> order;                 // the current epoch's sample order
  uint64_t step = 0;                      // steps finished in all
  // The current epoch's running training totals, one per data-parallel rank in rank order (one
  // with model parallelism or one process): each rank goes on from its own sums, which the epoch's
  // end adds in rank order, so a resumed epoch adds up as the run that was not stopped.
  std::vector<double> loss_sums = {0};
  std::vector<uint64_t> corrects = {0}, seens = {0};
  EngineStats engine, training;
  uint64_t communication_cycles = 0;
  uint64_t training_communication_cycles = 0;
  uint64_t clipped_steps = 0;
};

struct SkippedStep {
  uint64_t step = 0;
  int epoch = 0;
  float scale_before = 0, scale_after = 0;
};

// The model config describes, initialised from its seed, for data shaped like `like` (features,
// classes, image size): an Mlp, a Cnn, or with config.model_parallel a TensorParallelMlp over
// ranks. Throws std::invalid_argument for a bad configuration.
std::unique_ptr<Model> MakeModel(const TrainConfig& config, const Dataset& like, Collective& ranks);

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

  // Runs the rest of the current epoch, or a new one, and evaluates the held-out set. When
  // stop_requested returns true after a step that does not end the epoch, returns early with
  // record.complete false (no evaluation): state() then continues from the next step.
  EpochRecord RunEpoch(const Progress& progress = nullptr);
  std::function<bool()> stop_requested;
  const std::vector<SkippedStep>& skipped() const { return skipped_; }
  // Called for every skipped step, as it happens (for the log).
  std::function<void(const SkippedStep&)> on_skip;

  const Model& model() const { return *model_; }
  Model& model() { return *model_; }
  int steps_per_epoch() const;
  // Samples per optimizer step, all ranks and micro-batches together.
  int samples_per_step() const;
  // The epochs finished (a stopped epoch does not count).
  int epochs_done() const { return epoch_ - (in_epoch() ? 1 : 0); }
  uint64_t clipped_steps() const { return clipped_steps_; }

  // The whole model's state: a collective call under ranks (every rank makes it, and gets the
  // whole model gathered from the ranks' slices, and every rank's running totals).
  TrainerState state();
  // Throws std::invalid_argument when the state does not fit this trainer's model, data and
  // ranks (its position in the data, its step count, its running totals).
  void set_state(const TrainerState& state);

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
  // Ranks the batch is split across: 1 with model parallelism.
  int data_ranks() const { return config_.model_parallel ? 1 : collective_.size(); }
  bool in_epoch() const { return !order_.empty() && epoch_step_ < steps_per_epoch(); }
  // One optimizer step over the samples [begin, end) of order_.
  void Step(size_t begin, size_t end);
  uint64_t CommunicationCycles() const;
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
  int epoch_step_ = 0;
  std::vector<int> order_;
  double loss_sum_ = 0;
  uint64_t correct_ = 0, seen_ = 0;
  uint64_t clipped_steps_ = 0;
  std::vector<SkippedStep> skipped_;
  EngineStats training_stats_;
  SingleProcess single_;
  Collective& collective_;
  uint64_t communication_cycles_ = 0;
  uint64_t training_communication_cycles_ = 0;
};

}  // namespace mxu::train

#endif  // MXU_TRAIN_TRAINER_H_
