// The `mxu` Python package's bindings: the driver from Python, NumPy arrays in and out. Every
// extension of the package (mxu._mxu for the build's default device, mxu._mxu_<id> for each
// other: python/extension.cc) registers them; python/mxu/__init__.py re-exports the default's and
// picks the extension of the device mxu.Device(device=...) names.
//
//   dev = mxu.Device(backend="rtl", device=None, mem_latency=100, mem_bytes_per_cycle=None,
//                    mem_in_flight=8)  (None: as wide as the device's memory port)
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
// elaborates once per process, so one device per process, whichever extension opens it: a
// second mxu.Device raises RuntimeError.
//
// The bindings are split by purpose: python/device_bindings.cc (mxu.Device),
// python/golden_bindings.cc (the golden model, bf16 helpers), python/arguments.cc and
// python/int8_arguments.cc (the arguments, as the command line checks them).
#include <pybind11/pybind11.h>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/built_devices.h"
#include "backends/device_factory.h"
#include "common/csr_map.h"
#include "driver/device.h"
#include "driver/gemm_limits.h"
#include "python/arguments.h"

namespace py = pybind11;

// libsystemc references sc_main (its own main() calls it). A Python process has no sc_main and
// never runs libsystemc's main(); this definition only resolves the symbol when the module loads.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) {
  std::fputs("mxu: sc_main is not used from Python\n", stderr);
  return 1;
}

namespace mxu::python {
namespace {

// The classes of mxu.DeviceError, mxu.CheckError and mxu.DtypeError, for the translator below.
PyObject* g_device_error = nullptr;
PyObject* g_check_error = nullptr;
PyObject* g_dtype_error = nullptr;

// The exception class mxu.NAME, one per process: the first extension loaded creates it, every
// other raises the same class (pybind11's data shared by all extensions), so that `except
// mxu.DeviceError` catches the errors of every device. Kept for the process's life (a static
// py::object would be released after the interpreter).
PyObject* SharedException(py::module_& m, const char* name, const char* doc, py::handle bases) {
  const std::string qualified = std::string("mxu.") + name;
  auto* type = static_cast<PyObject*>(py::get_shared_data(qualified));
  if (type == nullptr) {
    type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
    if (type == nullptr) throw py::error_already_set();
    py::set_shared_data(qualified, type);
  }
  m.attr(name) = py::handle(type);
  return type;
}

// mxu.DeviceError, mxu.CheckError and mxu.DtypeError, and the translation of the C++ errors into
// them (bad arguments: ValueError).
void RegisterExceptions(py::module_& m) {
  g_device_error = SharedException(
      m, "DeviceError", "A device error, or a run that outlived its watchdog.", PyExc_RuntimeError);
  g_check_error = SharedException(
      m, "CheckError", "A check against the golden model found mismatches.", PyExc_RuntimeError);
  // Both a TypeError (gemm's dtype errors) and a ValueError (bad input), as numpy's AxisError is
  // both a ValueError and an IndexError.
  g_dtype_error =
      SharedException(m, "DtypeError", "An array of the wrong dtype in the int8 mode.",
                      py::make_tuple(py::handle(PyExc_TypeError), py::handle(PyExc_ValueError)));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const driver::DeviceError& e) {
      PyErr_SetString(g_device_error, e.what());
    } catch (const CheckError& e) {
      PyErr_SetString(g_check_error, e.what());
    } catch (const DtypeError& e) {
      PyErr_SetString(g_dtype_error, e.what());
    } catch (const std::invalid_argument& e) {  // ArgumentError and the driver's shape errors
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

// mxu.backends(), mxu.built_devices(), mxu.CSR, and the limits of one GEMM for the package's
// own splitting (python/mxu/_gemms.py): the driver's (driver/gemm_limits.h), not copies.
void RegisterDeviceTables(py::module_& m) {
  py::dict limits;
  limits["max_dimension"] = driver::kMaxDimension;
  limits["max_problem_bytes"] = driver::kMaxProblemBytes;
  limits["max_watchdog"] = kMaxWatchdogCycles;
  m.attr("_GEMM_LIMITS") = limits;
  m.def(
      "_gemm_problem_bytes",
      [](uint64_t m, uint64_t k, uint64_t n, bool accumulate, uint64_t operand_bytes,
         uint64_t result_bytes) {
        return driver::GemmProblemBytes(m, k, n, {operand_bytes, operand_bytes, result_bytes},
                                        accumulate);
      },
      "What one GEMM holds in host memory, as the driver counts it (driver/gemm_limits.h).");
  m.def("backends", &backends::AvailableBackends,
        "The backends this build can open, the default first.");
  m.def(
      "built_devices",
      [] {
        std::vector<std::string> names;
        for (const backends::BuiltDevice& device : backends::BuiltDevices()) {
          names.emplace_back(device.name);
        }
        return names;
      },
      "The devices of this build (MXU_DEVICES), the default first: each is verilated, so the "
      "rtl and cross backends open it (mxu.Device(device=NAME)); the model backend opens any "
      "device spec.");

  py::dict csr;  // generated from common/isa.toml, as every CSR address is
  for (const mxu::csr::CsrEntry& entry : mxu::csr::kCsrTable) csr[entry.name] = entry.address;
  m.attr("CSR") = csr;
}

}  // namespace

void RegisterModule(py::module_& m) {
  m.doc() =
      "The matrix unit's driver: open a device (one per process), run GEMMs on it with NumPy "
      "arrays (float32 rounded to bf16, or uint16 raw bf16 bits; int8 in the int8 mode, "
      "gemm_int8), read its counters and configuration; the golden model of the numeric "
      "contract. The extension of the package `mxu` for one device of the build.";
  RegisterExceptions(m);
  RegisterDeviceTables(m);
  RegisterDevice(m);
  RegisterGolden(m);
  RegisterPlot(m);
  RegisterEnergy(m);
  RegisterInterconnect(m);
}

}  // namespace mxu::python
