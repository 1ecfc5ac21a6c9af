// The `mxu` Python module: the driver from Python, NumPy arrays in and out.
//
//   dev = mxu.Device(backend="rtl", mem_latency=100, mem_bytes_per_cycle=32, mem_in_flight=8)
//   c = dev.gemm(a, b, ta=False, tb=False, relu=False, bias=None, accumulate=None, out="fp32",
//                check=False)
//   c = dev.gemm_int8(a, b, ta=False, tb=False, relu=False, bias=None, accumulate=None,
//                     scales=None, zero_point=0, check=False)
//   dev.counters(), dev.info(), dev.read_csr(addr)
//   mxu.golden_gemm(...), mxu.golden_gemm_int8(...)  the golden model, same options
//   mxu.quantize_multiplier(scale)  a scale as the device applies it: (multiplier, shift)
//
// Operands follow the command line (`mxu gemm`): float32 arrays are rounded to bf16 in the
// device's subnormal mode, uint16 arrays are raw bf16 bits. The int8 mode (`mxu gemm --dtype
// int8`) takes int8 operands and an int32 bias or C0, returns int32, or int8 requantized with
// per-column scales and a zero point. Bad arguments raise ValueError, a wrong dtype TypeError
// (in the int8 mode mxu.DtypeError, both a TypeError and a ValueError), device errors and
// watchdog expiry mxu.DeviceError, a failed check mxu.CheckError, each with the command line's
// one-line message.
//
// SystemC in a Python process: the RTL backend elaborates a SystemC module; nothing here runs
// sc_main. The kernel is created on first use (the Platform's constructor), and the platform
// advances time with sc_start() from the caller's thread, which works outside sc_main. SystemC
// elaborates once per process, so one device per process: a second mxu.Device raises
// RuntimeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/built_devices.h"
#include "backends/device_factory.h"
#include "common/bf16.h"
#include "common/csr_map.h"
#include "common/memory_timing.h"
#include "driver/device.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "driver/gemm_limits.h"
#include "driver/golden_request.h"
#include "golden/int8.h"
#include "golden/numerics.h"

namespace py = pybind11;

// libsystemc references sc_main (its own main() calls it). A Python process has no sc_main and
// never runs libsystemc's main(); this definition only resolves the symbol when the module loads.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) {
  std::fputs("mxu: sc_main is not used from Python\n", stderr);
  return 1;
}

