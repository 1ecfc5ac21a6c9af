#include "host/gemm_command.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/bf16.h"
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
#include "host/trace_options.h"
#include "io/npy.h"

namespace mxu::host {
namespace {

using driver::Bf16Matrix;
using driver::Fp32Matrix;
using driver::GemmSizeProblem;
using driver::kMaxDimension;

// A malformed or unreadable input file is bad input (exit code 2), like a bad flag.
// header_only: the dtype and shape, checked before any data is read.
NpyArray ReadInput(const std::string& path, bool header_only = false) {
  try {
    return header_only ? ReadNpyHeader(path) : ReadNpy(path);
  } catch (const std::runtime_error& error) {
    throw UsageError(error.what());
  }
}

// A 2-D operand's header from .npy, read before the device opens: its shape is checked here.
NpyArray ReadOperand(const std::string& path, bool int8) {
  NpyArray array = ReadInput(path, true);
  if (int8) {
    RequireDtype(array, NpyArray::Dtype::kInt8, path);
  } else if (!array.is_float() && array.dtype != NpyArray::Dtype::kUint16) {
    // .npy files may hold integers and strings too (checkpoints); operands are floats or bf16
    // bits.
    throw UsageError(path + ": unsupported dtype '" + array.descr() +
                     "' (expected float32 '<f4', float64 '<f8' or uint16 '<u2')");
  }
  if (array.shape.size() != 2) {
    throw UsageError(path + ": expected a 2-D array, got rank " +
                     std::to_string(array.shape.size()));
  }
  if (array.shape[0] == 0 || array.shape[1] == 0) throw UsageError(path + ": a zero dimension");
  if (array.shape[0] > kMaxDimension || array.shape[1] > kMaxDimension) {
    throw UsageError(path + ": a dimension above " + std::to_string(kMaxDimension));
  }
  return array;
}

// float32 and float64 (converted to float32 first) are rounded to bf16; uint16 is taken as raw
// bf16 bits.
Bf16Matrix ToBf16Matrix(const NpyArray& array, Subnormals mode) {
  Bf16Matrix m(static_cast<int>(array.shape[0]), static_cast<int>(array.shape[1]));
  if (array.dtype == NpyArray::Dtype::kUint16) {
    m.data = array.AsUint16();
  } else {
    const std::vector<float> values = array.AsFloat32();
    for (size_t i = 0; i < values.size(); ++i) m.data[i] = FloatToBf16(values[i], mode);
  }
  return m;
}

std::vector<float> ReadFloat32(const std::string& path, size_t rank_max) {
  const NpyArray header = ReadInput(path, true);
  if (!header.is_float()) throw UsageError(path + ": expected float32 or float64");
  if (header.shape.empty() || header.shape.size() > rank_max) {
    throw UsageError(path + ": unexpected rank " + std::to_string(header.shape.size()));
  }
  return ReadInput(path).AsFloat32();
}

struct CheckResult {
  size_t compared = 0, mismatches = 0;
};

CheckResult Check(const driver::GemmRequest& request, const driver::GemmResult& result,
                  const driver::DeviceConfig& config) {
  const std::vector<uint32_t> want =
      driver::GoldenBits(request, static_cast<int>(config.rows), config.subnormals);
  const int cols = request.trans_b ? request.b->rows : request.b->cols;
  CheckResult check;
  for (size_t i = 0; i < want.size(); ++i) {
    const int r = static_cast<int>(i / cols), c = static_cast<int>(i % cols);
    const uint32_t got_bits = request.output == driver::OutputType::kBf16
                                  ? result.c_bf16.at(r, c)
                                  : golden::FloatBits(result.c.at(r, c));
    ++check.compared;
    if (got_bits != want[i] && ++check.mismatches <= 5) {
      std::fprintf(stderr, "mismatch C[%d][%d]: device 0x%08x, golden 0x%08x\n", r, c, got_bits,
                   want[i]);
    }
  }
  return check;
}

// Progress of a long GEMM on a terminal: runs the device in slices and shows the controller's
// instruction pointer against the program length, on stderr. The device runs the same cycles as
// without it (the program counter is read while the program runs on).
class ProgressDevice : public driver::Device {
 public:
  explicit ProgressDevice(driver::Device& device) : device_(device) {}
  ~ProgressDevice() override { Clear(); }

