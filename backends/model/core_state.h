// Internal to the model backend: the state of one run, engine by engine, and the steps that
// advance it. Core::Impl is defined across the files that model the device's blocks, as
// rtl/mxu_top.sv wires them:
//   core.cc        the run loop, the memory port (read-data channel, request arbiter), errors
//   controller.cc  fetch, dispatch with the hazard checks, the scoreboard's completions
//   decode.cc      the decoder (instruction.h)
//   dma_load.cc    the load engines (LOAD, LOAD WEIGHTS): bursts, segments, transposes
//   dma_store.cc   the store engine: row reads, write bursts, responses
//   array.cc       weight FIFO and banks, the systolic array, the accumulators
//   activation.cc  the activation unit (bias, ReLU, bf16 rounding, int8 requantization)
//   jump.cc        stretches of cycles that repeat, done in closed form (marks.h: the cycles
//                  ahead, as spans)
// Each instruction's effect on the buffers is applied at dispatch (Exec*; a MATMUL's products in
// matmul_kernels.cc); the cycle model then only decides when it is done.
#ifndef MXU_BACKENDS_MODEL_CORE_STATE_H_
#define MXU_BACKENDS_MODEL_CORE_STATE_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <utility>
#include <vector>

#include "backends/model/core.h"
#include "backends/model/dma_plan.h"
#include "backends/model/instruction.h"
#include "backends/model/marks.h"
#include "common/csr_map.h"
#include "common/device_table.h"
#include "common/isa.h"

namespace mxu::backends::model {

// The platform's host memory (sim/host_memory.h) and transactor, burst by burst.
struct MemoryModel {
  MemoryTiming t;
  uint64_t channel_free = 0;
  std::deque<uint64_t> in_flight;  // completion cycles, non-decreasing

  // The cycle a burst of `len` bytes requested at `issue` completes.
  uint64_t Schedule(uint64_t issue, uint64_t len) {
    while (!in_flight.empty() && in_flight.front() <= issue) in_flight.pop_front();
    if (in_flight.size() >= t.max_in_flight) {
      issue = in_flight.front();
      while (!in_flight.empty() && in_flight.front() <= issue) in_flight.pop_front();
    }
    const uint64_t start = std::max(issue + t.latency_cycles, channel_free);
    const uint64_t completion = start + (len + t.bytes_per_cycle - 1) / t.bytes_per_cycle;
    channel_free = completion;
    in_flight.push_back(completion);
    return completion;
  }
};

// Who requested a read burst: its beats go back to it.
enum Owner { kFetch = 0, kLd = 1, kWld = 2 };

struct ReadBurst {
  uint64_t due;
  uint64_t addr;
  uint32_t beats;
  uint32_t next = 0;
  int owner;
  bool error;
};

// mxu_ctrl_fetch: the program's 16-byte slots, read in bursts into the fetch buffer.
struct FetchState {
  uint64_t first_slot = 0, end_slot = 0, next_slot = 0;
  uint32_t beats_out = 0;  // requested, not yet arrived
  bool error = false;
  uint64_t error_addr = 0;
  struct Beat {
    uint64_t slot_lo;
    uint64_t pushed;
  };
  std::deque<Beat> ibuf;
  uint64_t head_slot = 0;           // the slot of the head beat at the head (mxu_ctrl_fetch's)
  std::vector<isa::Words> program;  // fetched words by instruction index

  bool SlotValid(uint64_t s) const { return s >= first_slot && s < end_slot; }
};

// A LOAD in a load engine's queue.
struct LoadCmd {
  uint32_t pc = 0;
  Decoded d;
  LoadPlan plan;
  size_t next_burst = 0;
  size_t seg = 0;
  uint32_t beat = 0, cols_done = 0, block_i = 0;
  uint32_t ready_rows = 0;  // rows ready to be written
  uint32_t written = 0;
  uint64_t beats_total = 0, beats_got = 0;
  uint64_t accepted = 0;  // dispatch cycle: the generator starts the cycle after
};

// A load engine: a queue of up to kQueue LOADs; the generator requests the bursts of each in
// turn, the consumer takes their beats in order and writes rows one per cycle.
struct LoadEngine {
  static constexpr size_t kQueue = kDmaQueueDepth;
  std::vector<LoadCmd> q;  // oldest first; a few, walked several times a cycle: contiguous
  uint32_t bursts_out = 0, segs_out = 0;
  bool weights = false;  // the LOAD WEIGHTS engine: rows go to the weight FIFO

