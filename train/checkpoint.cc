#include "train/checkpoint.h"

#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "io/npz.h"
#include "train/setting_rules.h"

namespace mxu::train {
namespace {

using host::MakeNpy;
using host::MakeNpyString;
using host::NpyArray;

constexpr const char* kFormat = "mxu-train-checkpoint-1";
// The per-epoch history's columns (history_weights_hash and confusion aside).
constexpr int kHistoryColumns = 12;

// Builds the archive's list of named arrays.
class Writer {
 public:
  void String(const std::string& name, const std::string& text) { Add(name, MakeNpyString(text)); }
  void U64(const std::string& name, uint64_t value) {
    Add(name, MakeNpy(std::vector<uint64_t>{value}, {}));
  }
  void F32(const std::string& name, float value) {
    Add(name, MakeNpy(std::vector<float>{value}, {}));
  }
  void F64(const std::string& name, double value) {
    Add(name, MakeNpy(std::vector<double>{value}, {}));
  }
  void U64s(const std::string& name, const std::vector<uint64_t>& values) {
    Add(name, MakeNpy(values, {values.size()}));
  }
  void I32s(const std::string& name, const std::vector<int>& values,
            std::vector<size_t> shape = {}) {
    if (shape.empty()) shape = {values.size()};
    Add(name, MakeNpy(std::vector<int32_t>(values.begin(), values.end()), shape));
  }
  void F32s(const std::string& name, const std::vector<float>& values,
            const std::vector<size_t>& shape) {
    Add(name, MakeNpy(values, shape));
  }
  void F64s(const std::string& name, const std::vector<double>& values,
            const std::vector<size_t>& shape) {
    Add(name, MakeNpy(values, shape));
  }
  std::vector<std::pair<std::string, NpyArray>>& arrays() { return arrays_; }

 private:
  void Add(const std::string& name, NpyArray array) {
    arrays_.emplace_back(name, std::move(array));
  }
  std::vector<std::pair<std::string, NpyArray>> arrays_;
};

// Looks arrays up by name and checks their dtype and shape; every error names the file.
class Reader {
 public:
  Reader(const std::string& path, std::vector<std::pair<std::string, NpyArray>> arrays)
      : path_(path) {
    for (auto& [name, array] : arrays) arrays_.emplace(name, std::move(array));
  }
  [[noreturn]] void Fail(const std::string& what) const {
    throw std::runtime_error(path_ + ": " + what);
  }
  bool Has(const std::string& name) const { return arrays_.count(name) != 0; }
  const NpyArray& Get(const std::string& name, NpyArray::Dtype dtype, const char* dtype_text,
                      int rank) const {
    const auto it = arrays_.find(name);
    if (it == arrays_.end()) Fail("no array '" + name + "': not a whole mxu checkpoint");
    const NpyArray& array = it->second;
    if (array.dtype != dtype || static_cast<int>(array.shape.size()) != rank) {
      Fail("array '" + name + "' is not a " + std::to_string(rank) + "-d " + dtype_text + " array");
    }
    return array;
  }
  std::string String(const std::string& name) const {
    return Get(name, NpyArray::Dtype::kUnicode, "string", 0).AsString();
  }
  uint64_t U64(const std::string& name) const {
    return Get(name, NpyArray::Dtype::kUint64, "uint64", 0).AsUint64()[0];
  }
  // A count that must fit an int (sizes, widths).
  int Int(const std::string& name, uint64_t max = 1u << 30) const {
    const uint64_t value = U64(name);
    if (value > max)
      Fail("'" + name + "' is " + std::to_string(value) + ", above " + std::to_string(max));
    return static_cast<int>(value);
  }
  float F32(const std::string& name) const {
    return Get(name, NpyArray::Dtype::kFloat32, "float32", 0).AsFloat32()[0];
  }
  double F64(const std::string& name) const {
    return Get(name, NpyArray::Dtype::kFloat64, "float64", 0).AsFloat64()[0];
  }
  std::vector<uint64_t> U64s(const std::string& name, size_t count) const {
    const NpyArray& a = Get(name, NpyArray::Dtype::kUint64, "uint64", 1);
    if (a.shape[0] != count)
      Fail("'" + name + "' has " + std::to_string(a.shape[0]) + " values, expected " +
           std::to_string(count));
    return a.AsUint64();
  }
  // One value per rank: a 1-d array of `count`, or a 0-d value (a checkpoint written before the
  // ranks' running totals were kept), rank 0's.
  const NpyArray& PerRank(const std::string& name, NpyArray::Dtype dtype, const char* dtype_text,
                          size_t count) const {
    const auto it = arrays_.find(name);
    if (it == arrays_.end()) Fail("no array '" + name + "': not a whole mxu checkpoint");
    const NpyArray& a = it->second;
    if (a.dtype != dtype || a.shape.size() > 1 || (a.shape.size() == 1 && a.shape[0] != count)) {
      Fail("array '" + name + "' is not " + std::to_string(count) + " " + dtype_text +
           " value(s), one per rank");
    }
    return a;
  }
  std::vector<int> I32s(const std::string& name, int rank = 1) const {
    const std::vector<int32_t> values = Get(name, NpyArray::Dtype::kInt32, "int32", rank).AsInt32();
    return std::vector<int>(values.begin(), values.end());
  }
  const NpyArray& F32s(const std::string& name, int rank) const {
    return Get(name, NpyArray::Dtype::kFloat32, "float32", rank);
  }
  const NpyArray& F64s(const std::string& name, int rank) const {
    return Get(name, NpyArray::Dtype::kFloat64, "float64", rank);
  }

