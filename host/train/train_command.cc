#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "host/cli/cli.h"
#include "host/cli/device_options.h"
#include "host/cli/output_file.h"
#include "host/cli/rank_agreement.h"
#include "host/cli/trace_options.h"
#include "host/train/commands.h"
#include "host/train/data_inputs.h"
#include "host/train/train_checkpointing.h"
#include "host/train/train_report.h"
#include "host/train/training_engine.h"
#include "train/checkpoint.h"
#include "train/data/curves_plot.h"
#include "train/data/data_source.h"
#include "train/data/dataset.h"
#include "train/data/idx.h"
#include "train/matmul_engine.h"
#include "train/mpi_collective.h"
#include "train/tensor_parallel_mlp.h"
#include "train/trainer.h"

namespace mxu::host {
namespace {

using train::EpochRecord;

// "64,32" -> {64, 32}; "none" -> no hidden layer. Every item a decimal width in [1, 4096]: an
// empty item ("8,", ",8", "8,,8") is refused.
std::vector<int> ParseWidths(const std::string& text, const std::string& option) {
  std::vector<int> widths;
  if (text == "none") return widths;
  const CLI::Validator width = DecimalRange(train::kHiddenRule.min, train::kHiddenRule.max);
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!width(item).empty()) {
      throw UsageError(option + ": '" + text +
                       "' is not a comma-separated list of widths 1..4096 (or 'none')");
    }
    widths.push_back(std::stoi(item));
    if (comma == std::string::npos) return widths;
    start = comma + 1;
  }
}

struct TrainArgs {
  DeviceOptions device;
  TraceOptions trace;
  train::TrainConfig config;
  std::string hidden = "32,32";
  std::string channels = "16,32";
  std::string data;
  int train_samples = 0, test_samples = 0;
  int classes = train::kSpiralClasses;
  int samples_per_class = train::kSpiralSamplesPerClass;
  std::string log, plot;
  std::string save, resume;
  std::string parallel = "data";
  bool json = false, quiet = false;
};

// IDX files from --data, or the generated spirals.
train::LoadedData LoadData(const CLI::App& cli, const TrainArgs& args, uint64_t seed) {
  train::DataSource source;
  if (Given(cli, "--data")) source.data = args.data;
  source.train_samples = args.train_samples;
  source.test_samples = args.test_samples;
  source.classes = args.classes;
  source.samples_per_class = args.samples_per_class;
  try {
    return train::LoadData(source, seed);
  } catch (const std::runtime_error& error) {
    throw UsageError(error.what());  // a missing or malformed file is bad input
  }
}

// A rank that stops because another failed: that one prints the message.
struct OtherRankFailed {
  int code;
};

