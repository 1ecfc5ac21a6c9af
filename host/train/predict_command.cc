#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/csr_map.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "host/cli/cli.h"
#include "host/cli/device_options.h"
#include "host/cli/output_file.h"
#include "host/train/commands.h"
#include "host/train/data_inputs.h"
#include "host/train/training_engine.h"
#include "io/npy.h"
#include "train/checkpoint.h"
#include "train/collective.h"
#include "train/data/data_source.h"
#include "train/evaluate.h"
#include "train/mlp.h"
#include "train/quantized_mlp.h"
#include "train/trainer.h"

namespace mxu::host {
namespace {

struct PredictArgs {
  DeviceOptions device;
  std::string model, data, out;
  int test_samples = 0;
  bool json = false;
  // Post-training quantization: inference in the int8 mode.
  bool int8 = false;
  int calibration = 1000;
};

// The checkpoint's test set, or the one --data names.
train::LoadedData LoadTestData(const CLI::App& cli, const PredictArgs& args,
                               const train::Checkpoint& ck) {
  train::DataSource source;
  source.data = Given(cli, "--data") ? args.data : ck.data.data;
  const bool same_data = SameData(source.data, ck.data.data);
  // The training run's split: the same first N samples (an IDX set without t10k files is split
  // 80/20, so the training count matters too).
  source.train_samples = same_data ? ck.data.train_samples : 0;
  source.test_samples = Given(cli, "--test-samples") ? args.test_samples
                        : same_data                  ? ck.data.test_samples
                                                     : 0;
  source.classes = ck.data.classes;
  source.samples_per_class = ck.data.samples_per_class;
  if (source.data.empty() && Given(cli, "--test-samples")) {
    throw UsageError("--test-samples takes the first N samples of --data; " + ck.data.name +
                     " are generated whole from the seed");
  }
  try {
    train::LoadedData loaded = train::LoadData(source, ck.config.seed);
    if (same_data) loaded.name = ck.data.name;  // the set the model was trained on, by any path
    return loaded;
  } catch (const std::runtime_error& error) {
    throw UsageError(error.what());
  }
}

// The checkpoint --model names; an unreadable one is bad input.
train::Checkpoint ReadModelCheckpoint(const std::string& path) {
  try {
    return train::ReadCheckpoint(path);
  } catch (const std::runtime_error& error) {
    throw UsageError(std::string("--model ") + error.what());
  }
}

// The test set must have the model's inputs and classes (and images, for a CNN).
void CheckDataFitsModel(const train::LoadedData& loaded, const train::Checkpoint& ck,
                        const std::string& model_path) {
  const train::Dataset& test = loaded.split.test;
  if (test.features != ck.data.features || test.classes != ck.data.classes) {
    throw UsageError("--data: " + loaded.name + " has " + std::to_string(test.features) +
                     " features and " + std::to_string(test.classes) + " classes; the model " +
                     ck.model + " in " + model_path + " takes " + std::to_string(ck.data.features) +
                     " and " + std::to_string(ck.data.classes));
  }
  if (ck.config.model == "cnn" && (test.image_rows == 0 || test.image_cols == 0)) {
    throw UsageError("the CNN in " + model_path + " needs image data; " + loaded.name + " is not");
  }
}

// The checkpoint's model with its weights, on one chip: a model-parallel run's checkpoint holds
// the whole model too (and a model that is not split keeps no reference to `one`).
std::unique_ptr<train::Model> RestoreModel(const train::Checkpoint& ck,
                                           const train::LoadedData& loaded,
                                           const std::string& model_path) {
  train::TrainConfig config = ck.config;
  config.model_parallel = false;
  train::SingleProcess one;
  std::unique_ptr<train::Model> model = train::MakeModel(config, loaded.split.train, one);
  const std::vector<std::vector<float>*> params = model->Parameters();
  if (model->Describe() != ck.model || params.size() != ck.state.parameters.size()) {
    throw UsageError("--model " + model_path + ": its weights do not make " + ck.model);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i]->size() != ck.state.parameters[i].size()) {
      throw UsageError("--model " + model_path + ": weight tensor " + std::to_string(i) +
                       " has the wrong size for " + ck.model);
    }
    *params[i] = ck.state.parameters[i];
  }
  return model;
}

// The test set's evaluation, with the GEMMs' statistics and (--int8) the quantization's
// description.
struct Evaluation {
  train::EvaluationSums sums;
  train::EngineStats int8_stats;  // --int8: the int8 GEMMs' (the engine keeps the others')
  std::string quantization;
  double accuracy = 0, loss = 0;
};

