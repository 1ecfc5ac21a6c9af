// The random bf16 operands of `mxu gemm` and `mxu bench`: values of moderate size, with a
// sprinkle of every special class, reproducible from a seed.
#ifndef MXU_HOST_GEMM_RANDOM_OPERANDS_H_
#define MXU_HOST_GEMM_RANDOM_OPERANDS_H_

#include "driver/matrix.h"
#include "golden/float_vectors.h"

namespace mxu::host {

driver::Bf16Matrix RandomMatrix(int rows, int cols, golden::BitSource& bits);

}  // namespace mxu::host

#endif  // MXU_HOST_GEMM_RANDOM_OPERANDS_H_