namespace mxu::python {
namespace {

using driver::Bf16Matrix;
using driver::Fp32Matrix;

// Bad arguments, as the command line's exit code 2.
class ArgumentError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// An array of the wrong dtype in the int8 mode: mxu.DtypeError, a TypeError (as gemm's dtype
// errors) and a ValueError (as the command line's bad input).
class DtypeError : public ArgumentError {
 public:
  using ArgumentError::ArgumentError;
};

// A bit-exact check against the golden model found mismatches.
class CheckError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool g_device_opened = false;

uint64_t CheckedRange(const char* name, long long value, uint64_t min, uint64_t max) {
  if (value < 0 || static_cast<unsigned long long>(value) < min ||
      static_cast<unsigned long long>(value) > max) {
    throw ArgumentError(std::string(name) + " must be in [" + std::to_string(min) + ", " +
                        std::to_string(max) + "], got " + std::to_string(value));
  }
  return static_cast<uint64_t>(value);
}

// A 2-D operand: float32 rounded to bf16 in `mode`, uint16 taken as raw bf16 bits.
Bf16Matrix ToBf16Matrix(const char* name, const py::array& array, Subnormals mode) {
  if (array.ndim() != 2) {
    throw ArgumentError(std::string(name) + ": expected a 2-D array, got rank " +
                        std::to_string(array.ndim()));
  }
  Bf16Matrix m(static_cast<int>(array.shape(0)), static_cast<int>(array.shape(1)));
  if (m.data.empty()) throw ArgumentError(std::string(name) + ": a zero dimension");
  if (py::isinstance<py::array_t<uint16_t>>(array)) {
    const auto view = py::array_t<uint16_t, py::array::c_style | py::array::forcecast>(array);
    std::copy(view.data(), view.data() + view.size(), m.data.begin());
  } else if (py::isinstance<py::array_t<float>>(array)) {
    const auto view = py::array_t<float, py::array::c_style | py::array::forcecast>(array);
    for (size_t i = 0; i < m.data.size(); ++i) m.data[i] = FloatToBf16(view.data()[i], mode);
  } else {
    throw py::type_error(std::string(name) +
                         ": expected float32 (rounded to bf16) or uint16 (raw bf16 bits), got " +
                         std::string(py::str(array.dtype())));
  }
  return m;
}

std::vector<float> ToFloat32(const char* name, const py::array& array, size_t rank) {
  if (!py::isinstance<py::array_t<float>>(array)) {
    throw py::type_error(std::string(name) + ": expected float32, got " +
                         std::string(py::str(array.dtype())));
  }
  if (static_cast<size_t>(array.ndim()) != rank) {
    throw ArgumentError(std::string(name) + ": expected a " + std::to_string(rank) +
                        "-D array, got rank " + std::to_string(array.ndim()));
  }
  const auto view = py::array_t<float, py::array::c_style | py::array::forcecast>(array);
  return std::vector<float>(view.data(), view.data() + view.size());
}

// The command line's limits (driver/gemm_limits.h), from the shapes alone: before anything is
// converted or allocated.
void CheckShapes(const py::array& a, const py::array& b, bool ta, bool tb, bool bf16_out,
                 bool accumulate) {
  for (const auto& [name, array] : {std::pair<const char*, const py::array&>{"a", a}, {"b", b}}) {
    if (array.ndim() != 2) {
      throw ArgumentError(std::string(name) + ": expected a 2-D array, got rank " +
                          std::to_string(array.ndim()));
    }
    for (int d = 0; d < 2; ++d) {
      if (static_cast<uint64_t>(array.shape(d)) > driver::kMaxDimension) {
        throw ArgumentError(std::string(name) + ": a dimension above " +
                            std::to_string(driver::kMaxDimension));
      }
    }
  }
  const uint64_t m = a.shape(ta ? 1 : 0), k = a.shape(ta ? 0 : 1), n = b.shape(tb ? 0 : 1);
  const std::string problem = driver::GemmSizeProblem(m, k, n, bf16_out, accumulate);
  if (!problem.empty()) throw ArgumentError(problem);
}

// The array as T, C-ordered; TypeError for any other dtype (no silent cast), as gemm does.
template <typename T>
py::array_t<T, py::array::c_style | py::array::forcecast> Exactly(const char* name,
                                                                  const py::array& array,
                                                                  const char* expected) {
  if (!py::isinstance<py::array_t<T>>(array)) {
    throw py::type_error(std::string(name) + ": expected " + expected + ", got " +
                         std::string(py::str(array.dtype())));
  }
  return py::array_t<T, py::array::c_style | py::array::forcecast>(array);
}

// A GEMM's operands and options, parsed and checked as `mxu gemm` does.
struct GemmArgs {
  Bf16Matrix a, b;
  std::vector<float> bias;
  Fp32Matrix c0;
  driver::GemmRequest request;
  int m = 0, k = 0, n = 0;
};

std::unique_ptr<GemmArgs> ParseGemm(const py::array& a, const py::array& b, bool ta, bool tb,
                                    bool relu, const std::optional<py::array>& bias,
                                    const std::optional<py::array>& accumulate,
                                    const std::string& out, Subnormals mode) {
  auto args = std::make_unique<GemmArgs>();
  if (out != "fp32" && out != "bf16") {
    throw ArgumentError("out must be 'fp32' or 'bf16', got '" + out + "'");
  }
  if (bias && accumulate) {
    throw ArgumentError("bias and accumulate both set the accumulators' start: give one");
  }
  CheckShapes(a, b, ta, tb, out == "bf16", accumulate.has_value());
  args->a = ToBf16Matrix("a", a, mode);
  args->b = ToBf16Matrix("b", b, mode);
  args->m = ta ? args->a.cols : args->a.rows;
  args->k = ta ? args->a.rows : args->a.cols;
  args->n = tb ? args->b.rows : args->b.cols;
  const int kb = tb ? args->b.cols : args->b.rows;
  if (args->k != kb) {
    throw ArgumentError("op(A) is " + std::to_string(args->m) + "x" + std::to_string(args->k) +
                        " but op(B) is " + std::to_string(kb) + "x" + std::to_string(args->n) +
                        ": inner dimensions differ");
  }
  driver::GemmRequest& request = args->request;
  request.a = &args->a;
  request.b = &args->b;
  request.trans_a = ta;
  request.trans_b = tb;
  request.relu = relu;
  request.output = out == "bf16" ? driver::OutputType::kBf16 : driver::OutputType::kFp32;
  if (bias) {
    args->bias = ToFloat32("bias", *bias, 1);
    if (static_cast<int>(args->bias.size()) != args->n) {
      throw ArgumentError("bias: " + std::to_string(args->bias.size()) +
                          " values, expected N = " + std::to_string(args->n));
    }
    request.bias = &args->bias;
  }
  if (accumulate) {
    const std::vector<float> values = ToFloat32("accumulate", *accumulate, 2);
    if (accumulate->shape(0) != args->m || accumulate->shape(1) != args->n) {
      throw ArgumentError("accumulate: expected a float32 array of shape (" +
                          std::to_string(args->m) + ", " + std::to_string(args->n) + ")");
    }
    args->c0 = Fp32Matrix(args->m, args->n);
    args->c0.data = values;
    request.c0 = &args->c0;
  }
  return args;
}

py::array ToArray(const std::vector<uint32_t>& bits, int m, int n, driver::OutputType output) {
  if (output == driver::OutputType::kBf16) {
    py::array_t<uint16_t> out({m, n});
    uint16_t* p = out.mutable_data();
    for (size_t i = 0; i < bits.size(); ++i) p[i] = static_cast<uint16_t>(bits[i]);
    return std::move(out);
  }
  py::array_t<float> out({m, n});
  float* p = out.mutable_data();
  for (size_t i = 0; i < bits.size(); ++i) p[i] = golden::FloatFromBits(bits[i]);
  return std::move(out);
}

// ---- the int8 mode ----

std::string Dtype(const py::array& array) { return py::str(array.dtype()); }

// The array as T, C-ordered; DtypeError for any other dtype (no silent cast).
template <typename T>
py::array_t<T, py::array::c_style | py::array::forcecast> Int8Mode(const char* name,
                                                                   const py::array& array,
                                                                   const char* expected) {
  if (!py::isinstance<py::array_t<T>>(array)) {
    throw DtypeError(std::string(name) + ": the int8 mode takes " + expected + " arrays, got " +
                     Dtype(array));
  }
  return py::array_t<T, py::array::c_style | py::array::forcecast>(array);
}

driver::Int8Matrix ToInt8Matrix(const char* name, const py::array& array) {
  const auto view = Int8Mode<int8_t>(name, array, "int8");
  driver::Int8Matrix m(static_cast<int>(array.shape(0)), static_cast<int>(array.shape(1)));
  std::copy(view.data(), view.data() + view.size(), m.data.begin());
  return m;
}

// The quantization word of one scale (golden::QuantizeMultiplier); `where` names it.
uint32_t QuantWord(double scale, const std::string& where) {
  if (!std::isfinite(scale) || scale <= 0) {
    throw ArgumentError(where + " = " + std::string(py::repr(py::float_(scale))) +
                        ": a scale must be finite and positive");
  }
  try {
    return golden::QuantizeMultiplier(scale).word();
  } catch (const std::invalid_argument& e) {
    throw ArgumentError(where + ": " + e.what());
  }
}

// scales: one real number for every column, or a 1-D array (or sequence) of N of them.
std::vector<uint32_t> QuantWords(const py::object& scales, int n) {
  const py::array array = py::array::ensure(scales);
  const char kind = array ? array.dtype().kind() : 'O';
  if (kind != 'f' && kind != 'i' && kind != 'u') {
    throw DtypeError("scales: expected a real number or N = " + std::to_string(n) +
                     " of them, got " +
                     (array ? Dtype(array) : std::string(py::str(py::type::of(scales)))));
  }
  if (array.ndim() > 1 || (array.ndim() == 1 && array.shape(0) != n)) {
    throw ArgumentError("scales: expected a real number or N = " + std::to_string(n) +
                        " of them (one per column of C), got shape " +
                        std::string(py::str(array.attr("shape"))));
  }
  const auto view = py::array_t<double, py::array::c_style | py::array::forcecast>(array);
  std::vector<uint32_t> words;
  words.reserve(static_cast<size_t>(n));
  if (array.ndim() == 0) {
    words.assign(static_cast<size_t>(n), QuantWord(view.data()[0], "scales"));
  } else {
    for (int i = 0; i < n; ++i) {
      words.push_back(QuantWord(view.data()[i], "scales[" + std::to_string(i) + "]"));
    }
  }
  return words;
}

// An int8 GEMM's operands and options, parsed and checked as `mxu gemm --dtype int8` does.
struct Int8GemmArgs {
  driver::Int8Matrix a, b;
  std::vector<int32_t> bias;
  driver::Int32Matrix c0;
  std::vector<uint32_t> quant;
  driver::GemmRequest request;
  int m = 0, k = 0, n = 0;
};

std::unique_ptr<Int8GemmArgs> ParseGemmInt8(const py::array& a, const py::array& b, bool ta,
                                            bool tb, bool relu,
                                            const std::optional<py::array>& bias,
                                            const std::optional<py::array>& accumulate,
                                            const std::optional<py::object>& scales,
                                            long long zero_point) {
  auto args = std::make_unique<Int8GemmArgs>();
  if (bias && accumulate) {
    throw ArgumentError("bias and accumulate both set the accumulators' start: give one");
  }
  if (zero_point < -128 || zero_point > 127) {
    throw ArgumentError("zero_point must be in [-128, 127], got " + std::to_string(zero_point));
  }
  if (zero_point != 0 && !scales) {
    throw ArgumentError("zero_point is for int8 output: give scales too");
  }
  Int8Mode<int8_t>("a", a, "int8");
  Int8Mode<int8_t>("b", b, "int8");
  // The command line's limits, as for bf16 operands (the int8 ones take less memory).
  CheckShapes(a, b, ta, tb, false, accumulate.has_value());
  for (const auto& [name, array] : {std::pair<const char*, const py::array&>{"a", a}, {"b", b}}) {
    if (array.shape(0) == 0 || array.shape(1) == 0) {
      throw ArgumentError(std::string(name) + ": a zero dimension");
    }
  }
  args->m = static_cast<int>(a.shape(ta ? 1 : 0));
  args->k = static_cast<int>(a.shape(ta ? 0 : 1));
  args->n = static_cast<int>(b.shape(tb ? 0 : 1));
  const int kb = static_cast<int>(b.shape(tb ? 1 : 0));
  if (args->k != kb) {
    throw ArgumentError("op(A) is " + std::to_string(args->m) + "x" + std::to_string(args->k) +
                        " but op(B) is " + std::to_string(kb) + "x" + std::to_string(args->n) +
                        ": inner dimensions differ");
  }
  driver::GemmRequest& request = args->request;
  request.trans_a = ta;
  request.trans_b = tb;
  request.relu = relu;
  request.output = scales ? driver::OutputType::kInt8 : driver::OutputType::kInt32;
  request.zero_point = static_cast<int>(zero_point);
  if (bias) {
    const auto view = Int8Mode<int32_t>("bias", *bias, "int32");
    if (bias->ndim() != 1) {
      throw ArgumentError("bias: expected a 1-D array, got rank " + std::to_string(bias->ndim()));
    }
    if (bias->shape(0) != args->n) {
      throw ArgumentError("bias: " + std::to_string(bias->shape(0)) +
                          " values, expected N = " + std::to_string(args->n));
    }
    args->bias.assign(view.data(), view.data() + view.size());
    request.bias_int32 = &args->bias;
  }
  if (accumulate) {
    const auto view = Int8Mode<int32_t>("accumulate", *accumulate, "int32");
    if (accumulate->ndim() != 2 || accumulate->shape(0) != args->m ||
        accumulate->shape(1) != args->n) {
      throw ArgumentError("accumulate: expected an int32 array of shape (" +
                          std::to_string(args->m) + ", " + std::to_string(args->n) + ")");
    }
    args->c0 = driver::Int32Matrix(args->m, args->n);
    std::copy(view.data(), view.data() + view.size(), args->c0.data.begin());
    request.c0_int32 = &args->c0;
  }
  if (scales) {
    args->quant = QuantWords(*scales, args->n);
    request.quant = &args->quant;
  }
  args->a = ToInt8Matrix("a", a);
  args->b = ToInt8Matrix("b", b);
  request.a_int8 = &args->a;
  request.b_int8 = &args->b;
  return args;
}

// The golden model's C (driver::GoldenInt8Values: int8 output widened to int32).
std::vector<int32_t> GoldenInt8(const Int8GemmArgs& args) {
  return driver::GoldenInt8Values(args.request);
}

py::array ToInt8ModeArray(const std::vector<int32_t>& c, int m, int n, driver::OutputType output) {
  if (output == driver::OutputType::kInt8) {
    py::array_t<int8_t> out({m, n});
    std::copy(c.begin(), c.end(), out.mutable_data());  // in int8 range
    return std::move(out);
  }
  py::array_t<int32_t> out({m, n});
  std::copy(c.begin(), c.end(), out.mutable_data());
  return std::move(out);
}

// A GEMM's counters and statistics, as `mxu gemm --json`.
py::dict GemmCounters(int m, int k, int n, const char* dtype, const driver::GemmResult& result) {
  const driver::RunStats& s = result.stats;
  const uint64_t cycles = s.counter(csr::Counter::kCycles);
  py::dict counters;
  counters["m"] = m;
  counters["k"] = k;
  counters["n"] = n;
  counters["dtype"] = dtype;
  for (uint32_t i = 0; i < csr::kNumCounters; ++i) {
    std::string name = csr::CounterName(static_cast<csr::Counter>(i));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    counters[py::str(name)] = s.counters[i];
  }
  counters["ideal_cycles"] = result.ideal_cycles;
  counters["utilization"] = result.utilization;
  counters["program_instructions"] = result.instructions;
  counters["m_block"] = result.blocking.m_block;
  counters["n_group"] = result.blocking.n_group;
  counters["a_resident"] = result.blocking.a_resident;
  counters["wall_seconds"] = s.wall_seconds;
  counters["sim_cycles_per_second"] = s.wall_seconds > 0 ? cycles / s.wall_seconds : 0.0;
  return counters;
}

Subnormals ParseSubnormals(const std::string& mode) {
  if (mode == "ieee") return Subnormals::kIeee;
  if (mode == "flush") return Subnormals::kFlush;
  throw ArgumentError("subnormals must be 'ieee' or 'flush', got '" + mode + "'");
}

class Device {
 public:
  Device(const std::string& backend, long long mem_latency, long long mem_bytes_per_cycle,
         long long mem_in_flight, long long watchdog) {
    backends::BackendOptions options;
    options.backend = backend;
    options.timing.latency_cycles =
        static_cast<unsigned>(CheckedRange("mem_latency", mem_latency, 0, 100000));
    options.timing.bytes_per_cycle =
        static_cast<unsigned>(CheckedRange("mem_bytes_per_cycle", mem_bytes_per_cycle, 1, 4096));
    options.timing.max_in_flight =
        static_cast<unsigned>(CheckedRange("mem_in_flight", mem_in_flight, 1, 1024));
    watchdog_ = CheckedRange("watchdog", watchdog, 1, UINT64_MAX >> 1);
    timing_ = options.timing;
    if (g_device_opened) {
      throw std::runtime_error(
          "one device per process: this process has already opened an mxu.Device (SystemC "
          "elaborates the RTL device once); keep using that one");
    }
    // The SystemC banner would land in the user's output.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    device_ = backends::OpenDevice(options);  // std::invalid_argument for an unknown backend
    g_device_opened = true;
    config_ = driver::ReadDeviceConfig(*device_);
  }