// The options as a TrainConfig (args.config), with the CNN's, the optimizer's and the
// parallelism's rules; with --resume, the checkpoint (its settings become the run's). Throws
// UsageError.
std::optional<train::Checkpoint> ResolveConfig(const CLI::App& cli, TrainArgs& args,
                                               const train::Collective& ranks) {
  train::TrainConfig& config = args.config;
  if (config.model != "mlp" && config.model != "cnn") {
    throw UsageError("unknown model '" + config.model + "' (expected mlp or cnn)");
  }
  const bool cnn = config.model == "cnn";
  if (Given(cli, "--channels") && !cnn) {
    throw UsageError("--channels is the CNN's: give --model cnn");
  }
  if (cnn) {
    if (!Given(cli, "--data")) throw UsageError("--model cnn needs image data: give --data");
    config.channels = ParseWidths(args.channels, "--channels");
    if (config.channels.empty()) throw UsageError("--channels: the CNN needs a conv layer");
    config.hidden = {128};  // the CNN's dense head, unless --hidden says otherwise
  }
  if (Given(cli, "--hidden")) config.hidden = ParseWidths(args.hidden, "--hidden");
  if (config.optimizer.kind != "adam" && config.optimizer.kind != "sgd") {
    throw UsageError("unknown optimizer '" + config.optimizer.kind + "' (expected adam or sgd)");
  }
  if (Given(cli, "--momentum") && config.optimizer.kind != "sgd") {
    throw UsageError("--momentum is SGD's: give --optimizer sgd with it, or leave it out");
  }
  // Adam's step suits the data: 0.01 on the 2-feature spirals, 0.001 on images (at 0.01 a
  // 784-128-10 MLP stalls near 85% on Fashion-MNIST; at 0.001 it reaches 87.5% in 5 epochs).
  if (!Given(cli, "--lr")) {
    if (config.optimizer.kind == "sgd") {
      config.optimizer.learning_rate = 0.05f;
    } else if (Given(cli, "--data")) {
      config.optimizer.learning_rate = 0.001f;
    }
  }
  if (args.parallel != "data" && args.parallel != "model") {
    throw UsageError("unknown --parallel '" + args.parallel + "' (expected data or model)");
  }
  config.model_parallel = args.parallel == "model";
  if (config.model_parallel && ranks.size() < 2) {
    throw UsageError(
        "--parallel model splits the model across the ranks of a job: run it under mpirun -np N "
        "(N >= 2)");
  }
  if (config.model_parallel && cnn) {
    throw UsageError("--parallel model splits an MLP's dense layers: not with --model cnn");
  }
  if (!Given(cli, "--resume")) return std::nullopt;
  std::optional<train::Checkpoint> resumed;
  try {
    resumed = train::ReadCheckpoint(args.resume);
  } catch (const std::runtime_error& error) {
    throw UsageError(std::string("--resume ") + error.what());
  }
  TakeCheckpointSettings(cli, *resumed, config, args.resume);
  const int finished = static_cast<int>(resumed->history.size());
  if (config.epochs <= finished || config.epochs < resumed->state.epoch) {
    throw UsageError("--epochs " + std::to_string(config.epochs) + ": the checkpoint " +
                     args.resume + " has finished " + std::to_string(finished) +
                     " epochs; give more to go on");
  }
  return resumed;
}

// Every output against the others and the inputs, before anything runs.
void CheckOutputs(const CLI::App& cli, const TrainArgs& args, const TraceOptions& trace, bool lead,
                  bool resumed) {
  std::vector<PathArg> outputs;
  for (const char* option : {"--log", "--plot", "--save"}) {
    if (Given(cli, option) && lead) {
      outputs.push_back({option, cli.get_option(option)->as<std::string>()});
    }
  }
  RunRecorder::AddOutputs(trace, &outputs);
  std::vector<PathArg> inputs = DataInputs("--data", Given(cli, "--data") ? args.data : "");
  // --save may replace the checkpoint it resumes from (read whole already); nothing else may.
  if (resumed && !(Given(cli, "--save") && SamePath(args.save, args.resume))) {
    inputs.push_back({"--resume", args.resume});
  }
  CheckOutputPaths(outputs, inputs);
}

// The CNN's products within the device's limits on this data.
void CheckCnnFits(const TrainArgs& args, const train::TrainConfig& config,
                  const train::LoadedData& loaded) {
  const train::Dataset& train = loaded.split.train;
  // A conv layer's weight gradient sums over batch x pixels products: one K of the device.
  const int64_t pixels = int64_t{train.image_rows} * train.image_cols;
  if (pixels == 0) throw UsageError("--model cnn needs image data; " + loaded.name + " is not");
  if (pixels * config.batch_size > train::DeviceMatmulEngine::kMaxRows) {
    throw UsageError("--batch " + std::to_string(config.batch_size) + " with " +
                     std::to_string(pixels) + "-pixel images is above the CNN's limit of " +
                     std::to_string(train::DeviceMatmulEngine::kMaxRows / pixels) +
                     " (batch x pixels must be at most 65535)");
  }
  // On the device the dense head's input is one K (and the input gradient's N).
  int64_t rows = train.image_rows, cols = train.image_cols;
  for (size_t i = 0; i < config.channels.size() && rows >= 2 && cols >= 2; ++i) {
    rows /= 2, cols /= 2;
  }
  const int64_t flat = rows * cols * config.channels.back();
  if (flat > train::DeviceMatmulEngine::kMaxRows && args.device.backend != "host") {
    throw UsageError("--channels " + args.channels + ": the last conv layer gives " +
                     std::to_string(flat) + " features (" + std::to_string(rows) + "x" +
                     std::to_string(cols) + " pixels x " + std::to_string(config.channels.back()) +
                     " channels) to the dense layer, above the device's GEMM limit of 65535");
  }
}

