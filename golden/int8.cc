#include "golden/int8.h"

#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace mxu::golden {
namespace {

constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

[[noreturn]] void Fail(const std::string& what) { throw std::invalid_argument("golden::" + what); }

// "%.17g": enough digits to name any double exactly in an error message.
std::string Exact(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

// v modulo 2^32 as two's complement. Spelled out because an out-of-range unsigned -> signed
// conversion is implementation-defined before C++20.
int32_t WrapToInt32(int64_t v) {
  const uint32_t u = static_cast<uint32_t>(v);  // modulo 2^32, well defined
  return u <= static_cast<uint32_t>(kInt32Max)
             ? static_cast<int32_t>(u)
             : static_cast<int32_t>(u - 0x80000000u) + std::numeric_limits<int32_t>::min();
}

// floor(v / 2^s), i.e. an arithmetic right shift. For v < 0, ~v = -v - 1 >= 0 shifts portably
// (>> of a negative value is implementation-defined before C++20).
int64_t FloorShift(int64_t v, int s) { return v >= 0 ? v >> s : ~(~v >> s); }

void CheckZeroPoint(const char* who, int zero_point) {
  if (zero_point < -128 || zero_point > 127) {
    Fail(std::string(who) + ": zero point " + std::to_string(zero_point) + " is not an int8");
  }
}

// rows x cols as a size, refusing negative dimensions.
size_t Elements(const char* who, int rows, int cols) {
  if (rows < 0 || cols < 0) Fail(std::string(who) + ": negative dimension");
  return static_cast<size_t>(rows) * static_cast<size_t>(cols);
}

}  // namespace

std::vector<int32_t> Int8Gemm(const std::vector<int8_t>& a, const std::vector<int8_t>& b, int m,
                              int k, int n, bool trans_a, bool trans_b,
                              const std::vector<int32_t>* bias, const std::vector<int32_t>* c0) {
  if (a.size() != Elements("Int8Gemm", m, k)) Fail("Int8Gemm: A is not M x K");
  if (b.size() != Elements("Int8Gemm", k, n)) Fail("Int8Gemm: B is not K x N");
  if (bias && c0) Fail("Int8Gemm: both a bias and C0 (the device starts from one)");
  if (bias && bias->size() != static_cast<size_t>(n)) Fail("Int8Gemm: bias is not N values");
  if (c0 && c0->size() != Elements("Int8Gemm", m, n)) Fail("Int8Gemm: C0 is not M x N");

  // Element (row, col) of the logical A (M x K) and B (K x N), whatever the storage.
  auto a_at = [&](size_t row, size_t col) -> int64_t {
    return trans_a ? a[col * m + row] : a[row * k + col];
  };
  auto b_at = [&](size_t row, size_t col) -> int64_t {
    return trans_b ? b[col * k + row] : b[row * n + col];
  };

  std::vector<int32_t> c(Elements("Int8Gemm", m, n));
  for (size_t i = 0; i < static_cast<size_t>(m); ++i) {
    for (size_t j = 0; j < static_cast<size_t>(n); ++j) {
      // |product| <= 2^14, so int64 cannot overflow for any int K.
      int64_t sum = 0;
      for (size_t kk = 0; kk < static_cast<size_t>(k); ++kk) sum += a_at(i, kk) * b_at(kk, j);
      // The device sums in int32: the contract holds only while the exact sum fits.
      if (sum < kInt32Min || sum > kInt32Max) {
        Fail("Int8Gemm: C[" + std::to_string(i) + "][" + std::to_string(j) +
             "] = " + std::to_string(sum) + " does not fit in int32");
      }
      int64_t start = 0;
      if (bias) start = (*bias)[j];
      if (c0) start = (*c0)[i * n + j];
      c[i * n + j] = WrapToInt32(sum + start);
    }
  }
  return c;
}

int8_t Requantize(int32_t acc, int32_t bias, uint32_t quant_word, int zero_point, bool relu) {
  CheckZeroPoint("Requantize", zero_point);
  const int64_t x = static_cast<int64_t>(acc) + bias;          // |x| <= 2^32
  const int64_t mult = static_cast<int64_t>(quant_word >> 8);  // < 2^24
  const int s = static_cast<int>(quant_word & 63);             // bits 7:6 ignored
  const int64_t p = x * mult;                                  // |p| < 2^56
  // p / 2^s rounded half away from zero: add half, less one for negatives (so that a negative
  // tie floors away from zero), then floor. |p| + 2^62 < 2^63: no overflow even for s = 63.
  const int64_t r = s == 0 ? p : FloorShift(p + (int64_t{1} << (s - 1)) - (p < 0 ? 1 : 0), s);
  const int64_t lo = relu ? zero_point : -128;  // ReLU in the real domain is the clamp at z
  int64_t y = r + zero_point;
  if (y < lo) y = lo;
  if (y > 127) y = 127;
  return static_cast<int8_t>(y);
}

std::vector<int8_t> RequantizeMatrix(const std::vector<int32_t>& acc, int m, int n,
                                     const std::vector<int32_t>* bias,
                                     const std::vector<uint32_t>& quant_words, int zero_point,
                                     bool relu) {
  if (acc.size() != Elements("RequantizeMatrix", m, n)) Fail("RequantizeMatrix: acc is not M x N");
  if (bias && bias->size() != static_cast<size_t>(n)) {
    Fail("RequantizeMatrix: bias is not N values");
  }
  if (quant_words.size() != static_cast<size_t>(n)) {
    Fail("RequantizeMatrix: quant_words is not N values");
  }
  CheckZeroPoint("RequantizeMatrix", zero_point);
  std::vector<int8_t> y(acc.size());
  for (size_t i = 0; i < static_cast<size_t>(m); ++i) {
    for (size_t j = 0; j < static_cast<size_t>(n); ++j) {
      y[i * n + j] =
          Requantize(acc[i * n + j], bias ? (*bias)[j] : 0, quant_words[j], zero_point, relu);
    }
  }
  return y;
}

uint32_t QuantMultiplier::word() const { return multiplier << 8 | static_cast<uint32_t>(shift); }

double QuantMultiplier::scale() const {
  return std::ldexp(static_cast<double>(multiplier), -shift);
}

QuantMultiplier QuantizeMultiplier(double scale) {
  if (!std::isfinite(scale) || scale <= 0) {
    Fail("QuantizeMultiplier: scale " + Exact(scale) + " is not positive and finite");
  }
  // scale = f * 2^e with f in [0.5, 1): m = f * 2^24 (exact in a double) and s = 24 - e.
  int e = 0;
  const double f = std::frexp(scale, &e);
  double m = std::round(std::ldexp(f, 24));  // ties away from zero
  int s = 24 - e;
  if (m == 0x1p24) {  // rounded up out of 24 bits: same value, one bit shorter
    m = 0x1p23;
    s -= 1;
  }
  if (s < 0) {
    Fail("QuantizeMultiplier: scale " + Exact(scale) + " is too large (the largest is 2^24 - 1)");
  }
  if (s > 63) {
    // Below 2^-40: denormalize at the largest shift (see int8.h for why that is harmless).
    // scale * 2^63 < 2^23 is exact in a double, and rounds to at most 2^23.
    m = std::round(std::ldexp(scale, 63));
    s = 63;
  }
  return QuantMultiplier{static_cast<uint32_t>(m), s};
}

int8_t QuantizeValue(float x, float scale, int zero_point) {
  if (std::isnan(x)) Fail("QuantizeValue: x is NaN");
  if (!std::isfinite(scale) || scale <= 0) {
    Fail("QuantizeValue: scale " + Exact(scale) + " is not positive and finite");
  }
  CheckZeroPoint("QuantizeValue", zero_point);
  // A float quotient in double cannot overflow (< 2^277); infinite x stays infinite and clamps.
  double q = std::round(static_cast<double>(x) / scale) + zero_point;
  if (q < -128) q = -128;
  if (q > 127) q = 127;
  return static_cast<int8_t>(q);
}

}  // namespace mxu::golden
