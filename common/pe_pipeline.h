// The processing element's pipeline (docs/architecture.md, "The pipelined PE"): how many cycles a
// PE of a given depth spends on the multiply and on the add, and what that makes of the array's
// timing. The cut table and the rules are common/device.toml's (kPePipelines, CommitGap ...:
// common/device_table.h); the device reports the two cycle counts in its PIPELINE CSR, and the
// device tests check that they are the table's.
#ifndef MXU_COMMON_PE_PIPELINE_H_
#define MXU_COMMON_PE_PIPELINE_H_

#include <cstdint>

#include "common/device_table.h"

namespace mxu {

// stages in [1, kPeMaxStages] (the table's pe.depths).
constexpr PePipeline PePipelineOf(uint32_t stages) { return kPePipelines[stages - 1]; }

// Cycles from an activation row entering the array to its de-skewed result row.
constexpr uint32_t ArrayLatency(uint32_t rows, uint32_t cols, const PePipeline& pe) {
  return ArrayLatency(rows, cols, pe.mul_cycles, pe.add_cycles);
}

// MATMULs the controller keeps in flight on an array of rows x cols PEs (mxu_pkg::mm_slots).
constexpr uint32_t MatmulSlots(uint32_t rows, uint32_t cols, const PePipeline& pe) {
  return MatmulSlots(ArrayLatency(rows, cols, pe));
}

}  // namespace mxu

#endif  // MXU_COMMON_PE_PIPELINE_H_
