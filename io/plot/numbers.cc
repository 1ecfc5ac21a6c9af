// Number formats of the charts (io/plot/numbers.h).
#include "io/plot/numbers.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace mxu::plot::numbers {

std::string Plain(double v, int decimals) {
  if (!std::isfinite(v)) return v != v ? "nan" : v > 0 ? "inf" : "-inf";
  char text[400];
  std::snprintf(text, sizeof text, "%.*f", decimals, std::fabs(v));
  std::string digits = text;
  const size_t point = digits.find('.');
  std::string whole = digits.substr(0, point);
  std::string fraction = point == std::string::npos ? "" : digits.substr(point + 1);
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  std::string grouped;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) grouped += ',';
    grouped += whole[i];
  }
  const bool zero = whole.find_first_not_of('0') == std::string::npos && fraction.empty();
  std::string plain =
      (v < 0 && !zero ? "-" : "") + grouped + (fraction.empty() ? "" : "." + fraction);
  if (plain.size() <= kMaxPlainChars) return plain;
  // Too long to read at a glance (1e308 would be 409 characters, and push the plot off the
  // picture): three significant digits, scientific.
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

std::string Tick(double value, double step, bool percent) {
  if (percent) {
    char text[48];
    std::snprintf(text, sizeof text, "%.*f%%", step * 100 >= 1 ? 0 : 1, value * 100);
    return text;
  }
  if (std::fabs(value) < step * 1e-6) value = 0;  // no "-0" or 1e-17 at zero
  // The decimals that write every multiple of the step exactly (2.5 -> 1, 0.02 -> 2).
  int decimals = 0;
  for (double scaled = step; decimals < 15 && std::isfinite(scaled) &&
                             std::fabs(scaled - std::round(scaled)) > 1e-6 * std::fabs(scaled);
       scaled *= 10) {
    ++decimals;
  }
  return Plain(value, decimals);
}

std::string Value(double v, bool percent) {
  if (percent) {  // one decimal always, so that bars side by side read alike (94.0%, 94.9%)
    char text[400];
    std::snprintf(text, sizeof text, "%.1f%%", v * 100);
    return text;
  }
  const double magnitude = std::fabs(v);
  if (magnitude >= 100 || magnitude == 0) return Plain(v, 0);
  const int decimals = 2 - static_cast<int>(std::floor(std::log10(magnitude)));
  return Plain(v, decimals);
}

std::string Decade(int e) {
  if (e < -6 || e > 14) return "1e" + std::to_string(e);
  if (e < 0) return "0." + std::string(-e - 1, '0') + "1";
  static const char* suffix[] = {"", "k", "M", "G", "T"};
  return std::to_string(e % 3 == 0 ? 1 : e % 3 == 1 ? 10 : 100) + suffix[e / 3];
}

}  // namespace mxu::plot::numbers