  uint32_t ReadCsr(uint32_t addr) override { return device_.ReadCsr(addr); }
  void WriteCsr(uint32_t addr, uint32_t value) override {
    if (addr == csr::kCmdCount) instructions_ = value;
    device_.WriteCsr(addr, value);
  }
  void WriteMemory(uint64_t addr, const void* data, size_t bytes) override {
    device_.WriteMemory(addr, data, bytes);
  }
  void ReadMemory(uint64_t addr, void* data, size_t bytes) override {
    device_.ReadMemory(addr, data, bytes);
  }
  uint64_t memory_size() const override { return device_.memory_size(); }
  const char* name() const override { return device_.name(); }

  bool RunUntilInterrupt(uint64_t max_cycles) override {
    constexpr uint64_t kSlice = 2000;
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t done = 0; done < max_cycles;) {
      const uint64_t slice = std::min(kSlice, max_cycles - done);
      if (device_.RunUntilInterrupt(slice)) {
        Clear();
        return true;
      }
      done += slice;
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (seconds >= 1.0 && seconds - shown_at_ >= 0.2) {
        Show(device_.ReadCsr(csr::kPc), done, seconds);
        shown_at_ = seconds;
      }
    }
    Clear();
    return false;
  }

 private:
  void Show(uint32_t pc, uint64_t cycles, double seconds) {
    constexpr int kWidth = 30;
    const uint32_t total = instructions_ ? instructions_ : 1;
    const int filled = static_cast<int>(std::min<uint64_t>(pc, total) * kWidth / total);
    std::fprintf(stderr, "\rgemm [%s%s] instruction %u/%u, %.1f M cycles, %.0f s ",
                 std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(), pc,
                 instructions_, cycles / 1e6, seconds);
    std::fflush(stderr);
    shown_ = true;
  }
  void Clear() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }

  driver::Device& device_;
  uint32_t instructions_ = 0;
  double shown_at_ = 0;
  bool shown_ = false;
};

// Refuses, before anything is allocated, a problem above kMaxProblemBytes.
void CheckProblemSize(uint64_t m, uint64_t k, uint64_t n, bool bf16_out, bool accumulate) {
  const std::string problem = GemmSizeProblem(m, k, n, bf16_out, accumulate);
  if (!problem.empty()) throw UsageError(problem);
}

struct GemmArgs {
  DeviceOptions device;
  TraceOptions trace;
  int m = 64, k = 64, n = 64;
  uint64_t seed = 1;
  std::string a, b, bias, accumulate, out, out_bf16;
  bool ta = false, tb = false, relu = false, check = false, json = false;
  // The int8 mode.
  std::string dtype = "bf16", out_int8, scale, scales;
  int zero_point = 0;
};

int RunGemm(const CLI::App& cli, const GemmArgs& args);

}  // namespace

