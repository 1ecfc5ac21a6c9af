#include "driver/gemm_plan.h"

#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

#include "common/device_table.h"
#include "common/pe_pipeline.h"

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
  const bool int_out = spec.output == OutputType::kInt32 || spec.output == OutputType::kInt8;
  if (spec.int8 != int_out) {
    throw std::invalid_argument(spec.int8 ? "an int8 GEMM gives int32 or int8"
                                          : "a bf16 GEMM gives fp32 or bf16");
  }
  if (spec.int8 && (spec.trans_a || spec.trans_b)) {
    throw std::invalid_argument("int8 operands are transposed on the host, not by the device");
  }
  if (spec.zero_point < -128 || spec.zero_point > 127) {
    throw std::invalid_argument("zero point " + std::to_string(spec.zero_point) +
                                " is outside [-128, 127]");
  }
}

// Unified-buffer slots that hold activated bf16 results on their way out (rotating, so that an
// ACTIVATE never waits for the store of the result before).
constexpr int kOutSlots = 3;
// Result stores wait this long beyond the array's drain (in compute cycles emitted after their
// last MATMUL), so that the in-order dispatcher reaches them about when that MATMUL finishes.
constexpr int kStoreLag = 32;
// Rows one merged STORE may take (MergeStore), and the rows a batch's run of small results
// aims at (AccRow).
constexpr int kMaxMergedRows = 256;
constexpr int kAccRunRows = 128;
// Weight tiles are loaded this many MATMULs ahead (three may wait unclaimed: docs/isa.md).
constexpr int kWeightLead = 2;
// A loads are issued up to this many compute cycles before their first use.
constexpr int kLoadLookahead = 4 * kPlannerMemoryLatency;

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

GemmBlocking ChooseBlocking(const Geometry& g, const GemmSpec& spec) {
  auto& cache = BlockingCache();
  const BlockingKey key = KeyOf(g, spec);
  if (auto hit = cache.find(key); hit != cache.end()) return hit->second;
  const GemmBlocking b = SearchBlocking(g, spec);
  if (cache.size() >= 4096) cache.clear();
  cache.emplace(key, b);
  return b;
}

// One MATMUL of the stream (of GEMM `job`), with the A tile (an instance: one load of one K tile
// of one M block) it reads.
struct Step {
  int job, m0, rows, group, kt, n, a_instance;
  bool first_of_group;
};

struct AInstance {
  int job, m0, rows, kt, first_use = -1, last_use = -1;
};

// A result tile on its way out: into an out slot (then stored from there), into its resident
// unified-buffer rows (then stored from there if the result goes to host memory too), or
// stored from the accumulators.
struct Epilogue {
  enum Kind { kActivateToSlot, kActivateResident, kStoreUb, kStoreAcc } kind;
  int job, m0, rows, n0, cols, acc_row, ub_row;
  uint64_t offset;
  double not_before;  // compute cycles emitted
  int quant_row;      // int8 output: the accumulator row its ACTIVATE reads the words from; else -1
  int bias_row;       // ... and the bias row it adds; else -1
  bool ReadsAcc(int lo, int hi) const {
    if (kind == kStoreUb) return false;
    const auto in = [&](int row) { return row >= lo && row < hi; };
    return (acc_row < hi && lo < acc_row + rows) ||
           (kind != kStoreAcc && (in(quant_row) || in(bias_row)));
  }
  bool Store() const { return kind == kStoreUb || kind == kStoreAcc; }
};

// One GEMM of the stream: its shape, operands, blocking and what its plan reports.
struct Job {
  Geometry g;
  GemmSpec spec;
  GemmAddresses addr;
  GemmBlocking b;
  int groups = 0;            // N groups per M block
  int acc_group_offset = 0;  // where its accumulator regions' ring starts
  int acc_run = 1;           // consecutive regions in one accumulator half (AccRow)
  int first_step = 0;
  uint64_t out_offset = 0;
  GemmPlan plan;  // outputs, blocking, groups, matmul_rows, output_elements
};

