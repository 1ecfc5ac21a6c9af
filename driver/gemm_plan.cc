#include "driver/gemm_plan.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>

#include "driver/gemm_cost.h"

namespace mxu::driver {
namespace {

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