// The test hooks' steps within the run.
void CheckTestHooks(const CLI::App& cli, const train::TrainConfig& config,
                    uint64_t steps_per_epoch) {
  const uint64_t total_steps = steps_per_epoch * static_cast<uint64_t>(config.epochs);
  if (Given(cli, "--inject-overflow") &&
      (config.inject_overflow_step < 1 || config.inject_overflow_step > total_steps)) {
    throw UsageError("--inject-overflow must be a step in [1, " + std::to_string(total_steps) +
                     "] (" + std::to_string(config.epochs) + " epochs of " +
                     std::to_string(steps_per_epoch) + " steps), got " +
                     std::to_string(config.inject_overflow_step));
  }
  if (Given(cli, "--inject-failure") &&
      (config.inject_failure_step < 1 || config.inject_failure_step > total_steps)) {
    throw UsageError("--inject-failure must be a step in [1, " + std::to_string(total_steps) +
                     "], got " + std::to_string(config.inject_failure_step));
  }
}

// The trainer, its configuration's last checks as usage errors (e.g. a layer narrower than the
// ranks it is split across).
std::unique_ptr<train::Trainer> MakeTrainer(const train::TrainConfig& config,
                                            const train::Split& data, train::MatmulEngine& engine,
                                            train::Collective& ranks) {
  try {
    return std::make_unique<train::Trainer>(config, data.train, data.test, engine, &ranks);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
}

// The data set as a checkpoint records it, so that a resumed run can refuse other data.
train::DataIdentity IdentityOf(const CLI::App& cli, const TrainArgs& args,
                               const train::LoadedData& loaded) {
  const train::Split& data = loaded.split;
  return {loaded.name,
          Given(cli, "--data") ? DataForCheckpoint(args.data) : "",
          data.train.size(),
          data.test.size(),
          data.train.features,
          data.train.classes,
          Given(cli, "--data") ? 0 : args.samples_per_class};
}

// --log: its header and every epoch (a resumed run's history included), written once the run has
// finished, so that a run stopped before leaves no temporary behind.
void WriteLog(const std::string& temp, const std::vector<EpochRecord>& records) {
  std::ofstream log(temp);
  log << CsvHeader();
  for (const EpochRecord& record : records) log << CsvRow(record);
  log.close();
  if (!log) throw std::runtime_error("cannot write " + temp);
}

// ready: called once the set-up is done, just before training (under mpirun every rank learns
// there whether all got that far).
int Train(
    const CLI::App& cli, TrainArgs& args, train::Collective& ranks,
    const std::function<void()>& ready = [] {}) {
  // Rank 0 alone prints, logs, plots and traces; the others train in silence.
  const bool lead = ranks.rank() == 0;
  TraceOptions trace = args.trace;
  if (!lead) trace = TraceOptions();
  if (!lead) args.quiet = true, args.json = false;
  const DeviceOptions& options = args.device;

  // Set-up: options, checkpoint, outputs, data, engine, trainer; every check before any run.
  const std::optional<train::Checkpoint> resumed = ResolveConfig(cli, args, ranks);
  const train::TrainConfig& config = args.config;
  const bool cnn = config.model == "cnn";
  if (options.backend == "host" && (Given(cli, "--trace") || Given(cli, "--timeline"))) {
    throw UsageError("--trace and --timeline record the device: not with --backend host");
  }
  if (options.backend == "host") RejectDeviceOptions(cli, "with --backend host (no device)");
  CheckOutputs(cli, args, trace, lead, resumed.has_value());
  const train::LoadedData loaded = LoadData(cli, args, config.seed);
  const train::Split& data = loaded.split;
  if (cnn) CheckCnnFits(args, config, loaded);
  // Data parallelism shares a step's samples among the ranks; model parallelism gives every rank
  // them all.
  const int data_ranks = config.model_parallel ? 1 : ranks.size();
  const uint64_t global_batch =
      static_cast<uint64_t>(config.batch_size) * data_ranks * config.accumulate_steps;
  CheckTestHooks(cli, config,
                 (static_cast<uint64_t>(data.train.size()) + global_batch - 1) / global_batch);
  PendingOutputs files;
  RunRecorder recorder(trace, &files);
  const TrainingEngine opened = OpenTrainingEngine(options);
  const std::unique_ptr<driver::Device>& device = opened.device;
  train::MatmulEngine& engine = *opened.engine;
  const std::unique_ptr<train::Trainer> trainer_owner = MakeTrainer(config, data, engine, ranks);
  train::Trainer& trainer = *trainer_owner;
  std::vector<EpochRecord> records;
  if (resumed) {
    records = Restore(*resumed, args.resume, loaded, opened.numerics, ranks.size(), trainer);
  }
  ready();

  // Human-readable lines go to stdout, or to stderr when stdout carries the JSON.
  FILE* text = args.json ? stderr : stdout;
  const bool quiet = args.quiet;
  if (!quiet) {
    PrintRunHeader(text, loaded, config, trainer, opened.description, ranks.size(), global_batch);
    if (resumed) PrintResumed(text, args.resume, *resumed);
  }
  trainer.on_skip = PrintSkippedStep;
  ProgressBar bar(!quiet && isatty(STDERR_FILENO));
  std::optional<Checkpointer> checkpoints;
  if (Given(cli, "--save")) {
    checkpoints.emplace(args.save, config, IdentityOf(cli, args, loaded), opened.numerics, lead,
                        ranks, trainer);
  }
  // The signal that stopped the run, if one did (after its checkpoint was written).
  const auto stopped = [&]() -> int {
    if (!checkpoints || !trainer.stop_requested()) return 0;
    bar.Clear();
    return checkpoints->Stop(records);
  };

  // The run. The trace window counts device cycles from the start of training.
  if (device) recorder.Arm(*device);
  const auto start = std::chrono::steady_clock::now();
  for (int e = trainer.epochs_done() + 1; e <= config.epochs; ++e) {
    const EpochRecord record = trainer.RunEpoch(
        [&](int step, int steps, double loss) { bar.Update(e, config.epochs, step, steps, loss); });
    bar.Clear();
    if (!record.complete) {
      if (const int code = stopped()) return code;
    }
    records.push_back(record);
    if (!quiet) PrintEpoch(text, record, config, device != nullptr, ranks.size());
    if (checkpoints) checkpoints->Save(records);
    if (e < config.epochs) {
      if (const int code = stopped()) return code;
    }
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (device) recorder.Finish(*device);

  // The report and the outputs.
  if (Given(cli, "--log") && lead) {
    files.Write(args.log, [&](const std::string& temp) { WriteLog(temp, records); });
  }
  if (Given(cli, "--plot") && lead) {
    files.Write(args.plot, [&](const std::string& temp) {
      WritePlot(temp, records, "mxu train: " + trainer.model().Describe() + " on " + engine.name());
    });
  }
  Report({&loaded, &config, &trainer, &engine, &records.back(), device != nullptr, args.json, quiet,
          cnn, ranks.size(), global_batch, wall, resumed ? resumed->state.step : 0});
  FlushStdout();
  files.Commit();
  return 0;
}

// Under mpirun every rank runs this with the same arguments: the ranks check that first. A usage
// error in the set-up stops every rank with exit code 2, printed once (by the lowest rank that
// found it); a rank that fails later stops the whole job (the others may be waiting for its
// gradients).
int RunTrain(const CLI::App& cli, TrainArgs& args) {
  if (!train::LaunchedByMpi()) {
    train::SingleProcess single;
    return Train(cli, args, single);
  }
  train::MpiCollective ranks;
  if (ranks.size() == 1) return Train(cli, args, ranks);
  if (const std::optional<int> code = LeaveUnlessOneCommand("train", ranks)) return *code;
  // Every rank leaves a failed set-up only once the one line is printed: mpirun stops the whole
  // job when a rank exits non-zero, and would otherwise kill the rank about to print it.
  const auto report_and_leave = [&](bool reporter, const std::string& message, int code) {
    if (reporter) {
      std::fprintf(stderr, "mxu train: %s\n", message.c_str());
      std::fflush(stderr);
    }
    ranks.AllGather(uint64_t{0});
    return code;
  };
  // What only names outputs or shapes the printing may differ (the other ranks ignore it).
  const std::string differing = DifferingOption(cli,
                                                {"--log", "--plot", "--json", "--quiet", "--trace",
                                                 "--trace-start", "--trace-cycles", "--timeline"},
                                                ranks);
  if (!differing.empty()) {
    return report_and_leave(
        ranks.rank() == 0,
        differing + " differs between the ranks: give every rank the same options", 2);
  }
  bool ready = false;
  try {
    return Train(cli, args, ranks, [&] {
      ready = true;
      int code = 0;
      if (FirstFailedRank(ranks, 0, &code) >= 0) throw OtherRankFailed{code};
    });
  } catch (const OtherRankFailed& stop) {
    return report_and_leave(false, "", stop.code);
  } catch (const UsageError& error) {
    if (ready) ranks.Abort(error.what());
    return report_and_leave(FirstFailedRank(ranks, 2) == ranks.rank(), error.what(), 2);
  } catch (const std::exception& error) {
    if (!ready && FirstFailedRank(ranks, 1) != ranks.rank()) {
      return report_and_leave(false, "", 1);
    }
    ranks.Abort(error.what());
  }
}

}  // namespace

std::function<int()> AddTrainCommand(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  TrainArgs& a = *args;
  train::TrainConfig& c = a.config;
  CLI::App* cmd = app.add_subcommand(
      "train",
      "Mixed-precision training of an MLP or CNN classifier, every GEMM on the device (bf16 "
      "operands, "
      "fp32 accumulation, dynamic loss scaling); the generated spirals, or MNIST-style IDX files "
      "with --data (--data fashion-mnist). --backend host: the same loop in plain fp32 on the "
      "host. Under mpirun -np N, data parallel (each rank one chip, --batch samples per rank, "
      "gradients summed in rank order) or --parallel model (weights split across the ranks).");
  cmd->footer(kExitCodesHelp);
  CLI::Option* data =
      cmd->add_option("--data", a.data,
                      "directory of IDX files: train-images-idx3-ubyte, train-labels-idx1-ubyte "
                      "(t10k-*: the test set; without them an 80/20 split), plain or .gz. Labels "
                      "0..L-1, every class present in the training labels. fashion-mnist: the "
                      "installed Fashion-MNIST (package dataset-fashion-mnist)")
          ->type_name("DIR")
          ->check(NotEmpty("a directory of IDX files or fashion-mnist"));
  AddInteger(cmd, train::kTrainSamplesRule, &a.train_samples,
             "keep the first N training samples of --data (0: all)")
      ->needs(data);
  AddInteger(cmd, train::kTestSamplesRule, &a.test_samples,
             "keep the first N test samples of --data (0: all)")
      ->needs(data);
  AddInteger(cmd, train::kSamplesPerClassRule, &a.samples_per_class, "spiral points per class")
      ->excludes(data);
  AddInteger(cmd, train::kClassesRule, &a.classes, "spiral arms (classes)")->excludes(data);
  cmd->add_option("--model", c.model,
                  "mlp, or cnn: conv 3x3 + ReLU + 2x2 max pooling per --channels, then the "
                  "dense --hidden layers (needs image data, --data)")
      ->type_name("NAME");
  cmd->add_option("--hidden", a.hidden,
                  "hidden dense layer widths, comma-separated, each in [1, 4096]; none: no hidden "
                  "layer (the CNN's default: 128)")
      ->type_name("W,W,...");
  cmd->add_option("--channels", a.channels,
                  "the CNN's conv layers' output channels, comma-separated, each in [1, 4096]; on "
                  "the device the last one times its pooled pixels at most 65535 (28x28 images, "
                  "one layer: 334)")
      ->type_name("C,C,...");
  AddInteger(cmd, train::kEpochsRule, &c.epochs, "passes over the training set");
  AddInteger(cmd, train::kBatchRule, &c.batch_size,
             "samples per step (per rank with data parallelism; per micro-batch with "
             "--accumulate-steps)");
  AddInteger(cmd, train::kAccumulateStepsRule, &c.accumulate_steps,
             "micro-batches of --batch samples per update, their weight gradients summed on the "
             "device (C += A x B); bit-identical to one batch N times larger when --batch is a "
             "multiple of the array's rows");
  AddFloat(cmd, train::kDropoutRule, &c.dropout,
           "inverted dropout rate after every hidden ReLU (MLP, and the CNN's dense head), in "
           "[0, 1); masks drawn from --seed");
  AddFloat(cmd, train::kClipNormRule, &c.clip_norm,
           "clip the unscaled gradients to this global L2 norm (Keras's global_clipnorm); 0: off");
  cmd->add_option("--parallel", a.parallel,
                  "under mpirun -np N: data (each rank --batch samples of every step, gradients "
                  "all-reduced) or model (an MLP's weight matrices split by output columns across "
                  "the ranks, the whole batch on each, activations all-gathered)")
      ->type_name("KIND");
  cmd->add_option("--save", a.save,
                  "checkpoint (NumPy .npz: weights, optimizer and loss-scaler state, position in "
                  "the data, settings, history) written after every epoch and, on SIGINT or "
                  "SIGTERM, after the step being run (then exit 130 / 143); replaced whole")
      ->type_name("FILE.npz");
  cmd->add_option("--resume", a.resume,
                  "continue the run a --save checkpoint holds, up to --epochs in all: bit for bit "
                  "the run that was not stopped. Its settings are the run's; the data, device "
                  "numerics and ranks must be the same")
      ->type_name("FILE.npz");
  cmd->add_option("--optimizer", c.optimizer.kind, "adam or sgd (with momentum)")
      ->type_name("NAME");
  AddFloat(cmd, train::kLearningRateRule, &c.optimizer.learning_rate,
           "learning rate (default: adam 0.01 on the spirals, 0.001 with --data; sgd 0.05)")
      ->default_str("");
  AddFloat(cmd, train::kMomentumRule, &c.optimizer.momentum, "SGD momentum (sgd only)");
  AddFloat(cmd, train::kLossScaleRule, &c.loss_scaling.initial_scale,
           "initial loss scale, a power of two");
  AddInteger(cmd, train::kScaleGrowthRule, &c.loss_scaling.growth_interval,
             "good steps in a row before the loss scale doubles");
  AddInteger(cmd, "--seed", &c.seed, 0, UINT64_MAX, "seed of the data, weights and batches");
  AddInteger(cmd, "--inject-overflow", &c.inject_overflow_step, 1, UINT64_MAX,
             "test hook: poison this step's gradient with Inf (1..total steps); it is skipped")
      ->default_str("");
  AddInteger(cmd, "--inject-failure", &c.inject_failure_step, 1, UINT64_MAX,
             "test hook: the last rank fails at this step (1..total steps)")
      ->default_str("");
  AddInteger(cmd, train::kLinkBytesRule, &c.interconnect.link_bytes_per_cycle,
             "under mpirun: inter-chip link bandwidth, bytes per device cycle (TPU v2 ICI)");
  AddInteger(cmd, train::kLinkLatencyRule, &c.interconnect.link_latency_cycles,
             "under mpirun: inter-chip link latency in device cycles");
  cmd->add_option("--log", a.log, "per-epoch CSV log")->type_name("FILE.csv");
  cmd->add_option("--plot", a.plot, "loss and accuracy curves")->type_name("FILE.png");
  cmd->add_flag("--json", a.json, "the summary as one JSON object on stdout (non-finite: null)");
  cmd->add_flag("--quiet", a.quiet, "no progress or per-epoch lines");
  AddDeviceOptions(
      cmd, &a.device,
      "rtl (the verilated RTL platform), model (the fast C++ model) or host (plain fp32)");
  AddTraceOptions(cmd, &a.trace);
  return [cmd, args] { return RunTrain(*cmd, *args); };
}

}  // namespace mxu::host
