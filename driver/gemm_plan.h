// GEMM planning: turns C = op(A) x op(B) (+ bias or + C0) (ReLU) into one instruction stream for a
// device of any configuration (every size read from its CSRs).
//
// Loop nest: M blocks (m_block rows, one MATMUL each) > groups of n_group N tiles (their
// accumulators live at once) > K tiles > the N tiles of the group. A K tile of A is loaded into
// a unified-buffer slot once per M block when the block's whole K extent fits (resident), else
// once per group, and is reused by the group's N tiles; B is streamed tile by tile through the
// weight FIFO. Every output accumulates its K tiles in order 0, 1, ... (the numeric contract's
// order), whatever the blocking. A cost model of the device (compute, bytes over the memory
// port, exposed latencies) picks m_block, n_group and residency per shape. Loads are issued ahead
// of use (software pipelining) and result stores are deferred and paced so that the in-order
// dispatcher never waits on them while the array has work.
#ifndef MXU_DRIVER_GEMM_PLAN_H_
#define MXU_DRIVER_GEMM_PLAN_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/isa.h"
#include "common/memory_timing.h"
#include "driver/device_config.h"

namespace mxu::driver {

// Float GEMMs (bf16 operands) give fp32 or bf16; int8 GEMMs give int32, or int8 requantized by the
// activation unit (docs/numerics.md).
enum class OutputType { kFp32, kBf16, kInt32, kInt8 };

// Bytes per element of each output type in host memory.
inline int OutputBytes(OutputType t) {
  return t == OutputType::kBf16 ? 2 : t == OutputType::kInt8 ? 1 : 4;
}

struct GemmSpec {
  int m = 0, k = 0, n = 0;
  bool trans_a = false;  // A is stored K x M (op(A) = A^T)
  bool trans_b = false;  // B is stored N x K (op(B) = B^T)
  bool bias = false;     // an N-vector of fp32 starts every accumulator row
  bool c0 = false;       // an M x N fp32 matrix starts the accumulators (C += A x B)
  bool relu = false;
  OutputType output = OutputType::kFp32;
  // The int8 mode: int8 operands (one byte each in host memory), int32 accumulation; the bias or
  // C0 is int32. Not transposed (the device transposes 16-bit elements only: the driver
  // transposes int8 operands on the host). With int8 output, each N tile's quantization words
  // (multiplier << 8 | shift) come from host memory (GemmAddresses::quant) and the output zero
  // point from here.
  bool int8 = false;
  int zero_point = 0;
  // Plain (not transposed) operands are packed tile by tile in device memory, so that every
  // load reads rows back to back (the DMA then streams long bursts): A as K tiles of M x (the
  // tile's K width) elements, B and C0 as N tiles of K (M) x (the tile's N width) elements
  // (PackTiles). Nothing is padded: a partial tile is as narrow as its columns.
  bool packed = false;
};

// The packed layout of GemmSpec::packed: a rows x cols row-major matrix as column tiles of
// `tile` columns (the last one narrower), each tile's rows back to back. A is packed in K tiles
// of `rows` (PackTiles(a, m, k, rows)); B and C0 in N tiles of `cols`. Element (r, c) lies at
// (c / tile) x rows x tile + r x (the tile's width) + c % tile. A matrix of one tile is unchanged.
template <typename T>
std::vector<T> PackTiles(const std::vector<T>& x, int rows, int cols, int tile) {
  std::vector<T> packed(x.size());
  size_t at = 0;
  for (int c0 = 0; c0 < cols; c0 += tile) {
    const int width = std::min(tile, cols - c0);
    for (int r = 0; r < rows; ++r) {
      for (int j = 0; j < width; ++j) packed[at++] = x[static_cast<size_t>(r) * cols + c0 + j];
    }
  }
  return packed;
}

// Host byte addresses of the operands (in their stored layouts) and of the result.
struct GemmAddresses {
  uint64_t a = 0, b = 0, bias = 0, c0 = 0, c = 0;
  uint64_t quant = 0;  // int8 output: N tiles of `cols` quantization words (uint32)
};

// Where one output block lands: the result is stored block by block, each block's rows packed
// back to back (the store engine streams rows of any length so laid out), at `offset` elements
// into the output buffer, `stride` (= cols) elements per row.
struct OutputBlock {
  int m0, rows, n0, cols;
  uint64_t offset;
  int stride;
};

// The blocking the cost model chose, and what it expects.
struct GemmBlocking {
  int m_block = 0;          // rows per MATMUL
  int n_group = 0;          // N tiles whose accumulators live at once
  bool a_resident = false;  // A loaded once per M block (not once per group)
  uint64_t estimated_cycles = 0;
};

struct GemmPlan {
  std::vector<isa::Instruction> program;  // ends with HALT
  std::vector<OutputBlock> outputs;       // covering M x N exactly once
  GemmBlocking blocking;
  int groups = 0;                // output groups (accumulator regions used in turn)
  uint64_t matmul_rows = 0;      // rows streamed through the array in all
  uint64_t output_elements = 0;  // the output buffer's size, padding included
  int output_bytes = 0;          // per element in the output buffer (OutputBytes)
};

// The output buffer's size for any plan of this shape on this device (an upper bound).
uint64_t OutputElements(const DeviceConfig& config, const GemmSpec& spec);

// Where a GEMM of a multi-GEMM program finds A and leaves C in the unified buffer (the TPU way:
// an activation stays on chip as bf16 and is the next layer's input). Resident matrices are laid
// out tile-major: K tile t (the array's rows wide), row m at base + t * M + m, which is exactly
// how the activation unit writes an N tile of a result (on a square array).
struct GemmPlacement {
  int ub_limit = -1;    // the planner's own unified-buffer rows are [0, ub_limit); -1: all
  int a_ub_row = -1;    // A is resident at this row (not loaded); -1: from host memory
  int out_ub_row = -1;  // C is also activated (ReLU if spec.relu) into bf16 rows here; -1: no
  bool store = true;    // C goes to host memory (fp32 or bf16 as spec.output says)
  // Where the accumulator regions' ring starts: a program's next GEMM continues after the
  // groups of the one before, so its first accumulators are not the ones still being stored.
  int acc_group_offset = 0;
};

// The memory the cost model assumes: the device reports its bus width and requests in flight,
// not the memory behind it, so the planner takes the default memory's: its latency, and as many
// bytes per cycle as the port moves (MemoryTiming's kPortWidth).
inline constexpr int kPlannerMemoryLatency = MemoryTiming().latency_cycles;

// Throws std::invalid_argument for shapes the device cannot take (a dimension < 1 or beyond the
// 16-bit instruction fields, both bias and C0).
GemmPlan PlanGemm(const DeviceConfig& config, const GemmSpec& spec, const GemmAddresses& addr,
                  const GemmPlacement& placement = {});

// The same, with the blocking given (tests use it to cover every loop order); throws
// std::invalid_argument when the blocking does not fit the device's buffers.
GemmPlan PlanGemmWith(const DeviceConfig& config, const GemmSpec& spec, const GemmAddresses& addr,
                      const GemmBlocking& blocking, const GemmPlacement& placement = {});

// Independent GEMMs as one program (a batch): one instruction stream in which each GEMM's first
// loads (A tiles, weight tiles, accumulator starts) go out while the GEMM before it computes and
// drains, as consecutive tiles of one GEMM do. Each GEMM's plan is what PlanGemm would report
// for it (outputs, blocking, groups); the program is the batch's, ending with HALT. Throws
// std::invalid_argument naming the element ("batch element i: ...") for one the device cannot
// take, or whose A tiles do not fit beside the batch's result slots.
struct GemmBatchPlan {
  std::vector<isa::Instruction> program;
  std::vector<GemmPlan> gemms;  // each without a program of its own
  std::vector<int> owners;      // the GEMM each instruction belongs to (-1: the final HALT)
};
GemmBatchPlan PlanGemmBatch(const DeviceConfig& config, const std::vector<GemmSpec>& specs,
                            const std::vector<GemmAddresses>& addrs);

}  // namespace mxu::driver

#endif  // MXU_DRIVER_GEMM_PLAN_H_