  bool busy() const { return q.size() >= kQueue; }
  void PopFront() { q.erase(q.begin()); }
  bool any() const { return !q.empty(); }
  // Rows ready and not yet written.
  uint32_t Owed() const {
    uint32_t owed = 0;
    for (const LoadCmd& c : q) owed += c.ready_rows - c.written;
    return owed;
  }
  // The LOAD whose beats arrive next.
  LoadCmd* Consuming() {
    for (LoadCmd& c : q) {
      if (c.beats_got < c.beats_total) return &c;
    }
    return nullptr;
  }
  // The LOAD whose bursts are requested next.
  LoadCmd* Generating() {
    for (LoadCmd& c : q) {
      if (c.next_burst < c.plan.bursts.size()) return &c;
    }
    return nullptr;
  }
  // The oldest LOAD is done once all its rows are written.
  bool Done() const {
    return !q.empty() && q.front().written == q.front().d.rows &&
           q.front().next_burst >= q.front().plan.bursts.size();
  }
};

// A write burst: its response is due at `due` (0 while its beats are still going out).
struct WriteBurst {
  uint64_t addr;
  uint64_t due;
  bool error;
};

// The store engine's STORE.
struct StoreEngine {
  bool busy = false;
  uint32_t pc = 0;
  Decoded d;
  StorePlan plan;
  uint32_t rd_row = 0;
  bool rd_pending = false;
  uint32_t pending_row = 0;
  struct Row {
    bool valid = false;
    uint32_t row = 0;
  } cur, nxt;
  uint32_t beat = 0, burst_left = 0;
  uint64_t burst_addr = 0;
  uint32_t burst_beats = 0;
  uint64_t lin_addr = 0, lin_left = 0;
  uint32_t rows_done = 0;
  std::deque<WriteBurst> bq;  // in order

  bool Done() const { return busy && rows_done == d.rows && bq.empty(); }
  // Whether it reads a row or sends a beat this cycle, or passes a row that sends none (else it
  // waits on memory).
  bool Moves(uint32_t max_in_flight) const {
    return rd_pending || (cur.valid && (burst_left != 0 || bq.size() < max_in_flight ||
                                        (plan.linear && plan.row_beats[cur.row] == 0)));
  }
};
// A STORE whose beats are all out and whose write responses are not all back: the store engine
// takes the next STORE meanwhile (responses come in order, the tail's first).
struct StoreTail {
  bool valid = false;
  uint32_t pc = 0;
  std::deque<WriteBurst> bq;
};

// A MATMUL in the datapath.
struct Matmul {
  uint32_t pc;
  Range r_ub, w_acc;
  uint64_t done_at;  // 0 while rows are still issuing
  uint32_t rows_total;
  bool accumulate;
  uint32_t k_rows;
};

// A weight tile's extent: its rows (K) and columns (N), the LOAD WEIGHTS' rows and lanes.
struct TileExtent {
  uint32_t k = 0, n = 0;
};

// The weight path and the array (mxu_weight_fifo, the weight banks, mxu_systolic_array).
struct ArrayState {
  // Functional.
  std::deque<std::vector<uint16_t>> tiles;  // loaded weight tiles not yet used (R x C)
  std::deque<TileExtent> tile_extents;      // ... their extents
  std::vector<float> weights;               // the current tile, widened (R x C)
  std::vector<uint16_t> weights_raw;        // ... as loaded: the integer mode's low bytes
  TileExtent weights_extent;                // ... its extent
  bool have_weights = false;
  uint32_t unclaimed = 0;  // LOAD WEIGHTS dispatched, not yet claimed by new_weights

  // Timing.
  std::deque<Matmul> mms;  // in flight, oldest first (at most mm_slots)
  bool mm_active = false;
  uint32_t mm_left = 0;
  bool mm_need_commit = false;
  // Cycles until the current weight bank and the other are drained (every row on it past the
  // last PE row it uses), and the extent of each bank's tile, as mxu_matmul_seq counts them.
  uint32_t cur_drain = 0, other_drain = 0;
  // ... until every lane on it has entered its PE in every column (a narrowing commit waits).
  uint32_t cur_full = 0, other_full = 0;
  TileExtent cur, other;
  uint32_t wfifo = 0;          // rows in the weight FIFO
  std::deque<TileExtent> wlq;  // LOAD WEIGHTS waiting for the shadow (kWeightLoadQueueDepth)
  bool wl_active = false;
  uint32_t wl_slot = 0;
  TileExtent wl;  // the tile shifting in or in the shadow
  bool shadow_pending = false;
  bool reads_ub = false;     // a MATMUL row enters the array (reads the UB) this cycle
  uint32_t ub_read_row = 0;  // ... the UB row it reads
  // The last kAccAddCycles - 1 rows issued: their cycle and accumulator row (mxu_matmul_seq's
  // history for the accumulation hazard).
  std::deque<std::pair<uint64_t, uint32_t>> recent_rows;
};

// The activation unit (mxu_activation_unit) and its ACTIVATE.
struct ActivationState {
  bool busy = false;
  uint32_t pc = 0;
  Decoded d;
  uint32_t reads_left = 0;    // the bias and quantization rows, then the accumulator rows
  uint64_t done_at = 0;       // 0 while rows are still read
  bool writes_ub = false;     // it writes a UB row this cycle
  bool reads_acc = false;     // ... reads an accumulator row
  uint32_t ub_write_row = 0;  // ... that row
  // The cycles it will write its rows read so far, and those rows.
  std::deque<std::pair<uint64_t, uint32_t>> ub_writes;

