#include "host/train_command.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "host/device_options.h"
#include "host/trace_options.h"
#include "host/train/dataset.h"
#include "host/train/idx.h"
#include "host/train/matmul_engine.h"
#include "host/train/plot_png.h"
#include "host/train/trainer.h"

namespace mxu::host {
namespace {

using train::EpochRecord;

// "64,32" -> {64, 32}; "" or "none" -> no hidden layer.
std::vector<int> ParseWidths(const std::string& text) {
  std::vector<int> widths;
  if (text.empty() || text == "none") return widths;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    char* end = nullptr;
    const long width = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || width < 1 || width > 4096) {
      throw UsageError("--hidden: '" + text + "' is not a comma-separated list of widths 1..4096");
    }
    widths.push_back(static_cast<int>(width));
  }
  return widths;
}

float ParseFloat(const CliArgs& cli, const std::string& flag, float fallback) {
  if (!cli.Has(flag)) return fallback;
  const std::string text = cli.String(flag, "");
  char* end = nullptr;
  const float value = std::strtof(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value) || value < 0) {
    throw UsageError("--" + flag + ": '" + text + "' is not a non-negative number");
  }
  return value;
}

// The progress bar rewrites one terminal line; off a terminal only whole epochs are printed.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled) {}
  void Update(int epoch, int epochs, int step, int steps, double loss) {
    if (!enabled_) return;
    constexpr int kWidth = 30;
    const int filled = steps ? step * kWidth / steps : kWidth;
    std::fprintf(stderr, "\repoch %*d/%d [%s%s] %d/%d  loss %.4f ", Digits(epochs), epoch, epochs,
                 std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(), step,
                 steps, loss);
    std::fflush(stderr);
  }
  void Clear() {
    if (enabled_) std::fprintf(stderr, "\r\033[K");
  }
  static int Digits(int n) { return static_cast<int>(std::to_string(n).size()); }

 private:
  bool enabled_;
};

std::string CsvHeader() {
  return "epoch,train_loss,train_accuracy,test_loss,test_accuracy,loss_scale,steps,"
         "skipped_steps,gemms,device_cycles,array_busy_cycles\n";
}

// Everything in a row is deterministic for a seed (no wall times): two runs give equal logs.
std::string CsvRow(const EpochRecord& r) {
  char line[256];
  std::snprintf(line, sizeof line, "%d,%.9g,%.9g,%.9g,%.9g,%.9g,%llu,%llu,%llu,%llu,%llu\n",
                r.epoch, r.train_loss, r.train_accuracy, r.test_loss, r.test_accuracy,
                static_cast<double>(r.loss_scale), (unsigned long long)r.steps,
                (unsigned long long)r.skipped_steps, (unsigned long long)r.engine.gemms,
                (unsigned long long)r.engine.device_cycles,
                (unsigned long long)r.engine.array_busy_cycles);
  return line;
}

std::string JoinWidths(const std::vector<int>& widths) {
  std::string text;
  for (int w : widths) text += (text.empty() ? "" : "-") + std::to_string(w);
  return text;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The training configuration from the flags (defaults: train::TrainConfig).
train::TrainConfig ParseTrainConfig(const CliArgs& cli) {
  train::TrainConfig config;
  config.seed = cli.Unsigned("seed", config.seed);
  if (cli.Has("hidden")) config.hidden = ParseWidths(cli.String("hidden", ""));
  config.epochs = static_cast<int>(cli.Unsigned("epochs", config.epochs, 1, 100000));
  config.batch_size = static_cast<int>(cli.Unsigned("batch", config.batch_size, 1, 65535));
  config.optimizer.kind = cli.String("optimizer", config.optimizer.kind);
  config.optimizer.learning_rate = ParseFloat(
      cli, "lr", config.optimizer.kind == "sgd" ? 0.05f : config.optimizer.learning_rate);
  config.optimizer.momentum = ParseFloat(cli, "momentum", config.optimizer.momentum);
  config.loss_scaling.initial_scale =
      ParseFloat(cli, "loss-scale", config.loss_scaling.initial_scale);
  config.loss_scaling.growth_interval = static_cast<int>(
      cli.Unsigned("scale-growth", config.loss_scaling.growth_interval, 1, 1'000'000));
  config.inject_overflow_step = cli.Unsigned("inject-overflow", 0);
  return config;
}

struct TrainingData {
  train::Split split;
  std::string name;
};

// IDX files from --data, or the generated spirals.
TrainingData LoadData(const CliArgs& cli, uint64_t seed) {
  TrainingData data;
  if (cli.Has("data")) {
    if (cli.Has("samples-per-class") || cli.Has("classes")) {
      throw UsageError("--samples-per-class and --classes shape the generated data, not --data");
    }
    try {
      data.split = train::LoadIdxDataset(
          cli.String("data", ""), static_cast<int>(cli.Unsigned("train-samples", 0, 0, 1 << 30)),
          static_cast<int>(cli.Unsigned("test-samples", 0, 0, 1 << 30)));
    } catch (const std::runtime_error& error) {
      throw UsageError(error.what());  // a missing or malformed file is bad input
    }
    data.name = "IDX " + cli.String("data", "");
    return data;
  }
  if (cli.Has("train-samples") || cli.Has("test-samples")) {
    throw UsageError(
        "--train-samples and --test-samples limit --data; the spirals take --samples-per-class");
  }
  const int classes = static_cast<int>(cli.Unsigned("classes", train::kSpiralClasses, 2, 16));
  const int per_class = static_cast<int>(
      cli.Unsigned("samples-per-class", train::kSpiralSamplesPerClass, 10, 100000));
  data.split =
      train::SplitDataset(train::MakeSpirals(per_class, classes, train::kSpiralNoise, seed),
                          train::kSpiralTestFraction, seed);
  data.name = std::to_string(classes) + "-arm spirals";
  return data;
}

}  // namespace