  py::array Gemm(const py::array& a, const py::array& b, bool ta, bool tb, bool relu,
                 const std::optional<py::array>& bias, const std::optional<py::array>& accumulate,
                 const std::string& out, bool check, std::optional<long long> watchdog) {
    const uint64_t watchdog_cycles =
        watchdog ? CheckedRange("watchdog", *watchdog, 1, UINT64_MAX >> 1) : watchdog_;
    const auto args = ParseGemm(a, b, ta, tb, relu, bias, accumulate, out, config_.subnormals);
    const driver::GemmResult result =
        driver::Gemm(*device_, config_, args->request, watchdog_cycles);
    py::dict counters = GemmCounters(args->m, args->k, args->n, "bf16", result);

    std::vector<uint32_t> got(static_cast<size_t>(args->m) * args->n);
    for (size_t i = 0; i < got.size(); ++i) {
      got[i] = args->request.output == driver::OutputType::kBf16
                   ? result.c_bf16.data[i]
                   : golden::FloatBits(result.c.data[i]);
    }
    counters_ = counters;
    if (check) {
      CompareWithGolden(
          got,
          driver::GoldenBits(args->request, static_cast<int>(config_.rows), config_.subnormals),
          args->n, [](uint32_t device, uint32_t golden) {
            char text[64];
            std::snprintf(text, sizeof text, "device 0x%08x, golden 0x%08x", device, golden);
            return std::string(text);
          });
    }
    return ToArray(got, args->m, args->n, args->request.output);
  }

