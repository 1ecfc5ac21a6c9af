#include "host/bench_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/device_factory.h"
#include "common/csr_map.h"
#include "common/device_spec.h"
#include "common/memory_timing.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "driver/gemm_limits.h"
#include "driver/golden_request.h"
#include "golden/float_vectors.h"
#include "golden/numerics.h"
#include "host/cli.h"
#include "host/device_options.h"
#include "host/int8_operands.h"
#include "host/output_file.h"
#include "host/random_operands.h"
#include "host/rank_agreement.h"
#include "host/roofline.h"
#include "host/rtl_sample.h"
#include "host/sweep.h"
#include "host/topology.h"
#include "host/topology_report.h"
#include "io/plot/plot.h"
#include "train/dataset.h"
#include "train/mpi_collective.h"
#include "train/trainer.h"

namespace mxu::host {
namespace {

using driver::Bf16Matrix;
using Json = nlohmann::ordered_json;

// As for `mxu gemm` (driver/gemm_limits.h).
using driver::kMaxDimension;
using driver::kMaxProblemBytes;
// --quick keeps the shapes with M * K * N at most this.
constexpr uint64_t kQuickMacs = uint64_t{1} << 21;
constexpr char kShapeSyntax[] = "expected MxKxN[:ta][:tb][:int8], e.g. 64x784x128:ta";
constexpr char kMemSyntax[] = "expected LATENCY:BYTES_PER_CYCLE:IN_FLIGHT, e.g. 100:32:8";

struct Shape {
  std::string name;
  int m = 0, k = 0, n = 0;
  bool ta = false, tb = false;
  bool bias = false, relu = false;  // the training loop's forward GEMMs: bias (and ReLU)
  bool int8 = false;                // the int8 mode: int8 operands, int32 output
  uint64_t macs() const { return uint64_t(m) * k * n; }
};

// "40x24x56:ta:tb": the --shape syntax.
std::string ShapeText(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) +
         (s.ta ? ":ta" : "") + (s.tb ? ":tb" : "") + (s.int8 ? ":int8" : "");
}

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

// "MxKxN[:ta][:tb][:int8]"; every dimension in [1, 65535], A, B and C within the size limit.
Shape ParseShape(const std::string& text) {
  const std::string where = "--shape '" + text + "': ";
  const std::vector<std::string> parts = Split(text, ':');
  const std::vector<std::string> dims = Split(parts[0], 'x');
  if (dims.size() != 3) throw UsageError(where + kShapeSyntax);
  uint64_t value[3];
  for (int i = 0; i < 3; ++i) {
    if (!ParseDecimal(dims[i], &value[i])) throw UsageError(where + kShapeSyntax);
    if (value[i] == 0) throw UsageError(where + "a zero dimension");
    if (value[i] > kMaxDimension) {
      throw UsageError(where + "a dimension above " + std::to_string(kMaxDimension));
    }
  }
  Shape shape;
  shape.m = static_cast<int>(value[0]);
  shape.k = static_cast<int>(value[1]);
  shape.n = static_cast<int>(value[2]);
  for (size_t i = 1; i < parts.size(); ++i) {
    bool* flag = parts[i] == "ta"     ? &shape.ta
                 : parts[i] == "tb"   ? &shape.tb
                 : parts[i] == "int8" ? &shape.int8
                                      : nullptr;
    if (flag == nullptr) throw UsageError(where + kShapeSyntax);
    if (*flag) throw UsageError(where + ":" + parts[i] + " given twice");
    *flag = true;
  }
  const uint64_t m = shape.m, k = shape.k, n = shape.n;
  if (2 * m * k + 2 * k * n + 4 * m * n > kMaxProblemBytes) {
    throw UsageError(where + "A, B and C exceed 2 GiB, half the device's host memory");
  }
  shape.name = ShapeText(shape);
  return shape;
}

// "LATENCY:BYTES_PER_CYCLE:IN_FLIGHT", each in the range of --mem-latency,
// --mem-bytes-per-cycle and --mem-in-flight.
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

// The GEMMs of one training step of an MLP with these layer widths as train/mlp.cc runs
// them at a full batch: forward, Y = X W + b for every layer (ReLU but on the last); backward, from
// the last layer down, dW = X^T dY (A transposed by the device's DMA) and, for every layer but the
// first, dX = dY W^T (B transposed).
void AddTrainingStep(const std::string& model, const std::vector<int>& widths, int batch,
                     std::vector<Shape>* table) {
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

std::vector<Shape> BuiltInTable() {
  std::vector<Shape> table;
  for (int s : {32, 64, 128, 256, 512, 1024}) {
    table.push_back({"square " + std::to_string(s), s, s, s});
  }
  for (const Shape& s :
       {Shape{"", 64, 784, 128}, Shape{"", 64, 128, 784}, Shape{"", 784, 64, 128}}) {
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

Json TimingJson(const MemoryTiming& t) {
  Json j;
  j["latency_cycles"] = t.latency_cycles;
  j["bytes_per_cycle"] = t.bytes_per_cycle;
  j["max_in_flight"] = t.max_in_flight;
  return j;
}

std::string TimingText(const MemoryTiming& t) {
  return "latency " + std::to_string(t.latency_cycles) + ", " + std::to_string(t.bytes_per_cycle) +
         " B/cycle, " + std::to_string(t.max_in_flight) + " in flight";
}

Json ConfigJson(const driver::DeviceConfig& c) {
  Json j;
  driver::ForEachConfigField(c, [&](const char* name, const auto& value) { j[name] = value; });
  return j;
}

// A count in at most 6 characters: exact below 100,000, else 123.4k, 5.49M, 138.8M, 2.15G.
std::string Short(double v) {
  char text[32];
  if (v < 100000) {
    std::snprintf(text, sizeof text, "%.0f", v);
  } else if (v < 999950) {
    std::snprintf(text, sizeof text, "%.1fk", v / 1e3);
  } else if (v < 9.995e6) {
    std::snprintf(text, sizeof text, "%.2fM", v / 1e6);
  } else if (v < 999.95e6) {
    std::snprintf(text, sizeof text, "%.1fM", v / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%.2fG", v / 1e9);
  }
  return text;
}

std::string Percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f", 100 * fraction);
  return text;
}

constexpr size_t kNameWidth = 13;
constexpr char kRowFormat[] = "%-13s %-14s %7s %7s %7s %5s %5s %6s %6s %6s %6s %6s %6s %6s %6s\n";

void PrintHeader() {
  std::printf(kRowFormat, "name", "MxKxN", "cycles", "ideal", "bound", "%id", "%bnd", "read",
              "write", "st.dep", "st.wts", "st.fch", "st.mem", "wall s", "cyc/s");
}

void PrintRow(const Json& r) {
  char wall[16];
  std::snprintf(wall, sizeof wall, "%.2f", r["wall_seconds"].get<double>());
  // A shape named by itself (--shape, the plain table entries) shows "-" for its name.
  std::string name = r["name"] == r["shape"] ? "-" : r["name"].get<std::string>();
  // A long layer name is cut to its column (the JSON keeps it whole), so the columns line up.
  if (name.size() > kNameWidth) name = name.substr(0, kNameWidth - 1) + "~";
  std::printf(kRowFormat, name.c_str(), r["shape"].get<std::string>().c_str(),
              std::to_string(r["cycles"].get<uint64_t>()).c_str(),
              std::to_string(r["ideal_cycles"].get<uint64_t>()).c_str(),
              std::to_string(r["bound_cycles"].get<uint64_t>()).c_str(),
              Percent(r["utilization_ideal"].get<double>()).c_str(),
              Percent(r["utilization_bound"].get<double>()).c_str(),
              Short(r["dma_read_bytes"].get<double>()).c_str(),
              Short(r["dma_write_bytes"].get<double>()).c_str(),
              Short(r["stall_dependency"].get<double>()).c_str(),
              Short(r["stall_weights"].get<double>()).c_str(),
              Short(r["stall_fetch"].get<double>()).c_str(),
              Short(r["stall_memory"].get<double>()).c_str(), wall,
              Short(r["sim_cycles_per_second"].get<double>()).c_str());
  std::fflush(stdout);
}

struct BenchArgs {
  DeviceOptions device;
  std::vector<std::string> shapes, mems;
  uint64_t seed = 1;
  bool quick = false, check = false;
  std::string json, plot;
  std::string topology;
  std::string sweep, roofline;
  float clock_mhz = 940;
  int rtl_sample = 0;
  std::vector<std::string> command_line;
};

// One GEMM on the open device: its row of the table.
Json RunShape(driver::Device& device, const driver::DeviceConfig& config, const BenchArgs& args,
              size_t setting, const MemoryTiming& timing, const Shape& shape) {
  golden::BitSource bits(args.seed);
  Bf16Matrix a, b;
  driver::Int8Matrix a8, b8;
  driver::GemmRequest request;
  if (shape.int8) {
    a8 = shape.ta ? RandomInt8Matrix(shape.k, shape.m, bits)
                  : RandomInt8Matrix(shape.m, shape.k, bits);
    b8 = shape.tb ? RandomInt8Matrix(shape.n, shape.k, bits)
                  : RandomInt8Matrix(shape.k, shape.n, bits);
    request.a_int8 = &a8;
    request.b_int8 = &b8;
    request.output = driver::OutputType::kInt32;
  } else {
    a = shape.ta ? RandomMatrix(shape.k, shape.m, bits) : RandomMatrix(shape.m, shape.k, bits);
    b = shape.tb ? RandomMatrix(shape.n, shape.k, bits) : RandomMatrix(shape.k, shape.n, bits);
    request.a = &a;
    request.b = &b;
    request.output = driver::OutputType::kFp32;
  }
  request.trans_a = shape.ta;
  request.trans_b = shape.tb;
  std::vector<float> bias;
  if (shape.bias) {
    for (int j = 0; j < shape.n; ++j) bias.push_back((float(bits.Below(2001)) - 1000) / 256);
    request.bias = &bias;
  }
  request.relu = shape.relu;
  const driver::GemmResult result =
      driver::Gemm(device, config, request, args.device.watchdog_cycles);

  const uint64_t m = shape.m, k = shape.k, n = shape.n;
  const uint64_t pes = uint64_t{config.rows} * config.cols;
  const uint64_t ideal = (shape.macs() + pes - 1) / pes;
  // The least traffic: A and B read once (bf16, or int8), C written once (fp32 or int32), on the
  // one channel that reads and writes share; and the bias (N fp32) where there is one.
  const uint64_t in_bytes = shape.int8 ? 1 : 2;
  const uint64_t bytes_min = in_bytes * (m * k + k * n) + 4 * m * n + (shape.bias ? 4 * n : 0);
  const uint64_t memory_cycles = (bytes_min + timing.bytes_per_cycle - 1) / timing.bytes_per_cycle;
  const uint64_t bound = std::max(ideal, memory_cycles);
  const driver::RunStats& s = result.stats;
  const uint64_t cycles = s.counter(csr::Counter::kCycles);

  Json r;
  r["setting"] = setting;
  r["latency_cycles"] = timing.latency_cycles;
  r["bytes_per_cycle"] = timing.bytes_per_cycle;
  r["max_in_flight"] = timing.max_in_flight;
  r["array_rows"] = config.rows;
  r["array_cols"] = config.cols;
  r["bus_bytes"] = config.bus_bytes;
  r["name"] = shape.name;
  r["shape"] = ShapeText(shape);
  r["m"] = shape.m;
  r["k"] = shape.k;
  r["n"] = shape.n;
  r["ta"] = shape.ta;
  r["tb"] = shape.tb;
  r["bias"] = shape.bias;
  r["relu"] = shape.relu;
  r["dtype"] = shape.int8 ? "int8" : "bf16";
  r["macs"] = shape.macs();
  r["cycles"] = cycles;
  r["ideal_cycles"] = ideal;
  r["bytes_min"] = bytes_min;
  r["memory_cycles"] = memory_cycles;
  r["bound_cycles"] = bound;
  r["bound_by"] = memory_cycles > ideal ? "memory" : "compute";
  r["utilization_ideal"] = cycles ? double(ideal) / double(cycles) : 0.0;
  r["utilization_bound"] = cycles ? double(bound) / double(cycles) : 0.0;
  r["array_busy_cycles"] = s.counter(csr::Counter::kArrayBusy);
  r["dma_read_bytes"] = s.counter(csr::Counter::kDmaReadBytes);
  r["dma_write_bytes"] = s.counter(csr::Counter::kDmaWriteBytes);
  r["instructions"] = result.instructions;
  r["stall_dependency"] = s.counter(csr::Counter::kStallDependency);
  r["stall_weights"] = s.counter(csr::Counter::kStallWeights);
  r["stall_fetch"] = s.counter(csr::Counter::kStallFetch);
  r["stall_memory"] = s.counter(csr::Counter::kStallMemory);
  r["wall_seconds"] = s.wall_seconds;
  r["sim_cycles_per_second"] = s.wall_seconds > 0 ? cycles / s.wall_seconds : 0.0;
  if (args.check && shape.int8) {
    const Int8Check check = CheckInt8(request, result);
    r["checked"] = check.compared;
    r["mismatches"] = check.mismatches;
  } else if (args.check) {
    const std::vector<uint32_t> want =
        driver::GoldenBits(request, static_cast<int>(config.rows), config.subnormals);
    size_t mismatches = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      const uint32_t got = golden::FloatBits(result.c.data[i]);
      if (got != want[i] && ++mismatches <= 5) {
        std::fprintf(stderr, "%s: mismatch C[%zu][%zu]: device 0x%08x, golden 0x%08x\n",
                     shape.name.c_str(), i / n, i % n, got, want[i]);
      }
    }
    r["checked"] = want.size();
    r["mismatches"] = mismatches;
  }
  return r;
}

// Every shape under one memory setting, on a device of its own: the rows, as they finish, on
// stdout.
Json RunSetting(const BenchArgs& args, const std::vector<Shape>& shapes, size_t setting,
                const MemoryTiming& timing, bool print = true) {
  DeviceOptions options = args.device;
  options.timing = timing;
  auto device = OpenDevice(options);
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*device);
  if (print) {
    std::printf("memory: %s (%s backend, %u x %u array)\n", TimingText(timing).c_str(),
                device->name(), config.rows, config.cols);
    PrintHeader();
  }
  Json out;
  out["backend"] = device->name();
  out["device"] = ConfigJson(config);
  out["rows"] = Json::array();
  for (const Shape& shape : shapes) {
    out["rows"].push_back(RunShape(*device, config, args, setting, timing, shape));
    if (print) PrintRow(out["rows"].back());
  }
  return out;
}

// Runs work in a child process and returns what it returned. The RTL backend elaborates SystemC
// once per process, so each memory setting gets a process (and a device) of its own; this one
// never opens a device. A failure in the child comes back as its one-line message and exit code.
Json RunInChild(const std::function<Json()>& work, const std::string& what,
                bool capture_stdout = false) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
  if (pid == 0) {
    close(fds[0]);
    // Captured, what the child prints comes back in the JSON ("stdout") for the parent to print
    // in its place (the ranks of a sweep under mpirun print through rank 0, in point order).
    FILE* captured = capture_stdout ? std::tmpfile() : nullptr;
    if (captured) dup2(fileno(captured), STDOUT_FILENO);
    Json out;
    try {
      out = work();
    } catch (const UsageError& error) {
      out = {{"error", error.what()}, {"exit", 2}};
    } catch (const std::invalid_argument& error) {
      out = {{"error", error.what()}, {"exit", 2}};
    } catch (const driver::DeviceError& error) {
      out = {{"error", error.what()}, {"exit", 1}};
    } catch (const std::exception& error) {
      out = {{"error", std::string("error: ") + error.what()}, {"exit", 1}};
    }
    if (captured) {
      std::fflush(stdout);
      std::string printed;
      std::rewind(captured);
      char chunk[4096];
      for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, captured)) > 0;)
        printed.append(chunk, n);
      out["stdout"] = printed;
    }
    const std::string text = out.dump();
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fds[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
    throw driver::DeviceError(
        "the run of " + what + " ended abnormally" +
        (WIFSIGNALED(status) ? " (signal " + std::to_string(WTERMSIG(status)) + ")" : ""));
  }
  Json out = Json::parse(text);
  if (out.contains("error")) {
    const std::string message = out["error"].get<std::string>();
    if (out["exit"].get<int>() == 2) throw UsageError(message);
    throw driver::DeviceError(message);
  }
  return out;
}

