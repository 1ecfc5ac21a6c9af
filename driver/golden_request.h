// The golden model's answer to a driver GEMM request: what every output bit of C = op(A) op(B)
// (+ bias / + C0) (ReLU) must be, computed by golden from the request's operands alone.
// The tools' --check, the Python module's check= and golden_gemm(), and the host's int8 inference
// share it.
#ifndef MXU_DRIVER_GOLDEN_REQUEST_H_
#define MXU_DRIVER_GOLDEN_REQUEST_H_

#include <cstdint>
#include <vector>

#include "common/subnormals.h"
#include "driver/gemm.h"

namespace mxu::driver {

// Row-major M x N bit patterns: fp32 bits, or bf16 bits in the low half for OutputType::kBf16.
std::vector<uint32_t> GoldenBits(const GemmRequest& request, int array_rows, Subnormals mode);

// The int8 mode's answer (golden::Int8Gemm, then RequantizeMatrix for OutputType::kInt8; a
// STORE's ReLU for kInt32): row-major M x N values, int8 ones widened to int32.
std::vector<int32_t> GoldenInt8Values(const GemmRequest& request);

}  // namespace mxu::driver

#endif  // MXU_DRIVER_GOLDEN_REQUEST_H_