  py::array GemmInt8(const py::array& a, const py::array& b, bool ta, bool tb, bool relu,
                     const std::optional<py::array>& bias,
                     const std::optional<py::array>& accumulate,
                     const std::optional<py::object>& scales, long long zero_point, bool check,
                     std::optional<long long> watchdog) {
    const uint64_t watchdog_cycles =
        watchdog ? CheckedRange("watchdog", *watchdog, 1, UINT64_MAX >> 1) : watchdog_;
    const auto args = ParseGemmInt8(a, b, ta, tb, relu, bias, accumulate, scales, zero_point);
    const driver::GemmResult result =
        driver::Gemm(*device_, config_, args->request, watchdog_cycles);
    py::dict counters = GemmCounters(args->m, args->k, args->n, "int8", result);
    const bool int8_out = args->request.output == driver::OutputType::kInt8;
    std::vector<int32_t> got(static_cast<size_t>(args->m) * args->n);
    if (int8_out) {
      std::copy(result.c_int8.data.begin(), result.c_int8.data.end(), got.begin());
    } else {
      std::copy(result.c_int32.data.begin(), result.c_int32.data.end(), got.begin());
    }
    counters_ = counters;
    if (check) {
      CompareWithGolden(got, GoldenInt8(*args), args->n, [](int32_t device, int32_t golden) {
        return "device " + std::to_string(device) + ", golden " + std::to_string(golden);
      });
    }
    return ToInt8ModeArray(got, args->m, args->n, args->request.output);
  }

