// The buffers of one GEMM that `mxu gemm` and `mxu bench` run: a driver::GemmRequest only points
// at its operands, so they are held together here, for as long as the request runs; and the
// random operands both commands draw from a seed.
#ifndef MXU_HOST_GEMM_GEMM_OPERANDS_H_
#define MXU_HOST_GEMM_GEMM_OPERANDS_H_

#include <cstdint>
#include <vector>

#include "driver/gemm.h"
#include "driver/matrix.h"
#include "golden/float_vectors.h"

namespace mxu::host {

// Every buffer a request may point at: bf16 or int8 A and B, the bias or C0 (fp32, or int32 in
// the int8 mode) and the requantization words.
struct GemmOperands {
  driver::Bf16Matrix a, b;
  driver::Int8Matrix a8, b8;
  std::vector<float> bias;
  driver::Fp32Matrix c0;
  std::vector<int32_t> bias_int32;
  driver::Int32Matrix c0_int32;
  std::vector<uint32_t> quant;
};

// Random A and B for op(A) m x k and op(B) k x n, each stored transposed where request says
// (trans_a, trans_b), bf16 or int8; A is drawn first. Points request at them.
void SetRandomOperands(int m, int k, int n, bool int8, golden::BitSource& bits,
                       GemmOperands* operands, driver::GemmRequest* request);

}  // namespace mxu::host

#endif  // MXU_HOST_GEMM_GEMM_OPERANDS_H_