// Plans GEMMs as one instruction stream: the steps of GEMM i + 1 follow those of GEMM i, and
// every look-ahead (A tiles, weight tiles, accumulator starts, deferred result stores) runs across
// the boundary as it does between the tiles of one GEMM, so the next GEMM's loads overlap this
// one's compute and drain. A tiles rotate through a ring of unified-buffer rows below the out
// slots; each GEMM's accumulator groups continue the ring of regions where the one before left it.
class Planner {
 public:
  explicit Planner(std::vector<Job> jobs) : jobs_(std::move(jobs)) {}

  std::vector<isa::Instruction> Build() {
    MakeSteps();
    for (size_t s = 0; s < steps_.size(); ++s) {
      const Step& st = steps_[s];
      const Job& job = jobs_[st.job];
      if (static_cast<int>(s) == job.first_step && job.g.quant_row >= 0) {
        // Every N tile's quantization row, before any of this GEMM's ACTIVATEs (and after the
        // ACTIVATEs of GEMMs before it that read those rows).
        FlushReaders(job.g.quant_row, job.g.quant_row + job.g.n_tiles);
        Push(st.job, isa::Load(isa::Buffer::kAcc, job.g.n_tiles, job.g.cols, job.g.quant_row,
                               job.addr.quant, job.g.cols));
      }
      if (static_cast<int>(s) == job.first_step && job.g.bias_row >= 0) LoadBiasRows(job);
      // This step's A tile, then its weights (what the MATMUL needs first), then the next A
      // tiles: a MATMUL waits at dispatch for its A tile, and nothing behind it moves meanwhile.
      while (next_load_ <= st.a_instance) LoadA(next_load_++, static_cast<int>(s));
      const int acc = AccRow(st);
      // A group's accumulator start (C0 or bias) is loaded a group ahead, so that its first
      // MATMUL does not wait a memory latency for it.
      if (st.first_of_group) {
        const int group_index = static_cast<int>(group_starts_++);
        if (group_index == 0) StartGroup(st);
        if (group_index + 1 < static_cast<int>(group_first_.size())) {
          StartGroup(steps_[group_first_[group_index + 1]]);
        }
      }
      const GemmSpec& spec = job.spec;
      if (st.kt == 0 && !job.g.Preloads(spec)) FlushReaders(acc, acc + st.rows);
      LoadWeightsUpTo(std::min<int>(static_cast<int>(s) + kWeightLead, steps_.size() - 1));
      Prefetch(static_cast<int>(s) - 1);
      Matmul(st, acc);
      cycles_ += StepCycles(job.g, st.rows);
      if (st.kt == job.g.k_tiles - 1) Finish(st, acc);
      Prefetch(static_cast<int>(s));
      EmitDue(false);
    }
    EmitDue(true);
    Push(-1, isa::Halt());
    return std::move(program_);
  }

  std::vector<Job>& jobs() { return jobs_; }
  // The GEMM each instruction of the program belongs to (-1: the final HALT).
  const std::vector<int>& owners() const { return owners_; }

 private:
  static int NCols(const Job& j, int n) { return std::min(j.g.cols, j.spec.n - n * j.g.cols); }
  static int KRows(const Job& j, int kt) { return std::min(j.g.rows, j.spec.k - kt * j.g.rows); }
  // Groups rotate through as many accumulator regions as fit, alternating between the two
  // halves (the accumulator banks), so that a group's stores have several groups' time to
  // drain before its region is overwritten, and never read the bank the array writes.
  // A batch of small GEMMs takes `acc_run` consecutive regions in one half before it turns to
  // the other, so that their results lie in adjacent rows and leave in one STORE (Finish).
  int AccRow(const Step& st) const {
    const Job& j = jobs_[st.job];
    const int region_rows = j.b.n_group * j.b.m_block;
    const int run = j.acc_run;
    const int runs_per_half = j.g.acc_half / region_rows / run;
    const int region = (st.m0 / j.b.m_block * j.groups + st.group + j.acc_group_offset) %
                       (2 * runs_per_half * run);
    const int in_run = region % run, run_index = region / run;
    return (run_index % 2) * j.g.acc_half + ((run_index / 2) * run + in_run) * region_rows +
           (st.n - st.group * j.b.n_group) * j.b.m_block;
  }