int RunTrain(const std::vector<std::string>& args) {
  std::set<std::string> value_flags = DeviceValueFlags();
  value_flags.insert(TraceValueFlags().begin(), TraceValueFlags().end());
  value_flags.insert({"data", "train-samples", "test-samples", "samples-per-class", "classes",
                      "hidden", "epochs", "batch", "optimizer", "lr", "momentum", "loss-scale",
                      "scale-growth", "seed", "log", "plot", "inject-overflow"});
  const CliArgs cli(args, value_flags, {"json", "quiet"});
  const DeviceOptions options = ParseDeviceOptions(cli);
  const TraceOptions trace = ParseTraceOptions(cli);
  RunRecorder recorder(trace);
  const bool json = cli.Has("json");
  const train::TrainConfig config = ParseTrainConfig(cli);
  const TrainingData loaded = LoadData(cli, config.seed);
  const train::Split& data = loaded.split;
  const std::string& data_name = loaded.name;

  // The engine: the device through the driver, or plain fp32 on the host.
  std::unique_ptr<driver::Device> device;
  std::unique_ptr<train::MatmulEngine> engine;
  std::string engine_text;
  if (options.backend == "host") {
    if (!trace.fst_path.empty() || !trace.timeline_path.empty()) {
      throw UsageError("--trace and --timeline record the device: not with --backend host");
    }
    engine = std::make_unique<train::HostMatmulEngine>();
    engine_text = "host fp32";
  } else {
    device = OpenDevice(options);
    auto device_engine =
        std::make_unique<train::DeviceMatmulEngine>(*device, options.watchdog_cycles);
    engine_text =
        std::string(device->name()) + " (" + std::to_string(device_engine->config().rows) + "x" +
        std::to_string(device_engine->config().cols) + " array, bf16 operands, fp32 accumulation)";
    engine = std::move(device_engine);
  }

  train::Trainer trainer(config, data.train, data.test, *engine);
  std::vector<int> widths = {data.train.features};
  widths.insert(widths.end(), config.hidden.begin(), config.hidden.end());
  widths.push_back(data.train.classes);

  // Human-readable lines go to stdout, or to stderr when stdout carries the JSON.
  FILE* text = json ? stderr : stdout;
  const bool quiet = cli.Has("quiet");
  if (!quiet) {
    std::fprintf(text, "training %s: %d train / %d test samples, %d features, %d classes\n",
                 data_name.c_str(), data.train.size(), data.test.size(), data.train.features,
                 data.train.classes);
    std::fprintf(text, "model MLP %s (%zu parameters), %s lr %g, batch %d, %d epochs, seed %llu\n",
                 JoinWidths(widths).c_str(), trainer.model().parameter_count(),
                 config.optimizer.kind.c_str(), config.optimizer.learning_rate, config.batch_size,
                 config.epochs, (unsigned long long)config.seed);
    std::fprintf(text, "GEMMs on %s\n", engine_text.c_str());
  }
  trainer.on_skip = [&](const train::SkippedStep& skip) {
    std::fprintf(stderr, "step %llu: gradient holds Inf/NaN: step skipped, loss scale %g -> %g\n",
                 (unsigned long long)skip.step, static_cast<double>(skip.scale_before),
                 static_cast<double>(skip.scale_after));
  };

  std::ofstream log;
  if (cli.Has("log")) {
    log.open(cli.String("log", ""));
    if (!log) throw UsageError("cannot write the log " + cli.String("log", ""));
    log << CsvHeader();
  }
  ProgressBar bar(!quiet && isatty(STDERR_FILENO));
  std::vector<EpochRecord> records;
  // The trace window counts device cycles from the start of training.
  if (device) recorder.Arm(*device);
  const auto start = std::chrono::steady_clock::now();
  for (int e = 1; e <= config.epochs; ++e) {
    const EpochRecord record = trainer.RunEpoch(
        [&](int step, int steps, double loss) { bar.Update(e, config.epochs, step, steps, loss); });
    bar.Clear();
    records.push_back(record);
    if (log.is_open()) {
      log << CsvRow(record) << std::flush;
      if (!log) throw std::runtime_error("writing the log " + cli.String("log", "") + " failed");
    }
    if (!quiet) {
      std::fprintf(
          text, "epoch %*d/%d  loss %.4f  train %5.1f%%  test %5.1f%%  scale %g  skipped %llu",
          ProgressBar::Digits(config.epochs), e, config.epochs, record.train_loss,
          100 * record.train_accuracy, 100 * record.test_accuracy,
          static_cast<double>(record.loss_scale), (unsigned long long)record.skipped_steps);
      if (device) {
        std::fprintf(text, "  cycles %llu", (unsigned long long)record.engine.device_cycles);
      }
      std::fprintf(text, "\n");
      std::fflush(text);
    }
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (device) recorder.Finish(*device);

  if (cli.Has("plot")) {
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
    train::WriteCurvesPng(cli.String("plot", ""),
                          "mxu train: MLP " + JoinWidths(widths) + " on " + engine->name(), loss,
                          accuracy);
  }

  const EpochRecord& last = records.back();
  const train::EngineStats& stats = last.engine;
  const train::EngineStats& steps_only = last.training;
  const uint64_t array_macs_per_cycle =
      device ? uint64_t(static_cast<train::DeviceMatmulEngine&>(*engine).config().rows) *
                   static_cast<train::DeviceMatmulEngine&>(*engine).config().cols
             : 0;
  // Utilization and cycles per step count the training steps (evaluation passes excluded).
  const double utilization =
      steps_only.device_cycles
          ? double(steps_only.macs) / (double(steps_only.device_cycles) * array_macs_per_cycle)
          : 0;
  const double cycles_per_step = last.steps ? double(steps_only.device_cycles) / last.steps : 0.0;
  const double steps_per_second = wall > 0 ? last.steps / wall : 0;
  if (json) {
    std::printf(
        "{\"backend\": %s, \"data\": %s, \"train_samples\": %d, \"test_samples\": %d, "
        "\"layers\": %s, \"parameters\": %zu, \"optimizer\": %s, \"learning_rate\": %g, "
        "\"batch\": %d, \"epochs\": %d, \"seed\": %llu, \"final_train_loss\": %.6f, "
        "\"final_train_accuracy\": %.4f, \"final_test_loss\": %.6f, \"test_accuracy\": %.4f, "
        "\"steps\": %llu, \"skipped_steps\": %llu, \"loss_scale\": %g, \"gemms\": %llu, "
        "\"macs\": %llu, \"device_cycles\": %llu, \"cycles_per_step\": %.0f, "
        "\"array_busy_cycles\": %llu, \"utilization\": %.4f, \"wall_seconds\": %.3f, "
        "\"steps_per_second\": %.3f}\n",
        JsonString(engine->name()).c_str(), JsonString(data_name).c_str(), data.train.size(),
        data.test.size(), JsonString(JoinWidths(widths)).c_str(), trainer.model().parameter_count(),
        JsonString(config.optimizer.kind).c_str(), config.optimizer.learning_rate,
        config.batch_size, config.epochs, (unsigned long long)config.seed, last.train_loss,
        last.train_accuracy, last.test_loss, last.test_accuracy, (unsigned long long)last.steps,
        (unsigned long long)last.skipped_steps, static_cast<double>(last.loss_scale),
        (unsigned long long)stats.gemms, (unsigned long long)stats.macs,
        (unsigned long long)stats.device_cycles, cycles_per_step,
        (unsigned long long)stats.array_busy_cycles, utilization, wall, steps_per_second);
  } else if (!quiet) {
    std::printf("test accuracy %.1f%% after %llu steps (%llu skipped), %.1f s, %.2f steps/s",
                100 * last.test_accuracy, (unsigned long long)last.steps,
                (unsigned long long)last.skipped_steps, wall, steps_per_second);
    if (device) {
      std::printf("; %llu GEMMs, %.0f device cycles per training step, utilization %.1f%%",
                  (unsigned long long)stats.gemms, cycles_per_step, 100 * utilization);
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace mxu::host