 private:
  std::string path_;
  std::map<std::string, NpyArray> arrays_;
};

// A shape as NumPy prints it: (32, 2).
std::string ShapeText(const std::vector<size_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

// Weights are inputs x outputs, the bias after them has one value per output.
std::vector<size_t> TensorShape(const std::vector<std::vector<float>>& tensors, size_t i) {
  if (i % 2 == 1) return {tensors[i].size()};
  const size_t outputs = tensors[i + 1].size();
  return {outputs ? tensors[i].size() / outputs : 0, outputs};
}

std::vector<uint64_t> StatsWords(const EngineStats& s) {
  return {s.gemms, s.macs, s.device_cycles, s.array_busy_cycles};
}

EngineStats StatsFromWords(const std::vector<uint64_t>& w) {
  EngineStats s;
  s.gemms = w[0];
  s.macs = w[1];
  s.device_cycles = w[2];
  s.array_busy_cycles = w[3];
  return s;
}

}  // namespace

std::vector<std::string> ParameterNames(const TrainConfig& config) {
  std::vector<std::string> names;
  if (config.model == "cnn") {
    for (size_t l = 1; l <= config.channels.size(); ++l) {
      names.push_back("conv" + std::to_string(l) + "_w");
      names.push_back("conv" + std::to_string(l) + "_b");
    }
  }
  for (size_t l = 1; l <= config.hidden.size() + 1; ++l) {
    names.push_back("dense" + std::to_string(l) + "_w");
    names.push_back("dense" + std::to_string(l) + "_b");
  }
  return names;
}

void WriteCheckpoint(const std::string& path, const Checkpoint& ck) {
  const TrainConfig& c = ck.config;
  const TrainerState& s = ck.state;
  Writer w;
  w.String("format", kFormat);
  // The model and the data.
  w.String("model", ck.model);
  w.String("model_kind", c.model);
  w.I32s("hidden", c.hidden);
  w.I32s("channels", c.model == "cnn" ? c.channels : std::vector<int>());
  w.String("numerics", ck.numerics);
  w.String("data_name", ck.data.name);
  w.String("data", ck.data.data);
  w.U64("train_samples", ck.data.train_samples);
  w.U64("test_samples", ck.data.test_samples);
  w.U64("features", ck.data.features);
  w.U64("classes", ck.data.classes);
  w.U64("samples_per_class", ck.data.samples_per_class);
  // The run's settings.
  w.U64("seed", c.seed);
  w.U64("epochs", c.epochs);
  w.U64("batch", c.batch_size);
  w.U64("accumulate_steps", c.accumulate_steps);
  w.F32("dropout", c.dropout);
  w.F32("clip_norm", c.clip_norm);
  w.String("optimizer", c.optimizer.kind);
  w.F32("learning_rate", c.optimizer.learning_rate);
  w.F32("momentum", c.optimizer.momentum);
  w.F32("loss_scale_initial", c.loss_scaling.initial_scale);
  w.U64("scale_growth", c.loss_scaling.growth_interval);
  w.String("parallel", c.model_parallel ? "model" : "data");
  w.U64("ranks", ck.ranks);
  w.U64("link_bytes_per_cycle", c.interconnect.link_bytes_per_cycle);
  w.U64("link_latency", c.interconnect.link_latency_cycles);
  // The weights and the optimizer's moments, named after the parameters.
  const std::vector<std::string> names = ParameterNames(c);
  if (names.size() != s.parameters.size()) {
    throw std::invalid_argument("WriteCheckpoint: the state's tensors do not match the model");
  }
  for (size_t i = 0; i < names.size(); ++i) {
    w.F32s(names[i], s.parameters[i], TensorShape(s.parameters, i));
  }
  const bool adam = c.optimizer.kind == "adam";
  for (size_t i = 0; i < s.optimizer.first.size(); ++i) {
    w.F32s((adam ? "adam_m_" : "sgd_velocity_") + names[i], s.optimizer.first[i],
           TensorShape(s.parameters, i));
  }
  for (size_t i = 0; i < s.optimizer.second.size(); ++i) {
    w.F32s("adam_v_" + names[i], s.optimizer.second[i], TensorShape(s.parameters, i));
  }
  w.U64("optimizer_steps", s.optimizer.steps);
  // The loss scaler.
  w.F32("loss_scale", s.scaler.scale);
  w.U64("loss_scale_good_steps", static_cast<uint64_t>(s.scaler.good_in_a_row));
  w.U64("skipped_steps", s.scaler.skipped);
  // The position in the data.
  w.U64("epoch", static_cast<uint64_t>(s.epoch));
  w.U64("epoch_step", static_cast<uint64_t>(s.epoch_step));
  w.U64("step", s.step);
  w.I32s("order", s.order);
  w.U64s("shuffle_rng", {s.shuffle_rng.begin(), s.shuffle_rng.end()});
  w.F64s("epoch_loss_sum", s.loss_sums, {s.loss_sums.size()});  // one per data-parallel rank
  w.U64s("epoch_correct", s.corrects);
  w.U64s("epoch_seen", s.seens);
  // The counters the log reports.
  w.U64s("engine_stats", StatsWords(s.engine));
  w.U64s("training_stats", StatsWords(s.training));
  w.U64("communication_cycles", s.communication_cycles);
  w.U64("training_communication_cycles", s.training_communication_cycles);
  w.U64("clipped_steps", s.clipped_steps);
  // The finished epochs.
  std::vector<double> history;
  std::vector<uint64_t> hashes;
  for (const EpochRecord& r : ck.history) {
    const double row[kHistoryColumns] = {double(r.epoch),
                                         r.train_loss,
                                         r.train_accuracy,
                                         r.test_loss,
                                         r.test_accuracy,
                                         double(r.loss_scale),
                                         double(r.steps),
                                         double(r.skipped_steps),
                                         double(r.engine.gemms),
                                         double(r.engine.device_cycles),
                                         double(r.engine.array_busy_cycles),
                                         double(r.communication_cycles)};
    history.insert(history.end(), row, row + kHistoryColumns);
    hashes.push_back(r.weights_hash);
  }
  w.F64s("history", history, {ck.history.size(), kHistoryColumns});
  w.U64s("history_weights_hash", hashes);
  if (!ck.history.empty()) {
    std::vector<int> confusion;
    for (const std::vector<int>& row : ck.history.back().confusion) {
      confusion.insert(confusion.end(), row.begin(), row.end());
    }
    const size_t classes = ck.history.back().confusion.size();
    w.I32s("confusion", confusion, {classes, classes});
  }
  host::WriteNpz(path, w.arrays());
}

namespace {

// The model, its data set and the numerics (checked: a known model kind, widths in range).
void ReadModelAndData(const Reader& r, Checkpoint& ck) {
  TrainConfig& c = ck.config;
  ck.model = r.String("model");
  c.model = r.String("model_kind");
  if (c.model != "mlp" && c.model != "cnn") r.Fail("unknown model kind '" + c.model + "'");
  c.hidden = r.I32s("hidden");
  c.channels = r.I32s("channels");
  if (c.model == "mlp") c.channels.clear();
  for (int width : c.hidden) {
    if (width < 1 || width > 4096) r.Fail("a hidden width out of range");
  }
  for (int width : c.channels) {
    if (width < 1 || width > 4096) r.Fail("a channel count out of range");
  }
  ck.numerics = r.String("numerics");
  ck.data.name = r.String("data_name");
  ck.data.data = r.String("data");
  ck.data.train_samples = r.Int("train_samples");
  ck.data.test_samples = r.Int("test_samples");
  ck.data.features = r.Int("features");
  ck.data.classes = r.Int("classes");
  ck.data.samples_per_class = r.Int("samples_per_class");
  // What the loaders make: samples of each split, pixels or coordinates, byte labels.
  const DataIdentity& d = ck.data;
  if (d.train_samples < 1 || d.test_samples < 1) r.Fail("a data set without samples");
  if (d.features < 1) r.Fail("'features' is 0");
  if (d.classes < 2 || d.classes > 256) {
    r.Fail("'classes' must be in [2, 256], got " + std::to_string(d.classes));
  }
  if (d.data.empty()) {  // the spirals, generated from the settings the options take
    const std::string problem = RuleProblem(kSamplesPerClassRule, d.samples_per_class) +
                                RuleProblem(kClassesRule, d.classes);
    if (!problem.empty()) r.Fail("the spirals' 'samples_per_class' or 'classes' " + problem);
  } else if (d.samples_per_class != 0) {
    r.Fail("'samples_per_class' is for the spirals, not --data " + d.data);
  }
}

// The run's settings.
void ReadSettings(const Reader& r, Checkpoint& ck) {
  TrainConfig& c = ck.config;
  c.seed = r.U64("seed");
  c.epochs = r.Int("epochs", 100000);
  c.batch_size = r.Int("batch", 65535);
  c.accumulate_steps = r.Int("accumulate_steps", 65535);
  c.dropout = r.F32("dropout");
  c.clip_norm = r.F32("clip_norm");
  c.optimizer.kind = r.String("optimizer");
  c.optimizer.learning_rate = r.F32("learning_rate");
  c.optimizer.momentum = r.F32("momentum");
  c.loss_scaling.initial_scale = r.F32("loss_scale_initial");
  c.loss_scaling.growth_interval = r.Int("scale_growth", 1'000'000);
  const std::string parallel = r.String("parallel");
  if (parallel != "data" && parallel != "model") r.Fail("unknown parallelism '" + parallel + "'");
  c.model_parallel = parallel == "model";
  ck.ranks = r.Int("ranks", 1 << 20);
  c.interconnect.link_bytes_per_cycle = r.U64("link_bytes_per_cycle");
  c.interconnect.link_latency_cycles = r.U64("link_latency");
  // Nothing the command line would refuse (train/setting_rules.h).
  const std::string problem = SettingsProblem(c);
  if (!problem.empty()) r.Fail(problem);
  if (ck.ranks < 1) r.Fail("'ranks' is 0");
  if (c.model_parallel && ck.ranks < 2) r.Fail("model parallelism on one rank");
}

// A parameter tensor's shape: weights inputs x outputs, then the bias, one value per output.
// Element counts alone would take a transposed or reshaped matrix.
std::vector<size_t> ExpectedShape(const Reader& r, const std::vector<std::string>& names,
                                  size_t i) {
  const bool weights = i % 2 == 0;
  const NpyArray& tensor = r.F32s(names[i], weights ? 2 : 1);
  if (!weights) return tensor.shape;
  const size_t outputs = r.F32s(names[i + 1], 1).shape[0];
  if (tensor.shape[1] != outputs) {
    r.Fail("'" + names[i] + "' is " + ShapeText(tensor.shape) + ": its columns must be the " +
           std::to_string(outputs) + " outputs of '" + names[i + 1] + "'");
  }
  return tensor.shape;
}

// The layers' widths: a conv layer's outputs are its channels, a dense layer's the hidden width or
// the classes, and a dense layer's inputs the data's features (an MLP's first) or the outputs
// before it. (A conv layer's and a CNN's first dense layer's inputs follow from the images: the
// model checks their element counts, which the columns make their shapes.)
void CheckWidths(const Reader& r, const Checkpoint& ck, const std::vector<std::string>& names,
                 const std::vector<std::vector<size_t>>& shapes) {
  const TrainConfig& c = ck.config;
  std::vector<size_t> outputs;
  if (c.model == "cnn") outputs.assign(c.channels.begin(), c.channels.end());
  const size_t first_dense = outputs.size();
  outputs.insert(outputs.end(), c.hidden.begin(), c.hidden.end());
  outputs.push_back(static_cast<size_t>(ck.data.classes));
  for (size_t l = 0; l < outputs.size(); ++l) {
    const std::vector<size_t>& w = shapes[2 * l];
    const bool inputs_known = l > first_dense || (l == 0 && c.model == "mlp");
    const size_t inputs = l == 0 ? static_cast<size_t>(ck.data.features) : outputs[l - 1];
    if (w[1] != outputs[l] || (inputs_known && w[0] != inputs)) {
      r.Fail("'" + names[2 * l] + "' is " + ShapeText(w) + ", not the model's " +
             (inputs_known ? std::to_string(inputs) : std::string("N")) + "x" +
             std::to_string(outputs[l]));
    }
  }
}

// Every value finite (a NaN weight would make every step skipped); Adam's second moments >= 0.
void CheckFinite(const Reader& r, const std::string& name, const std::vector<float>& values,
                 bool non_negative = false) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]) || (non_negative && values[i] < 0)) {
      r.Fail("'" + name + "'[" + std::to_string(i) + "] is " + std::to_string(values[i]) +
             (non_negative ? ": not a finite number >= 0" : ": not a finite number"));
    }
  }
}