  void MakeSteps() {
    int groups_so_far = 0;
    ub_depth_ = jobs_[0].g.ub_depth;
    for (const Job& j : jobs_) {
      ub_depth_ = std::min(ub_depth_, j.g.ub_depth);
      if (j.g.out_slots()) out_chunk_ = std::max(out_chunk_, j.b.m_block);
    }
    out_base_ = ub_depth_ - kOutSlots * out_chunk_;
    a_limit_ = out_base_;
    for (size_t ji = 0; ji < jobs_.size(); ++ji) {
      Job& j = jobs_[ji];
      j.groups = CeilDiv(j.g.n_tiles, j.b.n_group);
      j.acc_group_offset = j.g.place.acc_group_offset + groups_so_far;
      j.first_step = static_cast<int>(steps_.size());
      j.plan.blocking = j.b;
      const int first_a = static_cast<int>(a_.size());
      for (int m0 = 0; m0 < j.spec.m; m0 += j.b.m_block) {
        const int rows = std::min(j.b.m_block, j.spec.m - m0);
        const int block = m0 / j.b.m_block;
        for (int grp = 0; grp < j.groups; ++grp) {
          const int n_end = std::min(j.g.n_tiles, (grp + 1) * j.b.n_group);
          for (int kt = 0; kt < j.g.k_tiles; ++kt) {
            int inst = -1;
            if (!j.g.a_in_ub()) {
              inst = first_a + (j.b.a_resident ? block * j.g.k_tiles + kt
                                               : (block * j.groups + grp) * j.g.k_tiles + kt);
              if (inst >= static_cast<int>(a_.size())) {
                a_.push_back({static_cast<int>(ji), m0, rows, kt});
              }
            }
            for (int n = grp * j.b.n_group; n < n_end; ++n) {
              const int s = static_cast<int>(steps_.size());
              if (inst >= 0) {
                if (a_[inst].first_use < 0) a_[inst].first_use = s;
                a_[inst].last_use = s;
              }
              const bool first = kt == 0 && n == grp * j.b.n_group;
              if (first) group_first_.push_back(s);
              steps_.push_back({static_cast<int>(ji), m0, rows, grp, kt, n, inst, first});
            }
          }
        }
      }
      j.plan.groups = static_cast<int>(group_first_.size()) - groups_so_far;
      groups_so_far = static_cast<int>(group_first_.size());
    }
    a_row_.assign(a_.size(), -1);
    step_start_.assign(steps_.size() + 1, 0);
    for (size_t s = 0; s < steps_.size(); ++s) {
      step_start_[s + 1] = step_start_[s] + StepCycles(jobs_[steps_[s].job].g, steps_[s].rows);
    }
  }

  // The unified-buffer rows instance `inst` would be loaded into: the ring's next rows, from
  // row 0 again where they would pass the A region's end, or where a GEMM with other block
  // sizes begins (so that its tiles lie as its blocking assumed).
  int RingRow(int inst) const {
    const int chunk = jobs_[a_[inst].job].b.m_block;
    int head = chunk == ring_chunk_ ? ring_head_ : 0;
    if (head + chunk > a_limit_) head = 0;
    return head;
  }

  // Whether instance `inst` may be loaded once steps up to `emitted` are in the program: the
  // rows it takes are read by no later step.
  bool RowsFree(int inst, int emitted) const {
    const int lo = RingRow(inst), hi = lo + jobs_[a_[inst].job].b.m_block;
    for (int j : live_) {
      const int jlo = a_row_[j], jhi = jlo + jobs_[a_[j].job].b.m_block;
      if (jlo < hi && lo < jhi && a_[j].last_use > emitted) return false;
    }
    return true;
  }

