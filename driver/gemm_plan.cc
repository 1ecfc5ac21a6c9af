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

std::vector<uint16_t> PackA(const std::vector<uint16_t>& a, int m, int k, int tile_k) {
  const int tiles = CeilDiv(k, tile_k);
  std::vector<uint16_t> packed(static_cast<size_t>(tiles) * m * tile_k, 0);
  for (int t = 0; t < tiles; ++t) {
    for (int r = 0; r < m; ++r) {
      for (int j = 0; j < tile_k && t * tile_k + j < k; ++j) {
        packed[(static_cast<size_t>(t) * m + r) * tile_k + j] =
            a[static_cast<size_t>(r) * k + t * tile_k + j];
      }
    }
  }
  return packed;
}

std::vector<uint16_t> PackB(const std::vector<uint16_t>& b, int k, int n, int tile_n) {
  const int tiles = CeilDiv(n, tile_n);
  std::vector<uint16_t> packed(static_cast<size_t>(tiles) * k * tile_n, 0);
  for (int t = 0; t < tiles; ++t) {
    for (int r = 0; r < k; ++r) {
      for (int j = 0; j < tile_n && t * tile_n + j < n; ++j) {
        packed[(static_cast<size_t>(t) * k + r) * tile_n + j] =
            b[static_cast<size_t>(r) * n + t * tile_n + j];
      }
    }
  }
  return packed;
}