  // --check: every output against the golden model's; the counters get "checked" and
  // "mismatches", and a mismatch raises CheckError naming the first (`describe` its values).
  template <typename T, typename Describe>
  void CompareWithGolden(const std::vector<T>& got, const std::vector<T>& want, int n,
                         const Describe& describe) {
    size_t mismatches = 0;
    std::string first;
    for (size_t i = 0; i < want.size(); ++i) {
      if (got[i] == want[i]) continue;
      if (mismatches++ == 0) {
        first = "C[" + std::to_string(i / n) + "][" + std::to_string(i % n) +
                "]: " + describe(got[i], want[i]);
      }
    }
    counters_["checked"] = want.size();
    counters_["mismatches"] = mismatches;
    if (mismatches) {
      throw CheckError(std::to_string(want.size()) + " outputs, " + std::to_string(mismatches) +
                       " mismatches (first " + first + ")");
    }
  }

  py::dict Info() const {
    py::dict info;
    info["backend"] = device_->name();
    info["device"] = backends::ThisDevice().name;  // the build's default device (MXU_DEVICES)
    driver::ForEachConfigField(config_,
                               [&](const char* name, const auto& value) { info[name] = value; });
    info["mem_latency"] = timing_.latency_cycles;
    info["mem_bytes_per_cycle"] = timing_.bytes_per_cycle;
    info["mem_in_flight"] = timing_.max_in_flight;
    info["watchdog"] = watchdog_;
    return info;
  }