  void LoadA(int inst, int step) {
    if (!RowsFree(inst, step - 1)) {
      throw std::logic_error("GEMM planner: an A slot is reused before its last read");
    }
    const AInstance& a = a_[inst];
    const Job& j = jobs_[a.job];
    const GemmSpec& spec = j.spec;
    const int ub_row = RingRow(inst);
    const int k0 = a.kt * j.g.rows, kr = KRows(j, a.kt);
    if (spec.trans_a) {  // A stored K x M: UB row i, lane j <- A[k0 + j][m0 + i]
      Push(a.job, isa::Load(isa::Buffer::kUb, a.rows, kr, ub_row,
                            j.addr.a + 2ull * (uint64_t(k0) * spec.m + a.m0), spec.m, true));
    } else if (spec.packed) {  // the tile's rows back to back: one linear stream
      Push(a.job,
           isa::Load(isa::Buffer::kUb, a.rows, kr, ub_row,
                     j.addr.a + uint64_t(j.g.in_bytes) *
                                    (uint64_t(a.kt) * spec.m * j.g.rows + uint64_t(a.m0) * kr),
                     kr, false, spec.int8));
    } else {
      Push(a.job, isa::Load(isa::Buffer::kUb, a.rows, kr, ub_row,
                            j.addr.a + uint64_t(j.g.in_bytes) * (uint64_t(a.m0) * spec.k + k0),
                            spec.k, false, spec.int8));
    }
    a_row_[inst] = ub_row;
    ring_head_ = ub_row + j.b.m_block;
    ring_chunk_ = j.b.m_block;
    live_.erase(std::remove_if(live_.begin(), live_.end(),
                               [&](int i) { return a_[i].last_use <= step - 1; }),
                live_.end());
    live_.push_back(inst);
  }

  // Loads A tiles ahead, once steps up to `emitted` are in the program: at least the next
  // step's tile and one more, and whatever is first needed within the lookahead.
  void Prefetch(int emitted) {
    const int next = std::min<int>(emitted + 1, static_cast<int>(steps_.size()) - 1);
    while (next_load_ < static_cast<int>(a_.size()) && RowsFree(next_load_, emitted) &&
           (next_load_ <= steps_[next].a_instance + 1 ||
            step_start_[a_[next_load_].first_use] - step_start_[emitted + 1] <= kLoadLookahead)) {
      LoadA(next_load_++, emitted + 1);
    }
  }

  // The bias rows the ACTIVATEs of an int8-output GEMM add, one per N tile (its lanes only).
  void LoadBiasRows(const Job& j) {
    FlushReaders(j.g.bias_row, j.g.bias_row + j.g.n_tiles);
    for (int n = 0; n < j.g.n_tiles; ++n) {
      const int nc = NCols(j, n);
      Push(static_cast<int>(&j - jobs_.data()),
           isa::Load(isa::Buffer::kAcc, 1, nc, j.g.bias_row + n, j.addr.bias + 4ull * n * j.g.cols,
                     nc));
    }
  }

  // A group's accumulators start from C0 or the bias (after their last readers are out).
  void StartGroup(const Step& st) {
    const Job& j = jobs_[st.job];
    const GemmSpec& spec = j.spec;
    if (!j.g.Preloads(spec)) return;
    const int n_end = std::min(j.g.n_tiles, (st.group + 1) * j.b.n_group);
    for (int n = st.n; n < n_end; ++n) {
      Step tile = st;
      tile.n = n;
      const int acc = AccRow(tile), nc = NCols(j, n), n0 = n * j.g.cols;
      FlushReaders(acc, acc + st.rows);
      if (spec.c0 && spec.packed) {  // N tiles of M rows back to back: one linear stream
        Push(st.job,
             isa::Load(isa::Buffer::kAcc, st.rows, nc, acc,
                       j.addr.c0 + 4ull * (uint64_t(n) * spec.m * j.g.cols + uint64_t(st.m0) * nc),
                       nc));
      } else if (spec.c0) {
        Push(st.job, isa::Load(isa::Buffer::kAcc, st.rows, nc, acc,
                               j.addr.c0 + 4ull * (uint64_t(st.m0) * spec.n + n0), spec.n));
      } else {  // stride 0: every row reads the same bias vector
        Push(st.job, isa::Load(isa::Buffer::kAcc, st.rows, nc, acc, j.addr.bias + 4ull * n0, 0));
      }
    }
  }

