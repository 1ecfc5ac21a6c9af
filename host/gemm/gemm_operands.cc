#include "host/gemm/gemm_operands.h"

#include "host/gemm/int8_operands.h"
#include "host/gemm/random_operands.h"

namespace mxu::host {

void SetRandomOperands(int m, int k, int n, bool int8, golden::BitSource& bits,
                       GemmOperands* operands, driver::GemmRequest* request) {
  const bool ta = request->trans_a, tb = request->trans_b;
  if (int8) {
    operands->a8 = ta ? RandomInt8Matrix(k, m, bits) : RandomInt8Matrix(m, k, bits);
    operands->b8 = tb ? RandomInt8Matrix(n, k, bits) : RandomInt8Matrix(k, n, bits);
    request->a_int8 = &operands->a8;
    request->b_int8 = &operands->b8;
  } else {
    operands->a = ta ? RandomMatrix(k, m, bits) : RandomMatrix(m, k, bits);
    operands->b = tb ? RandomMatrix(n, k, bits) : RandomMatrix(k, n, bits);
    request->a = &operands->a;
    request->b = &operands->b;
  }
}

}  // namespace mxu::host
