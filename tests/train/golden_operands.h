// Training matrices as the device and the golden model see them, shared by the matmul-engine
// tests: operands rounded to bf16 in op() form, and bit-for-bit equality of fp32 results.
#ifndef MXU_TESTS_TRAIN_GOLDEN_OPERANDS_H_
#define MXU_TESTS_TRAIN_GOLDEN_OPERANDS_H_

#include <cstring>

#include "common/bf16.h"
#include "golden/gemm.h"
#include "train/matmul_engine.h"

namespace mxu::train {

// m (or its transpose) rounded to bf16 as the device loads it: the golden model's operand.
inline golden::Bf16Matrix OpFormBf16(const Fp32Matrix& m, bool transposed, Subnormals mode) {
  golden::Bf16Matrix out{transposed ? m.cols : m.rows, transposed ? m.rows : m.cols, {}};
  for (int r = 0; r < out.rows; ++r) {
    for (int c = 0; c < out.cols; ++c) {
      out.data.push_back(FloatToBf16(transposed ? m.at(c, r) : m.at(r, c), mode));
    }
  }
  return out;
}

inline bool BitEqual(const Fp32Matrix& a, const Fp32Matrix& b) {
  return a.rows == b.rows && a.cols == b.cols &&
         std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

}  // namespace mxu::train

#endif  // MXU_TESTS_TRAIN_GOLDEN_OPERANDS_H_
