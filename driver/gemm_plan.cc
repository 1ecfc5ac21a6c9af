#include "driver/gemm_plan.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mxu::driver {
namespace {

int CeilDiv(int a, int b) { return (a + b - 1) / b; }

void CheckSpec(const GemmSpec& spec) {
  if (spec.m < 1 || spec.k < 1 || spec.n < 1) {
    throw std::invalid_argument("GEMM dimensions must be >= 1, got M=" + std::to_string(spec.m) +
                                " K=" + std::to_string(spec.k) + " N=" + std::to_string(spec.n));
  }
  // Strides and row counts travel in 16-bit instruction fields.
  if (spec.m > 65535 || spec.k > 65535 || spec.n > 65535) {
    throw std::invalid_argument("GEMM dimensions above 65535 are not supported");
  }
  if (spec.bias && spec.c0) {
    throw std::invalid_argument("a bias and an accumulate input cannot be combined");
  }
}

}  // namespace

GemmPlan PlanGemm(const DeviceConfig& cfg, const GemmSpec& spec, const GemmAddresses& addr) {
  CheckSpec(spec);
  const int rows = static_cast<int>(cfg.rows), cols = static_cast<int>(cfg.cols);
  const int k_tiles = CeilDiv(spec.k, rows);
  const bool bf16_out = spec.output == OutputType::kBf16;

  GemmPlan plan;
  // Two accumulator regions (result of one N tile stored while the next computes); the unified
  // buffer holds two A regions and, for bf16 output, two activation regions of the same height.
  const int acc_half = static_cast<int>(cfg.acc_depth) / 2;
  const int ub_parts = bf16_out ? 4 : 2;
  int m_block = std::min({spec.m, acc_half, static_cast<int>(cfg.ub_depth) / ub_parts});
  const int ub_a_region = (static_cast<int>(cfg.ub_depth) - (bf16_out ? 2 * m_block : 0)) / 2;
  const int k_chunk = std::max(1, std::min(k_tiles, ub_a_region / m_block));
  plan.m_block = m_block;
  plan.k_chunk = k_chunk;
  plan.a_resident = k_chunk == k_tiles;
  const int out_base = 2 * ub_a_region;

  std::vector<isa::Instruction>& p = plan.program;
  int block_index = 0;
  for (int m0 = 0, mi = 0; m0 < spec.m; m0 += m_block, ++mi) {
    const int mr = std::min(m_block, spec.m - m0);
    const int ub_a = (mi % 2) * ub_a_region;
    for (int n0 = 0, ni = 0; n0 < spec.n; n0 += cols, ++ni, ++block_index) {
      const int nc = std::min(cols, spec.n - n0);
      const int acc = (block_index % 2) * acc_half;
      const bool init = spec.c0 || spec.bias;
      if (spec.c0) {
        p.push_back(isa::Load(isa::Buffer::kAcc, mr, nc, acc,
                              addr.c0 + 4ull * (uint64_t(m0) * spec.n + n0), spec.n));
      }
      if (spec.bias) {  // stride 0: every row reads the same bias vector
        p.push_back(isa::Load(isa::Buffer::kAcc, mr, nc, acc, addr.bias + 4ull * n0, 0));
      }
      for (int kt0 = 0; kt0 < k_tiles; kt0 += k_chunk) {
        const int chunk_end = std::min(k_tiles, kt0 + k_chunk);
        if (!plan.a_resident || ni == 0) {
          for (int kt = kt0; kt < chunk_end; ++kt) {
            const int k0 = kt * rows, kr = std::min(rows, spec.k - k0);
            const int ub_row = ub_a + (kt - kt0) * mr;
            if (spec.trans_a) {  // A stored K x M: UB row i, lane j <- A[k0 + j][m0 + i]
              p.push_back(isa::Load(isa::Buffer::kUb, mr, kr, ub_row,
                                    addr.a + 2ull * (uint64_t(k0) * spec.m + m0), spec.m, true));
            } else {
              p.push_back(isa::Load(isa::Buffer::kUb, mr, kr, ub_row,
                                    addr.a + 2ull * (uint64_t(m0) * spec.k + k0), spec.k));
            }
          }
        }
        for (int kt = kt0; kt < chunk_end; ++kt) {
          const int k0 = kt * rows, kr = std::min(rows, spec.k - k0);
          if (spec.trans_b) {  // B stored N x K: weight row r, lane j <- B[n0 + j][k0 + r]
            p.push_back(isa::Load(isa::Buffer::kWeights, kr, nc, 0,
                                  addr.b + 2ull * (uint64_t(n0) * spec.k + k0), spec.k, true));
          } else {
            p.push_back(isa::Load(isa::Buffer::kWeights, kr, nc, 0,
                                  addr.b + 2ull * (uint64_t(k0) * spec.n + n0), spec.n));
          }
          p.push_back(isa::Matmul(mr, kr, ub_a + (kt - kt0) * mr, acc, init || kt > 0, true));
          plan.matmul_rows += mr;
        }
      }
      const uint64_t c_offset = uint64_t(m0) * spec.n + n0;
      if (bf16_out) {
        const int ub_out = out_base + (block_index % 2) * m_block;
        p.push_back(isa::Activate(mr, acc, ub_out, spec.relu, false));
        p.push_back(isa::Store(isa::Buffer::kUb, mr, nc, ub_out, addr.c + 2 * c_offset, spec.n));
      } else {
        p.push_back(isa::Store(isa::Buffer::kAcc, mr, nc, acc, addr.c + 4 * c_offset, spec.n,
                               spec.relu));
      }
    }
  }
  p.push_back(isa::Halt());
  return plan;
}

}  // namespace mxu::driver