  // The rows an ACTIVATE reads before its accumulator rows: the bias row, the quantization row.
  static uint32_t SetupReads(const Decoded& d) {
    return (d.bias ? 1u : 0u) + (d.integer ? 1u : 0u);
  }
};

// The scoreboard's registered view at the start of a cycle: what dispatch and the completions
// see, whatever the engines do in the cycle.
struct Scoreboard {
  bool ld_busy, wld_busy, st_busy, ac_busy, ld_any, wld_any, mm_full;
  bool ld_done, wld_done, st_done;
  bool mm_ready = false;  // the array takes a MATMUL (known once its cycle is stepped)
};
// A stretch of cycles done in closed form (jump.cc): what each of its cycles adds.
struct Steady {
  bool issue = false;          // a MATMUL row enters the array each cycle
  bool shift = false;          // a weight row shifts from the FIFO each cycle
  int stream = -1;             // the load engine (Owner) taking a beat, writing a row each cycle
  bool ld_steps = false;       // ... the LOAD engine stepped on its own
  bool store = false;          // the store engine moves (stepped on its own)
  bool activate = false;       // the activation unit reads rows (stepped on its own)
  bool stall_weights = false;  // STALL_WEIGHTS counts each cycle (a MATMUL waits for its commit)
  bool stall_memory = false;   // STALL_MEMORY counts each cycle
  uint32_t stall = 0;          // the stall counter dispatch adds to each cycle
  uint32_t dma = 0;            // DMA engines clocked each cycle
};
// Whether each DMA engine moved this cycle: STALL_MEMORY counts the cycles a busy one did not.
struct DmaProgress {
  bool ld = false, wld = false, st = false;
};

struct Core::Impl {
  Core& core;
  const Config& cfg;
  SparseMemory& mem;
  const uint32_t R, C, L;  // rows, cols, UB lanes
  // The array's latency from a row entering to its result row, and the PE's partial-sum step
  // (common/pe_pipeline.h).
  const uint32_t latency, add_cycles;
  // MATMULs in flight at most (the scoreboard's slots, common/pe_pipeline.h).
  const uint32_t mm_slots;
  // The cycles after a row enters the array in which column 0 still runs (mxu_systolic_array's
  // ActiveSpan).
  const uint32_t column_span;
  // The memory bus: bytes per beat, 16-byte instruction slots per beat, and the fetch buffer's
  // beats (16 instructions, at least one 4-beat burst: FetchIbufBeats, mxu_ctrl_fetch's IbufBeats).
  const uint64_t beat_bytes, slots_per_beat, ibuf_beats;
  const uint32_t beat_shift, slot_shift;  // log2 of beat_bytes and slots_per_beat
  const uint32_t bank_rows;               // accumulator rows a bank

  explicit Impl(Core& c);

  uint64_t now = 0;
  MemoryModel memm;
  std::deque<ReadBurst> rq;  // the read-data channel, in acceptance order
  RunResult res;
  bool stop = false;  // an error or HALT: draining

  FetchState fetch;
  uint32_t pc = 0, count = 0;  // instructions dispatched, in the program
  bool weights_turn = false;   // the read arbiter's turn between the load engines
  Decoded decoded;             // the instruction at the head, decoded (TryDispatch)
  uint32_t decoded_i = ~0u, decoded_unclaimed = 0;
  LoadEngine ld, wld;
  StoreEngine st;
  StoreTail st_tail;
  uint64_t st_last_due = 0;  // write responses are due in order
  ArrayState array;
  ActivationState ac;
  ResultSlots results;
  GatedClocks clocks;

  // MXU_MODEL_TRACE=1: each instruction's dispatch and done cycle on stderr (for comparing
  // with the RTL's --timeline).
  const bool trace = std::getenv("MXU_MODEL_TRACE") != nullptr;
  void Trace(const char* what, uint32_t i) const {
    if (trace)
      std::fprintf(stderr, "model %6llu %s #%u\n", static_cast<unsigned long long>(now), what, i);
  }
  uint64_t& Ctr(csr::Counter c) { return res.counters[static_cast<uint32_t>(c)]; }
  uint32_t BankBit(uint32_t acc_row) const { return 1u << (acc_row / bank_rows); }
  // The unified buffer's bank of a row: even rows in one, odd in the other (mxu_unified_buffer).
  static uint32_t UbBank(uint32_t ub_row) { return ub_row & 1u; }

