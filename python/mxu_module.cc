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
//
// The bindings are split by purpose: python/device_bindings.cc (mxu.Device),
// python/golden_bindings.cc (the golden model, bf16 helpers), python/arguments.cc and
// python/int8_arguments.cc (the arguments, as the command line checks them).
#include <pybind11/pybind11.h>

#include <cstdio>
#include <exception>
#include <stdexcept>

#include "backends/device_factory.h"
#include "common/csr_map.h"
#include "driver/device.h"
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

// mxu.DeviceError, mxu.CheckError and mxu.DtypeError, and the translation of the C++ errors into
// them (bad arguments: ValueError).
void RegisterExceptions(py::module_& m) {
  static py::exception<driver::DeviceError> device_error(m, "DeviceError", PyExc_RuntimeError);
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
    } catch (const driver::DeviceError& e) {
      device_error(e.what());
    } catch (const CheckError& e) {
      check_error(e.what());
    } catch (const DtypeError& e) {
      PyErr_SetString(dtype_error, e.what());
    } catch (const std::invalid_argument& e) {  // ArgumentError and the driver's shape errors
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

// mxu.backends() and mxu.CSR.
void RegisterDeviceTables(py::module_& m) {
  m.def("backends", &backends::AvailableBackends,
        "The backends this build can open, the default first.");

  py::dict csr;  // generated from common/isa.toml, as every CSR address is
  for (const mxu::csr::CsrEntry& entry : mxu::csr::kCsrTable) csr[entry.name] = entry.address;
  m.attr("CSR") = csr;
}

}  // namespace
}  // namespace mxu::python

PYBIND11_MODULE(mxu, m) {
  using namespace mxu::python;
  m.doc() =
      "The matrix unit's driver: open a device (one per process), run GEMMs on it with NumPy "
      "arrays (float32 rounded to bf16, or uint16 raw bf16 bits; int8 in the int8 mode, "
      "gemm_int8), read its counters and configuration; the golden model of the numeric "
      "contract.";
  RegisterExceptions(m);
  RegisterDeviceTables(m);
  RegisterDevice(m);
  RegisterGolden(m);
}
