#include "driver/golden_request.h"

#include <cstddef>

#include "driver/golden/gemm.h"
#include "driver/golden/numerics.h"

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

}  // namespace mxu::driver