  // core.cc: the run and the memory port.
  RunResult Run(uint64_t cmd_addr, uint32_t n);
  void Start(uint64_t cmd_addr, uint32_t n);
  uint64_t RunCycles();
  uint64_t ProgressSignature() const;
  void Step(Scoreboard sb, DmaProgress moved);
  void CountCycleClocks();
  void CountClocks();
  void Snapshot(Scoreboard& sb, DmaProgress& moved);
  void DrainCycle();
  bool Drained() const { return rq.empty() && st.bq.empty(); }
  void Error(csr::ErrorCode code, uint32_t epc, uint64_t addr = 0);
  void IssueRead(int owner, uint64_t addr, uint32_t beats);
  void ReadDataCycle(DmaProgress& moved);
  void ReadRequestCycle(DmaProgress& moved);

  // jump.cc: stretches of cycles in closed form.
  uint64_t SteadyCycles(Steady& steady, Scoreboard& sb, DmaProgress& moved, bool& have_sb);
  uint64_t ArraySteady(bool* issue, bool* shift, bool* stall_weights) const;
  bool EnginesStill(bool shift, uint64_t& cycles, Steady& steady);
  bool StoreMoves(uint64_t& cycles) const;
  uint64_t JumpSide(uint64_t k, const Steady& steady);
  bool LoadStep(bool* burst_end);
  bool ReadChannelSteady(bool shift, uint64_t& cycles, Steady& steady);
  bool StoreStill(uint64_t& cycles) const;
  void JumpLoadBeats(LoadEngine& e, uint64_t k);
  uint32_t DispatchStall(const Scoreboard& sb);
  uint64_t Jump(uint64_t k, const Steady& steady);
  void JumpRows(uint64_t s, uint64_t e);

  // controller.cc: fetch, dispatch, completions.
  bool FetchWants(uint32_t* burst) const;
  void FetchIssue(uint32_t beats);
  void FetchTakeBeat(const ReadBurst& b);
  bool HeadValid(uint64_t* slot) const;
  void AdvanceHead();
  bool DispatchCycle(const Scoreboard& sb);
  bool TryDispatch(const Scoreboard& sb, uint64_t slot);
  bool Conflicts(const Decoded& d, const Scoreboard& sb) const;
  bool StructuralHazard(const Decoded& d, const Scoreboard& sb) const;
  void Dispatch(const Decoded& d, uint32_t i);
  void Completed(const char* what, uint32_t i);
  void RetireCycle(const Scoreboard& sb);

  // dma_load.cc
  void DispatchLoad(const Decoded& d, uint32_t i);
  bool AnyFails(const std::vector<Burst>& bursts) const;
  void HostInt8Row(const Decoded& d, uint32_t i, uint16_t* lanes) const;
  void ExecLoad(const Decoded& d);
  bool TargetReady(const LoadEngine& e) const;
  bool LoadReady(LoadEngine& e) const;
  void LoadRows(LoadEngine& e);
  void LoadBeat(LoadEngine& e, bool last_of_burst);
  bool LoadWants(LoadEngine& e) const;
  void LoadIssue(LoadEngine& e, int owner);

  // dma_store.cc
  void DispatchStore(const Decoded& d, uint32_t i);
  std::vector<std::pair<uint64_t, uint64_t>> FailingWrites(const Decoded& d) const;
  void StoreRowBytes(const Decoded& d, uint32_t i, uint8_t* bytes) const;
  void ExecStore(const Decoded& d);
  void StoreCycle();
  bool PopWriteResponse(std::deque<WriteBurst>& bq, uint32_t epc);
  void OpenWriteBurst();
  bool StoreEmitBeat();
  void StoreReadRows(bool row_done);
  void StoreDrain();

  // array.cc
  void DispatchMatmul(const Decoded& d, uint32_t i);
  void ExecMatmul(const Decoded& d);
  void ExecMatmulInteger(const Decoded& d);
  bool ArrayCycle();
  void ShiftWeights(bool commit);
  void IssueMatmulRow();

  // activation.cc
  void DispatchActivate(const Decoded& d, uint32_t i);
  void ExecActivate(const Decoded& d);
  void ExecActivateInteger(const Decoded& d);
  void ActivationCycle();
};

}  // namespace mxu::backends::model

#endif  // MXU_BACKENDS_MODEL_CORE_STATE_H_
