#include "host/bench/bench_table.h"

#include <cstdint>
#include <string>
#include <vector>

#include "driver/gemm_limits.h"
#include "host/cli/cli.h"
#include "train/data/dataset.h"
#include "train/trainer.h"

namespace mxu::host {
namespace {

using driver::kMaxDimension;
constexpr char kShapeSyntax[] = "expected MxKxN[:ta][:tb][:int8], e.g. 64x784x128:ta";
constexpr char kMemSyntax[] = "expected LATENCY:BYTES_PER_CYCLE:IN_FLIGHT, e.g. 100:32:8";

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == separator) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

// A decimal unsigned integer of at most 18 digits (leading zeros allowed, never octal).
bool ParseDecimal(const std::string& text, uint64_t* value) {
  if (text.empty() || text.size() > 18) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *value = v;
  return true;
}

// The three dimensions of "MxKxN", each in [1, kMaxDimension].
void ParseDimensions(const std::string& text, const std::string& where, BenchShape* shape) {
  const std::vector<std::string> dims = Split(text, 'x');
  if (dims.size() != 3) throw UsageError(where + kShapeSyntax);
  uint64_t value[3];
  for (int i = 0; i < 3; ++i) {
    if (!ParseDecimal(dims[i], &value[i])) throw UsageError(where + kShapeSyntax);
    if (value[i] == 0) throw UsageError(where + "a zero dimension");
    if (value[i] > kMaxDimension) {
      throw UsageError(where + "a dimension above " + std::to_string(kMaxDimension));
    }
  }
  shape->m = static_cast<int>(value[0]);
  shape->k = static_cast<int>(value[1]);
  shape->n = static_cast<int>(value[2]);
}

// The GEMMs of one training step of an MLP with these layer widths as train/mlp.cc runs
// them at a full batch: forward, Y = X W + b for every layer (ReLU but on the last); backward, from
// the last layer down, dW = X^T dY (A transposed by the device's DMA) and, for every layer but the
// first, dX = dY W^T (B transposed).
void AddTrainingStep(const std::string& model, const std::vector<int>& widths, int batch,
                     std::vector<BenchShape>* table) {
  const size_t layers = widths.size() - 1;
  for (size_t l = 0; l < layers; ++l) {
    table->push_back({model + " fwd L" + std::to_string(l + 1), batch, widths[l], widths[l + 1],
                      false, false, true, l + 1 < layers});
  }
  for (size_t l = layers; l-- > 0;) {
    const std::string layer = " L" + std::to_string(l + 1);
    table->push_back({model + " dW" + layer, widths[l], batch, widths[l + 1], true, false});
    if (l > 0) {
      table->push_back({model + " dX" + layer, batch, widths[l + 1], widths[l], false, true});
    }
  }
}

}  // namespace

std::string ShapeText(const BenchShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) +
         (s.ta ? ":ta" : "") + (s.tb ? ":tb" : "") + (s.int8 ? ":int8" : "");
}

BenchShape ParseShape(const std::string& text) {
  const std::string where = "--shape '" + text + "': ";
  const std::vector<std::string> parts = Split(text, ':');
  BenchShape shape;
  ParseDimensions(parts[0], where, &shape);
  for (size_t i = 1; i < parts.size(); ++i) {
    bool* flag = parts[i] == "ta"     ? &shape.ta
                 : parts[i] == "tb"   ? &shape.tb
                 : parts[i] == "int8" ? &shape.int8
                                      : nullptr;
    if (flag == nullptr) throw UsageError(where + kShapeSyntax);
    if (*flag) throw UsageError(where + ":" + parts[i] + " given twice");
    *flag = true;
  }
  // At the mode's element sizes (an int8 shape's operands take 1 byte, its int32 C 4).
  const std::string problem = driver::GemmSizeProblem(
      shape.m, shape.k, shape.n,
      shape.int8 ? driver::Int8ElementBytes(false) : driver::Bf16ElementBytes(false), false);
  if (!problem.empty()) throw UsageError(where + problem);
  shape.name = ShapeText(shape);
  return shape;
}

MemoryTiming ParseMem(const std::string& text) {
  const std::string where = "--mem '" + text + "': ";
  const std::vector<std::string> parts = Split(text, ':');
  if (parts.size() != 3) throw UsageError(where + kMemSyntax);
  struct Field {
    const char* name;
    uint64_t min, max;
  };
  const Field fields[3] = {
      {"latency", 0, 100000}, {"bytes per cycle", 1, 4096}, {"requests in flight", 1, 1024}};
  uint64_t value[3];
  for (int i = 0; i < 3; ++i) {
    if (!ParseDecimal(parts[i], &value[i])) throw UsageError(where + kMemSyntax);
    if (value[i] < fields[i].min || value[i] > fields[i].max) {
      throw UsageError(where + fields[i].name + " must be in [" + std::to_string(fields[i].min) +
                       ", " + std::to_string(fields[i].max) + "], got " + parts[i]);
    }
  }
  MemoryTiming timing;
  timing.latency_cycles = static_cast<unsigned>(value[0]);
  timing.bytes_per_cycle = static_cast<unsigned>(value[1]);
  timing.max_in_flight = static_cast<unsigned>(value[2]);
  return timing;
}

std::vector<BenchShape> BuiltInTable() {
  std::vector<BenchShape> table;
  for (int s : {32, 64, 128, 256, 512, 1024}) {
    table.push_back({"square " + std::to_string(s), s, s, s});
  }
  for (const BenchShape& s :
       {BenchShape{"", 64, 784, 128}, BenchShape{"", 64, 128, 784}, BenchShape{"", 784, 64, 128}}) {
    table.push_back(s);
    table.back().name = ShapeText(s);
  }
  // The int8 mode beside bf16: half the operand bytes, the same MACs.
  for (int s : {256, 1024}) {
    table.push_back({"int8 square " + std::to_string(s), s, s, s});
    table.back().int8 = true;
  }
  table.push_back({"", 64, 784, 128});
  table.back().int8 = true;
  table.back().name = ShapeText(table.back());
  // (a) `mxu train`'s default model on the spirals (2 features), (b) a 784-128-10 MLP (MNIST).
  const train::TrainConfig defaults;
  std::vector<int> widths = {2};
  widths.insert(widths.end(), defaults.hidden.begin(), defaults.hidden.end());
  widths.push_back(train::kSpiralClasses);
  AddTrainingStep("train", widths, defaults.batch_size, &table);
  AddTrainingStep("mlp784", {784, 128, 10}, 64, &table);
  return table;
}

}  // namespace mxu::host
