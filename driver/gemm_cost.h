// The GEMM planner's cost model and blocking search (driver/gemm_plan.cc builds the program):
// the device and shape quantities a plan needs, the cycles a blocking is estimated to take, and
// the blocking chosen per shape (cached per thread). Internal to the planner: not an interface.
#ifndef MXU_DRIVER_GEMM_COST_H_
#define MXU_DRIVER_GEMM_COST_H_

#include <algorithm>
#include <cstdint>

#include "driver/gemm_plan.h"

namespace mxu::driver {

// Rounded-up division of positive ints: tiles and blocks of a dimension.
inline int CeilDiv(int a, int b) { return (a + b - 1) / b; }

// Unified-buffer slots that hold activated bf16 results on their way out (rotating, so that an
// ACTIVATE never waits for the store of the result before).
inline constexpr int kOutSlots = 3;

// The device and shape quantities every estimate and plan needs.
struct Geometry {
  int rows, cols, k_tiles, n_tiles, ub_depth, acc_half, bus, in_flight;
  // A full weight tile's rows: the array's, or K where K is shorter (a tile of K rows shifts in
  // K cycles and drains past its K PE rows only).
  int tile_k;
  // From a row entering the array to its result row (the PE's pipeline included), and the
  // cycles a commit waits after the last row on the bank it overwrites (common/pe_pipeline.h).
  int latency, commit_gap;
  // ... the wait of a commit that narrows its bank's tile: the full drain, whatever the tile's K
  // (the old tile's passing lanes cross every row).
  int full_gap;
  int in_bytes;    // per operand element in host memory: 2 (bf16) or 1 (int8)
  int out_bytes;   // per result element in host memory
  bool activated;  // results leave through the activation unit (bf16, int8)
  int quant_row;   // int8 output: N tile n's quantization row is quant_row + n; else -1
  // int8 output with a bias: N tile n's bias row is bias_row + n, which the ACTIVATE adds (exact,
  // as the preloaded start would sum it in int32: the same result in the contract's range);
  // else -1, and a bias starts the accumulators.
  int bias_row;
  GemmPlacement place;
  bool a_in_ub() const { return place.a_ub_row >= 0; }
  // Whether a group's accumulators start from a preloaded C0 or bias.
  bool Preloads(const GemmSpec& spec) const { return spec.c0 || (spec.bias && bias_row < 0); }
  // Out slots stage activated results on their way to host memory, unless they stay in the UB.
  bool out_slots() const { return activated && place.store && place.out_ub_row < 0; }
  int OutRows(int m_block) const { return out_slots() ? kOutSlots * m_block : 0; }
  int ASlots(int m_block) const { return (ub_depth - OutRows(m_block)) / m_block; }
  bool Fits(int m, const GemmBlocking& b) const {
    if (b.m_block < 1 || b.n_group < 1 || b.m_block > std::max(m, 1)) return false;
    if (int64_t{b.n_group} * b.m_block > acc_half || b.n_group > n_tiles) return false;
    if (OutRows(b.m_block) > ub_depth) return false;
    if (a_in_ub()) return b.a_resident;
    const int slots = ASlots(b.m_block);
    return b.a_resident ? slots >= k_tiles : slots >= 1;
  }
};

// The geometry of one GEMM on a device, with the placement of its resident matrices.
Geometry MakeGeometry(const DeviceConfig& cfg, const GemmSpec& spec, const GemmPlacement& place);

// Compute cycles of one MATMUL step of `rows` rows (the planner paces its look-ahead by them).
double StepCycles(const Geometry& g, int rows);

// The cost model's cycles for one blocking (what a plan reports as its estimated_cycles).
double Estimate(const Geometry& g, const GemmSpec& spec, const GemmBlocking& b);

// The blocking the cost model picks for a shape, searched once per thread and then cached.
GemmBlocking ChooseBlocking(const Geometry& g, const GemmSpec& spec);

}  // namespace mxu::driver

#endif  // MXU_DRIVER_GEMM_COST_H_