  // LOAD WEIGHTS run ahead of their MATMULs: the datapath holds one MATMUL, which waits there
  // for its tile, and the in-order dispatcher stops behind the next MATMUL; a tile requested
  // only then would cost every MATMUL a memory latency. Up to three tiles wait unclaimed (the
  // shadow registers and the weight FIFO hold them), so each tile goes out two steps ahead.
  void LoadWeightsUpTo(int last_step) {
    for (; next_weights_ <= last_step; ++next_weights_) {
      const Step& st = steps_[next_weights_];
      const Job& j = jobs_[st.job];
      const GemmSpec& spec = j.spec;
      const int k0 = st.kt * j.g.rows, kr = KRows(j, st.kt), n0 = st.n * j.g.cols;
      if (spec.trans_b) {  // B stored N x K: weight row r, lane j <- B[n0 + j][k0 + r]
        Push(st.job, isa::Load(isa::Buffer::kWeights, kr, NCols(j, st.n), 0,
                               j.addr.b + 2ull * (uint64_t(n0) * spec.k + k0), spec.k, true));
      } else if (spec.packed) {  // the tile's rows back to back
        const int nc = NCols(j, st.n);
        Push(st.job,
             isa::Load(isa::Buffer::kWeights, kr, nc, 0,
                       j.addr.b + uint64_t(j.g.in_bytes) *
                                      (uint64_t(st.n) * spec.k * j.g.cols + uint64_t(k0) * nc),
                       nc, false, spec.int8));
      } else {
        Push(st.job, isa::Load(isa::Buffer::kWeights, kr, NCols(j, st.n), 0,
                               j.addr.b + uint64_t(j.g.in_bytes) * (uint64_t(k0) * spec.n + n0),
                               spec.n, false, spec.int8));
      }
    }
  }

  void Matmul(const Step& st, int acc) {
    Job& j = jobs_[st.job];
    const int kr = KRows(j, st.kt);
    const bool accumulate = j.g.Preloads(j.spec) || st.kt > 0;
    const int ub_row =
        j.g.a_in_ub() ? j.g.place.a_ub_row + st.kt * j.spec.m + st.m0 : a_row_[st.a_instance];
    Push(st.job, isa::Matmul(st.rows, kr, ub_row, acc, accumulate, true, j.spec.int8));
    j.plan.matmul_rows += st.rows;
  }

  // The tile is complete: its way out is queued, to be issued once its MATMUL has finished.
  void Finish(const Step& st, int acc) {
    Job& j = jobs_[st.job];
    const int nc = NCols(j, st.n);
    const double due = cycles_ + kStoreLag + j.g.latency + 1;
    const int quant = j.g.quant_row >= 0 ? j.g.quant_row + st.n : -1;
    const int bias = j.g.bias_row >= 0 ? j.g.bias_row + st.n : -1;
    Epilogue e{Epilogue::kStoreAcc, st.job, st.m0, st.rows, st.n * j.g.cols, nc, acc, -1,
               j.out_offset,        due,    quant, bias};
    if (j.g.place.store) {
      j.plan.outputs.push_back({st.m0, st.rows, st.n * j.g.cols, nc, j.out_offset, nc});
      j.out_offset += uint64_t(st.rows) * nc;
      j.plan.output_elements = j.out_offset;
      j.plan.output_bytes = j.g.out_bytes;
    }
    if (j.g.place.out_ub_row >= 0) {
      Epilogue resident = e;
      resident.kind = Epilogue::kActivateResident;
      resident.ub_row = j.g.place.out_ub_row + st.n * j.spec.m + st.m0;
      resident.not_before = cycles_ + j.g.latency + 1;  // no memory traffic: as soon as done
      pending_.push_back(resident);
    }
    if (j.g.place.store && !(j.g.activated && j.g.place.out_ub_row >= 0)) {
      if (j.g.activated) e.kind = Epilogue::kActivateToSlot;
      if (!MergeStore(e)) pending_.push_back(e);
    }
  }