// --int8: post-training quantization of an MLP, every GEMM in the int8 mode on the device
// through the driver, or on the host's golden model.
void EvaluateInt8(const PredictArgs& args, const train::Checkpoint& ck, const train::Model& model,
                  const train::LoadedData& loaded, TrainingEngine& opened, Evaluation* e) {
  const auto* mlp = dynamic_cast<const train::Mlp*>(&model);
  if (!mlp) {
    throw UsageError("--int8 quantizes MLPs; " + ck.model + " in " + args.model +
                     " is not one (the CNN runs in bf16)");
  }
  const train::QuantizedMlp quantized =
      train::QuantizedMlp::Quantize(*mlp, loaded.split.train, args.calibration);
  e->quantization = quantized.Describe();
  train::Int8ChainRunner run = train::RunInt8OnHost;
  std::optional<driver::DeviceConfig> device_config;
  if (opened.device) {
    device_config = driver::ReadDeviceConfig(*opened.device);
    run = [&](const std::vector<driver::GemmRequest>& chain) {
      return train::RunInt8OnDevice(*opened.device, *device_config, chain,
                                    args.device.watchdog_cycles, &e->int8_stats);
    };
  }
  const train::Dataset& test = loaded.split.test;
  e->sums =
      train::EvaluateSamples([&](const driver::Fp32Matrix& x) { return quantized.Logits(x, run); },
                             test, 0, static_cast<size_t>(test.size()), ck.config.eval_batch);
}

Evaluation Evaluate(const PredictArgs& args, const train::Checkpoint& ck, train::Model& model,
                    const train::LoadedData& loaded, TrainingEngine& opened) {
  const train::Dataset& test = loaded.split.test;
  Evaluation e;
  if (args.int8) {
    EvaluateInt8(args, ck, model, loaded, opened, &e);
  } else {
    e.sums = train::EvaluateSamples(model, *opened.engine, test, 0,
                                    static_cast<size_t>(test.size()), ck.config.eval_batch);
  }
  e.accuracy = double(e.sums.correct) / test.size();
  e.loss = e.sums.loss_sum / test.size();
  return e;
}

// What the report says of one run.
struct PredictRun {
  const train::Checkpoint& ck;
  const train::LoadedData& loaded;
  const TrainingEngine& opened;
  const Evaluation& evaluation;
  const train::EngineStats& stats;
  // The training run's final evaluation, when it was of this very set and arithmetic.
  bool comparable = false;
};

void PrintJson(const PredictArgs& args, const PredictRun& run) {
  const train::Checkpoint& ck = run.ck;
  nlohmann::ordered_json j;
  j["model"] = ck.model;
  j["checkpoint"] = args.model;
  j["data"] = run.loaded.name;
  j["samples"] = run.loaded.split.test.size();
  j["backend"] = run.opened.engine->name();
  j["numerics"] = args.int8 ? "int8 x int8 -> int32, requantized (post-training quantization)"
                            : run.opened.numerics;
  if (args.int8) {
    j["calibration_samples"] = std::min(args.calibration, run.loaded.split.train.size());
  }
  if (run.opened.device) {
    j["device_cycles"] = run.stats.device_cycles;
    j["dma_read_bytes"] = run.stats.dma_read_bytes;
    j["dma_write_bytes"] = run.stats.dma_write_bytes;
  }
  j["test_loss"] = run.evaluation.loss;
  j["test_accuracy"] = run.evaluation.accuracy;
  if (run.comparable) j["trained_test_accuracy"] = ck.history.back().test_accuracy;
  j["confusion"] = run.evaluation.sums.confusion;  // rows: true class, columns: predicted
  std::printf("%s\n", j.dump().c_str());
}

void PrintText(const PredictArgs& args, const PredictRun& run) {
  const train::Checkpoint& ck = run.ck;
  const Evaluation& e = run.evaluation;
  if (args.int8) std::printf("%s", e.quantization.c_str());
  const std::string gemms =
      args.int8 ? std::string(run.opened.engine->name()) + " (int8 x int8 -> int32, requantized)"
                : run.opened.description;
  std::printf("%s on %d %s test samples, GEMMs on %s: accuracy %.2f%%, loss %.4f\n",
              ck.model.c_str(), run.loaded.split.test.size(), run.loaded.name.c_str(),
              gemms.c_str(), 100 * e.accuracy, e.loss);
  if (run.opened.device) {
    std::printf("device cycles %llu, DMA read / write %llu / %llu bytes\n",
                (unsigned long long)run.stats.device_cycles,
                (unsigned long long)run.stats.dma_read_bytes,
                (unsigned long long)run.stats.dma_write_bytes);
  }
  if (run.comparable) {
    std::printf("the training run's evaluation after epoch %d: accuracy %.2f%%%s\n",
                ck.history.back().epoch, 100 * ck.history.back().test_accuracy,
                ck.history.back().test_accuracy == e.accuracy ? " (the same)" : " (differs!)");
  }
}