std::function<int()> AddGemmCommand(CLI::App& app) {
  auto args = std::make_shared<GemmArgs>();
  CLI::App* cmd = app.add_subcommand(
      "gemm",
      "One GEMM on the device, C = op(A) x op(B) (+ bias | + C0) (ReLU): random operands of shape "
      "--m --k --n (all three, or none for 64 x 64 x 64), or --a A.npy --b B.npy. Each dimension "
      "is at most 65535, and A (2 bytes an element), B (2) and C (4, or 2 with --out-bf16), plus "
      "C0, together at most 2 GiB (half the device's 4 GiB host memory). .npy inputs: float32, "
      "or float64 (rounded to float32 first, as NumPy's astype, then to bf16), or uint16 taken "
      "as bf16 bits; C or Fortran order.");
  cmd->footer(kExitCodesHelp);
  GemmArgs& a = *args;
  CLI::Option* m = AddInteger(cmd, "--m", &a.m, 1, kMaxDimension, "rows of op(A) and C");
  CLI::Option* k =
      AddInteger(cmd, "--k", &a.k, 1, kMaxDimension, "columns of op(A), rows of op(B)");
  CLI::Option* n = AddInteger(cmd, "--n", &a.n, 1, kMaxDimension, "columns of op(B) and C");
  CLI::Option* seed =
      AddInteger(cmd, "--seed", &a.seed, 0, UINT64_MAX, "seed of the random operands");
  CLI::Option* in_a = cmd->add_option("--a", a.a, "A from a 2-D .npy file")->type_name("A.npy");
  CLI::Option* in_b = cmd->add_option("--b", a.b, "B from a 2-D .npy file")->type_name("B.npy");
  in_a->needs(in_b);
  in_b->needs(in_a);
  for (CLI::Option* shape : {m, k, n, seed}) shape->excludes(in_a)->excludes(in_b);
  cmd->add_flag("--ta", a.ta, "op(A) = A transposed (A stored K x M)");
  cmd->add_flag("--tb", a.tb, "op(B) = B transposed (B stored N x K)");
  cmd->add_flag("--relu", a.relu, "ReLU on the output");
  CLI::Option* bias =
      cmd->add_option("--bias", a.bias, "N float values added to every row (1-D .npy)")
          ->type_name("BIAS.npy");
  cmd->add_option("--accumulate", a.accumulate, "C += A x B, C0 from an M x N float .npy")
      ->type_name("C0.npy")
      ->excludes(bias);
  CLI::Option* out =
      cmd->add_option("--out", a.out, "write C (fp32) to a .npy file")->type_name("C.npy");
  cmd->add_option("--out-bf16", a.out_bf16, "the device rounds C to bf16; write its bits (uint16)")
      ->type_name("C.npy")
      ->excludes(out);
  cmd->add_option("--dtype", a.dtype,
                  "operand type: bf16 (fp32 or bf16 out) or int8 (the int8 mode: int8 .npy "
                  "operands '|i1', int32 bias and C0 '<i4', int32 out, or int8 with --out-int8)")
      ->check(CLI::IsMember({"bf16", "int8"}))
      ->type_name("bf16|int8");
  cmd->add_option("--out-int8", a.out_int8,
                  "int8 mode: the device requantizes C to int8 (--scale or --scales, "
                  "--zero-point); write it (int8)")
      ->type_name("C.npy")
      ->excludes(out);
  CLI::Option* scale =
      cmd->add_option("--scale", a.scale, "requantization: one real scale for every column")
          ->type_name("X");
  cmd->add_option("--scales", a.scales, "requantization: N float scales, one per column")
      ->type_name("SCALES.npy")
      ->excludes(scale);
  cmd->add_option("--zero-point", a.zero_point, "requantization: the output zero point")
      ->check(CLI::Range(-128, 127))
      ->type_name("-128..127");
  cmd->add_flag("--check", a.check,
                "compare every output bit with the golden model (exit 1 on a mismatch)");
  cmd->add_flag("--json", a.json, "statistics as one JSON object on stdout");
  AddDeviceOptions(cmd, &a.device, kDeviceBackendsHelp);
  AddTraceOptions(cmd, &a.trace);
  return [cmd, args] { return RunGemm(*cmd, *args); };
}