  // A result that continues the last queued store, in the accumulators and in host memory (the
  // next GEMM of a batch whose outputs lie back to back), joins it: the store engine keeps two
  // STOREs at once, each paying the write responses' latency, so a stream of small results
  // leaves at the rate of few large STOREs rather than one per GEMM.
  bool MergeStore(const Epilogue& e) {
    // (A single GEMM keeps a STORE per result tile, as it was planned before batches.)
    if (jobs_.size() < 2 || e.kind != Epilogue::kStoreAcc || pending_.empty()) return false;
    Epilogue& last = pending_.back();
    if (last.kind != Epilogue::kStoreAcc || last.cols != e.cols) return false;
    const Job &a = jobs_[last.job], &b = jobs_[e.job];
    if (a.spec.relu != b.spec.relu || a.spec.int8 != b.spec.int8 ||
        last.acc_row + last.rows != e.acc_row || last.rows + e.rows > kMaxMergedRows) {
      return false;
    }
    const uint64_t last_end = a.addr.c + 4 * (last.offset + uint64_t(last.rows) * last.cols);
    if (last_end != b.addr.c + 4 * e.offset) return false;
    last.rows += e.rows;
    last.not_before = std::max(last.not_before, e.not_before);
    return true;
  }

  void Emit(const Epilogue& e) {
    const Job& j = jobs_[e.job];
    switch (e.kind) {
      case Epilogue::kActivateToSlot:
      case Epilogue::kActivateResident: {
        int ub_row = e.ub_row;
        if (e.kind == Epilogue::kActivateToSlot) {
          ub_row = out_base_ + (out_count_++ % kOutSlots) * out_chunk_;
          // The slot's previous result must be on its way out first (program order).
          for (auto it = pending_.begin(); it != pending_.end(); ++it) {
            if (it->kind == Epilogue::kStoreUb && it->ub_row == ub_row) {
              const Epilogue store = *it;
              pending_.erase(it);
              Emit(store);
              break;
            }
          }
        }
        if (j.spec.int8) {
          Push(e.job,
               isa::ActivateInteger(e.rows, e.acc_row, ub_row, j.spec.relu, e.bias_row >= 0,
                                    std::max(e.bias_row, 0), e.quant_row, j.spec.zero_point));
        } else {
          Push(e.job, isa::Activate(e.rows, e.acc_row, ub_row, j.spec.relu, false));
        }
        if (e.kind == Epilogue::kActivateToSlot || (j.g.place.store && j.g.activated)) {
          Epilogue store = e;
          store.kind = Epilogue::kStoreUb;
          store.ub_row = ub_row;
          store.not_before = cycles_ + e.rows + j.g.cols;
          pending_.push_back(store);
        }
        return;
      }
      case Epilogue::kStoreUb:
        Push(e.job,
             isa::Store(isa::Buffer::kUb, e.rows, e.cols, e.ub_row,
                        j.addr.c + uint64_t(j.g.out_bytes) * e.offset, e.cols, false, j.spec.int8));
        break;
      case Epilogue::kStoreAcc:
        Push(e.job, isa::Store(isa::Buffer::kAcc, e.rows, e.cols, e.acc_row,
                               j.addr.c + 4 * e.offset, e.cols, j.spec.relu, j.spec.int8));
        break;
    }
    // The store engine is busy for the transfer and the write responses' latency.
    next_store_ =
        cycles_ + kPlannerMemoryLatency + double(e.rows) * e.cols * j.g.out_bytes / j.g.bus;
  }

  // Issues the queued epilogues that are due; stores are paced at the memory's bandwidth so that
  // the store engine is free whenever the dispatcher reaches the next one.
  void EmitDue(bool all) {
    while (!pending_.empty()) {
      const Epilogue e = pending_.front();
      if (!all && (e.not_before > cycles_ || (e.Store() && next_store_ > cycles_))) break;
      pending_.pop_front();
      Emit(e);
    }
  }

