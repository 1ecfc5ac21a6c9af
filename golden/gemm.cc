#include "golden/gemm.h"

#include <stdexcept>

#include "golden/numerics.h"

namespace mxu::golden {

Fp32Matrix Gemm(const Bf16Matrix& a, const Bf16Matrix& b, int array_rows, Subnormals mode,
                const Fp32Matrix* c0) {
  if (a.cols != b.rows) throw std::invalid_argument("golden::Gemm: inner dimensions differ");
  if (array_rows < 1) throw std::invalid_argument("golden::Gemm: array_rows must be >= 1");
  if (c0 && (c0->rows != a.rows || c0->cols != b.cols)) {
    throw std::invalid_argument("golden::Gemm: C0 shape differs from the result");
  }
  Fp32Matrix c{a.rows, b.cols, std::vector<float>(static_cast<size_t>(a.rows) * b.cols)};
  ScopedFpMode fp_mode(mode);
  for (int m = 0; m < a.rows; ++m) {
    for (int n = 0; n < b.cols; ++n) {
      float acc = c0 ? c0->at(m, n) : 0.0f;
      for (int k0 = 0; k0 < a.cols; k0 += array_rows) {
        float psum = 0.0f;
        for (int k = k0; k < a.cols && k < k0 + array_rows; ++k) {
          psum = Fp32AddInCurrentMode(psum, Bf16MulInCurrentMode(a.at(m, k), b.at(k, n)));
        }
        acc = (k0 == 0 && !c0) ? psum : Fp32AddInCurrentMode(acc, psum);
      }
      c.at(m, n) = acc;
    }
  }
  return c;
}

}  // namespace mxu::golden
