// The Python module's arguments (python/*.cc): its errors, and GEMM operands and options parsed
// and checked as the command line (`mxu gemm`, `mxu gemm --dtype int8`) checks them, NumPy
// arrays in and out.
#ifndef MXU_PYTHON_ARGUMENTS_H_
#define MXU_PYTHON_ARGUMENTS_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // in every file: type casters must agree across the module

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/bf16.h"
#include "driver/gemm.h"

namespace mxu::python {

namespace py = pybind11;

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

// The most cycles a GEMM's watchdog may be given (mxu.Device(watchdog=...), gemm(watchdog=...)).
inline constexpr uint64_t kMaxWatchdogCycles = UINT64_MAX >> 1;

// value in [min, max], or ArgumentError naming `name`.
uint64_t CheckedRange(const char* name, long long value, uint64_t min, uint64_t max);

// "ieee" or "flush".
Subnormals ParseSubnormals(const std::string& mode);

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

// A and B are 2-D, no dimension above driver::kMaxDimension: the checks both modes share.
void CheckOperandRanks(const py::array& a, const py::array& b);

// The command line's limits (driver/gemm_limits.h), from the shapes alone: before anything is
// converted or allocated. K's agreement is the driver's check (driver::CheckGemmRequest).
void CheckShapes(const py::array& a, const py::array& b, bool ta, bool tb, bool bf16_out,
                 bool accumulate);

// A GEMM's operands and options, parsed and checked as `mxu gemm` does.
struct GemmArgs {
  driver::Bf16Matrix a, b;
  std::vector<float> bias;
  driver::Fp32Matrix c0;
  driver::GemmRequest request;
  int m = 0, k = 0, n = 0;
};

std::unique_ptr<GemmArgs> ParseGemm(const py::array& a, const py::array& b, bool ta, bool tb,
                                    bool relu, const std::optional<py::array>& bias,
                                    const std::optional<py::array>& accumulate,
                                    const std::string& out, Subnormals mode);

// C as float32, or as uint16 bf16 bits for bf16 output.
py::array ToArray(const std::vector<uint32_t>& bits, int m, int n, driver::OutputType output);

// ---- the int8 mode ----

// The quantization word of one scale (golden::QuantizeMultiplier); `where` names it.
uint32_t QuantWord(double scale, const std::string& where);

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
                                            long long zero_point);

// The golden model's C (driver::GoldenInt8Values: int8 output widened to int32).
std::vector<int32_t> GoldenInt8(const Int8GemmArgs& args);

// C as int8 (requantized output) or int32.
py::array ToInt8ModeArray(const std::vector<int32_t>& c, int m, int n, driver::OutputType output);

// The bindings, one registration per purpose (python/mxu_module.cc calls them in this order).
void RegisterDevice(py::module_& m);
void RegisterGolden(py::module_& m);
void RegisterPlot(py::module_& m);
void RegisterEnergy(py::module_& m);
void RegisterInterconnect(py::module_& m);

// Everything above, into the extension m (python/extension.cc: one extension per device of the
// build, each with its device's backends library).
void RegisterModule(py::module_& m);

}  // namespace mxu::python

#endif  // MXU_PYTHON_ARGUMENTS_H_
