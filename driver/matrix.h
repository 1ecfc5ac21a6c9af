// Row-major host matrices: bf16 as raw 16-bit patterns, fp32 as floats.
#ifndef MXU_DRIVER_MATRIX_H_
#define MXU_DRIVER_MATRIX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxu::driver {

template <typename T>
struct Matrix {
  int rows = 0;
  int cols = 0;
  std::vector<T> data;

  Matrix() = default;
  Matrix(int r, int c) : rows(r), cols(c), data(static_cast<size_t>(r) * c) {}
  T& at(int r, int c) { return data[static_cast<size_t>(r) * cols + c]; }
  const T& at(int r, int c) const { return data[static_cast<size_t>(r) * cols + c]; }
};

using Bf16Matrix = Matrix<uint16_t>;
using Fp32Matrix = Matrix<float>;

}  // namespace mxu::driver

#endif  // MXU_DRIVER_MATRIX_H_
