// The device's CSR map (docs/isa.md): byte addresses on the register port, bit fields, error codes
// and performance counters. Header only: the driver, the platform and the tests share it.
//
// Everything here is generated from common/isa.toml into common/isa_table.h (namespace mxu::csr:
// kDeviceId, kId ..., ArrayRows/Cols, Features*, kCtrl*, kStatus*, ErrorCode, ErrorName,
// Counter, CounterName, CounterLo/Hi); see scripts/gen_isa.py.
#ifndef MXU_COMMON_CSR_MAP_H_
#define MXU_COMMON_CSR_MAP_H_

#include "common/isa_table.h"

#endif  // MXU_COMMON_CSR_MAP_H_