  // Before accumulator rows [lo, hi) are overwritten, whatever still reads them leaves (with
  // everything queued before it, to keep the output order).
  void FlushReaders(int lo, int hi) {
    const auto reads = [&](const Epilogue& e) { return e.ReadsAcc(lo, hi); };
    while (std::any_of(pending_.begin(), pending_.end(), reads)) {
      const Epilogue e = pending_.front();
      pending_.pop_front();
      Emit(e);
    }
  }

  void Push(int job, const isa::Instruction& instruction) {
    program_.push_back(instruction);
    owners_.push_back(job);
  }

  std::vector<Job> jobs_;
  std::vector<isa::Instruction> program_;
  std::vector<int> owners_;
  std::vector<Step> steps_;
  std::vector<double> step_start_;
  std::vector<AInstance> a_;
  std::vector<int> a_row_;  // the unified-buffer row each loaded instance went to
  std::vector<int> live_;   // loaded instances whose rows may still be read
  int ub_depth_ = 0, a_limit_ = 0, out_base_ = 0, out_chunk_ = 0;
  int ring_head_ = 0, ring_chunk_ = 0;
  int next_load_ = 0;
  std::vector<int> group_first_;  // the first step of each group
  size_t group_starts_ = 0;       // groups begun so far
  int next_weights_ = 0;          // the next step whose weight tile is to be loaded
  double cycles_ = 0;             // compute cycles of the MATMULs emitted so far
  double next_store_ = 0;         // when the store engine is expected free
  int out_count_ = 0;
  std::deque<Epilogue> pending_;
};

// Resident matrices must be inside the unified buffer, outside the planner's own rows, and (for
// a result kept on chip) the activation unit's rows must be the next GEMM's K tiles.
void CheckPlacement(const DeviceConfig& cfg, const GemmSpec& spec, const GemmPlacement& p) {
  const int64_t depth = cfg.ub_depth;
  const int64_t limit = p.ub_limit >= 0 ? p.ub_limit : depth;
  const auto check = [&](int64_t base, int64_t tile_width, int64_t extent, const char* what) {
    if (base < 0) return;
    const int64_t rows =
        CeilDiv(static_cast<int>(extent), static_cast<int>(tile_width)) * int64_t{spec.m};
    if (base < limit || base + rows > depth) {
      throw std::invalid_argument(std::string("GEMM placement: the resident ") + what +
                                  " does not fit the unified buffer above the planner's rows");
    }
  };
  if (limit > depth || limit < 1) throw std::invalid_argument("GEMM placement: bad UB limit");
  check(p.a_ub_row, cfg.rows, spec.k, "A");
  check(p.out_ub_row, cfg.cols, spec.n, "result");
  if (p.a_ub_row >= 0 && spec.trans_a) {
    throw std::invalid_argument("GEMM placement: a resident A cannot be transposed");
  }
  if (!p.store && p.out_ub_row < 0) {
    throw std::invalid_argument("GEMM placement: the result goes nowhere");
  }
  if (spec.int8 && p.out_ub_row >= 0 && spec.output != OutputType::kInt8) {
    throw std::invalid_argument("GEMM placement: an int8 result stays on chip requantized");
  }
  // Its quantization rows, and as many bias rows with a bias.
  const int int8_rows = CeilDiv(spec.n, static_cast<int>(cfg.cols)) * (spec.bias ? 2 : 1);
  if (spec.output == OutputType::kInt8 && int8_rows > static_cast<int>(cfg.acc_depth) / 2) {
    throw std::invalid_argument("an int8-output GEMM of N = " + std::to_string(spec.n) +
                                " needs more quantization and bias rows than the accumulators "
                                "spare");
  }
}

}  // namespace

uint64_t OutputElements(const DeviceConfig& /*config*/, const GemmSpec& spec) {
  return uint64_t(spec.m) * spec.n;  // blocks of rows back to back, unpadded
}

