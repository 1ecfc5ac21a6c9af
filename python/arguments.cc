// GEMM arguments (bf16 operands) parsed and checked as `mxu gemm` does, and the checks shared
// with the int8 mode.
#include "python/arguments.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "driver/gemm_limits.h"
#include "golden/numerics.h"

namespace mxu::python {

using driver::Bf16Matrix;
using driver::Fp32Matrix;

uint64_t CheckedRange(const char* name, long long value, uint64_t min, uint64_t max) {
  if (value < 0 || static_cast<unsigned long long>(value) < min ||
      static_cast<unsigned long long>(value) > max) {
    throw ArgumentError(std::string(name) + " must be in [" + std::to_string(min) + ", " +
                        std::to_string(max) + "], got " + std::to_string(value));
  }
  return static_cast<uint64_t>(value);
}

Subnormals ParseSubnormals(const std::string& mode) {
  if (mode == "ieee") return Subnormals::kIeee;
  if (mode == "flush") return Subnormals::kFlush;
  throw ArgumentError("subnormals must be 'ieee' or 'flush', got '" + mode + "'");
}

namespace {

// The elements of a 2-D array of T at any strides (a transposed view, a slice), converted and
// written in row-major order. A framework's transposed operand (a layer's x.t() in its
// backward) is laid out here in one pass: NumPy's own copy of such a view walks the source
// column by column, a cache miss per element (3.8 ms for 1,024 x 784 float32 against 0.14 ms
// for a plain copy). Tiles of 32 x 32 keep the reads and the writes in the L1 cache.
template <typename T, typename Convert>
void ToRowMajor(const py::array& array, uint16_t* out, Convert convert) {
  const py::ssize_t rows = array.shape(0), cols = array.shape(1);
  const py::ssize_t row_stride = array.strides(0), col_stride = array.strides(1);
  const char* base = static_cast<const char*>(array.data());
  const auto at = [&](py::ssize_t r, py::ssize_t c) {
    T value;  // memcpy: a view's elements need not be aligned
    std::memcpy(&value, base + r * row_stride + c * col_stride, sizeof(T));
    return convert(value);
  };
  if (col_stride == static_cast<py::ssize_t>(sizeof(T))) {  // rows contiguous: stream them
    for (py::ssize_t r = 0; r < rows; ++r) {
      for (py::ssize_t c = 0; c < cols; ++c) out[r * cols + c] = at(r, c);
    }
    return;
  }
  constexpr py::ssize_t kTile = 32;
  for (py::ssize_t r0 = 0; r0 < rows; r0 += kTile) {
    for (py::ssize_t c0 = 0; c0 < cols; c0 += kTile) {
      const py::ssize_t r1 = std::min(r0 + kTile, rows), c1 = std::min(c0 + kTile, cols);
      for (py::ssize_t c = c0; c < c1; ++c) {
        for (py::ssize_t r = r0; r < r1; ++r) out[r * cols + c] = at(r, c);
      }
    }
  }
}

// A 2-D operand of any strides: float32 rounded to bf16 in `mode`, uint16 taken as raw bf16
// bits.
Bf16Matrix ToBf16Matrix(const char* name, const py::array& array, Subnormals mode) {
  if (array.ndim() != 2) {
    throw ArgumentError(std::string(name) + ": expected a 2-D array, got rank " +
                        std::to_string(array.ndim()));
  }
  Bf16Matrix m(static_cast<int>(array.shape(0)), static_cast<int>(array.shape(1)));
  if (m.data.empty()) throw ArgumentError(std::string(name) + ": a zero dimension");
  if (py::isinstance<py::array_t<uint16_t>>(array)) {
    ToRowMajor<uint16_t>(array, m.data.data(), [](uint16_t bits) { return bits; });
  } else if (py::isinstance<py::array_t<float>>(array)) {
    ToRowMajor<float>(array, m.data.data(), [mode](float x) { return FloatToBf16(x, mode); });
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

}  // namespace

void CheckOperandRanks(const py::array& a, const py::array& b) {
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
}

void CheckShapes(const py::array& a, const py::array& b, bool ta, bool tb, bool bf16_out,
                 bool accumulate) {
  CheckOperandRanks(a, b);
  const uint64_t m = a.shape(ta ? 1 : 0), k = a.shape(ta ? 0 : 1), n = b.shape(tb ? 0 : 1);
  const std::string problem = driver::GemmSizeProblem(m, k, n, bf16_out, accumulate);
  if (!problem.empty()) throw ArgumentError(problem);
}

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

}  // namespace mxu::python