namespace {

int RunGemm(const CLI::App& cli, const GemmArgs& args) {
  const int given_shape = Given(cli, "--m") + Given(cli, "--k") + Given(cli, "--n");
  if (given_shape != 0 && given_shape != 3) {
    throw UsageError("give all of --m, --k and --n (or none, for 64 x 64 x 64)");
  }
  const bool file_operands = !args.a.empty() || Given(cli, "--a");
  std::vector<PathArg> inputs, outputs;
  for (const char* option : {"--a", "--b", "--bias", "--accumulate", "--scales"}) {
    if (Given(cli, option)) inputs.push_back({option, cli.get_option(option)->as<std::string>()});
  }
  for (const char* option : {"--out", "--out-bf16", "--out-int8"}) {
    if (Given(cli, option)) outputs.push_back({option, cli.get_option(option)->as<std::string>()});
  }
  RunRecorder::AddOutputs(args.trace, &outputs);
  CheckOutputPaths(outputs, inputs);

  const bool int8 = args.dtype == "int8";
  const bool requantize = Given(cli, "--out-int8") || Given(cli, "--scale") ||
                          Given(cli, "--scales") || Given(cli, "--zero-point");
  if (int8 && Given(cli, "--out-bf16")) {
    throw UsageError(
        "--out-bf16 is for --dtype bf16: an int8 GEMM writes int32 (--out) or int8 "
        "(--out-int8)");
  }
  if (!int8 && requantize) {
    throw UsageError("--out-int8, --scale, --scales and --zero-point need --dtype int8");
  }
  if (requantize && !Given(cli, "--scale") && !Given(cli, "--scales")) {
    throw UsageError("int8 output needs --scale X or --scales SCALES.npy");
  }

  driver::GemmRequest request;
  request.trans_a = args.ta;
  request.trans_b = args.tb;
  request.relu = args.relu;
  request.output = Given(cli, "--out-bf16") ? driver::OutputType::kBf16 : driver::OutputType::kFp32;
  if (int8) request.output = requantize ? driver::OutputType::kInt8 : driver::OutputType::kInt32;
  request.zero_point = args.zero_point;
  const bool bf16_out = request.output == driver::OutputType::kBf16;
  const bool accumulate = Given(cli, "--accumulate");

  // The shapes and the size limit first, from the flags or the files' headers.
  NpyArray a_file, b_file;
  int m, k, n;
  if (file_operands) {
    a_file = ReadOperand(args.a, int8);
    b_file = ReadOperand(args.b, int8);
    const int a_rows = static_cast<int>(a_file.shape[0]),
              a_cols = static_cast<int>(a_file.shape[1]);
    const int b_rows = static_cast<int>(b_file.shape[0]),
              b_cols = static_cast<int>(b_file.shape[1]);
    m = request.trans_a ? a_cols : a_rows;
    k = request.trans_a ? a_rows : a_cols;
    n = request.trans_b ? b_rows : b_cols;
    const int kb = request.trans_b ? b_cols : b_rows;
    if (k != kb) {
      throw UsageError("op(A) is " + std::to_string(m) + "x" + std::to_string(k) +
                       " but op(B) is " + std::to_string(kb) + "x" + std::to_string(n) +
                       ": inner dimensions differ");
    }
  } else {
    m = args.m;
    k = args.k;
    n = args.n;
  }
  CheckProblemSize(m, k, n, bf16_out, accumulate);
  if (file_operands) {
    a_file = ReadInput(args.a);
    b_file = ReadInput(args.b);
  }

  std::vector<float> bias;
  Fp32Matrix c0;
  std::vector<int32_t> bias_int32;
  driver::Int32Matrix c0_int32;
  std::vector<uint32_t> quant;
  if (Given(cli, "--bias")) {
    const NpyArray header = ReadInput(args.bias, true);
    if (header.shape.size() == 1 && header.shape[0] != size_t(n)) {
      throw UsageError(args.bias + ": " + std::to_string(header.shape[0]) +
                       " values, expected N = " + std::to_string(n));
    }
    if (int8) {
      RequireDtype(header, NpyArray::Dtype::kInt32, args.bias);
      if (header.shape.size() != 1) throw UsageError(args.bias + ": expected a 1-D array");
      bias_int32 = ReadInput(args.bias).AsInt32();
      request.bias_int32 = &bias_int32;
    } else {
      bias = ReadFloat32(args.bias, 1);
      request.bias = &bias;
    }
  }
  if (accumulate && int8) {
    const NpyArray header = ReadInput(args.accumulate, true);
    RequireDtype(header, NpyArray::Dtype::kInt32, args.accumulate);
    if (header.shape.size() != 2 || header.shape[0] != size_t(m) || header.shape[1] != size_t(n)) {
      throw UsageError(args.accumulate + ": expected an int32 array of shape (" +
                       std::to_string(m) + ", " + std::to_string(n) + ")");
    }
    c0_int32 = driver::Int32Matrix(m, n);
    c0_int32.data = ReadInput(args.accumulate).AsInt32();
    request.c0_int32 = &c0_int32;
  } else if (accumulate) {
    const NpyArray header = ReadInput(args.accumulate, true);
    if (!header.is_float() || header.shape.size() != 2 || header.shape[0] != size_t(m) ||
        header.shape[1] != size_t(n)) {
      throw UsageError(args.accumulate + ": expected a float array of shape (" + std::to_string(m) +
                       ", " + std::to_string(n) + ")");
    }
    const NpyArray array = ReadInput(args.accumulate);
    c0 = Fp32Matrix(m, n);
    c0.data = array.AsFloat32();
    request.c0 = &c0;
  }

  if (request.output == driver::OutputType::kInt8) {
    std::vector<double> values;
    if (Given(cli, "--scales")) {
      const NpyArray header = ReadInput(args.scales, true);
      if (!header.is_float() || header.shape.size() != 1 || header.shape[0] != size_t(n)) {
        throw UsageError(args.scales + ": expected " + std::to_string(n) +
                         " float values (one per column of C)");
      }
      values = ReadInput(args.scales).AsFloat64();
    } else {
      char* end = nullptr;
      const double x = std::strtod(args.scale.c_str(), &end);
      if (args.scale.empty() || *end != '\0') {
        throw UsageError("--scale " + args.scale + ": not a number");
      }
      values.assign(static_cast<size_t>(n), x);
    }
    quant = QuantWords(values, Given(cli, "--scales") ? args.scales : "--scale");
    request.quant = &quant;
  }

  auto device = OpenDevice(args.device);
  PendingOutputs files;
  RunRecorder recorder(args.trace, &files);
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*device);
  Bf16Matrix a, b;
  driver::Int8Matrix a8, b8;
  if (int8) {
    if (file_operands) {
      a8 = driver::Int8Matrix(static_cast<int>(a_file.shape[0]), static_cast<int>(a_file.shape[1]));
      a8.data = a_file.AsInt8();
      b8 = driver::Int8Matrix(static_cast<int>(b_file.shape[0]), static_cast<int>(b_file.shape[1]));
      b8.data = b_file.AsInt8();
      a_file = NpyArray();
      b_file = NpyArray();
    } else {
      golden::BitSource bits(args.seed);
      a8 = request.trans_a ? RandomInt8Matrix(k, m, bits) : RandomInt8Matrix(m, k, bits);
      b8 = request.trans_b ? RandomInt8Matrix(n, k, bits) : RandomInt8Matrix(k, n, bits);
    }
    request.a_int8 = &a8;
    request.b_int8 = &b8;
  } else if (file_operands) {
    a = ToBf16Matrix(a_file, config.subnormals);
    b = ToBf16Matrix(b_file, config.subnormals);
    a_file = NpyArray();
    b_file = NpyArray();
  } else {
    golden::BitSource bits(args.seed);
    a = request.trans_a ? RandomMatrix(k, m, bits) : RandomMatrix(m, k, bits);
    b = request.trans_b ? RandomMatrix(n, k, bits) : RandomMatrix(k, n, bits);
  }
  if (!int8) {
    request.a = &a;
    request.b = &b;
  }

