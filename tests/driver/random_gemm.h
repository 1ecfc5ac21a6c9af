// Random GEMM requests for the tests that run the driver's GEMM on a device (the driver's own
// tests, the model backend's, the model-against-RTL agreement): bf16 operands in a narrow
// exponent range with 2% special values (zeros, subnormals, infinities, NaNs), and the request's
// transposes, ReLU, bias or C0 and output type.
#ifndef MXU_TESTS_DRIVER_RANDOM_GEMM_H_
#define MXU_TESTS_DRIVER_RANDOM_GEMM_H_

#include <cstdint>
#include <vector>

#include "driver/gemm.h"
#include "golden/float_vectors.h"
#include "golden/numerics.h"

namespace mxu::testing {

struct GemmOptions {
  bool ta, tb, relu;
  int init;  // 0 none, 1 bias, 2 C0
  driver::OutputType output;
};

// Mostly normal values with exponents 118..135, so that sums of products stay finite; 2% from
// the golden model's special values.
inline uint16_t RandomOperand(golden::BitSource& bits) {
  static const std::vector<uint16_t> specials = golden::SpecialBf16();
  if (bits.Below(100) < 2) return specials[bits.Below(specials.size())];
  return static_cast<uint16_t>((golden::RandomBf16(bits) & 0x807F) | (118 + bits.Below(18)) << 7);
}

inline driver::Bf16Matrix RandomOperandMatrix(int rows, int cols, golden::BitSource& bits) {
  driver::Bf16Matrix m(rows, cols);
  for (auto& x : m.data) x = RandomOperand(bits);
  return m;
}

// One random GEMM: op(A) m x k and op(B) k x n as stored (transposed where the options say),
// then the bias row and C0 (its values times c0_scale), drawn in that order; `request` points
// at them, so a RandomGemm is neither copied nor moved.
struct RandomGemm {
  RandomGemm(int m, int k, int n, const GemmOptions& o, golden::BitSource& bits,
             float c0_scale = 3.0f)
      : a(o.ta ? RandomOperandMatrix(k, m, bits) : RandomOperandMatrix(m, k, bits)),
        b(o.tb ? RandomOperandMatrix(n, k, bits) : RandomOperandMatrix(k, n, bits)),
        bias(n),
        c0(m, n) {
    for (float& x : bias) x = golden::Bf16ToFloat(RandomOperand(bits));
    for (float& x : c0.data) x = golden::Bf16ToFloat(RandomOperand(bits)) * c0_scale;
    request.a = &a;
    request.b = &b;
    request.trans_a = o.ta;
    request.trans_b = o.tb;
    request.relu = o.relu;
    request.output = o.output;
    if (o.init == 1) request.bias = &bias;
    if (o.init == 2) request.c0 = &c0;
  }
  RandomGemm(const RandomGemm&) = delete;
  RandomGemm& operator=(const RandomGemm&) = delete;

  const driver::Bf16Matrix a, b;
  std::vector<float> bias;
  driver::Fp32Matrix c0;
  driver::GemmRequest request;
};

}  // namespace mxu::testing

#endif  // MXU_TESTS_DRIVER_RANDOM_GEMM_H_