GemmPlan PlanGemm(const DeviceConfig& cfg, const GemmSpec& spec, const GemmAddresses& addr) {
  CheckSpec(spec);
  const int rows = static_cast<int>(cfg.rows), cols = static_cast<int>(cfg.cols);
  const int ub_depth = static_cast<int>(cfg.ub_depth);
  const int k_tiles = CeilDiv(spec.k, rows);
  const bool bf16_out = spec.output == OutputType::kBf16;
  // The unified buffer holds two A regions and, for bf16 output, two activation regions of
  // m_block rows; the accumulators two regions (one stored while the next computes).
  const auto a_region = [&](int m_block) { return (ub_depth - (bf16_out ? 2 * m_block : 0)) / 2; };
  const int acc_half = static_cast<int>(cfg.acc_depth) / 2;

  GemmPlan plan;
  // Prefer M blocks whose whole K extent of A stays in the unified buffer (A is then read from
  // memory once), as long as they are tall enough to keep the array busy between weight tiles
  // (4 x rows); otherwise the tallest blocks, with A streamed in chunks of K tiles.
  int m_block = std::min({spec.m, acc_half, a_region(std::min(spec.m, acc_half)) / k_tiles});
  if (m_block < std::min(spec.m, 8 * rows)) {
    m_block = std::min({spec.m, acc_half, ub_depth / (bf16_out ? 4 : 2)});
  }
  const int ub_a_region = a_region(m_block);
  // A streamed in chunks rotates through at least three slots, so that the slot a prefetch
  // writes was last read two chunks ago (long finished) and the prefetch never waits.
  int k_chunk = std::min(k_tiles, ub_a_region / m_block);
  if (k_chunk < k_tiles) k_chunk = std::min(k_tiles, 2 * ub_a_region / (3 * m_block));
  k_chunk = std::max(1, k_chunk);
  const int slot_rows = k_chunk * m_block;
  const int slots = std::max(2, 2 * ub_a_region / slot_rows);
  plan.m_block = m_block;
  plan.k_chunk = k_chunk;
  plan.a_resident = k_chunk == k_tiles;
  const int out_base = 2 * ub_a_region;

  // The work in order: one item per (M block, N tile, K chunk); A is loaded for an item unless
  // it is resident from the block's first N tile.
  struct Item {
    int m0, mr, n0, ni, kt0, kt_end;
    bool load_a;
  };
  std::vector<Item> items;
  for (int m0 = 0; m0 < spec.m; m0 += m_block) {
    const int mr = std::min(m_block, spec.m - m0);
    for (int n0 = 0, ni = 0; n0 < spec.n; n0 += cols, ++ni) {
      for (int kt0 = 0; kt0 < k_tiles; kt0 += k_chunk) {
        items.push_back(
            {m0, mr, n0, ni, kt0, std::min(k_tiles, kt0 + k_chunk), !plan.a_resident || ni == 0});
      }
    }
  }

  std::vector<isa::Instruction>& p = plan.program;
  // A chunks go to the unified-buffer slots in turn; each chunk's loads are issued during the
  // previous chunk's first MATMUL, so they overlap compute.
  std::vector<int> region(items.size(), 0);
  int chunk_count = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    region[i] = items[i].load_a ? (chunk_count++ % slots) * slot_rows : region[i ? i - 1 : 0];
  }
  const auto load_a = [&](size_t i) {
    const Item& it = items[i];
    for (int kt = it.kt0; kt < it.kt_end; ++kt) {
      const int k0 = kt * rows, kr = std::min(rows, spec.k - k0);
      const int ub_row = region[i] + (kt - it.kt0) * it.mr;
      if (spec.trans_a) {  // A stored K x M: UB row i, lane j <- A[k0 + j][m0 + i]
        p.push_back(isa::Load(isa::Buffer::kUb, it.mr, kr, ub_row,
                              addr.a + 2ull * (uint64_t(k0) * spec.m + it.m0), spec.m, true));
      } else if (spec.packed) {
        p.push_back(isa::Load(isa::Buffer::kUb, it.mr, kr, ub_row,
                              addr.a + 2ull * ((uint64_t(kt) * spec.m + it.m0) * rows), rows));
      } else {
        p.push_back(isa::Load(isa::Buffer::kUb, it.mr, kr, ub_row,
                              addr.a + 2ull * (uint64_t(it.m0) * spec.k + k0), spec.k));
      }
    }
  };

  int block_index = 0;
  uint64_t out_offset = 0;
  std::vector<bool> loaded(items.size(), false);
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    const int nc = std::min(cols, spec.n - it.n0);
    const int acc = (block_index % 2) * acc_half;
    const bool init = spec.c0 || spec.bias;
    if (it.kt0 == 0) {  // a new output block: its accumulators' start
      if (spec.c0) {
        p.push_back(isa::Load(isa::Buffer::kAcc, it.mr, nc, acc,
                              addr.c0 + 4ull * (uint64_t(it.m0) * spec.n + it.n0), spec.n));
      }
      if (spec.bias) {  // stride 0: every row reads the same bias vector
        p.push_back(isa::Load(isa::Buffer::kAcc, it.mr, nc, acc, addr.bias + 4ull * it.n0, 0));
      }
    }
    if (it.load_a && !loaded[i]) {
      load_a(i);
      loaded[i] = true;
    }
    for (int kt = it.kt0; kt < it.kt_end; ++kt) {
      const int k0 = kt * rows, kr = std::min(rows, spec.k - k0);
      if (spec.trans_b) {  // B stored N x K: weight row r, lane j <- B[n0 + j][k0 + r]
        p.push_back(isa::Load(isa::Buffer::kWeights, kr, nc, 0,
                              addr.b + 2ull * (uint64_t(it.n0) * spec.k + k0), spec.k, true));
      } else if (spec.packed) {
        p.push_back(isa::Load(isa::Buffer::kWeights, kr, nc, 0,
                              addr.b + 2ull * ((uint64_t(it.ni) * spec.k + k0) * cols), cols));
      } else {
        p.push_back(isa::Load(isa::Buffer::kWeights, kr, nc, 0,
                              addr.b + 2ull * (uint64_t(k0) * spec.n + it.n0), spec.n));
      }
      p.push_back(
          isa::Matmul(it.mr, kr, region[i] + (kt - it.kt0) * it.mr, acc, init || kt > 0, true));
      plan.matmul_rows += it.mr;
      // Prefetch the next A chunk once this chunk's first MATMUL is on its way.
      if (kt == it.kt0) {
        for (size_t j = i + 1; j < items.size(); ++j) {
          if (items[j].load_a) {
            if (!loaded[j]) load_a(j);
            loaded[j] = true;
            break;
          }
        }
      }
    }
    if (it.kt_end == k_tiles) {  // the output block is complete
      const uint64_t c_offset = out_offset;
      plan.outputs.push_back({it.m0, it.mr, it.n0, nc, out_offset});
      out_offset += uint64_t(it.mr) * nc;
      if (bf16_out) {
        const int ub_out = out_base + (block_index % 2) * m_block;
        p.push_back(isa::Activate(it.mr, acc, ub_out, spec.relu, false));
        p.push_back(isa::Store(isa::Buffer::kUb, it.mr, nc, ub_out, addr.c + 2 * c_offset, nc));
      } else {
        p.push_back(
            isa::Store(isa::Buffer::kAcc, it.mr, nc, acc, addr.c + 4 * c_offset, nc, spec.relu));
      }
      ++block_index;
    }
  }
  p.push_back(isa::Halt());
  return plan;
}

}  // namespace mxu::driver