int Predict(const CLI::App& cli, const PredictArgs& args) {
  if (args.device.backend == "host") {
    RejectDeviceOptions(cli, "with --backend host (no device)");
  }
  std::vector<PathArg> outputs;
  if (Given(cli, "--out")) outputs.push_back({"--out", args.out});
  CheckOutputPaths(outputs, {{"--model", args.model}});
  const train::Checkpoint ck = ReadModelCheckpoint(args.model);
  // The data set's files are inputs too: --data's, or those of the set the model names.
  CheckOutputPaths(outputs, Given(cli, "--data") ? DataInputs("--data", args.data)
                                                 : DataInputs("--model's data", ck.data.data));
  const train::LoadedData loaded = LoadTestData(cli, args, ck);
  CheckDataFitsModel(loaded, ck, args.model);
  const std::unique_ptr<train::Model> model = RestoreModel(ck, loaded, args.model);

  TrainingEngine opened = OpenTrainingEngine(args.device);
  const Evaluation evaluation = Evaluate(args, ck, *model, loaded, opened);
  const train::Dataset& test = loaded.split.test;
  PredictRun run{ck, loaded, opened, evaluation,
                 args.int8 ? evaluation.int8_stats : opened.engine->stats()};
  run.comparable = !args.int8 && !ck.history.empty() && loaded.name == ck.data.name &&
                   test.size() == ck.data.test_samples && opened.numerics == ck.numerics;

  PendingOutputs files;
  if (Given(cli, "--out")) {
    files.Write(args.out, [&](const std::string& temp) {
      const std::vector<int32_t> predictions(evaluation.sums.predictions.begin(),
                                             evaluation.sums.predictions.end());
      WriteNpy(temp, MakeNpy(predictions, {predictions.size()}));
    });
  }
  if (args.json) {
    PrintJson(args, run);
  } else {
    PrintText(args, run);
  }
  FlushStdout();
  files.Commit();
  return 0;
}

}  // namespace

std::function<int()> AddPredictCommand(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  PredictArgs& a = *args;
  CLI::App* cmd = app.add_subcommand(
      "predict",
      "Inference with a model `mxu train --save` wrote: every GEMM on the device (or --backend "
      "host), the test set's accuracy and confusion matrix, the predicted classes with --out. "
      "Without --data, the data set the model was trained on (its test part), so the accuracy "
      "is the training run's final evaluation.");
  cmd->footer(kExitCodesHelp);
  cmd->add_option("--model", a.model, "the checkpoint (mxu train --save)")
      ->type_name("FILE.npz")
      ->required();
  CLI::Option* data =
      cmd->add_option("--data", a.data,
                      "directory of IDX files as mxu train takes them, or fashion-mnist (default: "
                      "the model's own data set)")
          ->type_name("DIR")
          ->check(NotEmpty("a directory of IDX files or fashion-mnist"));
  AddInteger(cmd, train::kTestSamplesRule, &a.test_samples,
             "keep the first N test samples (0: all; default: as many as the training run)")
      ->needs(data);
  cmd->add_option("--out", a.out, "the predicted classes, one int32 per test sample")
      ->type_name("FILE.npy");
  CLI::Option* int8 = cmd->add_flag(
      "--int8", a.int8,
      "post-training quantization: per-column int8 weights, activation scales calibrated on "
      "training samples, every GEMM in the int8 mode (MLPs)");
  AddInteger(cmd, "--calibration", &a.calibration, 1, 1 << 30,
             "int8: training samples the activation ranges are calibrated on (default 1000)")
      ->needs(int8);
  cmd->add_flag("--json", a.json,
                "the result as one JSON object on stdout: test_accuracy, test_loss, confusion");
  AddDeviceOptions(
      cmd, &a.device,
      "rtl (the verilated RTL platform), model (the fast C++ model) or host (plain fp32)");
  return [cmd, args] { return Predict(*cmd, *args); };
}

}  // namespace mxu::host
