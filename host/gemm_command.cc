#include "host/gemm_command.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "common/bf16.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "driver/golden/float_vectors.h"
#include "driver/golden/gemm.h"
#include "driver/golden/numerics.h"
#include "host/device_options.h"
#include "host/npy.h"
#include "host/trace_options.h"

namespace mxu::host {
namespace {

using driver::Bf16Matrix;
using driver::Fp32Matrix;

// A malformed or unreadable input file is bad input (exit code 2), like a bad flag.
NpyArray ReadInput(const std::string& path) {
  try {
    return ReadNpy(path);
  } catch (const std::runtime_error& error) {
    throw UsageError(error.what());
  }
}

// A 2-D operand from .npy: float32 is rounded to bf16, uint16 is taken as raw bf16 bits.
Bf16Matrix ReadBf16Matrix(const std::string& path, Subnormals mode) {
  const NpyArray array = ReadInput(path);
  if (array.shape.size() != 2) {
    throw UsageError(path + ": expected a 2-D array, got rank " +
                     std::to_string(array.shape.size()));
  }
  Bf16Matrix m(static_cast<int>(array.shape[0]), static_cast<int>(array.shape[1]));
  if (m.data.empty()) throw UsageError(path + ": a zero dimension");
  if (array.dtype == NpyArray::Dtype::kUint16) {
    m.data = array.AsUint16();
  } else {
    const std::vector<float> values = array.AsFloat32();
    for (size_t i = 0; i < values.size(); ++i) m.data[i] = FloatToBf16(values[i], mode);
  }
  return m;
}

std::vector<float> ReadFloat32(const std::string& path, size_t rank_max) {
  const NpyArray array = ReadInput(path);
  if (array.dtype != NpyArray::Dtype::kFloat32) throw UsageError(path + ": expected float32");
  if (array.shape.empty() || array.shape.size() > rank_max) {
    throw UsageError(path + ": unexpected rank " + std::to_string(array.shape.size()));
  }
  return array.AsFloat32();
}

// Random bf16 operands: values of moderate size, with a sprinkle of every special class.
Bf16Matrix RandomMatrix(int rows, int cols, golden::BitSource& bits) {
  static const std::vector<uint16_t> specials = golden::SpecialBf16();
  Bf16Matrix m(rows, cols);
  for (uint16_t& x : m.data) {
    x = bits.Below(1000) == 0 ? specials[bits.Below(specials.size())]
                              : static_cast<uint16_t>((golden::RandomBf16(bits) & 0x807F) |
                                                      (120 + bits.Below(12)) << 7);
  }
  return m;
}

golden::Bf16Matrix OpForm(const Bf16Matrix& stored, bool transposed) {
  golden::Bf16Matrix m{transposed ? stored.cols : stored.rows,
                       transposed ? stored.rows : stored.cols, {}};
  m.data.resize(stored.data.size());
  for (int r = 0; r < m.rows; ++r) {
    for (int c = 0; c < m.cols; ++c) {
      m.data[static_cast<size_t>(r) * m.cols + c] =
          transposed ? stored.at(c, r) : stored.at(r, c);
    }
  }
  return m;
}

struct CheckResult {
  size_t compared = 0, mismatches = 0;
};

CheckResult Check(const driver::GemmRequest& request, const driver::GemmResult& result,
                  const driver::DeviceConfig& config) {
  const golden::Bf16Matrix a = OpForm(*request.a, request.trans_a);
  const golden::Bf16Matrix b = OpForm(*request.b, request.trans_b);
  golden::Fp32Matrix start{a.rows, b.cols, {}};
  const golden::Fp32Matrix* c0 = nullptr;
  if (request.c0) {
    start.data = request.c0->data;
    c0 = &start;
  } else if (request.bias) {
    for (int r = 0; r < a.rows; ++r) {
      start.data.insert(start.data.end(), request.bias->begin(), request.bias->end());
    }
    c0 = &start;
  }
  const golden::Fp32Matrix want = golden::Gemm(a, b, static_cast<int>(config.rows),
                                               config.subnormals, c0);
  CheckResult check;
  for (int r = 0; r < want.rows; ++r) {
    for (int c = 0; c < want.cols; ++c) {
      const float w = request.relu ? golden::Relu(want.at(r, c)) : want.at(r, c);
      uint32_t want_bits, got_bits;
      if (request.output == driver::OutputType::kBf16) {
        want_bits = golden::FloatToBf16(w, config.subnormals);
        got_bits = result.c_bf16.at(r, c);
      } else {
        want_bits = golden::FloatBits(w);
        got_bits = golden::FloatBits(result.c.at(r, c));
      }
      ++check.compared;
      if (got_bits != want_bits && ++check.mismatches <= 5) {
        std::fprintf(stderr, "mismatch C[%d][%d]: device 0x%08x, golden 0x%08x\n", r, c,
                     got_bits, want_bits);
      }
    }
  }
  return check;
}

}  // namespace

int RunGemm(const std::vector<std::string>& args) {
  std::set<std::string> value_flags = DeviceValueFlags();
  value_flags.insert(TraceValueFlags().begin(), TraceValueFlags().end());
  value_flags.insert({"m", "k", "n", "seed", "a", "b", "bias", "accumulate", "out", "out-bf16"});
  const CliArgs cli(args, value_flags, {"ta", "tb", "relu", "check", "json"});
  const DeviceOptions options = ParseDeviceOptions(cli);
  RunRecorder recorder(ParseTraceOptions(cli));
  const bool json = cli.Has("json");
  if (cli.Has("out") && cli.Has("out-bf16")) {
    throw UsageError("--out (fp32) and --out-bf16 select different outputs: give one");
  }
  if (cli.Has("a") != cli.Has("b")) throw UsageError("--a and --b go together");
  if (cli.Has("bias") && cli.Has("accumulate")) {
    throw UsageError("--bias and --accumulate both set the accumulators' start: give one");
  }

  auto device = OpenDevice(options);
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*device);

