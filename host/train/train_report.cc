#include "host/train/train_report.h"

#include <nlohmann/json.hpp>

#include "train/data/curves_plot.h"
#include "train/tensor_parallel_mlp.h"

namespace mxu::host {

using train::EpochRecord;

void ProgressBar::Update(int epoch, int epochs, int step, int steps, double loss) {
  if (!enabled_) return;
  constexpr int kWidth = 30;
  const int filled = steps ? step * kWidth / steps : kWidth;
  std::fprintf(stderr, "\repoch %*d/%d [%s%s] %d/%d  loss %.4f ", Digits(epochs), epoch, epochs,
               std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(), step,
               steps, loss);
  std::fflush(stderr);
}

void ProgressBar::Clear() {
  if (enabled_) std::fprintf(stderr, "\r\033[K");
}

std::string CsvHeader() {
  return "epoch,train_loss,train_accuracy,test_loss,test_accuracy,loss_scale,steps,"
         "skipped_steps,gemms,device_cycles,array_busy_cycles,communication_cycles,weights_hash\n";
}

// Everything in a row is deterministic for a seed (no wall times): two runs give equal logs.
std::string CsvRow(const EpochRecord& r) {
  char line[320];
  std::snprintf(
      line, sizeof line, "%d,%.9g,%.9g,%.9g,%.9g,%.9g,%llu,%llu,%llu,%llu,%llu,%llu,%016llx\n",
      r.epoch, r.train_loss, r.train_accuracy, r.test_loss, r.test_accuracy,
      static_cast<double>(r.loss_scale), (unsigned long long)r.steps,
      (unsigned long long)r.skipped_steps, (unsigned long long)r.engine.gemms,
      (unsigned long long)r.engine.device_cycles, (unsigned long long)r.engine.array_busy_cycles,
      (unsigned long long)r.communication_cycles, (unsigned long long)r.weights_hash);
  return line;
}

std::string JoinWidths(const std::vector<int>& widths) {
  std::string text;
  for (int w : widths) text += (text.empty() ? "" : "-") + std::to_string(w);
  return text;
}

// The weight bytes one rank holds: a slice of each matrix with model parallelism.
size_t WeightBytesPerRank(const train::TrainConfig& config, const train::Trainer& trainer) {
  const size_t parameters =
      config.model_parallel
          ? static_cast<const train::TensorParallelMlp&>(trainer.model()).local_parameter_count()
          : trainer.model().parameter_count();
  return parameters * sizeof(float);
}

// What the run is: data, model, settings, engine, parallelism.
void PrintRunHeader(FILE* text, const train::LoadedData& loaded, const train::TrainConfig& config,
                    const train::Trainer& trainer, const std::string& engine, int ranks,
                    uint64_t global_batch) {
  const train::Split& data = loaded.split;
  std::fprintf(text, "training %s: %d train / %d test samples, %d features, %d classes\n",
               loaded.name.c_str(), data.train.size(), data.test.size(), data.train.features,
               data.train.classes);
  std::fprintf(text, "model %s (%zu parameters), %s lr %g, batch %d, %d epochs, seed %llu\n",
               trainer.model().Describe().c_str(), trainer.model().parameter_count(),
               config.optimizer.kind.c_str(), config.optimizer.learning_rate, config.batch_size,
               config.epochs, (unsigned long long)config.seed);
  if (config.accumulate_steps > 1 || config.dropout > 0 || config.clip_norm > 0) {
    std::fprintf(text,
                 "accumulate %d micro-batches (%llu samples per update), dropout %g, clip norm "
                 "%g\n",
                 config.accumulate_steps, (unsigned long long)global_batch,
                 static_cast<double>(config.dropout), static_cast<double>(config.clip_norm));
  }
  std::fprintf(text, "GEMMs on %s\n", engine.c_str());
  const train::RingInterconnect& link = config.interconnect;
  if (config.model_parallel) {
    std::fprintf(text,
                 "model parallel: %d ranks (one chip each), every weight matrix split by output "
                 "columns: %llu weight bytes per rank (one chip: %llu); activations all-gathered "
                 "and input gradients all-reduced on a ring (link %llu B/cycle, latency %llu "
                 "cycles)\n",
                 ranks, (unsigned long long)WeightBytesPerRank(config, trainer),
                 (unsigned long long)(trainer.model().parameter_count() * sizeof(float)),
                 (unsigned long long)link.link_bytes_per_cycle,
                 (unsigned long long)link.link_latency_cycles);
  } else if (ranks > 1) {
    const uint64_t bytes = trainer.model().parameter_count() * sizeof(float);
    std::fprintf(text,
                 "data parallel: %d ranks (one chip each), %llu samples per step; gradient "
                 "all-reduce of %llu bytes on a ring: %llu cycles per step (link %llu B/cycle, "
                 "latency %llu cycles)\n",
                 ranks, (unsigned long long)global_batch, (unsigned long long)bytes,
                 (unsigned long long)link.AllReduceCycles(bytes, ranks),
                 (unsigned long long)link.link_bytes_per_cycle,
                 (unsigned long long)link.link_latency_cycles);
  }
}

void PrintResumed(FILE* text, const std::string& file, const train::Checkpoint& ck) {
  std::fprintf(text, "resumed from %s: %d epochs and %llu steps done\n", file.c_str(),
               static_cast<int>(ck.history.size()), (unsigned long long)ck.state.step);
}

void PrintSkippedStep(const train::SkippedStep& skip) {
  std::fprintf(stderr, "step %llu: gradient holds Inf/NaN: step skipped, loss scale %g -> %g\n",
               (unsigned long long)skip.step, static_cast<double>(skip.scale_before),
               static_cast<double>(skip.scale_after));
}

void PrintEpoch(FILE* text, const EpochRecord& record, const train::TrainConfig& config,
                bool device, int ranks) {
  std::fprintf(text, "epoch %*d/%d  loss %.4f  train %5.1f%%  test %5.1f%%  scale %g  skipped %llu",
               ProgressBar::Digits(config.epochs), record.epoch, config.epochs, record.train_loss,
               100 * record.train_accuracy, 100 * record.test_accuracy,
               static_cast<double>(record.loss_scale), (unsigned long long)record.skipped_steps);
  if (device) std::fprintf(text, "  cycles %llu", (unsigned long long)record.engine.device_cycles);
  if (ranks > 1) {
    std::fprintf(text, "  %s cycles %llu", config.model_parallel ? "interconnect" : "all-reduce",
                 (unsigned long long)record.communication_cycles);
  }
  std::fprintf(text, "\n");
  std::fflush(text);
}

void WritePlot(const std::string& path, const std::vector<EpochRecord>& records,
               const std::string& title) {
  std::vector<train::Series> loss(2), accuracy(2);
  loss[0].label = "train loss";
  loss[1].label = "test loss";
  accuracy[0].label = "train";
  accuracy[1].label = "test";
  for (const EpochRecord& r : records) {
    loss[0].y.push_back(r.train_loss);
    loss[1].y.push_back(r.test_loss);
    accuracy[0].y.push_back(r.train_accuracy);  // fractions: the plot shows percent
    accuracy[1].y.push_back(r.test_accuracy);
  }
  train::WriteCurvesPng(path, title, loss, accuracy);
}

void Report(const RunSummary& run) {
  const EpochRecord& last = *run.last;
  const train::TrainConfig& config = *run.config;
  const train::EngineStats& stats = last.engine;
  const train::EngineStats& steps_only = last.training;
  uint64_t array_macs_per_cycle = 0;
  if (const auto* device = dynamic_cast<const train::DeviceMatmulEngine*>(run.engine)) {
    array_macs_per_cycle = uint64_t{device->config().rows} * device->config().cols;
  }
  // Utilization and cycles per step count the training steps (evaluation passes excluded).
  const double utilization =
      steps_only.device_cycles
          ? double(steps_only.macs) / (double(steps_only.device_cycles) * array_macs_per_cycle)
          : 0;
  const double cycles_per_step = last.steps ? double(steps_only.device_cycles) / last.steps : 0.0;
  // Rates per wall second over the steps this run made: a resumed run's wall time does not cover
  // the steps its checkpoint had done (its device totals do: the checkpoint carries them).
  const uint64_t steps_run = last.steps - run.steps_before;
  const double steps_per_second = run.wall > 0 ? steps_run / run.wall : 0;
  const double samples_per_second =
      run.wall > 0 ? double(steps_run) * double(run.global_batch) / run.wall : 0.0;
  // Several chips: a step's simulated time is this chip's compute plus the ring's transfers.
  const double comm_per_step =
      last.steps ? double(last.training_communication_cycles) / last.steps : 0.0;
  const double scaling_efficiency = cycles_per_step + comm_per_step > 0
                                        ? cycles_per_step / (cycles_per_step + comm_per_step)
                                        : 1.0;
  const train::Model& model = run.trainer->model();
  const train::Split& data = run.loaded->split;
  if (run.json) {
    // Non-finite numbers (a diverged loss) are written as null.
    nlohmann::ordered_json j;
    j["backend"] = run.engine->name();
    j["data"] = run.loaded->name;
    j["train_samples"] = data.train.size();
    j["test_samples"] = data.test.size();
    j["model"] = model.Describe();
    if (!run.cnn) {
      std::vector<int> widths = {data.train.features};
      widths.insert(widths.end(), config.hidden.begin(), config.hidden.end());
      widths.push_back(data.train.classes);
      j["layers"] = JoinWidths(widths);
    }
    j["parameters"] = model.parameter_count();
    j["optimizer"] = config.optimizer.kind;
    j["learning_rate"] = config.optimizer.learning_rate;
    j["batch"] = config.batch_size;
    j["epochs"] = config.epochs;
    j["seed"] = config.seed;
    j["final_train_loss"] = last.train_loss;
    j["final_train_accuracy"] = last.train_accuracy;
    j["final_test_loss"] = last.test_loss;
    j["test_accuracy"] = last.test_accuracy;
    j["steps"] = last.steps;
    j["steps_run"] = steps_run;
    j["skipped_steps"] = last.skipped_steps;
    j["loss_scale"] = last.loss_scale;
    j["gemms"] = stats.gemms;
    j["macs"] = stats.macs;
    j["device_cycles"] = stats.device_cycles;
    j["cycles_per_step"] = cycles_per_step;
    j["array_busy_cycles"] = stats.array_busy_cycles;
    j["utilization"] = utilization;
    j["wall_seconds"] = run.wall;
    j["steps_per_second"] = steps_per_second;
    j["ranks"] = run.ranks;
    j["samples_per_step"] = run.global_batch;
    j["samples_per_second"] = samples_per_second;
    j["communication_cycles"] = last.communication_cycles;
    j["communication_cycles_per_step"] = comm_per_step;
    j["scaling_efficiency"] = scaling_efficiency;
    char hash[24];
    std::snprintf(hash, sizeof hash, "%016llx", (unsigned long long)last.weights_hash);
    j["weights_hash"] = hash;
    j["parallel"] = config.model_parallel ? "model" : "data";
    j["weight_bytes_per_rank"] = WeightBytesPerRank(config, *run.trainer);
    j["accumulate_steps"] = config.accumulate_steps;
    j["dropout"] = config.dropout;
    j["clip_norm"] = config.clip_norm;
    j["clipped_steps"] = run.trainer->clipped_steps();
    j["confusion"] = last.confusion;  // test set: rows true class, columns predicted
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  if (run.quiet) return;
  std::printf("test accuracy %.1f%% after %llu steps (%llu skipped), ", 100 * last.test_accuracy,
              (unsigned long long)last.steps, (unsigned long long)last.skipped_steps);
  if (run.steps_before) std::printf("%llu of them in this run, ", (unsigned long long)steps_run);
  std::printf("%.1f s, %.2f steps/s", run.wall, steps_per_second);
  if (run.device) {
    std::printf("; %llu GEMMs, %.0f device cycles per training step, utilization %.1f%%",
                (unsigned long long)stats.gemms, cycles_per_step, 100 * utilization);
  }
  std::printf("\n");
  if (run.ranks > 1) {
    std::printf(
        "%d ranks: %.0f samples/s; per step %.0f compute + %.0f %s cycles, simulated scaling "
        "efficiency %.1f%%\n",
        run.ranks, samples_per_second, cycles_per_step, comm_per_step,
        config.model_parallel ? "interconnect" : "all-reduce", 100 * scaling_efficiency);
  }
}

}  // namespace mxu::host
