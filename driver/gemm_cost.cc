#include "driver/gemm_cost.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/device_table.h"
#include "common/pe_pipeline.h"

namespace mxu::driver {

Geometry MakeGeometry(const DeviceConfig& cfg, const GemmSpec& spec, const GemmPlacement& place) {
  Geometry g;
  g.place = place;
  g.rows = static_cast<int>(cfg.rows);
  g.cols = static_cast<int>(cfg.cols);
  g.k_tiles = CeilDiv(spec.k, g.rows);
  g.n_tiles = CeilDiv(spec.n, g.cols);
  g.ub_depth = place.ub_limit >= 0 ? place.ub_limit : static_cast<int>(cfg.ub_depth);
  // int8 output: the quantization rows take the top of the accumulators, the bias rows (if any)
  // the rows below them.
  const bool int8_out = spec.output == OutputType::kInt8;
  const int acc_depth = static_cast<int>(cfg.acc_depth);
  g.quant_row = int8_out ? acc_depth - g.n_tiles : -1;
  g.bias_row = int8_out && spec.bias ? acc_depth - 2 * g.n_tiles : -1;
  const int reserved = (int8_out ? g.n_tiles : 0) + (g.bias_row >= 0 ? g.n_tiles : 0);
  g.acc_half = (acc_depth - reserved) / 2;
  g.bus = std::max(1, static_cast<int>(cfg.bus_bytes));
  g.in_flight = std::max(1, static_cast<int>(cfg.max_in_flight));
  // A device that reports no pipeline (0 cycles) is timed as a one-stage PE.
  const int add = std::max(1, static_cast<int>(cfg.pe_add_cycles));
  g.latency = g.rows * add + static_cast<int>(cfg.pe_mul_cycles) + g.cols - 1;
  g.tile_k = std::max(1, std::min(g.rows, spec.k));
  g.commit_gap =
      static_cast<int>(CommitGap(static_cast<uint32_t>(g.tile_k), static_cast<uint32_t>(add)));
  g.full_gap =
      static_cast<int>(CommitGap(static_cast<uint32_t>(g.rows), static_cast<uint32_t>(add)));
  g.in_bytes = spec.int8 ? 1 : 2;
  g.out_bytes = OutputBytes(spec.output);
  g.activated = spec.output == OutputType::kBf16 || int8_out;
  return g;
}

// Cycles of one MATMUL step of `rows` rows: the array takes one row per cycle, a weight tile of
// K rows needs K cycles to shift in, a commit waits for the bank of two steps before to drain
// (so two steps take at least rows + commit_gap - 1), and weight tiles are fetched at most three
// steps ahead (the unclaimed-tile limit), so a step cannot be shorter than a third of a tile's
// memory round trip.
double StepCycles(const Geometry& g, int rows) {
  const double tile_trip =
      kPlannerMemoryLatency + double(g.tile_k) * g.cols * g.in_bytes / g.bus + g.tile_k;
  const double drain = (double(rows) + g.commit_gap - 1) / 2;
  return std::max({double(rows), double(g.tile_k), drain, tile_trip / 3});
}

namespace {

// The commits of an M block that narrow their bank's tile: the last N tile's, when it is
// narrower than the others, on a bank a wider tile used two steps before. Steps go K tile by K
// tile, the group's N tiles in turn within each (Planner::MakeSteps). `first`: the GEMM's first
// M block, where a step near the start has no step two before it.
int NarrowingCommits(const Geometry& g, const GemmSpec& spec, const GemmBlocking& b, bool first) {
  if (g.n_tiles < 2 || spec.n % g.cols == 0) return 0;
  const int groups = CeilDiv(g.n_tiles, b.n_group);
  const int last_group = g.n_tiles - (groups - 1) * b.n_group;
  const bool earlier_groups = groups >= 2;
  if (last_group >= 3) return g.k_tiles;  // each K tile's narrow step follows two wide ones
  if (last_group == 2) return first && !earlier_groups ? 0 : 1;  // then it alternates banks
  // Alone in its group: its first two steps follow the wide tiles' steps, if there are two.
  const int start = first ? (groups - 1) * b.n_group * g.k_tiles : 2;
  int events = 0;
  for (int kt = 0; kt < std::min(g.k_tiles, 2); ++kt) events += start + kt >= 2 ? 1 : 0;
  return events;
}

// What each MATMUL costs beyond its rows, measured: dispatch and weight-tile hand-over now and
// then cost a cycle or two; it makes fewer, taller MATMULs the better choice at equal compute.
constexpr double kStepOverhead = 3;

// Bytes per cycle a LOAD moves when each request carries `segment` bytes: full bandwidth, or
// what the requests in flight carry per memory latency.
double LoadRate(const Geometry& g, double segment) {
  return std::min<double>(g.bus,
                          g.in_flight * std::min(segment, 16.0 * g.bus) / kPlannerMemoryLatency);
}

// The operand bytes a blocking reads from host memory (A once per M block or per group, B once
// per M block).
double OperandBytes(const Geometry& g, const GemmSpec& spec, const GemmBlocking& b) {
  const int m_blocks = CeilDiv(spec.m, b.m_block);
  const int groups = CeilDiv(g.n_tiles, b.n_group);
  const double a_bytes =
      g.a_in_ub() ? 0
                  : double(g.in_bytes) * spec.m * g.k_tiles * g.rows * (b.a_resident ? 1 : groups);
  return a_bytes + double(g.in_bytes) * g.k_tiles * g.rows * g.n_tiles * g.cols * m_blocks;
}

}  // namespace

// The cost model: compute and memory time overlap; the first loads and the last stores do not.
double Estimate(const Geometry& g, const GemmSpec& spec, const GemmBlocking& b) {
  const int m_blocks = CeilDiv(spec.m, b.m_block);
  const int groups = CeilDiv(g.n_tiles, b.n_group);
  const int last_rows = spec.m - (m_blocks - 1) * b.m_block;
  const double step = StepCycles(g, b.m_block), last_step = StepCycles(g, last_rows);
  const double compute = double(g.n_tiles) * g.k_tiles *
                         ((m_blocks - 1) * step + last_step + m_blocks * kStepOverhead);
  const double a_rate = spec.trans_a ? LoadRate(g, 2.0 * b.m_block) : g.bus;
  const double b_rate = spec.trans_b ? LoadRate(g, 2.0 * g.rows) : g.bus;
  const double a_bytes =
      g.a_in_ub() ? 0
                  : double(g.in_bytes) * spec.m * g.k_tiles * g.rows * (b.a_resident ? 1 : groups);
  const double b_bytes = double(g.in_bytes) * g.k_tiles * g.rows * g.n_tiles * g.cols * m_blocks;
  const double out_bytes = g.out_bytes;
  double c_bytes = g.place.store ? out_bytes * spec.m * g.n_tiles * g.cols : 0;
  // C0 is read whole; a preloaded bias is one row per group start (a broadcast LOAD reads its
  // row once), an ACTIVATE's one row per N tile.
  if (spec.c0) c_bytes += 4.0 * spec.m * g.n_tiles * g.cols;
  if (spec.bias) c_bytes += 4.0 * (g.bias_row >= 0 ? 1 : m_blocks) * g.n_tiles * g.cols;
  const double steps = double(m_blocks) * g.n_tiles * g.k_tiles;
  const double program_bytes =
      16.0 * (2 * steps + m_blocks * g.k_tiles * 2 + 2 * m_blocks * g.n_tiles);
  const double memory = a_bytes / a_rate + b_bytes / b_rate + (c_bytes + program_bytes) / g.bus;
  // The store engine takes one STORE at a time: each pays a latency besides its transfer.
  const double stores = g.place.store
                            ? double(m_blocks) * g.n_tiles *
                                  (kPlannerMemoryLatency + out_bytes * b.m_block * g.cols / g.bus)
                            : 0;
  const double head = 2.0 * kPlannerMemoryLatency + 2.0 * b.m_block * g.rows / a_rate;
  const double tail = g.latency + kAccAddCycles + kPlannerMemoryLatency +
                      out_bytes * b.n_group * b.m_block * g.cols / g.bus;
  // A group's C0 or bias loads go into accumulator rows a group ahead, behind the current
  // group's compute, while an accumulator half holds two groups. A group of more than a quarter
  // of the accumulators takes rows whose last group's store must first have read them: each
  // group start then waits for that store's transfer (measured: 10000 x 64 x 128 with a bias,
  // 500-row groups 64% busy, 250-row groups 94%). A bias's broadcast LOAD reads one row, but
  // holds the load engine, which also brings A, for that row's memory latency at every group
  // start (without this charge 64 x 784 x 128 with a bias took 2.4% more cycles). (Until
  // 2026-11-28 a bias counted as M x N words read and the quarter rule was missing: the
  // transformer example's biased linear layers ran 62-64% busy, now 86-95%.)
  const bool init = g.Preloads(spec);
  const double init_waits =
      init && 2 * b.m_block * b.n_group > g.acc_half
          ? double(m_blocks) * groups * out_bytes * b.m_block * b.n_group * g.cols / g.bus
          : 0;
  // (Not in the int8 mode, which takes the fewest operand bytes within 1% of the fastest
  // estimate: with this charge a 500 x 784 x 64 int8 layer read 0.74 of its bf16 twin's bytes,
  // without it 0.52, at 1.5% more cycles.)
  // A narrowing commit waits for the full drain of the step two before it.
  const auto wait = [&](int rows, double step_cycles) {
    return std::max(0.0, rows + g.full_gap - 1 - 2 * (step_cycles + kStepOverhead));
  };
  const int first_rows = m_blocks == 1 ? last_rows : b.m_block;
  const double first_step = m_blocks == 1 ? last_step : step;
  const double narrowing =
      NarrowingCommits(g, spec, b, true) * wait(first_rows, first_step) +
      NarrowingCommits(g, spec, b, false) *
          (m_blocks < 2 ? 0.0
                        : (m_blocks - 2) * wait(b.m_block, step) + wait(last_rows, last_step));
  const double bias_starts =
      spec.bias && !spec.int8 ? double(m_blocks) * groups * kPlannerMemoryLatency : 0;
  // A store engine busy all the time stalls the in-order dispatcher now and then: keep slack.
  return std::max({compute, memory, 1.25 * stores}) + head + tail + init_waits + bias_starts +
         narrowing;
}

namespace {

GemmBlocking SearchBlocking(const Geometry& g, const GemmSpec& spec) {
  GemmBlocking best;
  double best_cost = std::numeric_limits<double>::infinity();
  std::vector<std::pair<GemmBlocking, double>> fitting;
  std::vector<int> m_blocks;
  for (int parts = 1; parts <= std::min(spec.m, 256); ++parts) {
    const int mb = CeilDiv(spec.m, parts);
    if (m_blocks.empty() || m_blocks.back() != mb) m_blocks.push_back(mb);
  }
  std::vector<int> groups;
  for (int n = 1; n <= std::min(g.n_tiles, 64); ++n) groups.push_back(n);
  for (int q = 1; q <= 16; ++q) groups.push_back(CeilDiv(g.n_tiles, q));
  for (int mb : m_blocks) {
    for (int ng : groups) {
      for (bool resident : {true, false}) {
        const GemmBlocking candidate{mb, ng, resident, 0};
        if (!g.Fits(spec.m, candidate)) continue;
        const double cost = Estimate(g, spec, candidate);
        fitting.push_back({candidate, cost});
        if (cost < best_cost) {
          best_cost = cost;
          best = candidate;
        }
      }
    }
  }
  if (best.m_block == 0) {
    throw std::invalid_argument("the device's buffers are too small for a " +
                                std::to_string(spec.m) + "-row GEMM");
  }
  // The int8 mode is there to cut memory traffic: of the blockings within 2% of the fastest
  // estimate (a compute-bound GEMM has many), it takes the one reading the fewest operand bytes.
  // (At 1% a 500 x 784 x 64 layer with a bias read 1.44x the bytes for 1.3% fewer cycles.)
  if (spec.int8) {
    const double limit = best_cost * 1.02;
    double best_bytes = OperandBytes(g, spec, best);
    for (const auto& [candidate, cost] : fitting) {
      const double bytes = OperandBytes(g, spec, candidate);
      if (cost <= limit && bytes < best_bytes) {
        best = candidate;
        best_cost = cost;
        best_bytes = bytes;
      }
    }
  }
  best.estimated_cycles = static_cast<uint64_t>(best_cost);
  return best;
}

// Everything SearchBlocking reads: the geometry (and its placement) and the spec.
using BlockingKey = std::array<int, 28>;
BlockingKey KeyOf(const Geometry& g, const GemmSpec& s) {
  const GemmPlacement& p = g.place;
  return {g.rows,
          g.cols,
          g.k_tiles,
          g.n_tiles,
          g.ub_depth,
          g.acc_half,
          g.bus,
          g.in_flight,
          g.tile_k,
          g.latency,
          g.commit_gap,
          g.full_gap,
          g.in_bytes,
          g.out_bytes,
          g.activated,
          g.quant_row,
          g.bias_row,
          p.ub_limit,
          p.a_ub_row,
          p.out_ub_row,
          p.store,
          p.acc_group_offset,
          s.m,
          s.k,
          s.n,
          s.trans_a | s.trans_b << 1 | s.bias << 2 | s.c0 << 3 | s.relu << 4 | s.int8 << 5 |
              s.packed << 6,
          static_cast<int>(s.output),
          s.zero_point};
}

// A training loop plans the same few shapes at every step: the search (a few hundred estimates)
// was 4.6% of a model-backend epoch (issue 68). One cache per thread, so no lock; bounded.
std::map<BlockingKey, GemmBlocking>& BlockingCache() {
  thread_local std::map<BlockingKey, GemmBlocking> cache;
  return cache;
}
}  // namespace

GemmBlocking ChooseBlocking(const Geometry& g, const GemmSpec& spec) {
  auto& cache = BlockingCache();
  const BlockingKey key = KeyOf(g, spec);
  if (auto hit = cache.find(key); hit != cache.end()) return hit->second;
  const GemmBlocking b = SearchBlocking(g, spec);
  if (cache.size() >= 4096) cache.clear();
  cache.emplace(key, b);
  return b;
}

}  // namespace mxu::driver