  // The trace window counts device cycles from here, the start of the GEMM's own register writes.
  recorder.Arm(*device);
  const bool progress = !args.json && isatty(STDERR_FILENO);
  driver::GemmResult result;
  if (progress) {
    ProgressDevice shown(*device);
    result = driver::Gemm(shown, config, request, args.device.watchdog_cycles);
  } else {
    result = driver::Gemm(*device, config, request, args.device.watchdog_cycles);
  }
  recorder.Finish(*device);
  CheckResult check;
  if (args.check && int8) {
    const Int8Check c = CheckInt8(request, result);
    check.compared = c.compared;
    check.mismatches = c.mismatches;
  } else if (args.check) {
    check = Check(request, result, config);
  }

  const std::vector<size_t> shape = {size_t(m), size_t(n)};
  if (Given(cli, "--out") && int8) {
    files.Write(args.out, [&](const std::string& temp) {
      WriteNpy(temp, MakeNpy(result.c_int32.data, shape));
    });
  } else if (Given(cli, "--out")) {
    files.Write(args.out, [&](const std::string& temp) { WriteNpy(temp, result.c.data, shape); });
  }
  if (Given(cli, "--out-int8")) {
    files.Write(args.out_int8, [&](const std::string& temp) {
      WriteNpy(temp, MakeNpy(result.c_int8.data, shape));
    });
  }
  if (Given(cli, "--out-bf16")) {
    files.Write(args.out_bf16,
                [&](const std::string& temp) { WriteNpy(temp, result.c_bf16.data, shape); });
  }

