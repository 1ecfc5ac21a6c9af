// Internal to the model backend: an instruction as the controller decodes it (mxu_ctrl_decode):
// its fields, its legality (the first error in the RTL's order of precedence) and the buffer
// ranges it reads and writes, which the dispatcher's hazard checks compare.
#ifndef MXU_BACKENDS_MODEL_INSTRUCTION_H_
#define MXU_BACKENDS_MODEL_INSTRUCTION_H_

#include <cstdint>

#include "backends/model/core.h"
#include "common/isa.h"

namespace mxu::backends::model {

struct Range {
  bool on = false;
  uint32_t lo = 0, hi = 0;  // [lo, hi)
};
inline bool Overlap(const Range& a, const Range& b) {
  return a.on && b.on && a.lo < b.hi && b.lo < a.hi;
}

enum class Kind { kLoad, kWload, kStore, kMatmul, kActivate, kSync, kHalt, kIllegal };

struct Decoded {
  Kind kind = Kind::kIllegal;
  uint32_t err = 0;
  uint32_t buf = 0, flag = 0, rows = 0, lanes = 0, buf_addr = 0, stride = 0;
  uint64_t host = 0;
  // The int8 mode (docs/numerics.md, "The integer mode"): LOAD/STORE int8 host bytes for UB and
  // WEIGHTS (int32 words for ACC, raw as without it), int8 x int8 -> int32 MATMUL, requantizing
  // ACTIVATE.
  bool integer = false;
  // MATMUL
  bool accumulate = false, new_weights = false;
  uint32_t k_rows = 0, ub_addr = 0, acc_addr = 0;
  // ACTIVATE
  bool relu = false, bias = false;
  uint32_t bias_addr = 0, quant_addr = 0;
  int32_t zero_point = 0;  // int8
  Range r_ub, w_ub, r_acc, w_acc;
  // ACTIVATE: the single accumulator rows it reads besides its range (the bias row, the integer
  // mode's quantization row). The dispatcher's hazard checks treat each as a one-row read range.
  Range r_bias, r_quant;
};

inline bool IsAcc(const Decoded& d) { return d.buf == static_cast<uint32_t>(isa::Buffer::kAcc); }

// Bytes of one host element of a transfer: fp32 / int32 words for ACC, int8 bytes for UB and
// WEIGHTS in the integer mode, bf16 otherwise.
inline uint64_t ElementBytes(const Decoded& d) {
  if (IsAcc(d)) return 4;
  return d.integer ? 1 : 2;
}

// A transfer's rows in host memory, in bytes.
struct HostRows {
  uint64_t element, stride, row;
};
inline HostRows HostRowsOf(const Decoded& d) {
  const uint64_t element = ElementBytes(d);
  return {element, uint64_t{d.stride} * element, d.lanes * element};
}

// `weights_unclaimed`: LOAD WEIGHTS dispatched and not yet claimed by a MATMUL's new_weights (a
// fourth is WEIGHTS_FULL, a MATMUL claiming none NO_WEIGHTS).
Decoded Decode(const isa::Words& w, const Config& cfg, uint32_t weights_unclaimed);

}  // namespace mxu::backends::model

#endif  // MXU_BACKENDS_MODEL_INSTRUCTION_H_
