#include "host/gemm/gemm_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/bf16.h"
#include "common/csr_map.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "driver/gemm_limits.h"
#include "golden/float_vectors.h"
#include "host/cli/cli.h"
#include "host/cli/device_options.h"
#include "host/cli/output_file.h"
#include "host/cli/trace_options.h"
#include "host/gemm/gemm_operands.h"
#include "host/gemm/gemm_progress.h"
#include "host/gemm/gemm_result.h"
#include "host/gemm/int8_operands.h"
#include "io/npy.h"

namespace mxu::host {
namespace {

using driver::Bf16Matrix;
using driver::Fp32Matrix;
using driver::GemmSizeProblem;
using driver::kMaxDimension;

// A malformed or unreadable input file is bad input (exit code 2), like a bad flag.
NpyArray ReadInput(const std::string& path) {
  try {
    return ReadNpy(path);
  } catch (const std::runtime_error& error) {
    throw UsageError(error.what());
  }
}

// The dtypes each input takes, as its refusals name them.
constexpr char kOperandDtypes[] = "float32 '<f4', float64 '<f8' or uint16 '<u2'";
constexpr char kFloatDtypes[] = "float32 '<f4' or float64 '<f8'";
constexpr char kInt8Dtypes[] = "int8 '|i1' (the int8 mode)";
constexpr char kInt32Dtypes[] = "int32 '<i4' (the int8 mode)";

// An input's header, read first: a dtype the .npy reader does not know (float16...) is refused
// naming what this input takes, not every dtype the reader knows.
NpyArray ReadHeader(const std::string& path, const std::string& accepts) {
  try {
    return ReadNpyHeader(path);
  } catch (const NpyUnsupportedDtype& error) {
    throw UsageError(path + ": unsupported dtype '" + error.descr + "' (expected " + accepts + ")");
  } catch (const std::runtime_error& error) {
    throw UsageError(error.what());
  }
}

// A 2-D operand's header from .npy, read before the device opens: its shape is checked here.
NpyArray ReadOperand(const std::string& path, bool int8) {
  NpyArray array = ReadHeader(path, int8 ? kInt8Dtypes : kOperandDtypes);
  if (int8) {
    RequireDtype(array, NpyArray::Dtype::kInt8, path);
  } else if (!array.is_float() && array.dtype != NpyArray::Dtype::kUint16) {
    // .npy files may hold integers and strings too (checkpoints); operands are floats or bf16
    // bits.
    throw UsageError(path + ": unsupported dtype '" + array.descr() + "' (expected " +
                     kOperandDtypes + ")");
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

driver::Int8Matrix ToInt8Matrix(const NpyArray& array) {
  driver::Int8Matrix m(static_cast<int>(array.shape[0]), static_cast<int>(array.shape[1]));
  m.data = array.AsInt8();
  return m;
}

std::vector<float> ReadFloat32(const std::string& path, size_t rank_max) {
  const NpyArray header = ReadHeader(path, kFloatDtypes);
  if (!header.is_float()) throw UsageError(path + ": expected float32 or float64");
  if (header.shape.empty() || header.shape.size() > rank_max) {
    throw UsageError(path + ": unexpected rank " + std::to_string(header.shape.size()));
  }
  return ReadInput(path).AsFloat32();
}

// Refuses, before anything is allocated, a problem above kMaxProblemBytes (each matrix at its
// mode's element size: an int8 operand takes 1 byte).
void CheckProblemSize(uint64_t m, uint64_t k, uint64_t n, const driver::GemmElementBytes& bytes,
                      bool accumulate) {
  const std::string problem = GemmSizeProblem(m, k, n, bytes, accumulate);
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

// --m --k --n --seed or --a --b, the transposes, ReLU, --bias or --accumulate.
void AddOperandOptions(CLI::App* cmd, GemmArgs& a) {
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
}

// The output files, the operand type and the int8 mode's requantization.
void AddOutputOptions(CLI::App* cmd, GemmArgs& a) {
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
          ->type_name("X")
          ->check(DecimalNumber());
  cmd->add_option("--scales", a.scales, "requantization: N float scales, one per column")
      ->type_name("SCALES.npy")
      ->excludes(scale);
  cmd->add_option("--zero-point", a.zero_point, "requantization: the output zero point")
      ->check(CLI::Range(-128, 127))
      ->type_name("-128..127");
}

}  // namespace

std::function<int()> AddGemmCommand(CLI::App& app) {
  auto args = std::make_shared<GemmArgs>();
  CLI::App* cmd = app.add_subcommand(
      "gemm",
      "One GEMM on the device, C = op(A) x op(B) (+ bias | + C0) (ReLU): random operands of shape "
      "--m --k --n (all three, or none for 64 x 64 x 64), or --a A.npy --b B.npy. Each dimension "
      "is at most 65535, and A (2 bytes an element), B (2) and C (4, or 2 with --out-bf16), plus "
      "C0 (int8: A and B 1 byte, C 4, or 1 with --out-int8), together at most 2 GiB (half the "
      "device's 4 GiB host memory). .npy inputs: float32, "
      "or float64 (rounded to float32 first, as NumPy's astype, then to bf16), or uint16 taken "
      "as bf16 bits; C or Fortran order.");
  cmd->footer(kExitCodesHelp);
  GemmArgs& a = *args;
  AddOperandOptions(cmd, a);
  AddOutputOptions(cmd, a);
  cmd->add_flag("--check", a.check,
                "compare every output bit with the golden model (exit 1 on a mismatch)");
  cmd->add_flag("--json", a.json, "statistics as one JSON object on stdout");
  AddDeviceOptions(cmd, &a.device, kDeviceBackendsHelp);
  AddTraceOptions(cmd, &a.trace);
  return [cmd, args] { return RunGemm(*cmd, *args); };
}

namespace {

// What the options ask for, checked against each other.
struct GemmMode {
  bool int8 = false;        // --dtype int8
  bool requantize = false;  // int8 out: --out-int8 and its scales
  bool file_operands = false;
  bool accumulate = false;  // C += A x B
};

// One GEMM's request with the buffers it points at (not copyable: the request points into it).
struct GemmProblem {
  GemmProblem() = default;
  GemmProblem(const GemmProblem&) = delete;
  GemmProblem& operator=(const GemmProblem&) = delete;

  int m = 0, k = 0, n = 0;
  driver::GemmRequest request;
  GemmOperands operands;
  NpyArray a_file, b_file;  // --a and --b until the device's subnormal mode is known
};

// The files named on the command line: each output checked against the inputs before the run.
void CheckGemmPaths(const CLI::App& cli, const TraceOptions& trace) {
  std::vector<PathArg> inputs, outputs;
  for (const char* option : {"--a", "--b", "--bias", "--accumulate", "--scales"}) {
    if (Given(cli, option)) inputs.push_back({option, cli.get_option(option)->as<std::string>()});
  }
  for (const char* option : {"--out", "--out-bf16", "--out-int8"}) {
    if (Given(cli, option)) outputs.push_back({option, cli.get_option(option)->as<std::string>()});
  }
  RunRecorder::AddOutputs(trace, &outputs);
  CheckOutputPaths(outputs, inputs);
}

// The option combinations CLI11 cannot state, refused before any file is read.
GemmMode CheckGemmOptions(const CLI::App& cli, const GemmArgs& args) {
  const int given_shape = Given(cli, "--m") + Given(cli, "--k") + Given(cli, "--n");
  if (given_shape != 0 && given_shape != 3) {
    throw UsageError("give all of --m, --k and --n (or none, for 64 x 64 x 64)");
  }
  GemmMode mode;
  mode.file_operands = !args.a.empty() || Given(cli, "--a");
  CheckGemmPaths(cli, args.trace);
  mode.int8 = args.dtype == "int8";
  mode.requantize = Given(cli, "--out-int8") || Given(cli, "--scale") || Given(cli, "--scales") ||
                    Given(cli, "--zero-point");
  if (mode.int8 && Given(cli, "--out-bf16")) {
    throw UsageError(
        "--out-bf16 is for --dtype bf16: an int8 GEMM writes int32 (--out) or int8 "
        "(--out-int8)");
  }
  if (!mode.int8 && mode.requantize) {
    throw UsageError("--out-int8, --scale, --scales and --zero-point need --dtype int8");
  }
  if (mode.requantize && !Given(cli, "--scale") && !Given(cli, "--scales")) {
    throw UsageError("int8 output needs --scale X or --scales SCALES.npy");
  }
  // A requantizing GEMM's C is int8: --out would write the int32 C the device never returns.
  if (mode.requantize && Given(cli, "--out")) {
    throw UsageError(
        "--out writes the int32 C, but --scale, --scales or --zero-point requantize C to int8: "
        "write it with --out-int8");
  }
  mode.accumulate = Given(cli, "--accumulate");
  return mode;
}

void SetRequestOptions(const CLI::App& cli, const GemmArgs& args, const GemmMode& mode,
                       driver::GemmRequest* request) {
  request->trans_a = args.ta;
  request->trans_b = args.tb;
  request->relu = args.relu;
  request->output =
      Given(cli, "--out-bf16") ? driver::OutputType::kBf16 : driver::OutputType::kFp32;
  if (mode.int8) {
    request->output = mode.requantize ? driver::OutputType::kInt8 : driver::OutputType::kInt32;
  }
  request->zero_point = args.zero_point;
}

// M, K and N from --a and --b's headers (their data is read once the size is known to fit).
void ReadShapeFromFiles(const GemmArgs& args, bool int8, GemmProblem* p) {
  p->a_file = ReadOperand(args.a, int8);
  p->b_file = ReadOperand(args.b, int8);
  const int a_rows = static_cast<int>(p->a_file.shape[0]),
            a_cols = static_cast<int>(p->a_file.shape[1]);
  const int b_rows = static_cast<int>(p->b_file.shape[0]),
            b_cols = static_cast<int>(p->b_file.shape[1]);
  p->m = p->request.trans_a ? a_cols : a_rows;
  p->k = p->request.trans_a ? a_rows : a_cols;
  p->n = p->request.trans_b ? b_rows : b_cols;
  const int kb = p->request.trans_b ? b_cols : b_rows;
  if (p->k != kb) {
    throw UsageError("op(A) is " + std::to_string(p->m) + "x" + std::to_string(p->k) +
                     " but op(B) is " + std::to_string(kb) + "x" + std::to_string(p->n) +
                     ": inner dimensions differ");
  }
}

// The shape from the flags or the files' headers, and the size limit, before any data is read.
void ReadShape(const GemmArgs& args, const GemmMode& mode, GemmProblem* p) {
  if (mode.file_operands) {
    ReadShapeFromFiles(args, mode.int8, p);
  } else {
    p->m = args.m;
    p->k = args.k;
    p->n = args.n;
  }
  const driver::OutputType out = p->request.output;
  CheckProblemSize(p->m, p->k, p->n,
                   mode.int8 ? driver::Int8ElementBytes(out == driver::OutputType::kInt8)
                             : driver::Bf16ElementBytes(out == driver::OutputType::kBf16),
                   mode.accumulate);
  if (mode.file_operands) {
    p->a_file = ReadInput(args.a);
    p->b_file = ReadInput(args.b);
  }
}

// --bias: N int32 values in the int8 mode, else N floats.
void ReadBias(const std::string& path, bool int8, GemmProblem* p) {
  const NpyArray header = ReadHeader(path, int8 ? kInt32Dtypes : kFloatDtypes);
  if (header.shape.size() == 1 && header.shape[0] != size_t(p->n)) {
    throw UsageError(path + ": " + std::to_string(header.shape[0]) +
                     " values, expected N = " + std::to_string(p->n));
  }
  if (int8) {
    RequireDtype(header, NpyArray::Dtype::kInt32, path);
    if (header.shape.size() != 1) throw UsageError(path + ": expected a 1-D array");
    p->operands.bias_int32 = ReadInput(path).AsInt32();
    p->request.bias_int32 = &p->operands.bias_int32;
  } else {
    p->operands.bias = ReadFloat32(path, 1);
    p->request.bias = &p->operands.bias;
  }
}

// --accumulate: C0, M x N int32 in the int8 mode, else M x N floats.
void ReadAccumulator(const std::string& path, bool int8, GemmProblem* p) {
  const NpyArray header = ReadHeader(path, int8 ? kInt32Dtypes : kFloatDtypes);
  if (int8) RequireDtype(header, NpyArray::Dtype::kInt32, path);
  if ((!int8 && !header.is_float()) || header.shape.size() != 2 ||
      header.shape[0] != size_t(p->m) || header.shape[1] != size_t(p->n)) {
    throw UsageError(path + ": expected " + (int8 ? "an int32" : "a float") + " array of shape (" +
                     std::to_string(p->m) + ", " + std::to_string(p->n) + ")");
  }
  const NpyArray array = ReadInput(path);
  if (int8) {
    p->operands.c0_int32 = driver::Int32Matrix(p->m, p->n);
    p->operands.c0_int32.data = array.AsInt32();
    p->request.c0_int32 = &p->operands.c0_int32;
  } else {
    p->operands.c0 = Fp32Matrix(p->m, p->n);
    p->operands.c0.data = array.AsFloat32();
    p->request.c0 = &p->operands.c0;
  }
}

// The requantization scale of each of the n columns: --scales, or --scale for all.
std::vector<double> ReadScales(const CLI::App& cli, const GemmArgs& args, int n) {
  if (Given(cli, "--scales")) {
    const NpyArray header = ReadHeader(args.scales, kFloatDtypes);
    if (!header.is_float() || header.shape.size() != 1 || header.shape[0] != size_t(n)) {
      throw UsageError(args.scales + ": expected " + std::to_string(n) +
                       " float values (one per column of C)");
    }
    return ReadInput(args.scales).AsFloat64();
  }
  double x = 0;
  const std::string problem = ParseDecimalNumber(args.scale, &x);  // checked when parsed too
  if (!problem.empty()) throw UsageError("--scale " + problem);
  return std::vector<double>(static_cast<size_t>(n), x);
}

// Everything the GEMM needs from the command line and its files, checked before the device opens.
void ReadProblem(const CLI::App& cli, const GemmArgs& args, const GemmMode& mode, GemmProblem* p) {
  SetRequestOptions(cli, args, mode, &p->request);
  ReadShape(args, mode, p);
  if (Given(cli, "--bias")) ReadBias(args.bias, mode.int8, p);
  if (mode.accumulate) ReadAccumulator(args.accumulate, mode.int8, p);
  if (p->request.output == driver::OutputType::kInt8) {
    const std::vector<double> scales = ReadScales(cli, args, p->n);
    p->operands.quant = QuantWords(scales, Given(cli, "--scales") ? args.scales : "--scale");
    p->request.quant = &p->operands.quant;
  }
}

// A and B from their files (bf16 rounding needs the device's subnormal mode), or random.
void SetOperands(const GemmArgs& args, const GemmMode& mode, const driver::DeviceConfig& config,
                 GemmProblem* p) {
  if (!mode.file_operands) {
    golden::BitSource bits(args.seed);
    SetRandomOperands(p->m, p->k, p->n, mode.int8, bits, &p->operands, &p->request);
    return;
  }
  GemmOperands& o = p->operands;
  if (mode.int8) {
    o.a8 = ToInt8Matrix(p->a_file);
    o.b8 = ToInt8Matrix(p->b_file);
    p->request.a_int8 = &o.a8;
    p->request.b_int8 = &o.b8;
  } else {
    o.a = ToBf16Matrix(p->a_file, config.subnormals);
    o.b = ToBf16Matrix(p->b_file, config.subnormals);
    p->request.a = &o.a;
    p->request.b = &o.b;
  }
  p->a_file = NpyArray();  // the copies are no longer needed
  p->b_file = NpyArray();
}

// Seconds before the progress bar shows: 1, or MXU_PROGRESS_AFTER's (a number >= 0; the tests set
// 0, so that the bar shows however fast the machine simulates).
// On a terminal, a long GEMM shows its progress (not with --json: a script reads that output).
driver::GemmResult RunWithProgress(driver::Device& device, const driver::DeviceConfig& config,
                                   const driver::GemmRequest& request, const GemmArgs& args) {
  if (args.json || !isatty(STDERR_FILENO)) {
    return driver::Gemm(device, config, request, args.device.watchdog_cycles);
  }
  ProgressDevice shown(device, ProgressAfterSeconds());
  return driver::Gemm(shown, config, request, args.device.watchdog_cycles);
}

// --out, --out-int8 and --out-bf16 to their temporaries, committed when the run succeeded.
void WriteOutputs(const CLI::App& cli, const GemmArgs& args, const GemmProblem& p,
                  const driver::GemmResult& result, PendingOutputs* files) {
  const std::vector<size_t> shape = {size_t(p.m), size_t(p.n)};
  if (Given(cli, "--out") && args.dtype == "int8") {
    files->Write(args.out, [&](const std::string& temp) {
      WriteNpy(temp, MakeNpy(result.c_int32.data, shape));
    });
  } else if (Given(cli, "--out")) {
    files->Write(args.out, [&](const std::string& temp) { WriteNpy(temp, result.c.data, shape); });
  }
  if (Given(cli, "--out-int8")) {
    files->Write(args.out_int8, [&](const std::string& temp) {
      WriteNpy(temp, MakeNpy(result.c_int8.data, shape));
    });
  }
  if (Given(cli, "--out-bf16")) {
    files->Write(args.out_bf16,
                 [&](const std::string& temp) { WriteNpy(temp, result.c_bf16.data, shape); });
  }
}

void PrintJson(const GemmArgs& args, const GemmProblem& p, const driver::DeviceConfig& config,
               const driver::GemmResult& result, const GoldenCheck& check) {
  nlohmann::ordered_json j;
  j["m"] = p.m;
  j["k"] = p.k;
  j["n"] = p.n;
  j["array"] = {config.rows, config.cols};
  j["dtype"] = args.dtype;
  j["cycles"] = result.stats.counter(csr::Counter::kCycles);
  j["ideal_cycles"] = result.ideal_cycles;
  j["estimated_cycles"] = result.blocking.estimated_cycles;  // the planner's cost model
  j["utilization"] = result.utilization;
  j["macs"] = uint64_t(p.m) * p.k * p.n;
  AddRunCounters(result, &j);
  if (args.check) {
    j["checked"] = check.compared;
    j["mismatches"] = check.mismatches;
  }
  std::printf("%s\n", j.dump().c_str());
}

// ", ReLU, fp32 out, bias": what the GEMM computed, after its shape.
std::string DescribeRequest(const driver::GemmRequest& request) {
  const char* out_type = request.output == driver::OutputType::kBf16    ? ", bf16 out"
                         : request.output == driver::OutputType::kInt32 ? ", int8, int32 out"
                         : request.output == driver::OutputType::kInt8  ? ", int8, int8 out"
                                                                        : ", fp32 out";
  const bool has_bias = request.bias || request.bias_int32;
  const bool has_c0 = request.c0 || request.c0_int32;
  return std::string(request.relu ? ", ReLU" : "") + out_type +
         (has_bias ? ", bias" : (has_c0 ? ", C += A x B" : ""));
}

void PrintTable(const GemmArgs& args, const GemmProblem& p, const driver::DeviceConfig& config,
                const char* backend, const driver::GemmResult& result, const GoldenCheck& check) {
  const driver::RunStats& s = result.stats;
  std::printf("GEMM %d x %d x %d on a %u x %u array (%s backend)%s\n", p.m, p.k, p.n, config.rows,
              config.cols, backend, DescribeRequest(p.request).c_str());
  std::printf("  device cycles       %llu (ideal %llu, utilization %.1f%%)\n",
              (unsigned long long)s.counter(csr::Counter::kCycles),
              (unsigned long long)result.ideal_cycles, 100.0 * result.utilization);
  std::printf("  array busy cycles   %llu\n",
              (unsigned long long)s.counter(csr::Counter::kArrayBusy));
  std::printf("  DMA read / write    %llu / %llu bytes\n",
              (unsigned long long)s.counter(csr::Counter::kDmaReadBytes),
              (unsigned long long)s.counter(csr::Counter::kDmaWriteBytes));
  std::printf("  instructions        %zu (M block %d, N group %d, A %s)\n", result.instructions,
              result.blocking.m_block, result.blocking.n_group,
              result.blocking.a_resident ? "resident" : "reloaded");
  std::printf("  wall time           %.2f s (%.0f simulated cycles/s)\n", s.wall_seconds,
              SimCyclesPerSecond(s));
  if (args.check) {
    std::printf("  check               %zu outputs, %zu mismatches: %s\n", check.compared,
                check.mismatches,
                check.mismatches       ? "FAILED"
                : args.dtype == "int8" ? "exact"
                                       : "bit-exact");
  }
}

int RunGemm(const CLI::App& cli, const GemmArgs& args) {
  const GemmMode mode = CheckGemmOptions(cli, args);
  GemmProblem problem;
  ReadProblem(cli, args, mode, &problem);

  auto device = OpenDevice(args.device);
  PendingOutputs files;
  RunRecorder recorder(args.trace, &files);
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*device);
  SetOperands(args, mode, config, &problem);
  // The trace window counts device cycles from here, the start of the GEMM's own register writes.
  recorder.Arm(*device);
  const driver::GemmResult result = RunWithProgress(*device, config, problem.request, args);
  recorder.Finish(*device);

  GoldenCheck check;
  if (args.check) check = CheckWithGolden(problem.request, result, config, "");
  WriteOutputs(cli, args, problem, result, &files);
  if (args.json) {
    PrintJson(args, problem, config, result, check);
  } else {
    PrintTable(args, problem, config, device->name(), result, check);
  }
  FlushStdout();
  if (check.mismatches) return 1;  // a failed check writes no file
  files.Commit();
  return 0;
}

}  // namespace
}  // namespace mxu::host
