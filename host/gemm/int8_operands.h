// The int8 mode's operands and checks for `mxu gemm --dtype int8` (and `mxu bench`): random int8
// matrices, int8 and int32 .npy inputs refused on one line when stored in another dtype, the
// requantization words from float scales, and the comparison with the integer golden model.
#ifndef MXU_HOST_GEMM_INT8_OPERANDS_H_
#define MXU_HOST_GEMM_INT8_OPERANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "driver/gemm.h"
#include "driver/matrix.h"
#include "golden/float_vectors.h"
#include "io/npy.h"

namespace mxu::host {

// Uniform int8 values, the extremes -128 and 127 more often (the products' range ends there).
driver::Int8Matrix RandomInt8Matrix(int rows, int cols, golden::BitSource& bits);

// Throws UsageError unless the array holds int8 ('|i1') values; `what` names it ("A.npy").
void RequireDtype(const NpyArray& array, NpyArray::Dtype dtype, const std::string& what);

// The quantization word of each scale (golden::QuantizeMultiplier); a scale that is not finite and
// positive, or outside what a 24-bit multiplier and a shift of 0 .. 63 express, is a UsageError
// naming `what`.
std::vector<uint32_t> QuantWords(const std::vector<double>& scales, const std::string& what);

struct Int8Check {
  size_t compared = 0, mismatches = 0;
};
// Every output of an int8 GEMM against golden::Int8Gemm (and RequantizeMatrix); the first few
// mismatches on stderr.
Int8Check CheckInt8(const driver::GemmRequest& request, const driver::GemmResult& result);

}  // namespace mxu::host

#endif  // MXU_HOST_GEMM_INT8_OPERANDS_H_