// The weights and the optimizer's moments (when the checkpoint has them), named after the
// parameters, each of its parameter's shape: those of the run's optimizer only.
void ReadTensors(const Reader& r, const Checkpoint& ck, TrainerState& s) {
  const TrainConfig& c = ck.config;
  const std::vector<std::string> names = ParameterNames(c);
  std::vector<std::vector<size_t>> shapes;
  for (size_t i = 0; i < names.size(); ++i) {
    shapes.push_back(ExpectedShape(r, names, i));
    s.parameters.push_back(r.F32s(names[i], static_cast<int>(shapes[i].size())).AsFloat32());
    CheckFinite(r, names[i], s.parameters.back());
  }
  CheckWidths(r, ck, names, shapes);
  const bool adam = c.optimizer.kind == "adam";
  const std::string other = adam ? "sgd_velocity_" : "adam_m_";
  if (r.Has(other + names[0]) || (!adam && r.Has("adam_v_" + names[0]))) {
    r.Fail("it holds the moments of " + std::string(adam ? "SGD" : "Adam") +
           ", but its optimizer is " + c.optimizer.kind);
  }
  const auto moments = [&](const std::string& prefix, bool non_negative) {
    std::vector<std::vector<float>> tensors;
    if (!r.Has(prefix + names[0])) return tensors;
    for (size_t i = 0; i < names.size(); ++i) {
      const NpyArray& moment = r.F32s(prefix + names[i], static_cast<int>(shapes[i].size()));
      if (moment.shape != shapes[i]) {
        r.Fail("'" + prefix + names[i] + "' is " + ShapeText(moment.shape) + ", '" + names[i] +
               "' " + ShapeText(shapes[i]));
      }
      tensors.push_back(moment.AsFloat32());
      CheckFinite(r, prefix + names[i], tensors.back(), non_negative);
    }
    return tensors;
  };
  s.optimizer.first = moments(adam ? "adam_m_" : "sgd_velocity_", false);
  if (adam) {
    s.optimizer.second = moments("adam_v_", true);
    if (s.optimizer.first.empty() != s.optimizer.second.empty()) {
      r.Fail("Adam's first and second moments come together");
    }
  }
}