void WritePlot(const std::string& path, const std::vector<MemoryTiming>& settings, const Json& rows,
               const std::string& title) {
  std::vector<plot::BarChart> charts(settings.size());
  for (size_t i = 0; i < settings.size(); ++i) {
    charts[i].title = "memory " + TimingText(settings[i]);
    charts[i].y_label = "utilization";
    charts[i].percent = true;
    charts[i].series = {{"vs ideal", {}}, {"vs bound", {}}};
  }
  for (const Json& r : rows) {
    plot::BarChart& chart = charts[r["setting"].get<size_t>()];
    chart.categories.push_back(r["name"].get<std::string>());
    chart.series[0].y.push_back(r["utilization_ideal"].get<double>());
    chart.series[1].y.push_back(r["utilization_bound"].get<double>());
  }
  const int per_panel =
      std::max<int>(640, 90 * static_cast<int>(charts.front().categories.size()) + 140);
  const int width = std::min<int>(12000, per_panel * static_cast<int>(charts.size()));
  plot::Figure figure(width, 560, title);
  for (plot::BarChart& chart : charts) figure.Add(std::move(chart));
  figure.WritePng(path);
}

int RunBench(const CLI::App& cli, const BenchArgs& args);

}  // namespace

std::function<int()> AddBenchCommand(CLI::App& app, std::vector<std::string> command_line) {
  auto args = std::make_shared<BenchArgs>();
  args->command_line = std::move(command_line);
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "The benchmark: a table of GEMM shapes (square 32 to 1024, 64x784x128 and its "
      "permutations, every GEMM of a training step of mxu train's default model and of a "
      "784-128-10 MLP at batch 64: forward with bias and ReLU, backward with the transposes "
      "the loop uses), each run once on the device with random bf16 operands. Per "
      "GEMM: device cycles; ideal = M*K*N / (array rows * cols), rounded up; bound = max(ideal, "
      "bytes of A and B (bf16) and C (fp32) once / memory bytes per cycle); utilization = ideal "
      "or bound / cycles; DMA bytes read and written; stall cycles (STALL_DEPENDENCY, "
      "STALL_WEIGHTS, STALL_FETCH, STALL_MEMORY); wall time and simulated cycles per second.");
  cmd->footer(kExitCodesHelp);
  BenchArgs& a = *args;
  CLI::Option* shape =
      cmd->add_option("--shape", a.shapes,
                      "a GEMM C = op(A) x op(B), op(A) M x K, op(B) K x N, :ta / :tb transposed "
                      "(A stored K x M / B stored N x K), :int8 in the int8 mode (int32 out); "
                      "repeatable; replaces the built-in table")
          ->type_name("MxKxN[:ta][:tb][:int8]")
          ->allow_extra_args(false)
          ->default_str("");
  cmd->add_flag("--quick", a.quick, "only the built-in shapes with M*K*N <= 2^21 (fast)")
      ->excludes(shape);
  cmd->add_option("--topology", a.topology,
                  "a network's layers from a SCALE-Sim topology file, each run as its GEMM "
                  "(convolutions by im2col); replaces the built-in table; adds the network's "
                  "totals, and `layers` and `totals` to --json")
      ->type_name("FILE.csv")
      ->excludes(shape)
      ->excludes(cmd->get_option("--quick"));
  CLI::Option* sweep =
      cmd->add_option("--sweep", a.sweep,
                      "run the shapes or topology on each of these devices (device specs, "
                      "MXU_DEVICES syntax) on the model backend, and print a summary per device; "
                      "unless --mem or --mem-bytes-per-cycle is given, a port wider than the "
                      "memory gets a memory as wide (and 3 x its DMA requests in flight)")
          ->type_name("SPEC,SPEC,...");
  AddInteger(cmd, "--rtl-sample", &a.rtl_sample, 1, 100000,
             "with --backend model: run N of the GEMMs (spread evenly through the list) on the "
             "RTL of the same built device too, under the first memory setting, and print the "
             "model's cycles against the RTL's (and `rtl_sample` in --json)")
      ->excludes(sweep);
  AddFloat(cmd, "--clock-mhz", &a.clock_mhz, 1, 100000, false,
           "the clock at which the sweep summary gives each device's time");
  cmd->add_option("--roofline", a.roofline,
                  "roofline chart as PNG: per GEMM, MACs per byte through the memory port (DMA "
                  "bytes) against MACs per cycle, with each device's compute and memory roofs")
      ->type_name("FILE.png");
  CLI::Option* mem = cmd->add_option("--mem", a.mems,
                                     "run the table under this host-memory setting (latency in "
                                     "cycles, bytes per cycle, requests in flight); repeatable; "
                                     "default: the --mem-* options")
                         ->type_name("LAT:BYTES:INFLIGHT")
                         ->allow_extra_args(false)
                         ->default_str("");
  AddInteger(cmd, "--seed", &a.seed, 0, UINT64_MAX, "seed of the random operands");
  cmd->add_flag("--check", a.check,
                "compare every output bit with the golden model (exit 1 on a mismatch)");
  cmd->add_option("--json", a.json,
                  "write every row, the device configuration, the memory settings and the "
                  "command line to this file as JSON")
      ->type_name("FILE.json");
  cmd->add_option("--plot", a.plot,
                  "bar chart of utilization per shape (vs ideal, vs bound), a panel per memory "
                  "setting, as PNG")
      ->type_name("FILE.png");
  AddDeviceOptions(cmd, &a.device, kDeviceBackendsHelp);
  sweep->excludes(cmd->get_option("--device"));
  for (const char* option : {"--mem-latency", "--mem-bytes-per-cycle", "--mem-in-flight"}) {
    mem->excludes(cmd->get_option(option));
  }
  return [cmd, args] {
    try {
      return RunBench(*cmd, *args);
    } catch (const UsageError&) {
      if (SilentRank()) return SilentRankExit();  // every rank finds it; rank 0 reports it
      throw;
    }
  };
}