  driver::GemmRequest request;
  request.trans_a = cli.Has("ta");
  request.trans_b = cli.Has("tb");
  request.relu = cli.Has("relu");
  request.output = cli.Has("out-bf16") ? driver::OutputType::kBf16 : driver::OutputType::kFp32;
  Bf16Matrix a, b;
  int m, k, n;
  if (cli.Has("a")) {
    if (cli.Has("m") || cli.Has("k") || cli.Has("n")) {
      throw UsageError("--m/--k/--n come from the .npy shapes when --a/--b are given");
    }
    a = ReadBf16Matrix(cli.String("a", ""), config.subnormals);
    b = ReadBf16Matrix(cli.String("b", ""), config.subnormals);
    m = request.trans_a ? a.cols : a.rows;
    k = request.trans_a ? a.rows : a.cols;
    n = request.trans_b ? b.rows : b.cols;
    const int kb = request.trans_b ? b.cols : b.rows;
    if (k != kb) {
      throw UsageError("op(A) is " + std::to_string(m) + "x" + std::to_string(k) + " but op(B) is " +
                       std::to_string(kb) + "x" + std::to_string(n) + ": inner dimensions differ");
    }
  } else {
    m = static_cast<int>(cli.Unsigned("m", 64, 1, 65535));
    k = static_cast<int>(cli.Unsigned("k", 64, 1, 65535));
    n = static_cast<int>(cli.Unsigned("n", 64, 1, 65535));
    golden::BitSource bits(cli.Unsigned("seed", 1));
    a = request.trans_a ? RandomMatrix(k, m, bits) : RandomMatrix(m, k, bits);
    b = request.trans_b ? RandomMatrix(n, k, bits) : RandomMatrix(k, n, bits);
  }
  request.a = &a;
  request.b = &b;
  std::vector<float> bias;
  Fp32Matrix c0;
  if (cli.Has("bias")) {
    bias = ReadFloat32(cli.String("bias", ""), 1);
    if (static_cast<int>(bias.size()) != n) {
      throw UsageError(cli.String("bias", "") + ": " + std::to_string(bias.size()) +
                       " values, expected N = " + std::to_string(n));
    }
    request.bias = &bias;
  }
  if (cli.Has("accumulate")) {
    const std::string path = cli.String("accumulate", "");
    const NpyArray array = ReadInput(path);
    if (array.dtype != NpyArray::Dtype::kFloat32 || array.shape.size() != 2 ||
        array.shape[0] != size_t(m) || array.shape[1] != size_t(n)) {
      throw UsageError(path + ": expected a float32 array of shape (" + std::to_string(m) + ", " +
                       std::to_string(n) + ")");
    }
    c0 = Fp32Matrix(m, n);
    c0.data = array.AsFloat32();
    request.c0 = &c0;
  }