// The optimizer's and loss scaler's counters, the position in the data and the counters the log
// reports.
void ReadPosition(const Reader& r, const Checkpoint& ck, TrainerState& s) {
  s.optimizer.steps = r.U64("optimizer_steps");
  s.scaler.scale = r.F32("loss_scale");
  s.scaler.good_in_a_row = r.Int("loss_scale_good_steps", 1'000'000);
  s.scaler.skipped = r.U64("skipped_steps");
  s.epoch = r.Int("epoch", 100000);
  s.epoch_step = r.Int("epoch_step");
  s.step = r.U64("step");
  s.order = r.I32s("order");
  const std::vector<uint64_t> rng = r.U64s("shuffle_rng", 4);
  for (int i = 0; i < 4; ++i) s.shuffle_rng[i] = rng[i];
  // One per data-parallel rank (checkpoint.h).
  const size_t ranks = ck.config.model_parallel ? 1 : static_cast<size_t>(ck.ranks);
  const NpyArray& loss = r.PerRank("epoch_loss_sum", NpyArray::Dtype::kFloat64, "float64", ranks);
  const NpyArray& correct = r.PerRank("epoch_correct", NpyArray::Dtype::kUint64, "uint64", ranks);
  const NpyArray& seen = r.PerRank("epoch_seen", NpyArray::Dtype::kUint64, "uint64", ranks);
  s.loss_sums = loss.AsFloat64();
  s.corrects = correct.AsUint64();
  s.seens = seen.AsUint64();
  // A 0-d value is rank 0's: the other ranks start from 0.
  s.loss_sums.resize(ranks, 0);
  s.corrects.resize(ranks, 0);
  s.seens.resize(ranks, 0);
  for (size_t rank = 0; rank < ranks; ++rank) {
    if (s.corrects[rank] > s.seens[rank] || s.seens[rank] > uint64_t(ck.data.train_samples) ||
        s.loss_sums[rank] < 0) {
      r.Fail("the running totals of rank " + std::to_string(rank) + " do not fit the data");
    }
  }
  s.engine = StatsFromWords(r.U64s("engine_stats", 4));
  s.training = StatsFromWords(r.U64s("training_stats", 4));
  s.communication_cycles = r.U64("communication_cycles");
  s.training_communication_cycles = r.U64("training_communication_cycles");
  s.clipped_steps = r.U64("clipped_steps");
  // Counts within the run's steps (the trainer checks the steps against the data).
  const bool adam = ck.config.optimizer.kind == "adam";
  if (s.scaler.skipped > s.step || s.clipped_steps > s.step - s.scaler.skipped) {
    r.Fail("more skipped or clipped steps than the " + std::to_string(s.step) + " steps run");
  }
  if (adam ? s.optimizer.steps != s.step - s.scaler.skipped ||
                 s.optimizer.first.empty() != (s.optimizer.steps == 0)
           : s.optimizer.steps != 0) {
    r.Fail("'optimizer_steps' " + std::to_string(s.optimizer.steps) + " is not the " +
           std::to_string(adam ? s.step - s.scaler.skipped : 0) + " steps its optimizer applied");
  }
  if (s.epoch > ck.config.epochs) r.Fail("'epoch' is past the run's 'epochs'");
}

