#include "host/gemm/random_operands.h"

#include <cstdint>
#include <vector>

namespace mxu::host {

driver::Bf16Matrix RandomMatrix(int rows, int cols, golden::BitSource& bits) {
  static const std::vector<uint16_t> specials = golden::SpecialBf16();
  driver::Bf16Matrix m(rows, cols);
  for (uint16_t& x : m.data) {
    x = bits.Below(1000) == 0 ? specials[bits.Below(specials.size())]
                              : static_cast<uint16_t>((golden::RandomBf16(bits) & 0x807F) |
                                                      (120 + bits.Below(12)) << 7);
  }
  return m;
}

}  // namespace mxu::host