  py::dict Counters() const { return counters_; }
  uint32_t ReadCsr(uint32_t addr) { return device_->ReadCsr(addr); }
  const char* name() const { return device_->name(); }

 private:
  std::unique_ptr<driver::Device> device_;
  driver::DeviceConfig config_;
  MemoryTiming timing_;
  uint64_t watchdog_ = 0;
  py::dict counters_;
};

py::array GoldenGemm(const py::array& a, const py::array& b, bool ta, bool tb, bool relu,
                     const std::optional<py::array>& bias,
                     const std::optional<py::array>& accumulate, const std::string& out,
                     long long array_rows, const std::string& subnormals) {
  const Subnormals mode = ParseSubnormals(subnormals);
  const int rows = static_cast<int>(CheckedRange("array_rows", array_rows, 1, 65535));
  const auto args = ParseGemm(a, b, ta, tb, relu, bias, accumulate, out, mode);
  return ToArray(driver::GoldenBits(args->request, rows, mode), args->m, args->n,
                 args->request.output);
}

py::array GoldenGemmInt8(const py::array& a, const py::array& b, bool ta, bool tb, bool relu,
                         const std::optional<py::array>& bias,
                         const std::optional<py::array>& accumulate,
                         const std::optional<py::object>& scales, long long zero_point) {
  const auto args = ParseGemmInt8(a, b, ta, tb, relu, bias, accumulate, scales, zero_point);
  return ToInt8ModeArray(GoldenInt8(*args), args->m, args->n, args->request.output);
}

}  // namespace
}  // namespace mxu::python

