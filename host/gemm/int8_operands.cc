#include "host/gemm/int8_operands.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "driver/golden_request.h"
#include "golden/int8.h"
#include "host/cli/cli.h"

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
  const std::vector<int32_t> want = driver::GoldenInt8Values(r);
  const bool int8_out = r.output == driver::OutputType::kInt8;
  const int n = int8_out ? result.c_int8.cols : result.c_int32.cols;
  Int8Check check;
  for (size_t i = 0; i < want.size(); ++i) {
    const int row = static_cast<int>(i / n), col = static_cast<int>(i % n);
    const int32_t got = int8_out ? result.c_int8.at(row, col) : result.c_int32.at(row, col);
    ++check.compared;
    if (got != want[i] && ++check.mismatches <= 5) {
      std::fprintf(stderr, "mismatch C[%d][%d]: device %d, golden %d\n", row, col, got, want[i]);
    }
  }
  return check;
}

}  // namespace mxu::host
