// Internal to the model backend: a MATMUL's products and sums, row by row, at the CPU's vector
// rate. Each column sums its k products from +0 in row order, as the contract says
// (docs/numerics.md): the vectors run across columns, never within one, and multiply then add
// (no fused multiply-add), so every lane does the scalar operations in the scalar order, in the
// floating-point mode (FTZ/DAZ) of the calling thread. The path is chosen at run time from what
// the CPU supports; every path gives the same bits.
#ifndef MXU_BACKENDS_MODEL_MATMUL_KERNELS_H_
#define MXU_BACKENDS_MODEL_MATMUL_KERNELS_H_

#include <cstddef>
#include <cstdint>

namespace mxu::backends::model {

// `rows` rows: row i's operands are the first k lanes at in + i * in_stride, its result the
// C words at acc + i * C (fp32 bits or int32). `w` holds k rows of C weights (widened floats,
// or int8 values as int32). Result lanes from n on are +0 (their columns rest); with
// `accumulate` the sum is added to the word already there.
template <typename W>
struct MatmulRows {
  const W* w;
  uint32_t k, C, n;
  const uint16_t* in;
  size_t in_stride;
  uint32_t* acc;
  uint32_t rows;
  bool accumulate;
};

// fp32: NaN results written canonical.
void MatmulFloatRows(const MatmulRows<float>& m);
// int8 x int8 summed in int32; accumulate wraps modulo 2^32.
void MatmulIntRows(const MatmulRows<int32_t>& m);

// The vector paths, widest first; kScalar is the portable one. ForceMatmulPath pins one (tests
// compare them; a path the CPU lacks falls back to the scalar one).
enum class MatmulPath { kScalar, kAvx2 };
MatmulPath ActiveMatmulPath();
void ForceMatmulPath(MatmulPath path);

}  // namespace mxu::backends::model

#endif  // MXU_BACKENDS_MODEL_MATMUL_KERNELS_H_