namespace {

int RunBench(const CLI::App& cli, const BenchArgs& args) {
  std::vector<Shape> shapes;
  for (const std::string& text : args.shapes) shapes.push_back(ParseShape(text));
  std::optional<Topology> topology;
  std::vector<PathArg> inputs;
  if (Given(cli, "--topology")) {
    topology = ReadTopology(args.topology);
    inputs.push_back({"--topology", args.topology});
    for (const TopologyLayer& l : topology->layers) {
      shapes.push_back(
          {l.name, static_cast<int>(l.m), static_cast<int>(l.k), static_cast<int>(l.n)});
    }
  }
  if (shapes.empty()) {
    for (const Shape& shape : BuiltInTable()) {
      if (!args.quick || shape.macs() <= kQuickMacs) shapes.push_back(shape);
    }
  }
  std::vector<MemoryTiming> settings;
  for (const std::string& text : args.mems) settings.push_back(ParseMem(text));
  if (settings.empty()) settings.push_back(args.device.timing);
  // The devices: this one, or the sweep's, each on the model.
  const bool sweeping = Given(cli, "--sweep");
  std::vector<std::string> points = {args.device.device};
  if (sweeping) {
    points = ParseSweep(args.sweep);
    if (args.device.backend != "model" && Given(cli, "--backend")) {
      throw UsageError("--sweep runs on the model backend, not --backend " + args.device.backend);
    }
  }
  const bool memory_given = Given(cli, "--mem") || Given(cli, "--mem-bytes-per-cycle");
  const std::vector<std::string>& available = backends::AvailableBackends();
  if (Given(cli, "--rtl-sample")) {
    if (args.device.backend != "model") {
      throw UsageError(
          "--rtl-sample checks the model backend against the RTL: give --backend "
          "model");
    }
    if (std::find(available.begin(), available.end(), "rtl") == available.end()) {
      throw UsageError("--rtl-sample needs the RTL backend, which this build does not have");
    }
  }
  std::vector<PathArg> outputs;
  for (const char* option : {"--json", "--plot", "--roofline"}) {
    if (Given(cli, option)) outputs.push_back({option, cli.get_option(option)->as<std::string>()});
  }
  CheckOutputPaths(outputs, inputs);
  if (std::find(available.begin(), available.end(), args.device.backend) == available.end()) {
    OpenDevice(args.device);  // throws the one-line message for an unknown backend
  }

  // Under mpirun the sweep's runs (point x memory setting) are dealt out to the ranks in turn;
  // each prints into its result, and rank 0 prints them all in order, as one process would.
  std::unique_ptr<train::MpiCollective> ranks;
  if (train::LaunchedByMpi()) {
    if (!sweeping) {
      throw UsageError(
          "under mpirun, mxu bench spreads the points of --sweep over the ranks; "
          "without --sweep run it as one process");
    }
    ranks = std::make_unique<train::MpiCollective>();
  }
  const size_t runs = points.size() * settings.size();
  const auto run = [&](size_t k, bool capture) {
    const size_t p = k / settings.size(), i = k % settings.size();
    BenchArgs point = args;
    MemoryTiming timing = settings[i];
    if (sweeping) {
      point.device.device = points[p], point.device.backend = "model";
      timing = PointTiming(timing, ParseDeviceSpec(points[p]).bus_bytes, memory_given);
    }
    return RunInChild([&] { return RunSetting(point, shapes, i, timing); },
                      "memory setting " + TimingText(timing), capture);
  };
  const auto print_heading = [&](size_t k) {
    if (k > 0) std::printf("\n");
    if (sweeping) std::printf("device %s\n", points[k / settings.size()].c_str());
  };
  std::vector<Json> outs(runs);
  if (!ranks || ranks->size() == 1) {
    for (size_t k = 0; k < runs; ++k) {
      print_heading(k);
      outs[k] = run(k, false);
    }
  } else {
    Json mine = Json::array();
    for (size_t k = static_cast<size_t>(ranks->rank()); k < runs; k += ranks->size()) {
      Json out;
      try {
        out = run(k, true);
      } catch (const UsageError& error) {
        out = {{"error", error.what()}, {"exit", 2}};
      } catch (const std::exception& error) {
        out = {{"error", error.what()}, {"exit", 1}};
      }
      mine.push_back({{"run", k}, {"out", out}});
    }
    for (const std::string& text : ranks->AllGatherText(mine.dump())) {
      for (const Json& entry : Json::parse(text)) outs[entry["run"].get<size_t>()] = entry["out"];
    }
    for (size_t k = 0; k < runs; ++k) {  // the first failure in run order, reported once
      if (!outs[k].contains("error")) continue;
      if (ranks->rank() != 0) return outs[k]["exit"].get<int>();
      if (outs[k]["exit"].get<int>() == 2) throw UsageError(outs[k]["error"].get<std::string>());
      throw driver::DeviceError(outs[k]["error"].get<std::string>());
    }
    if (ranks->rank() != 0) return 0;
    for (size_t k = 0; k < runs; ++k) {
      print_heading(k);
      std::fputs(outs[k]["stdout"].get<std::string>().c_str(), stdout);
    }
  }
  Json rows = Json::array(), device, backend;
  for (size_t k = 0; k < runs; ++k) {
    const Json& out = outs[k];
    device = out["device"];
    backend = out["backend"];
    for (Json r : out["rows"]) {
      if (sweeping)
        r["point"] = k / settings.size(), r["device_spec"] = points[k / settings.size()];
      rows.push_back(r);
    }
  }
  const bool one_group = points.size() == 1 && settings.size() == 1;
  Json rtl_sample;
  if (Given(cli, "--rtl-sample")) {
    // The first memory setting's rows are GEMMs 0, 1, ... in order.
    const std::vector<size_t> indices =
        RtlSampleIndices(shapes.size(), static_cast<size_t>(args.rtl_sample));
    std::vector<Shape> sample;
    for (size_t index : indices) sample.push_back(shapes[index]);
    BenchArgs on_rtl = args;
    on_rtl.device.backend = "rtl";
    const Json out =
        RunInChild([&] { return RunSetting(on_rtl, sample, 0, settings[0], /*print=*/false); },
                   "the RTL sample");
    rtl_sample = RtlSampleReport(rows, indices, out["rows"]);
  }

  uint64_t cycles = 0, ideal = 0, bound = 0, checked = 0, mismatches = 0;
  double wall = 0;
  for (const Json& r : rows) {
    cycles += r["cycles"].get<uint64_t>();
    ideal += r["ideal_cycles"].get<uint64_t>();
    bound += r["bound_cycles"].get<uint64_t>();
    wall += r["wall_seconds"].get<double>();
    if (args.check) {
      checked += r["checked"].get<uint64_t>();
      mismatches += r["mismatches"].get<uint64_t>();
    }
  }
  const double util_ideal = cycles ? double(ideal) / cycles : 0;
  const double util_bound = cycles ? double(bound) / cycles : 0;
  const double cps = wall > 0 ? cycles / wall : 0;
  std::printf(
      "cycles: device cycles; ideal: M*K*N / PEs; bound: max(ideal, bytes of A, B, C, bias once / "
      "bytes per cycle)\nread, write: DMA bytes; st.*: stall cycles (STALL_DEPENDENCY, "
      "STALL_WEIGHTS, STALL_FETCH, STALL_MEMORY)\n");
  bool any_bias = false;
  for (const Shape& shape : shapes) any_bias = any_bias || shape.bias;
  if (any_bias) {
    std::printf("fwd: with the bias (and the ReLU, but on the last layer) that mxu train uses\n");
  }
  if (args.check) {
    std::printf("check: %llu outputs, %llu mismatches%s\n", (unsigned long long)checked,
                (unsigned long long)mismatches, mismatches ? ": FAILED" : ": bit-exact");
  }
  std::printf(
      "summary: %zu GEMM%s x %zu memory setting%s: %llu cycles, ideal %llu (%.1f%%), bound "
      "%llu (%.1f%%), %.2f s, %s cycles/s\n",
      shapes.size(), shapes.size() == 1 ? "" : "s", settings.size(),
      settings.size() == 1 ? "" : "s", (unsigned long long)cycles, (unsigned long long)ideal,
      100 * util_ideal, (unsigned long long)bound, 100 * util_bound, wall, Short(cps).c_str());
  if (topology && one_group) PrintNetwork(*topology, NetworkTotals(rows));
  if (sweeping) PrintSweepSummary(SweepSummary(rows, args.clock_mhz), args.clock_mhz);
  if (!rtl_sample.is_null()) PrintRtlSample(rtl_sample);
  std::fflush(stdout);

  PendingOutputs files;
  if (Given(cli, "--json")) {
    Json j;
    std::string line;
    for (const std::string& arg : args.command_line) line += (line.empty() ? "" : " ") + arg;
    j["command_line"] = line;
    j["argv"] = args.command_line;
    j["backend"] = backend;
    j["device"] = device;
    j["seed"] = args.seed;
    j["check"] = args.check;
    j["memory_settings"] = Json::array();
    for (const MemoryTiming& t : settings) j["memory_settings"].push_back(TimingJson(t));
    j["rows"] = rows;
    if (sweeping) j["sweep"] = SweepSummary(rows, args.clock_mhz);
    if (!rtl_sample.is_null()) j["rtl_sample"] = rtl_sample;
    if (topology) {
      j["topology"] = {{"file", args.topology}, {"format", topology->conv ? "conv" : "gemm"}};
      j["layers"] = TopologyLayersJson(*topology, rows);
      j["totals"] = one_group ? NetworkTotals(rows) : SweepSummary(rows, args.clock_mhz);
    }
    Json summary;
    summary["gemms"] = rows.size();
    summary["cycles"] = cycles;
    summary["ideal_cycles"] = ideal;
    summary["bound_cycles"] = bound;
    summary["utilization_ideal"] = util_ideal;
    summary["utilization_bound"] = util_bound;
    summary["wall_seconds"] = wall;
    summary["sim_cycles_per_second"] = cps;
    if (args.check) {
      summary["checked"] = checked;
      summary["mismatches"] = mismatches;
    }
    j["summary"] = summary;
    std::ofstream file(files.Temp(args.json));
    file << j.dump() << "\n";
    file.close();
    if (!file) throw std::runtime_error("--json: cannot write '" + args.json + "'");
  }
  if (Given(cli, "--plot")) {
    const std::string title = "mxu bench: utilization per GEMM (" +
                              std::to_string(device["array_rows"].get<unsigned>()) + " x " +
                              std::to_string(device["array_cols"].get<unsigned>()) + " array, " +
                              backend.get<std::string>() + ")";
    files.Write(args.plot,
                [&](const std::string& temp) { WritePlot(temp, settings, rows, title); });
  }
  if (Given(cli, "--roofline")) {
    const std::string roof_title = "mxu bench: roofline of " +
                                   (topology ? args.topology : std::string("the GEMMs")) + " (" +
                                   backend.get<std::string>() + " backend)";
    files.Write(args.roofline,
                [&](const std::string& temp) { WriteRoofline(temp, rows, roof_title); });
  }
  if (mismatches) {
    throw driver::DeviceError("--check: " + std::to_string(mismatches) +
                              " outputs differ from the golden model");
  }
  FlushStdout();
  files.Commit();
  return 0;
}

}  // namespace
}  // namespace mxu::host