namespace {

// One GEMM as a job of the planner (its blocking chosen when `blocking` is null).
Job MakeJob(const DeviceConfig& cfg, const GemmSpec& spec, const GemmAddresses& addr,
            const GemmBlocking* blocking, const GemmPlacement& placement) {
  CheckSpec(spec);
  CheckPlacement(cfg, spec, placement);
  Job job;
  job.g = MakeGeometry(cfg, spec, placement);
  job.spec = spec;
  job.addr = addr;
  if (blocking == nullptr) {
    job.b = ChooseBlocking(job.g, spec);
  } else {
    if (!job.g.Fits(spec.m, *blocking)) {
      throw std::invalid_argument("GEMM blocking (M block " + std::to_string(blocking->m_block) +
                                  ", N group " + std::to_string(blocking->n_group) +
                                  ") does not fit the device's buffers");
    }
    job.b = *blocking;
    job.b.estimated_cycles = static_cast<uint64_t>(Estimate(job.g, spec, job.b));
  }
  return job;
}

GemmPlan PlanOne(Job job) {
  Planner planner({std::move(job)});
  std::vector<isa::Instruction> program = planner.Build();
  GemmPlan plan = std::move(planner.jobs()[0].plan);
  plan.program = std::move(program);
  return plan;
}

}  // namespace

GemmPlan PlanGemmWith(const DeviceConfig& cfg, const GemmSpec& spec, const GemmAddresses& addr,
                      const GemmBlocking& blocking, const GemmPlacement& placement) {
  return PlanOne(MakeJob(cfg, spec, addr, &blocking, placement));
}

GemmPlan PlanGemm(const DeviceConfig& cfg, const GemmSpec& spec, const GemmAddresses& addr,
                  const GemmPlacement& placement) {
  return PlanOne(MakeJob(cfg, spec, addr, nullptr, placement));
}

GemmBatchPlan PlanGemmBatch(const DeviceConfig& cfg, const std::vector<GemmSpec>& specs,
                            const std::vector<GemmAddresses>& addrs) {
  if (specs.empty() || specs.size() != addrs.size()) {
    throw std::invalid_argument("a GEMM batch needs a GEMM, and addresses for each");
  }
  std::vector<Job> jobs;
  int out_chunk = 0, ub_depth = static_cast<int>(cfg.ub_depth);
  for (size_t i = 0; i < specs.size(); ++i) {
    try {
      jobs.push_back(MakeJob(cfg, specs[i], addrs[i], nullptr, {}));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("batch element " + std::to_string(i) + ": " + e.what());
    }
    if (jobs.back().g.out_slots()) out_chunk = std::max(out_chunk, jobs.back().b.m_block);
  }
  // The out slots take the top of the unified buffer for the largest M block among the GEMMs
  // that use them; each GEMM's A tiles must still fit below.
  const int a_limit = ub_depth - kOutSlots * out_chunk;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& j = jobs[i];
    if ((j.b.a_resident ? j.g.k_tiles : 1) * j.b.m_block > a_limit) {
      throw std::invalid_argument("batch element " + std::to_string(i) +
                                  ": its A tiles do not fit the unified buffer beside the "
                                  "batch's result slots");
    }
  }
  // A batch of small GEMMs alike (one accumulator region each, all of one size: a bmm's) runs
  // through the regions in runs, so that their results can leave together (Planner::MergeStore).
  // Regions of other sizes would overlap a run's, so other batches alternate halves region by
  // region, as one GEMM's groups do.
  const auto region_rows = [](const Job& j) { return j.b.n_group * j.b.m_block; };
  bool alike = jobs.size() > 1;
  for (const Job& j : jobs) {
    alike = alike && j.spec.m == j.b.m_block && j.g.n_tiles == j.b.n_group &&
            region_rows(j) == region_rows(jobs[0]) && j.g.acc_half == jobs[0].g.acc_half;
  }
  if (alike) {
    const int per_half = jobs[0].g.acc_half / region_rows(jobs[0]);
    const int run = std::max(1, std::min(per_half, kAccRunRows / region_rows(jobs[0])));
    for (Job& j : jobs) j.acc_run = run;
  }
  Planner planner(std::move(jobs));
  GemmBatchPlan batch;
  batch.program = planner.Build();
  batch.owners = planner.owners();
  for (Job& j : planner.jobs()) batch.gemms.push_back(std::move(j.plan));
  return batch;
}

}  // namespace mxu::driver
