#include "host/train/train_checkpointing.h"

#include <csignal>
#include <cstdio>
#include <utility>

#include "host/cli/cli.h"
#include "host/cli/output_file.h"

namespace mxu::host {
namespace {

using train::EpochRecord;

std::string Text(float value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
  return text;
}

std::string Text(const std::vector<int>& widths) {
  std::string text;
  for (int w : widths) text += (text.empty() ? "" : ",") + std::to_string(w);
  return text.empty() ? "none" : text;
}

}  // namespace

Checkpointer::Checkpointer(std::string path, const train::TrainConfig& config,
                           train::DataIdentity data, std::string numerics, bool lead,
                           train::Collective& ranks, train::Trainer& trainer)
    : path_(std::move(path)),
      config_(config),
      data_(std::move(data)),
      numerics_(std::move(numerics)),
      lead_(lead),
      ranks_(ranks),
      trainer_(trainer) {
  trainer.stop_requested = [&ranks] {
    uint64_t stop = DeferredStop::Noted() != 0;
    if (ranks.size() > 1) {
      for (uint64_t rank_stop : ranks.AllGather(stop)) stop |= rank_stop;
    }
    return stop != 0;
  };
}

uint64_t Checkpointer::Save(const std::vector<EpochRecord>& history) {
  train::Checkpoint ck;
  ck.config = config_;
  ck.ranks = ranks_.size();
  ck.model = trainer_.model().Describe();
  ck.numerics = numerics_;
  ck.data = data_;
  ck.state = trainer_.state();  // a collective call with model parallelism
  ck.history = history;
  if (lead_) {
    PendingOutputs file;
    file.Write(path_, [&](const std::string& temp) { train::WriteCheckpoint(temp, ck); });
    file.Commit();
  }
  return ck.state.step;
}

int Checkpointer::Stop(const std::vector<EpochRecord>& history) {
  const uint64_t step = Save(history);
  const int signal = DeferredStop::Noted() ? DeferredStop::Noted() : SIGINT;
  if (lead_) {
    std::fprintf(stderr, "stopped by signal %d after step %llu: checkpoint %s written\n", signal,
                 (unsigned long long)step, path_.c_str());
  }
  return 128 + signal;
}

void TakeCheckpointSettings(const CLI::App& cli, const train::Checkpoint& ck,
                            train::TrainConfig& config, const std::string& file) {
  const train::TrainConfig& saved = ck.config;
  const struct {
    const char* option;
    std::string given, saved;
  } settings[] = {
      {"--model", config.model, saved.model},
      {"--hidden", Text(config.hidden), Text(saved.hidden)},
      {"--channels", Text(config.channels), Text(saved.channels)},
      {"--seed", std::to_string(config.seed), std::to_string(saved.seed)},
      {"--batch", std::to_string(config.batch_size), std::to_string(saved.batch_size)},
      {"--accumulate-steps", std::to_string(config.accumulate_steps),
       std::to_string(saved.accumulate_steps)},
      {"--dropout", Text(config.dropout), Text(saved.dropout)},
      {"--clip-norm", Text(config.clip_norm), Text(saved.clip_norm)},
      {"--optimizer", config.optimizer.kind, saved.optimizer.kind},
      {"--lr", Text(config.optimizer.learning_rate), Text(saved.optimizer.learning_rate)},
      {"--momentum", Text(config.optimizer.momentum), Text(saved.optimizer.momentum)},
      {"--loss-scale", Text(config.loss_scaling.initial_scale),
       Text(saved.loss_scaling.initial_scale)},
      {"--scale-growth", std::to_string(config.loss_scaling.growth_interval),
       std::to_string(saved.loss_scaling.growth_interval)},
      {"--parallel", config.model_parallel ? "model" : "data",
       saved.model_parallel ? "model" : "data"},
      {"--link-bytes-per-cycle", std::to_string(config.interconnect.link_bytes_per_cycle),
       std::to_string(saved.interconnect.link_bytes_per_cycle)},
      {"--link-latency", std::to_string(config.interconnect.link_latency_cycles),
       std::to_string(saved.interconnect.link_latency_cycles)},
  };
  for (const auto& s : settings) {
    if (Given(cli, s.option) && s.given != s.saved) {
      throw UsageError("--resume " + file + ": the checkpoint was trained with " + s.option + " " +
                       s.saved + ", the command line gives " + s.given);
    }
  }
  const int epochs = config.epochs;
  const uint64_t overflow = config.inject_overflow_step, failure = config.inject_failure_step;
  const int eval_batch = config.eval_batch;
  config = saved;
  config.epochs = epochs;
  config.inject_overflow_step = overflow;
  config.inject_failure_step = failure;
  config.eval_batch = eval_batch;
}

std::vector<EpochRecord> Restore(const train::Checkpoint& ck, const std::string& file,
                                 const train::LoadedData& loaded, const std::string& numerics,
                                 int ranks, train::Trainer& trainer) {
  const std::string refused = "--resume " + file + ": the checkpoint ";
  const auto data_text = [](const std::string& name, int train, int test, int features,
                            int classes) {
    return name + " (" + std::to_string(train) + " train / " + std::to_string(test) +
           " test samples, " + std::to_string(features) + " features, " + std::to_string(classes) +
           " classes)";
  };
  const train::DataIdentity& d = ck.data;
  const train::Split& data = loaded.split;
  const std::string saved_data =
      data_text(d.name, d.train_samples, d.test_samples, d.features, d.classes);
  const std::string this_data = data_text(loaded.name, data.train.size(), data.test.size(),
                                          data.train.features, data.train.classes);
  if (saved_data != this_data) {
    throw UsageError(refused + "was trained on " + saved_data + ", this run loads " + this_data);
  }
  if (ck.numerics != numerics) {
    throw UsageError(refused + "computed with " + ck.numerics + ", this run with " + numerics);
  }
  if (ck.ranks != ranks) {
    throw UsageError(refused + "was trained on " + std::to_string(ck.ranks) +
                     " rank(s), this run has " + std::to_string(ranks));
  }
  if (ck.model != trainer.model().Describe()) {
    throw UsageError(refused + "holds " + ck.model + ", this run builds " +
                     trainer.model().Describe());
  }
  try {
    trainer.set_state(ck.state);
  } catch (const std::invalid_argument& error) {
    throw UsageError(refused + "does not fit: " + error.what());
  }
  // The finished epochs' steps, as the data and the batch make them.
  const uint64_t steps = static_cast<uint64_t>(trainer.steps_per_epoch());
  for (const EpochRecord& record : ck.history) {
    if (record.steps != static_cast<uint64_t>(record.epoch) * steps) {
      throw UsageError(refused + "does not fit: its history has " + std::to_string(record.steps) +
                       " steps after epoch " + std::to_string(record.epoch) + ", not " +
                       std::to_string(record.epoch) + " x " + std::to_string(steps));
    }
  }
  return ck.history;
}

}  // namespace mxu::host
