// mxu-opcode-filter: a GTKWave translate filter process (a `^>N path` line in a .gtkw file) that
// shows an instruction's opcode by its name in the ISA table ("MATMUL"). A process filter, unlike
// a translate filter file, applies to the FST the platform writes as well as to a VCD. GTKWave
// writes one value per line as it would display it (hexadecimal here) and reads one line back per
// value; 00 (no instruction at the head) shows "-", other values outside the table and anything
// that is not plain hexadecimal (x, z) come back unchanged.
#include <cstdint>
#include <string>

#include "common/isa_table.h"
#include "waves/translate_filter.h"

namespace {

std::string Translate(const std::string& text) {
  if (text.empty() || text.size() > 2) return text;
  uint32_t value = 0;
  for (const char c : text) {
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) return text;
    value = value << 4 | static_cast<uint32_t>(digit);
  }
  if (value == 0) return "-";
  const char* name = mxu::isa::OpcodeName(value);
  return name ? name : text;
}

}  // namespace

int main() { return mxu::waves::RunTranslateFilter(Translate); }