// The Python defaults are the one definition's (common/memory_timing.h).
const mxu::MemoryTiming kDefaultMemory;

PYBIND11_MODULE(mxu, m) {
  using namespace mxu::python;
  namespace py = pybind11;
  m.doc() =
      "The matrix unit's driver: open a device (one per process), run GEMMs on it with NumPy "
      "arrays (float32 rounded to bf16, or uint16 raw bf16 bits; int8 in the int8 mode, "
      "gemm_int8), read its counters and configuration; the golden model of the numeric "
      "contract.";

  static py::exception<mxu::driver::DeviceError> device_error(m, "DeviceError", PyExc_RuntimeError);
  static py::exception<CheckError> check_error(m, "CheckError", PyExc_RuntimeError);
  // Both a TypeError (gemm's dtype errors) and a ValueError (bad input), as numpy's AxisError is
  // both a ValueError and an IndexError.
  // Kept for the process's life (a static py::object would be released after the interpreter).
  static PyObject* const dtype_error = PyErr_NewExceptionWithDoc(
      "mxu.DtypeError", "An array of the wrong dtype in the int8 mode.",
      py::make_tuple(py::handle(PyExc_TypeError), py::handle(PyExc_ValueError)).ptr(), nullptr);
  if (!dtype_error) throw py::error_already_set();
  m.attr("DtypeError") = py::handle(dtype_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mxu::driver::DeviceError& e) {
      device_error(e.what());
    } catch (const CheckError& e) {
      check_error(e.what());
    } catch (const DtypeError& e) {
      PyErr_SetString(dtype_error, e.what());
    } catch (const std::invalid_argument& e) {  // ArgumentError and the driver's shape errors
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  m.def("backends", &mxu::backends::AvailableBackends,
        "The backends this build can open, the default first.");

  py::dict csr;  // generated from common/isa.toml, as every CSR address is
  for (const mxu::csr::CsrEntry& entry : mxu::csr::kCsrTable) csr[entry.name] = entry.address;
  m.attr("CSR") = csr;

  py::class_<Device>(m, "Device",
                     "A device on the named backend with the host memory's timing. One per "
                     "process: SystemC elaborates the RTL device once.")
      .def(py::init<const std::string&, long long, long long, long long, long long>(),
           py::arg("backend") = "rtl", py::arg("mem_latency") = kDefaultMemory.latency_cycles,
           py::arg("mem_bytes_per_cycle") = kDefaultMemory.bytes_per_cycle,
           py::arg("mem_in_flight") = kDefaultMemory.max_in_flight,
           py::arg("watchdog") = 200'000'000)
      .def("gemm", &Device::Gemm, py::arg("a"), py::arg("b"), py::kw_only(), py::arg("ta") = false,
           py::arg("tb") = false, py::arg("relu") = false, py::arg("bias") = py::none(),
           py::arg("accumulate") = py::none(), py::arg("out") = "fp32", py::arg("check") = false,
           py::arg("watchdog") = py::none(),
           "C = op(A) x op(B) (+ bias | + accumulate) (ReLU) on the device. a, b: float32 "
           "(rounded to bf16) or uint16 (raw bf16 bits); ta/tb: the operand is stored "
           "transposed; bias: N float32 values; accumulate: M x N float32 (C += A x B); out: "
           "'fp32' (float32 result) or 'bf16' (uint16 bits). check: compare every bit with the "
           "golden model, raise mxu.CheckError on a mismatch. watchdog: this call's cycle limit "
           "(default: the device's).")
      .def("gemm_int8", &Device::GemmInt8, py::arg("a"), py::arg("b"), py::kw_only(),
           py::arg("ta") = false, py::arg("tb") = false, py::arg("relu") = false,
           py::arg("bias") = py::none(), py::arg("accumulate") = py::none(),
           py::arg("scales") = py::none(), py::arg("zero_point") = 0, py::arg("check") = false,
           py::arg("watchdog") = py::none(),
           "The int8 mode (`mxu gemm --dtype int8`): C = op(A) x op(B) (+ bias | + accumulate), "
           "exact in int32. a, b: int8 (any other dtype raises mxu.DtypeError, a TypeError and "
           "a ValueError); ta/tb: the operand is stored transposed; bias: N int32 values; "
           "accumulate: M x N int32 (C += A x B; sums wrap modulo 2^32). Without scales: an "
           "int32 result, relu zeroes negatives. With scales (a real number, or N of them, "
           "finite and positive: column n's scale): the device requantizes C to int8, "
           "y = clamp(round(C * scale) + zero_point, relu ? zero_point : -128, 127) with the "
           "scale as mxu.quantize_multiplier gives it and rounding half away from zero "
           "(docs/numerics.md); zero_point in [-128, 127]. check: compare every output with the "
           "golden model (golden_gemm_int8), raise mxu.CheckError on a mismatch. watchdog: this "
           "call's cycle limit (default: the device's).")
      .def("counters", &Device::Counters,
           "The last GEMM's counters and statistics (as `mxu gemm --json`).")
      .def("info", &Device::Info,
           "The device configuration read from its CSRs (as `mxu info --json`), and the "
           "memory settings.")
      .def("read_csr", &Device::ReadCsr, py::arg("addr"), "Reads one CSR (mxu.CSR names some).")
      .def_property_readonly("backend", &Device::name);

  m.def("golden_gemm", &GoldenGemm, py::arg("a"), py::arg("b"), py::kw_only(),
        py::arg("ta") = false, py::arg("tb") = false, py::arg("relu") = false,
        py::arg("bias") = py::none(), py::arg("accumulate") = py::none(), py::arg("out") = "fp32",
        py::arg("array_rows") = 16, py::arg("subnormals") = "ieee",
        "The golden model's C for the same arguments as Device.gemm: K accumulated in tiles of "
        "array_rows in the contract's order (docs/numerics.md).");
  m.def("golden_gemm_int8", &GoldenGemmInt8, py::arg("a"), py::arg("b"), py::kw_only(),
        py::arg("ta") = false, py::arg("tb") = false, py::arg("relu") = false,
        py::arg("bias") = py::none(), py::arg("accumulate") = py::none(),
        py::arg("scales") = py::none(), py::arg("zero_point") = 0,
        "The golden model's C for the same arguments as Device.gemm_int8: the exact integer "
        "product, then the requantization rule (docs/numerics.md, the integer mode).");
  m.def(
      "quantize_multiplier",
      [](double scale) {
        const uint32_t word = QuantWord(scale, "scale");  // the one check of gemm_int8's scales
        return std::make_pair(word >> 8, static_cast<int>(word & 63));
      },
      py::arg("scale"),
      "A real scale as the device applies it, multiplier / 2^shift: (multiplier, shift), the "
      "multiplier in [2^23, 2^24) (smaller only below 2^-40), the shift 0 .. 63. Its "
      "quantization word is multiplier << 8 | shift.");
  m.def(
      "float_to_bf16",
      [](const py::array& array, const std::string& subnormals) {
        const mxu::Subnormals mode = ParseSubnormals(subnormals);
        const auto x = Exactly<float>("float_to_bf16", array, "float32");
        py::array_t<uint16_t> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
        for (py::ssize_t i = 0; i < x.size(); ++i) {
          out.mutable_data()[i] = mxu::FloatToBf16(x.data()[i], mode);
        }
        return out;
      },
      py::arg("x"), py::arg("subnormals") = "ieee",
      "float32 -> bf16 bits (uint16), round to nearest even, as the device and the tool do.");
  m.def(
      "bf16_to_float",
      [](const py::array& array) {
        const auto x = Exactly<uint16_t>("bf16_to_float", array, "uint16 (bf16 bits)");
        py::array_t<float> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
        for (py::ssize_t i = 0; i < x.size(); ++i) {
          out.mutable_data()[i] = mxu::Bf16ToFloat(x.data()[i]);
        }
        return out;
      },
      py::arg("x"), "bf16 bits (uint16) -> float32, exact.");
}
