// The pipelines after the array (docs/architecture.md, "Logic depth per module"): fixed for every
// device, as rtl/mxu_pkg.sv's AccAddCuts and ActCycles set them.
#ifndef MXU_COMMON_UNIT_LATENCY_H_
#define MXU_COMMON_UNIT_LATENCY_H_

#include <cstdint>

namespace mxu {

// From a result row reaching the accumulators to its write: the old value's read, then the fp32
// add's three cuts (mxu_pkg::acc_add_cycles()). A row bound for the same accumulator row may
// arrive no sooner, so the MATMUL sequencer holds back an accumulating row while a row issued
// fewer cycles ago goes to the same accumulator row.
constexpr uint32_t kAccAddCycles = 4;

// From an accumulator row entering the activation unit to its unified-buffer write, in both
// modes (mxu_pkg::ActCycles): bias add | ReLU and bf16 rounding, or the requantizer's four steps.
constexpr uint32_t kActivationCycles = 4;

}  // namespace mxu

#endif  // MXU_COMMON_UNIT_LATENCY_H_
