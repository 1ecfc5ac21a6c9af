// `mxu train --save / --resume`: the signals that stop a run whole, the checkpoint written after
// every epoch and on a stop, and the rules a resumed run follows (its settings are the
// checkpoint's; its data, numerics, ranks and model must match).
#ifndef MXU_HOST_TRAIN_TRAIN_CHECKPOINTING_H_
#define MXU_HOST_TRAIN_TRAIN_CHECKPOINTING_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "host/cli/stop_signals.h"
#include "train/checkpoint.h"
#include "train/collective.h"
#include "train/data/data_source.h"
#include "train/trainer.h"

namespace mxu::host {

// --save: the checkpoint after every epoch and, on SIGINT or SIGTERM, after the step being run
// (every rank stops at the same step; the tool then exits 128 + the signal's number, and a second
// signal stops it at once: DeferredStop). Rank 0 writes; with model parallelism every rank takes
// part in gathering the whole model.
class Checkpointer {
 public:
  // Defers the signals and installs the trainer's stop_requested.
  Checkpointer(std::string path, const train::TrainConfig& config, train::DataIdentity data,
               std::string numerics, bool lead, train::Collective& ranks, train::Trainer& trainer);
  // Writes the checkpoint of the trainer's state and this history; returns its step.
  uint64_t Save(const std::vector<train::EpochRecord>& history);
  // After a stop request: the checkpoint, a line saying so, and the exit code (128 + signal).
  int Stop(const std::vector<train::EpochRecord>& history);

 private:
  DeferredStop signals_;
  std::string path_;
  train::TrainConfig config_;
  train::DataIdentity data_;
  std::string numerics_;
  bool lead_;
  train::Collective& ranks_;
  train::Trainer& trainer_;
};

// --resume: the run's settings (config) become the checkpoint's; an option given on the command
// line must say the same, or the run is refused on one line naming it (UsageError).
void TakeCheckpointSettings(const CLI::App& cli, const train::Checkpoint& ck,
                            train::TrainConfig& config, const std::string& file);

// The checkpoint's data, arithmetic, ranks and model must be this run's (UsageError naming the
// mismatch); then the trainer takes its state. Returns the history it holds.
std::vector<train::EpochRecord> Restore(const train::Checkpoint& ck, const std::string& file,
                                        const train::LoadedData& loaded,
                                        const std::string& numerics, int ranks,
                                        train::Trainer& trainer);

}  // namespace mxu::host

#endif  // MXU_HOST_TRAIN_TRAIN_CHECKPOINTING_H_
