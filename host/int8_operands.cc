#include "host/int8_operands.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "driver/golden/int8.h"
#include "host/cli.h"

namespace mxu::host {

driver::Int8Matrix RandomInt8Matrix(int rows, int cols, golden::BitSource& bits) {
  driver::Int8Matrix m(rows, cols);
  for (int8_t& x : m.data) {
    const uint64_t pick = bits.Below(32);
    x = pick == 0 ? int8_t{-128} : pick == 1 ? int8_t{127} : static_cast<int8_t>(bits.Below(256));
  }
  return m;
}

void RequireDtype(const NpyArray& array, NpyArray::Dtype dtype, const std::string& what) {
  if (array.dtype == dtype) return;
  NpyArray want;
  want.dtype = dtype;
  throw UsageError(what + ": the int8 mode takes " +
                   std::string(dtype == NpyArray::Dtype::kInt8 ? "int8" : "int32") + " '" +
                   want.descr() + "' values, not '" + array.descr() + "'");
}

std::vector<uint32_t> QuantWords(const std::vector<double>& scales, const std::string& what) {
  std::vector<uint32_t> words;
  words.reserve(scales.size());
  for (size_t i = 0; i < scales.size(); ++i) {
    const double s = scales[i];
    const std::string where = scales.size() > 1 ? what + "[" + std::to_string(i) + "]" : what;
    if (!std::isfinite(s) || s <= 0) {
      throw UsageError(where + " = " + std::to_string(s) + ": a scale must be finite and positive");
    }
    try {
      words.push_back(golden::QuantizeMultiplier(s).word());
    } catch (const std::invalid_argument& e) {
      throw UsageError(where + ": " + e.what());
    }
  }
  return words;
}

Int8Check CheckInt8(const driver::GemmRequest& r, const driver::GemmResult& result) {
  const driver::Int8Matrix& a = *r.a_int8;
  const driver::Int8Matrix& b = *r.b_int8;
  const int m = r.trans_a ? a.cols : a.rows, k = r.trans_a ? a.rows : a.cols;
  const int n = r.trans_b ? b.rows : b.cols;
  const std::vector<int32_t> sums =
      golden::Int8Gemm(a.data, b.data, m, k, n, r.trans_a, r.trans_b, r.bias_int32,
                       r.c0_int32 ? &r.c0_int32->data : nullptr);
  const bool int8_out = r.output == driver::OutputType::kInt8;
  const std::vector<int8_t> requantized =
      int8_out ? golden::RequantizeMatrix(sums, m, n, nullptr, *r.quant, r.zero_point, r.relu)
               : std::vector<int8_t>();
  Int8Check check;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      const size_t at = size_t(i) * n + j;
      const int64_t want = int8_out ? requantized[at] : (r.relu ? std::max(0, sums[at]) : sums[at]);
      const int64_t got = int8_out ? result.c_int8.at(i, j) : result.c_int32.at(i, j);
      ++check.compared;
      if (got != want && ++check.mismatches <= 5) {
        std::fprintf(stderr, "mismatch C[%d][%d]: device %lld, golden %lld\n", i, j,
                     static_cast<long long>(got), static_cast<long long>(want));
      }
    }
  }
  return check;
}

}  // namespace mxu::host
