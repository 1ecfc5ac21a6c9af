#include "train/checkpoint.h"

#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "io/npz.h"

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
  w.F64("epoch_loss_sum", s.loss_sum);
  w.U64("epoch_correct", s.correct);
  w.U64("epoch_seen", s.seen);
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
}

// The weights and the optimizer's moments (when the checkpoint has them), named after the
// parameters.
void ReadTensors(const Reader& r, const TrainConfig& c, TrainerState& s) {
  const std::vector<std::string> names = ParameterNames(c);
  for (const std::string& name : names) {
    const bool weights = name.back() == 'w';
    s.parameters.push_back(r.F32s(name, weights ? 2 : 1).AsFloat32());
  }
  const bool adam = c.optimizer.kind == "adam";
  const std::string first = adam ? "adam_m_" : "sgd_velocity_";
  if (r.Has(first + names[0])) {
    for (const std::string& name : names) {
      s.optimizer.first.push_back(r.F32s(first + name, name.back() == 'w' ? 2 : 1).AsFloat32());
    }
  }
  if (adam && r.Has("adam_v_" + names[0])) {
    for (const std::string& name : names) {
      s.optimizer.second.push_back(
          r.F32s("adam_v_" + name, name.back() == 'w' ? 2 : 1).AsFloat32());
    }
  }
}

// The optimizer's and loss scaler's counters, the position in the data and the counters the log
// reports.
void ReadPosition(const Reader& r, TrainerState& s) {
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
  s.loss_sum = r.F64("epoch_loss_sum");
  s.correct = r.U64("epoch_correct");
  s.seen = r.U64("epoch_seen");
  s.engine = StatsFromWords(r.U64s("engine_stats", 4));
  s.training = StatsFromWords(r.U64s("training_stats", 4));
  s.communication_cycles = r.U64("communication_cycles");
  s.training_communication_cycles = r.U64("training_communication_cycles");
  s.clipped_steps = r.U64("clipped_steps");
}

// The finished epochs, each with its weights' hash, and the last one's confusion matrix.
void ReadHistory(const Reader& r, Checkpoint& ck) {
  const NpyArray& history = r.F64s("history", 2);
  if (history.shape[1] != kHistoryColumns) r.Fail("'history' does not have 12 columns");
  const std::vector<double> rows = history.AsFloat64();
  const std::vector<uint64_t> hashes = r.U64s("history_weights_hash", history.shape[0]);
  for (size_t e = 0; e < history.shape[0]; ++e) {
    const double* row = &rows[e * kHistoryColumns];
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
  ReadTensors(r, ck.config, s);
  ReadPosition(r, s);
  ReadHistory(r, ck);
  // Every begun epoch is in the history but a stopped one.
  const size_t finished = ck.history.size();
  if (finished != static_cast<size_t>(s.epoch) && finished + 1 != static_cast<size_t>(s.epoch)) {
    r.Fail("the history's epochs do not match the position in the data");
  }
  return ck;
}

}  // namespace mxu::train
