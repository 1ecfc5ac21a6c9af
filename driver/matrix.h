// Row-major host matrices: bf16 as raw 16-bit patterns, fp32 as floats, and the int8 mode's
// int8 operands and int32 results.
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
using Int8Matrix = Matrix<int8_t>;
using Int32Matrix = Matrix<int32_t>;

// The stored matrix transposed (rows and columns swapped).
template <typename T>
Matrix<T> Transposed(const Matrix<T>& m) {
  Matrix<T> t(m.cols, m.rows);
  for (int r = 0; r < m.rows; ++r) {
    for (int c = 0; c < m.cols; ++c) t.at(c, r) = m.at(r, c);
  }
  return t;
}

}  // namespace mxu::driver

#endif  // MXU_DRIVER_MATRIX_H_
