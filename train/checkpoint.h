// Training checkpoints: a NumPy .npz archive (numpy.load reads it; docs/training.md lists every
// array) holding the model's description and weights, the optimizer's state, the loss scaler,
// the position in the data order, the seed and settings of the run, and its per-epoch history,
// so that `mxu train --resume` continues bit for bit and `mxu predict` can use the model.
#ifndef MXU_TRAIN_CHECKPOINT_H_
#define MXU_TRAIN_CHECKPOINT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "train/trainer.h"

namespace mxu::train {

// What a checkpoint says about the data it was trained on: a resumed run must load the same.
struct DataIdentity {
  std::string name;  // "Fashion-MNIST", "IDX dir", "3-arm spirals"
  std::string data;  // the --data argument ("" for the spirals)
  int train_samples = 0, test_samples = 0, features = 0, classes = 0;
  int samples_per_class = 0;  // the spirals' (0 for --data)
};

struct Checkpoint {
  // The run's settings: model kind and widths, seed, optimizer, batch, accumulation, dropout,
  // clipping, loss scaling, parallelism (epochs: the run's target when it was written).
  TrainConfig config;
  int ranks = 1;
  std::string model;     // Model::Describe(), e.g. "MLP 784-512-10"
  std::string numerics;  // the engine's arithmetic, e.g. "host fp32", "bf16 x bf16 -> fp32, 16x16"
  DataIdentity data;
  TrainerState state;                // the whole model's, even when the ranks held slices
  std::vector<EpochRecord> history;  // every finished epoch (confusion: the last one's only)
};

// Writes the checkpoint to path (the caller renames it into place). Throws std::runtime_error.
void WriteCheckpoint(const std::string& path, const Checkpoint& checkpoint);
// Reads one; throws std::runtime_error "<path>: <what is wrong>" for a file that is not a whole,
// consistent checkpoint (truncated, corrupt, missing or misshapen arrays).
Checkpoint ReadCheckpoint(const std::string& path);

// The names of the parameter tensors in Model::Parameters() order: dense1_w, dense1_b, ... for
// an MLP; conv1_w, conv1_b, ..., then dense1_w, ... for a CNN.
std::vector<std::string> ParameterNames(const TrainConfig& config);

}  // namespace mxu::train

#endif  // MXU_TRAIN_CHECKPOINT_H_
