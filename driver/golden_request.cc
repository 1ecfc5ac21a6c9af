#include "driver/golden_request.h"

#include <algorithm>
#include <cstddef>

#include "golden/gemm.h"
#include "golden/int8.h"
#include "golden/numerics.h"

namespace mxu::driver {
namespace {

// The operand as the product sees it: transposed here when the device reads it transposed.
golden::Bf16Matrix OpForm(const Bf16Matrix& stored, bool transposed) {
  golden::Bf16Matrix m{
      transposed ? stored.cols : stored.rows, transposed ? stored.rows : stored.cols, {}};
  m.data.resize(stored.data.size());
  for (int r = 0; r < m.rows; ++r) {
    for (int c = 0; c < m.cols; ++c) {
      m.data[static_cast<size_t>(r) * m.cols + c] = transposed ? stored.at(c, r) : stored.at(r, c);
    }
  }
  return m;
}

}  // namespace

std::vector<uint32_t> GoldenBits(const GemmRequest& request, int array_rows, Subnormals mode) {
  const golden::Bf16Matrix a = OpForm(*request.a, request.trans_a);
  const golden::Bf16Matrix b = OpForm(*request.b, request.trans_b);
  golden::Fp32Matrix start{a.rows, b.cols, {}};
  const golden::Fp32Matrix* c0 = nullptr;
  if (request.c0) {
    start.data = request.c0->data;
    c0 = &start;
  } else if (request.bias) {
    for (int r = 0; r < a.rows; ++r) {
      start.data.insert(start.data.end(), request.bias->begin(), request.bias->end());
    }
    c0 = &start;
  }
  const golden::Fp32Matrix want = golden::Gemm(a, b, array_rows, mode, c0);
  std::vector<uint32_t> bits(want.data.size());
  for (size_t i = 0; i < bits.size(); ++i) {
    const float w = request.relu ? golden::Relu(want.data[i]) : want.data[i];
    bits[i] =
        request.output == OutputType::kBf16 ? golden::FloatToBf16(w, mode) : golden::FloatBits(w);
  }
  return bits;
}

std::vector<int32_t> GoldenInt8Values(const GemmRequest& r) {
  const Int8Matrix& a = *r.a_int8;
  const Int8Matrix& b = *r.b_int8;
  const int m = r.trans_a ? a.cols : a.rows, k = r.trans_a ? a.rows : a.cols;
  const int n = r.trans_b ? b.rows : b.cols;
  std::vector<int32_t> c = golden::Int8Gemm(a.data, b.data, m, k, n, r.trans_a, r.trans_b,
                                            r.bias_int32, r.c0_int32 ? &r.c0_int32->data : nullptr);
  if (r.output == OutputType::kInt8) {
    const std::vector<int8_t> q =
        golden::RequantizeMatrix(c, m, n, nullptr, *r.quant, r.zero_point, r.relu);
    c.assign(q.begin(), q.end());
  } else if (r.relu) {  // the STORE's ReLU on int32 zeroes negatives
    for (int32_t& x : c) x = std::max(x, 0);
  }
  return c;
}

}  // namespace mxu::driver