  // The trace window counts device cycles from here, the start of the GEMM's own register writes.
  recorder.Arm(*device);
  const driver::GemmResult result = driver::Gemm(*device, config, request, options.watchdog_cycles);
  recorder.Finish(*device);
  CheckResult check;
  if (cli.Has("check")) check = Check(request, result, config);

  if (cli.Has("out")) {
    WriteNpy(cli.String("out", ""), result.c.data, {size_t(m), size_t(n)});
  }
  if (cli.Has("out-bf16")) {
    WriteNpy(cli.String("out-bf16", ""), result.c_bf16.data, {size_t(m), size_t(n)});
  }

  const driver::RunStats& s = result.stats;
  const uint64_t cycles = s.counter(csr::Counter::kCycles);
  const double cps = s.wall_seconds > 0 ? cycles / s.wall_seconds : 0;
  if (json) {
    std::printf(
        "{\"m\": %d, \"k\": %d, \"n\": %d, \"array\": [%u, %u], \"cycles\": %llu, "
        "\"ideal_cycles\": %llu, \"utilization\": %.4f, \"macs\": %llu, \"array_busy_cycles\": "
        "%llu, \"dma_read_bytes\": %llu, \"dma_write_bytes\": %llu, \"instructions\": %zu, "
        "\"stall_dependency\": %llu, \"stall_weights\": %llu, \"stall_fetch\": %llu, "
        "\"stall_memory\": %llu, \"wall_seconds\": %.3f, \"sim_cycles_per_second\": %.0f",
        m, k, n, config.rows, config.cols, (unsigned long long)cycles,
        (unsigned long long)result.ideal_cycles, result.utilization,
        (unsigned long long)(uint64_t(m) * k * n),
        (unsigned long long)s.counter(csr::Counter::kArrayBusy),
        (unsigned long long)s.counter(csr::Counter::kDmaReadBytes),
        (unsigned long long)s.counter(csr::Counter::kDmaWriteBytes), result.instructions,
        (unsigned long long)s.counter(csr::Counter::kStallDependency),
        (unsigned long long)s.counter(csr::Counter::kStallWeights),
        (unsigned long long)s.counter(csr::Counter::kStallFetch),
        (unsigned long long)s.counter(csr::Counter::kStallMemory), s.wall_seconds, cps);
    if (cli.Has("check")) {
      std::printf(", \"checked\": %zu, \"mismatches\": %zu", check.compared, check.mismatches);
    }
    std::printf("}\n");
  } else {
    std::printf("GEMM %d x %d x %d on a %u x %u array (%s backend)%s%s%s\n", m, k, n, config.rows,
                config.cols, device->name(), request.relu ? ", ReLU" : "",
                request.output == driver::OutputType::kBf16 ? ", bf16 out" : ", fp32 out",
                request.bias ? ", bias" : (request.c0 ? ", C += A x B" : ""));
    std::printf("  device cycles       %llu (ideal %llu, utilization %.1f%%)\n",
                (unsigned long long)cycles, (unsigned long long)result.ideal_cycles,
                100.0 * result.utilization);
    std::printf("  array busy cycles   %llu\n",
                (unsigned long long)s.counter(csr::Counter::kArrayBusy));
    std::printf("  DMA read / write    %llu / %llu bytes\n",
                (unsigned long long)s.counter(csr::Counter::kDmaReadBytes),
                (unsigned long long)s.counter(csr::Counter::kDmaWriteBytes));
    std::printf("  instructions        %zu (M block %d, K chunk %d, A %s)\n", result.instructions,
                result.m_block, result.k_chunk, result.a_resident ? "resident" : "reloaded");
    std::printf("  wall time           %.2f s (%.0f simulated cycles/s)\n", s.wall_seconds, cps);
    if (cli.Has("check")) {
      std::printf("  check               %zu outputs, %zu mismatches: %s\n", check.compared,
                  check.mismatches, check.mismatches ? "FAILED" : "bit-exact");
    }
  }
  return check.mismatches ? 1 : 0;
}

}  // namespace mxu::host
