// The `mxu` Python module: the driver from Python, NumPy arrays in and out.
//
//   dev = mxu.Device(backend="rtl", mem_latency=100, mem_bytes_per_cycle=32, mem_in_flight=8)
//   c = dev.gemm(a, b, ta=False, tb=False, relu=False, bias=None, accumulate=None, out="fp32",
//                check=False)
//   dev.counters(), dev.info(), dev.read_csr(addr)
//   mxu.golden_gemm(...)  the golden model (the numeric contract), same options
//
// Operands follow the command line (`mxu gemm`): float32 arrays are rounded to bf16 in the
// device's subnormal mode, uint16 arrays are raw bf16 bits. Bad arguments raise ValueError or
// TypeError, device errors and watchdog expiry mxu.DeviceError, a failed check mxu.CheckError,
// each with the command line's one-line message.
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
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
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
#include "driver/golden/numerics.h"
#include "driver/golden_request.h"

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
    const driver::RunStats& s = result.stats;
    const uint64_t cycles = s.counter(csr::Counter::kCycles);
    py::dict counters;
    counters["m"] = args->m;
    counters["k"] = args->k;
    counters["n"] = args->n;
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

    std::vector<uint32_t> got(static_cast<size_t>(args->m) * args->n);
    for (size_t i = 0; i < got.size(); ++i) {
      got[i] = args->request.output == driver::OutputType::kBf16
                   ? result.c_bf16.data[i]
                   : golden::FloatBits(result.c.data[i]);
    }
    if (check) {
      const std::vector<uint32_t> want =
          driver::GoldenBits(args->request, static_cast<int>(config_.rows), config_.subnormals);
      size_t mismatches = 0;
      std::string first;
      for (size_t i = 0; i < want.size(); ++i) {
        if (got[i] == want[i]) continue;
        if (mismatches++ == 0) {
          char line[128];
          std::snprintf(line, sizeof line, "C[%zu][%zu]: device 0x%08x, golden 0x%08x", i / args->n,
                        i % args->n, got[i], want[i]);
          first = line;
        }
      }
      counters["checked"] = want.size();
      counters["mismatches"] = mismatches;
      counters_ = counters;
      if (mismatches) {
        throw CheckError(std::to_string(want.size()) + " outputs, " + std::to_string(mismatches) +
                         " mismatches (first " + first + ")");
      }
    }
    counters_ = counters;
    return ToArray(got, args->m, args->n, args->request.output);
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

}  // namespace
}  // namespace mxu::python

// The Python defaults are the one definition's (common/memory_timing.h).
const mxu::MemoryTiming kDefaultMemory;

PYBIND11_MODULE(mxu, m) {
  using namespace mxu::python;
  namespace py = pybind11;
  m.doc() =
      "The matrix unit's driver: open a device (one per process), run GEMMs on it with NumPy "
      "arrays (float32 rounded to bf16, or uint16 raw bf16 bits), read its counters and "
      "configuration; the golden model of the numeric contract.";

  static py::exception<mxu::driver::DeviceError> device_error(m, "DeviceError", PyExc_RuntimeError);
  static py::exception<CheckError> check_error(m, "CheckError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mxu::driver::DeviceError& e) {
      device_error(e.what());
    } catch (const CheckError& e) {
      check_error(e.what());
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
