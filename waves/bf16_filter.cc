// mxu-bf16-filter: a GTKWave translate filter process (Data Format > Translate Filter Process, or
// a `^>N path` line in a .gtkw file) that shows bf16 bit patterns as numbers. GTKWave writes one
// value per line as it would display it (hexadecimal here) and reads one line back per value.
// Values that are not plain hexadecimal (x, z, empty) come back unchanged.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "common/bf16.h"

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

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    const size_t begin = line.find_first_not_of(" \t\r");
    const size_t end = line.find_last_not_of(" \t\r");
    const std::string token = begin == std::string::npos ? "" : line.substr(begin, end - begin + 1);
    // GTKWave waits for each answer: flush every line.
    std::cout << Translate(token) << std::endl;
  }
  return 0;
}
