// The processing element's pipeline (docs/architecture.md, "The pipelined PE"): how many cycles a
// PE of a given depth spends on the multiply and on the add, and what that makes of the array's
// timing. The cut table is rtl/mxu_pkg.sv's (pe_mul_cuts, pe_product_cut, pe_add_cuts); the
// device reports the two cycle counts in its PIPELINE CSR, and the device tests check that they
// are the ones below.
#ifndef MXU_COMMON_PE_PIPELINE_H_
#define MXU_COMMON_PE_PIPELINE_H_

#include <cstdint>

namespace mxu {

// PeMaxStages of rtl/mxu_pkg.sv: one stage per cut point, plus the partial-sum register.
constexpr uint32_t kPeMaxStages = 7;

struct PePipeline {
  uint32_t stages = 1;
  // From an activation entering a PE to its product at the adder (the activation register the
  // multiplier reads, the multiplier's cuts and the register between multiplier and adder):
  // delays a product, not the partial-sum chain.
  uint32_t mul_cycles = 1;
  // From a partial sum entering a PE to the PE's partial sum out: the chain's step per PE row,
  // so the array skews row r's activations by r x add_cycles.
  uint32_t add_cycles = 1;
};

// stages in [1, kPeMaxStages].
constexpr PePipeline PePipelineOf(uint32_t stages) {
  // {stages, mul_cycles, add_cycles}, as the cuts of rtl/mxu_pkg.sv give them.
  constexpr PePipeline kTable[kPeMaxStages] = {{1, 1, 1}, {2, 2, 1}, {3, 2, 2}, {4, 2, 3},
                                               {5, 3, 3}, {6, 3, 4}, {7, 4, 4}};
  return kTable[stages - 1];
}

// Cycles from an activation row entering the array to its de-skewed result row.
constexpr uint32_t ArrayLatency(uint32_t rows, uint32_t cols, const PePipeline& pe) {
  return rows * pe.add_cycles + pe.mul_cycles + cols - 1;
}

// Cycles a weight bank needs after its last row was issued before a commit may overwrite it: that
// row reaches the bottom PE row (rows - 1) x add_cycles cycles after entering the array and is
// multiplied a cycle later, from the PE's activation register (mxu_pkg::pe_commit_gap).
constexpr uint32_t CommitGap(uint32_t rows, uint32_t add_cycles) {
  return (rows - 1) * add_cycles + 2;
}

// MATMULs the controller keeps in flight (mxu_pkg::mm_slots, the same rule): enough that
// back-to-back products of 40 cycles each cover the array's latency, at least 4, a power of two.
constexpr uint32_t MatmulSlots(uint32_t rows, uint32_t cols, const PePipeline& pe) {
  uint32_t slots = 4;
  while (slots * 40 < ArrayLatency(rows, cols, pe)) slots *= 2;
  return slots;
}

}  // namespace mxu

#endif  // MXU_COMMON_PE_PIPELINE_H_