  const driver::RunStats& s = result.stats;
  const uint64_t cycles = s.counter(csr::Counter::kCycles);
  const double cps = s.wall_seconds > 0 ? cycles / s.wall_seconds : 0;
  if (args.json) {
    nlohmann::ordered_json j;
    j["m"] = m;
    j["k"] = k;
    j["n"] = n;
    j["array"] = {config.rows, config.cols};
    j["dtype"] = args.dtype;
    j["cycles"] = cycles;
    j["ideal_cycles"] = result.ideal_cycles;
    j["utilization"] = result.utilization;
    j["macs"] = uint64_t(m) * k * n;
    j["array_busy_cycles"] = s.counter(csr::Counter::kArrayBusy);
    j["dma_read_bytes"] = s.counter(csr::Counter::kDmaReadBytes);
    j["dma_write_bytes"] = s.counter(csr::Counter::kDmaWriteBytes);
    j["instructions"] = result.instructions;
    j["stall_dependency"] = s.counter(csr::Counter::kStallDependency);
    j["stall_weights"] = s.counter(csr::Counter::kStallWeights);
    j["stall_fetch"] = s.counter(csr::Counter::kStallFetch);
    j["stall_memory"] = s.counter(csr::Counter::kStallMemory);
    j["wall_seconds"] = s.wall_seconds;
    j["sim_cycles_per_second"] = cps;
    if (args.check) {
      j["checked"] = check.compared;
      j["mismatches"] = check.mismatches;
    }
    std::printf("%s\n", j.dump().c_str());
  } else {
    const char* out_type = request.output == driver::OutputType::kBf16    ? ", bf16 out"
                           : request.output == driver::OutputType::kInt32 ? ", int8, int32 out"
                           : request.output == driver::OutputType::kInt8  ? ", int8, int8 out"
                                                                          : ", fp32 out";
    const bool has_bias = request.bias || request.bias_int32;
    const bool has_c0 = request.c0 || request.c0_int32;
    std::printf("GEMM %d x %d x %d on a %u x %u array (%s backend)%s%s%s\n", m, k, n, config.rows,
                config.cols, device->name(), request.relu ? ", ReLU" : "", out_type,
                has_bias ? ", bias" : (has_c0 ? ", C += A x B" : ""));
    std::printf("  device cycles       %llu (ideal %llu, utilization %.1f%%)\n",
                (unsigned long long)cycles, (unsigned long long)result.ideal_cycles,
                100.0 * result.utilization);
    std::printf("  array busy cycles   %llu\n",
                (unsigned long long)s.counter(csr::Counter::kArrayBusy));
    std::printf("  DMA read / write    %llu / %llu bytes\n",
                (unsigned long long)s.counter(csr::Counter::kDmaReadBytes),
                (unsigned long long)s.counter(csr::Counter::kDmaWriteBytes));
    std::printf("  instructions        %zu (M block %d, N group %d, A %s)\n", result.instructions,
                result.blocking.m_block, result.blocking.n_group,
                result.blocking.a_resident ? "resident" : "reloaded");
    std::printf("  wall time           %.2f s (%.0f simulated cycles/s)\n", s.wall_seconds, cps);
    if (args.check) {
      std::printf("  check               %zu outputs, %zu mismatches: %s\n", check.compared,
                  check.mismatches,
                  check.mismatches ? "FAILED"
                  : int8           ? "exact"
                                   : "bit-exact");
    }
  }
  FlushStdout();
  if (check.mismatches) return 1;  // a failed check writes no file
  files.Commit();
  return 0;
}

}  // namespace
}  // namespace mxu::host
