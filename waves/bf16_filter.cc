// mxu-bf16-filter: a GTKWave translate filter process (Data Format > Translate Filter Process, or
// a `^>N path` line in a .gtkw file) that shows bf16 bit patterns as numbers. GTKWave writes one
// value per line as it would display it (hexadecimal here) and reads one line back per value.
// Values that are not plain hexadecimal (x, z, empty) come back unchanged.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/bf16.h"
#include "waves/translate_filter.h"

namespace {

std::string Translate(const std::string& text) {
  if (text.empty() || text.size() > 4) return text;
  uint32_t bits = 0;
  for (const char c : text) {
    const char* digits = "0123456789abcdef";
    const char* at = std::strchr(digits, c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
    if (c == '\0' || at == nullptr) return text;
    bits = bits << 4 | static_cast<uint32_t>(at - digits);
  }
  char out[32];
  std::snprintf(out, sizeof out, "%.4g", mxu::Bf16ToFloat(static_cast<uint16_t>(bits)));
  return out;
}

}  // namespace

int main() { return mxu::waves::RunTranslateFilter(Translate); }
