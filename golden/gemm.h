// The matrix unit's GEMM as the numeric contract defines it (docs/numerics.md), in host floats:
// C = A x B (+ C0), A (M x K) and B (K x N) in bf16, C in fp32, accumulated in the order an array
// of `array_rows` PE rows produces. Shares no code with the RTL path.
#ifndef MXU_GOLDEN_GEMM_H_
#define MXU_GOLDEN_GEMM_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/subnormals.h"

namespace mxu::golden {

// Row-major matrices.
struct Bf16Matrix {
  int rows = 0;
  int cols = 0;
  std::vector<uint16_t> data;
  uint16_t at(int r, int c) const { return data[static_cast<size_t>(r) * cols + c]; }
};

struct Fp32Matrix {
  int rows = 0;
  int cols = 0;
  std::vector<float> data;
  float at(int r, int c) const { return data[static_cast<size_t>(r) * cols + c]; }
  float& at(int r, int c) { return data[static_cast<size_t>(r) * cols + c]; }
};

// K is cut into tiles of array_rows, taken in increasing k. Within a tile the partial sum of
// C[m][n] starts at +0.0 and adds A[m][k] * B[k][n] for the tile's own k in increasing order (a
// last partial tile: the device's padded rows add -0, which changes nothing). The first tile's
// sum initializes C[m][n], unless c0 is given, in which case every tile's sum is added to c0.
Fp32Matrix Gemm(const Bf16Matrix& a, const Bf16Matrix& b, int array_rows, Subnormals mode,
                const Fp32Matrix* c0 = nullptr);

}  // namespace mxu::golden

#endif  // MXU_GOLDEN_GEMM_H_