// The finished epochs, each with its weights' hash, and the last one's confusion matrix.
void ReadHistory(const Reader& r, Checkpoint& ck) {
  const NpyArray& history = r.F64s("history", 2);
  if (history.shape[1] != kHistoryColumns) r.Fail("'history' does not have 12 columns");
  const std::vector<double> rows = history.AsFloat64();
  const std::vector<uint64_t> hashes = r.U64s("history_weights_hash", history.shape[0]);
  for (size_t e = 0; e < history.shape[0]; ++e) {
    const double* row = &rows[e * kHistoryColumns];
    // Counts are whole numbers a double holds exactly (a NaN or 1e300 would not convert);
    // accuracies fractions. Losses may be anything a diverged run reports.
    for (const int column : {0, 5, 6, 7, 8, 9, 10, 11}) {
      if (!(row[column] >= 0 && row[column] <= 9007199254740992.0) ||
          row[column] != std::floor(row[column])) {
        r.Fail("'history' row " + std::to_string(e) + " column " + std::to_string(column) +
               " is not a count");
      }
    }
    if (!(row[2] >= 0 && row[2] <= 1 && row[4] >= 0 && row[4] <= 1) || row[7] > row[6]) {
      r.Fail("'history' row " + std::to_string(e) +
             " holds an accuracy outside [0, 1] or more "
             "skipped steps than steps");
    }
    EpochRecord rec;
    rec.epoch = static_cast<int>(row[0]);
    rec.train_loss = row[1];
    rec.train_accuracy = row[2];
    rec.test_loss = row[3];
    rec.test_accuracy = row[4];
    rec.loss_scale = static_cast<float>(row[5]);
    rec.steps = static_cast<uint64_t>(row[6]);
    rec.skipped_steps = static_cast<uint64_t>(row[7]);
    rec.engine.gemms = static_cast<uint64_t>(row[8]);
    rec.engine.device_cycles = static_cast<uint64_t>(row[9]);
    rec.engine.array_busy_cycles = static_cast<uint64_t>(row[10]);
    rec.communication_cycles = static_cast<uint64_t>(row[11]);
    rec.weights_hash = hashes[e];
    if (rec.epoch != static_cast<int>(e) + 1) r.Fail("'history' is not epochs 1, 2, ... in order");
    ck.history.push_back(rec);
  }
  if (!ck.history.empty()) {
    const std::vector<int> confusion = r.I32s("confusion", 2);
    const size_t classes = static_cast<size_t>(ck.data.classes);
    if (confusion.size() != classes * classes) r.Fail("'confusion' is not classes x classes");
    int64_t total = 0;
    for (const int count : confusion) {
      if (count < 0) r.Fail("'confusion' holds a negative count");
      total += count;
    }
    if (total != ck.data.test_samples) {
      r.Fail("'confusion' counts " + std::to_string(total) + " test samples, not " +
             std::to_string(ck.data.test_samples));
    }
    for (size_t t = 0; t < classes; ++t) {
      ck.history.back().confusion.emplace_back(
          confusion.begin() + static_cast<std::ptrdiff_t>(t * classes),
          confusion.begin() + static_cast<std::ptrdiff_t>((t + 1) * classes));
    }
  }
}

}  // namespace

Checkpoint ReadCheckpoint(const std::string& path) {
  const Reader r(path, host::ReadNpz(path).arrays());
  if (!r.Has("format") || r.String("format") != kFormat) {
    r.Fail(std::string("not an mxu training checkpoint (no format '") + kFormat + "')");
  }
  Checkpoint ck;
  ReadModelAndData(r, ck);
  ReadSettings(r, ck);
  TrainerState& s = ck.state;
  ReadTensors(r, ck, s);
  ReadPosition(r, ck, s);
  ReadHistory(r, ck);
  // Every begun epoch is in the history but a stopped one.
  const size_t finished = ck.history.size();
  if (finished != static_cast<size_t>(s.epoch) && finished + 1 != static_cast<size_t>(s.epoch)) {
    r.Fail("the history's epochs do not match the position in the data");
  }
  return ck;
}

}  // namespace mxu::train
