// The int8 mode's arguments (`mxu gemm --dtype int8`): int8 operands, int32 bias or C0,
// per-column scales and a zero point; any other dtype is a DtypeError (no silent cast).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "driver/gemm_limits.h"
#include "driver/golden_request.h"
#include "golden/int8.h"
#include "python/arguments.h"

namespace mxu::python {
namespace {

std::string Dtype(const py::array& array) { return py::str(array.dtype()); }

// DtypeError unless the array holds T (no silent cast). The dtype alone: no copy is made.
template <typename T>
void CheckDtype(const char* name, const py::array& array, const char* expected) {
  if (!py::isinstance<py::array_t<T>>(array)) {
    throw DtypeError(std::string(name) + ": the int8 mode takes " + expected + " arrays, got " +
                     Dtype(array));
  }
}

// The array as T, C-ordered: a copy, made only once its dtype and shape are checked (a broadcast
// view of 65535 x 65535 would be a 4 GiB copy before its ValueError).
template <typename T>
py::array_t<T, py::array::c_style | py::array::forcecast> Int8Mode(const char* name,
                                                                   const py::array& array,
                                                                   const char* expected) {
  CheckDtype<T>(name, array, expected);
  return py::array_t<T, py::array::c_style | py::array::forcecast>(array);
}

driver::Int8Matrix ToInt8Matrix(const char* name, const py::array& array) {
  const auto view = Int8Mode<int8_t>(name, array, "int8");
  driver::Int8Matrix m(static_cast<int>(array.shape(0)), static_cast<int>(array.shape(1)));
  std::copy(view.data(), view.data() + view.size(), m.data.begin());
  return m;
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

// The options' own rules, before any array is looked at.
void CheckInt8Options(const std::optional<py::array>& bias,
                      const std::optional<py::array>& accumulate,
                      const std::optional<py::object>& scales, long long zero_point) {
  if (bias && accumulate) {
    throw ArgumentError("bias and accumulate both set the accumulators' start: give one");
  }
  if (zero_point < -128 || zero_point > 127) {
    throw ArgumentError("zero_point must be in [-128, 127], got " + std::to_string(zero_point));
  }
  if (zero_point != 0 && !scales) {
    throw ArgumentError("zero_point is for int8 output: give scales too");
  }
}

// A and B: int8, 2-D, within the command line's limits at the int8 mode's element sizes
// (driver/gemm_limits.h: 1 byte an operand element, C 4 or 1 with int8_out), no zero dimension;
// then M, K and N (K's agreement is the driver's check). From the dtypes and shapes alone, before
// anything is copied.
void CheckInt8Operands(const py::array& a, const py::array& b, bool ta, bool tb, bool accumulate,
                       bool int8_out, Int8GemmArgs& args) {
  CheckDtype<int8_t>("a", a, "int8");
  CheckDtype<int8_t>("b", b, "int8");
  CheckOperandRanks(a, b);
  const std::string problem =
      driver::GemmSizeProblem(a.shape(ta ? 1 : 0), a.shape(ta ? 0 : 1), b.shape(tb ? 0 : 1),
                              driver::Int8ElementBytes(int8_out), accumulate);
  if (!problem.empty()) throw ArgumentError(problem);
  for (const auto& [name, array] : {std::pair<const char*, const py::array&>{"a", a}, {"b", b}}) {
    if (array.shape(0) == 0 || array.shape(1) == 0) {
      throw ArgumentError(std::string(name) + ": a zero dimension");
    }
  }
  args.m = static_cast<int>(a.shape(ta ? 1 : 0));
  args.k = static_cast<int>(a.shape(ta ? 0 : 1));
  args.n = static_cast<int>(b.shape(tb ? 0 : 1));
}

// bias: N int32 values (checked before the copy).
void TakeInt8Bias(const py::array& bias, Int8GemmArgs& args) {
  CheckDtype<int32_t>("bias", bias, "int32");
  if (bias.ndim() != 1) {
    throw ArgumentError("bias: expected a 1-D array, got rank " + std::to_string(bias.ndim()));
  }
  if (bias.shape(0) != args.n) {
    throw ArgumentError("bias: " + std::to_string(bias.shape(0)) +
                        " values, expected N = " + std::to_string(args.n));
  }
  const auto view = Int8Mode<int32_t>("bias", bias, "int32");
  args.bias.assign(view.data(), view.data() + view.size());
  args.request.bias_int32 = &args.bias;
}

// accumulate: M x N int32, C's start (checked before the copy).
void TakeInt8Accumulate(const py::array& accumulate, Int8GemmArgs& args) {
  CheckDtype<int32_t>("accumulate", accumulate, "int32");
  if (accumulate.ndim() != 2 || accumulate.shape(0) != args.m || accumulate.shape(1) != args.n) {
    throw ArgumentError("accumulate: expected an int32 array of shape (" + std::to_string(args.m) +
                        ", " + std::to_string(args.n) + ")");
  }
  const auto view = Int8Mode<int32_t>("accumulate", accumulate, "int32");
  args.c0 = driver::Int32Matrix(args.m, args.n);
  std::copy(view.data(), view.data() + view.size(), args.c0.data.begin());
  args.request.c0_int32 = &args.c0;
}

}  // namespace

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

std::unique_ptr<Int8GemmArgs> ParseGemmInt8(const py::array& a, const py::array& b, bool ta,
                                            bool tb, bool relu,
                                            const std::optional<py::array>& bias,
                                            const std::optional<py::array>& accumulate,
                                            const std::optional<py::object>& scales,
                                            long long zero_point) {
  auto args = std::make_unique<Int8GemmArgs>();
  CheckInt8Options(bias, accumulate, scales, zero_point);
  CheckInt8Operands(a, b, ta, tb, accumulate.has_value(), scales.has_value(), *args);
  driver::GemmRequest& request = args->request;
  request.trans_a = ta;
  request.trans_b = tb;
  request.relu = relu;
  request.output = scales ? driver::OutputType::kInt8 : driver::OutputType::kInt32;
  request.zero_point = static_cast<int>(zero_point);
  if (bias) TakeInt8Bias(*bias, *args);
  if (accumulate) TakeInt8Accumulate(*accumulate, *args);
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

}  // namespace mxu::python
