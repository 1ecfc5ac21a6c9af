// The device's CSR map (docs/isa.md): byte addresses on the register port, bit fields, error codes
// and performance counters. Header only: the driver, the platform and the tests share it.
//
// Everything here is generated from common/isa.toml into common/isa_table.h (namespace mxu::csr:
// kDeviceId, kId ..., ArrayRows/Cols, Features*, kCtrl*, kStatus*, ErrorCode, ErrorName,
// Counter, CounterName, CounterLo/Hi); see scripts/gen_isa.py.
#ifndef MXU_COMMON_CSR_MAP_H_
#define MXU_COMMON_CSR_MAP_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "common/isa_table.h"

namespace mxu::csr {

// "CSR write of 0x020 (value 0x00000001)" / "CSR read of 0x024": how the backends name a register
// access in their errors.
inline std::string DescribeCsr(bool write, uint32_t addr, uint32_t value) {
  char text[64];
  if (write) {
    std::snprintf(text, sizeof(text), "CSR write of 0x%03x (value 0x%08x)", addr, value);
  } else {
    std::snprintf(text, sizeof(text), "CSR read of 0x%03x", addr);
  }
  return text;
}

}  // namespace mxu::csr

#endif  // MXU_COMMON_CSR_MAP_H_
