#include "backends/model/core.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "common/bf16.h"
#include "common/isa.h"
#include "driver/golden/int8.h"
#include "driver/golden/numerics.h"

namespace mxu::backends::model {
namespace {

using csr::ErrorCode;
constexpr uint32_t kNan = 0x7FC00000u;
constexpr uint64_t kPage = 4096;    // bursts never cross 4 KiB
constexpr uint32_t kMaxBurst = 16;  // beats

float F(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint32_t U(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
bool IsNan(uint32_t b) { return (b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu) != 0; }
uint32_t Canon(float f) { return f != f ? kNan : U(f); }
// ReLU as the RTL applies it to raw fp32 bits: NaN -> canonical NaN, sign set -> +0.
uint32_t ReluBits(uint32_t b) { return IsNan(b) ? kNan : ((b >> 31) ? 0u : b); }

struct Range {
  bool on = false;
  uint32_t lo = 0, hi = 0;  // [lo, hi)
};
bool Overlap(const Range& a, const Range& b) { return a.on && b.on && a.lo < b.hi && b.lo < a.hi; }

enum class Kind { kLoad, kWload, kStore, kMatmul, kActivate, kSync, kHalt, kIllegal };

struct Decoded {
  Kind kind = Kind::kIllegal;
  uint32_t err = 0;
  uint32_t buf = 0, flag = 0, rows = 0, lanes = 0, buf_addr = 0, stride = 0;
  uint64_t host = 0;
  // The int8 mode (docs/numerics.md, "The integer mode"): LOAD/STORE int8 host bytes for UB and
  // WEIGHTS (int32 words for ACC, raw as without it), int8 x int8 -> int32 MATMUL, requantizing
  // ACTIVATE.
  bool integer = false;
  // MATMUL
  bool accumulate = false, new_weights = false;
  uint32_t k_rows = 0, ub_addr = 0, acc_addr = 0;
  // ACTIVATE
  bool relu = false, bias = false;
  uint32_t bias_addr = 0, quant_addr = 0;
  int32_t zero_point = 0;  // int8
  Range r_ub, w_ub, r_acc, w_acc;
  // ACTIVATE: the single accumulator rows it reads besides its range (the bias row, the integer
  // mode's quantization row). The dispatcher's hazard checks treat each as a one-row read range.
  Range r_bias, r_quant;
};

// Bytes of one host element of a transfer: fp32 / int32 words for ACC, int8 bytes for UB and
// WEIGHTS in the integer mode, bf16 otherwise.
uint64_t ElementBytes(const Decoded& d) {
  if (d.buf == static_cast<uint32_t>(isa::Buffer::kAcc)) return 4;
  return d.integer ? 1 : 2;
}

// An int8 host byte as the DMA writes it into a 16-bit lane: sign-extended.
uint16_t Int8Lane(uint8_t byte) {
  return static_cast<uint16_t>(static_cast<int16_t>(static_cast<int8_t>(byte)));
}
// The int8 operand the PE takes from a 16-bit lane (UB or weight): its low byte.
int32_t LaneInt8(uint16_t lane) { return static_cast<int8_t>(static_cast<uint8_t>(lane & 0xFF)); }

struct Burst {
  uint64_t addr;
  uint32_t beats;
  bool seg_start;  // first burst of a segment (non-linear loads)
};

// The read bursts of a LOAD and how their beats form segments, as mxu_dma_load cuts them.
struct LoadPlan {
  std::vector<Burst> bursts;
  uint32_t trows = 0;               // transposed: buffer rows of a block
  std::vector<uint32_t> seg_beats;  // non-linear: beats of each segment in order
  bool linear = false;
  uint32_t row_beats = 0;      // linear: beats per row (1 when a beat holds several rows)
  uint32_t rows_per_beat = 1;  // linear with rows shorter than a beat: rows in each beat
  uint32_t first_rows = 1;     // ... and in the first, which may start at a row inside it
};

// `beat`: the bus's bytes per beat (Config::bus_bytes), a power of two.
void SplitSegment(uint64_t seg_addr, uint64_t seg_bytes, uint64_t beat, LoadPlan& plan) {
  uint64_t addr = seg_addr & ~(beat - 1);
  uint32_t left = static_cast<uint32_t>((seg_addr % beat + seg_bytes + beat - 1) / beat);
  plan.seg_beats.push_back(left);
  bool first = true;
  while (left > 0) {
    const uint32_t to4k = static_cast<uint32_t>((kPage - addr % kPage) / beat);
    const uint32_t beats = std::min({left, to4k, kMaxBurst});
    plan.bursts.push_back({addr, beats, first});
    first = false;
    addr += beats * beat;
    left -= beats;
  }
}

void LinearBursts(uint64_t addr, uint64_t total_beats, uint64_t beat, std::vector<Burst>& out) {
  while (total_beats > 0) {
    const uint64_t to4k = (kPage - addr % kPage) / beat;
    const uint32_t beats = static_cast<uint32_t>(std::min<uint64_t>({total_beats, to4k, 16}));
    out.push_back({addr, beats, false});
    addr += beats * beat;
    total_beats -= beats;
  }
}

// Transposed: runs of up to TransposeRows elements of one host row (mxu_pkg: 8 x the bus bytes,
// one 16-beat burst, at most 2048), one beat's elements fewer when host rows are not all bus
// aligned.
uint32_t TransposeRows(uint64_t beat) {
  return static_cast<uint32_t>(std::min<uint64_t>(8 * beat, 2048));
}
uint32_t ShortTransposeRows(uint64_t beat) {
  const uint32_t rows = TransposeRows(beat), per_beat = static_cast<uint32_t>(beat / 2);
  return rows > 2 * per_beat ? rows - per_beat : rows;
}

LoadPlan PlanLoad(const Decoded& d, uint64_t beat) {
  LoadPlan plan;
  // Every rule below holds for any element size: the integer mode's 1-byte rows pack, stream
  // linearly and split into segments by the same byte arithmetic (it never transposes).
  const uint64_t size = ElementBytes(d);
  const uint64_t stride_bytes = uint64_t{d.stride} * size;
  const uint64_t row_bytes = d.lanes * size;
  const bool transpose = d.flag != 0;
  // Rows of a power-of-two size below a beat pack several to a beat (mxu_dma_load).
  const bool packs = row_bytes < beat && beat % row_bytes == 0;
  // Packed rows may start at any row boundary inside the first beat (an int8 tile's rows are
  // often shorter than a beat and its start is not a beat's).
  plan.linear =
      !transpose && row_bytes == stride_bytes &&
      ((row_bytes % beat == 0 && d.host % beat == 0) || (packs && d.host % row_bytes == 0));
  if (plan.linear && packs) {
    plan.row_beats = 1;
    plan.rows_per_beat = static_cast<uint32_t>(beat / row_bytes);
    const uint32_t start = static_cast<uint32_t>(d.host % beat / row_bytes);
    plan.first_rows = plan.rows_per_beat - start;
    LinearBursts(d.host - d.host % beat,
                 (d.rows + start + plan.rows_per_beat - 1) / plan.rows_per_beat, beat, plan.bursts);
  } else if (plan.linear) {
    plan.row_beats = static_cast<uint32_t>(row_bytes / beat);
    LinearBursts(d.host, uint64_t{d.rows} * plan.row_beats, beat, plan.bursts);
  } else if (!transpose && d.stride == 0) {  // broadcast: the one row is read once
    SplitSegment(d.host, row_bytes, beat, plan);
  } else if (!transpose) {
    for (uint32_t i = 0; i < d.rows; ++i) {
      SplitSegment(d.host + i * stride_bytes, row_bytes, beat, plan);
    }
  } else {
    const bool aligned = d.host % beat == 0 && stride_bytes % beat == 0;
    const uint32_t block_rows_max = aligned ? TransposeRows(beat) : ShortTransposeRows(beat);
    plan.trows = block_rows_max;
    for (uint32_t i0 = 0; i0 < d.rows; i0 += block_rows_max) {
      const uint32_t block_rows = std::min(block_rows_max, d.rows - i0);
      for (uint32_t j = 0; j < d.lanes; ++j) {
        SplitSegment(d.host + 2ull * i0 + j * stride_bytes, 2ull * block_rows, beat, plan);
      }
    }
  }
  return plan;
}

// The write bursts of a STORE and the beats of each row, as mxu_dma_store cuts them.
struct StorePlan {
  bool linear = false;
  std::vector<uint32_t> row_beats;
  std::vector<uint64_t> row_base;
  uint64_t lin_addr = 0;
  uint64_t lin_beats = 0;
};

StorePlan PlanStore(const Decoded& d, uint64_t beat) {
  StorePlan plan;
  const uint64_t size = ElementBytes(d);
  const uint64_t stride_bytes = uint64_t{d.stride} * size;
  const uint64_t row_bytes = d.lanes * size;
  plan.linear = d.host % beat == 0 && row_bytes % beat == 0 && row_bytes == stride_bytes;
  plan.row_beats.resize(d.rows);
  plan.row_base.resize(d.rows);
  for (uint32_t i = 0; i < d.rows; ++i) {
    const uint64_t a = d.host + i * stride_bytes;
    plan.row_base[i] = a & ~(beat - 1);
    plan.row_beats[i] = static_cast<uint32_t>((a % beat + row_bytes + beat - 1) / beat);
  }
  plan.lin_addr = d.host;
  plan.lin_beats = plan.linear ? uint64_t{d.rows} * (row_bytes / beat) : 0;
  return plan;
}

// --------------------------------------------------------------------------- memory timing
// The platform's host memory (sim/host_memory.h) and transactor, burst by burst.
struct MemoryModel {
  MemoryTiming t;
  uint64_t channel_free = 0;
  std::deque<uint64_t> in_flight;  // completion cycles, non-decreasing

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

enum Owner { kFetch = 0, kLd = 1, kWld = 2 };

struct ReadBurst {
  uint64_t due;
  uint64_t addr;
  uint32_t beats;
  uint32_t next = 0;
  int owner;
  bool error;
};

}  // namespace

// ------------------------------------------------------------------------------- the run
struct Core::Impl {
  Core& core;
  const Config& cfg;
  SparseMemory& mem;
  const uint32_t R, C, L;  // rows, cols, UB lanes
  // The array's latency from a row entering to its result row, and the cycles a weight bank
  // needs after its last row before a commit may overwrite it (common/pe_pipeline.h).
  const uint32_t latency, commit_gap;
  // The memory bus: bytes per beat, 16-byte instruction slots per beat, and the fetch buffer's
  // beats (16 instructions, at least one 4-beat burst: mxu_ctrl_fetch's IbufBeats).
  const uint64_t beat_bytes, slots_per_beat, ibuf_beats;

  explicit Impl(Core& c)
      : core(c),
        cfg(c.config_),
        mem(c.memory_),
        R(cfg.rows),
        C(cfg.cols),
        L(cfg.ub_lanes()),
        latency(ArrayLatency(R, C, PePipelineOf(cfg.pe_stages))),
        commit_gap(CommitGap(R, PePipelineOf(cfg.pe_stages))),
        beat_bytes(cfg.bus_bytes),
        slots_per_beat(cfg.bus_bytes / 16),
        ibuf_beats(std::max<uint64_t>(4, 256 / cfg.bus_bytes)) {}

  // ---- functional state
  std::deque<std::vector<uint16_t>> tiles;  // loaded weight tiles not yet used (R x C)
  std::vector<float> weights;               // the current tile, widened (R x C)
  std::vector<uint16_t> weights_raw;        // ... as loaded: the integer mode's low bytes
  std::vector<uint8_t> weights_nonfinite;   // per (r, c): Inf or NaN weight
  bool have_weights = false;
  uint32_t unclaimed = 0;  // LOAD WEIGHTS dispatched, not yet claimed by new_weights

  // ---- timing state
  uint64_t now = 0;
  MemoryModel memm;
  std::deque<ReadBurst> rq;  // the read-data channel, in acceptance order
  uint64_t outstanding_writes = 0;
  RunResult res;
  bool stop = false;  // an error or HALT: draining
  bool failed = false;

  // fetch
  uint64_t first_slot = 0, end_slot = 0, fetch_slot = 0;
  uint32_t beats_out = 0;
  bool fetch_err = false;
  uint64_t fetch_err_addr = 0;
  struct IbufBeat {
    uint64_t slot_lo;
    uint64_t pushed;
  };
  std::deque<IbufBeat> ibuf;
  uint64_t head_slot = 0;  // the head beat's slot at the head (mxu_ctrl_fetch's slot index)
  std::vector<isa::Words> program;  // fetched words by instruction index
  std::vector<uint8_t> fetched;

  // dispatch
  uint32_t pc = 0, count = 0;
  bool weights_turn = false;

  // engines
  // A load engine: a queue of up to kQueue LOADs; the generator requests the bursts of each in
  // turn, the consumer takes their beats in order and writes rows one per cycle.
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
  struct LoadEngine {
    std::deque<LoadCmd> q;
    uint32_t bursts_out = 0, segs_out = 0;
    bool weights = false;
    bool busy() const { return q.size() >= kQueue; }
    bool any() const { return !q.empty(); }
  } ld, wld;
  static constexpr size_t kQueue = 4;

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
    std::deque<std::pair<uint64_t, uint64_t>> bq;  // (burst address, response due); due 0: not sent
    std::deque<bool> bq_error;
  } st;
  // A STORE whose beats are all out and whose write responses are not all back: the store engine
  // takes the next STORE meanwhile (responses come in order, the tail's first).
  struct StoreTail {
    bool valid = false;
    uint32_t pc = 0;
    std::deque<std::pair<uint64_t, uint64_t>> bq;
    std::deque<bool> bq_error;
  } st_tail;
  uint64_t st_last_due = 0;  // write responses are due in order

  struct Matmul {
    uint32_t pc;
    Range r_ub, w_acc;
    uint64_t done_at;  // 0 while rows are still issuing
    uint32_t rows_total;
    bool accumulate;
  };
  std::deque<Matmul> mms;  // in flight, oldest first (at most 4)
  bool mm_active = false;
  uint32_t mm_left = 0;
  bool mm_need_commit = false;
  // Cycles since a row last issued on the current weight bank and on the other (saturating at
  // commit_gap), as mxu_datapath counts them.
  uint32_t cur_idle = 0, other_idle = 0;

  uint32_t wfifo = 0;        // rows in the weight FIFO
  std::deque<uint32_t> wlq;  // LOAD WEIGHTS waiting for the shadow (k_rows)
  bool wl_active = false;
  uint32_t wl_slot = 0, wl_k = 0;
  bool shadow_pending = false;

  struct Activate {
    bool busy = false;
    uint32_t pc = 0;
    Decoded d;
    uint32_t reads_left = 0;  // the bias and quantization rows, then the accumulator rows
    uint64_t done_at = 0;     // 0 while rows are still read
  } ac;
  // The rows an ACTIVATE reads before its accumulator rows: the bias row, the quantization row.
  static uint32_t ActivateSetupReads(const Decoded& d) {
    return (d.bias ? 1u : 0u) + (d.integer ? 1u : 0u);
  }
  bool ac_writes_ub = false;          // the activation unit writes a UB row this cycle
  bool ac_reads_acc = false;          // ... reads an accumulator row
  bool mm_reads_ub = false;           // a MATMUL row enters the array (reads the UB)
  std::deque<uint64_t> ac_ub_writes;  // the cycles it will write its rows read so far

  // Result rows reaching the accumulators, per cycle: the banks an accumulating row reads
  // (arrival) and the banks a row is written to (the cycle after). The read port (ACTIVATE,
  // STORE) and the DMA's write port lose those banks in those cycles.
  struct ResSlot {
    uint64_t cycle = ~uint64_t{0};
    uint32_t rd = 0, wr = 0;  // bank masks
  };
  std::vector<ResSlot> res_ring;
  ResSlot& ResAt(uint64_t cycle) {
    ResSlot& slot = res_ring[cycle % res_ring.size()];
    if (slot.cycle != cycle) slot = {cycle, 0, 0};
    return slot;
  }
  uint32_t ResReads() const {
    const ResSlot& slot = res_ring[now % res_ring.size()];
    return slot.cycle == now ? slot.rd : 0;
  }
  uint32_t ResWrites() const {
    const ResSlot& slot = res_ring[now % res_ring.size()];
    return slot.cycle == now ? slot.wr : 0;
  }
  uint32_t BankBit(uint32_t acc_row) const {
    return 1u << (acc_row / (cfg.acc_depth / cfg.acc_banks));
  }

  // MXU_MODEL_TRACE=1: each instruction's dispatch and done cycle on stderr (for comparing
  // with the RTL's --timeline).
  const bool trace = std::getenv("MXU_MODEL_TRACE") != nullptr;
  void Trace(const char* what, uint32_t i) const {
    if (trace)
      std::fprintf(stderr, "model %6llu %s #%u\n", static_cast<unsigned long long>(now), what, i);
  }

  uint64_t& Ctr(csr::Counter c) { return res.counters[static_cast<uint32_t>(c)]; }

  // ------------------------------------------------------------------------ decode
  Decoded Decode(const isa::Words& w) const {
    Decoded d;
    uint32_t err = 0;
    const auto E = [](ErrorCode e) { return static_cast<uint32_t>(e); };
    const bool reserved = isa::ReservedBitsSet(w);  // a bit the opcode does not name
    const isa::Opcode op = isa::OpcodeOf(w);
    switch (op) {
      case isa::Opcode::kLoad:
      case isa::Opcode::kStore: {
        const isa::TransferFields f = isa::DecodeTransfer(w);
        const bool is_store = op == isa::Opcode::kStore;
        const bool ub = f.buffer == isa::Buffer::kUb, weights = f.buffer == isa::Buffer::kWeights,
                   acc = f.buffer == isa::Buffer::kAcc;
        d.kind = is_store ? Kind::kStore : (weights ? Kind::kWload : Kind::kLoad);
        // int8 host bytes (UB, WEIGHTS) have no alignment rule; ACC words keep theirs.
        const bool byte_elements = f.int8 && !acc;
        if (reserved || (is_store && f.flag && !acc) || !isa::IsBuffer(f.buffer) ||
            (is_store && weights) || (!is_store && f.flag && acc) ||
            (!is_store && f.flag && f.int8) || f.rows == 0 || f.lanes == 0 || (ub && f.lanes > L) ||
            (!ub && f.lanes > C) || (weights && (f.rows > R || f.buffer_addr != 0))) {
          err = E(ErrorCode::kIllegalField);
        } else if (ub && f.buffer_addr + f.rows > cfg.ub_depth) {
          err = E(ErrorCode::kUbRange);
        } else if (acc && f.buffer_addr + f.rows > cfg.acc_depth) {
          err = E(ErrorCode::kAccRange);
        } else if (((f.host_addr & 1) && !byte_elements) || (acc && (f.host_addr & 2))) {
          err = E(ErrorCode::kMisaligned);
        } else if (!is_store && weights && unclaimed == 3) {
          err = E(ErrorCode::kWeightsFull);
        }
        d.buf = static_cast<uint32_t>(f.buffer);
        d.flag = f.flag;
        d.integer = f.int8;
        d.rows = f.rows;
        d.lanes = f.lanes;
        d.buf_addr = f.buffer_addr;
        d.host = f.host_addr;
        d.stride = f.stride;
        const Range r{true, f.buffer_addr, f.buffer_addr + f.rows};
        if (!is_store && ub) d.w_ub = r;
        if (!is_store && acc) d.w_acc = r;
        if (is_store && ub) d.r_ub = r;
        if (is_store && acc) d.r_acc = r;
        break;
      }
      case isa::Opcode::kMatmul: {
        const isa::MatmulFields f = isa::DecodeMatmul(w);
        d.kind = Kind::kMatmul;
        if (reserved || f.rows == 0 || f.k_rows == 0 || f.k_rows > R) {
          err = E(ErrorCode::kIllegalField);
        } else if (f.ub_addr + f.rows > cfg.ub_depth) {
          err = E(ErrorCode::kUbRange);
        } else if (f.acc_addr + f.rows > cfg.acc_depth) {
          err = E(ErrorCode::kAccRange);
        } else if (f.new_weights && unclaimed == 0) {
          err = E(ErrorCode::kNoWeights);
        }
        d.rows = f.rows;
        d.k_rows = f.k_rows;
        d.ub_addr = f.ub_addr;
        d.acc_addr = f.acc_addr;
        d.accumulate = f.accumulate;
        d.new_weights = f.new_weights;
        d.integer = f.int8;
        d.r_ub = {true, f.ub_addr, f.ub_addr + f.rows};
        d.w_acc = {true, f.acc_addr, f.acc_addr + f.rows};
        break;
      }
      case isa::Opcode::kActivate: {
        const isa::ActivateFields f = isa::DecodeActivate(w);
        d.kind = Kind::kActivate;
        // The quantization row and the zero point belong to the integer mode, as the bias
        // address to the bias: set without it, they are illegal.
        if (reserved || f.rows == 0 || (!f.bias && f.bias_addr != 0) ||
            (!f.int8 && (f.quant_addr != 0 || f.zero_point != 0))) {
          err = E(ErrorCode::kIllegalField);
        } else if (f.ub_addr + f.rows > cfg.ub_depth) {
          err = E(ErrorCode::kUbRange);
        } else if (f.acc_addr + f.rows > cfg.acc_depth || f.bias_addr >= cfg.acc_depth ||
                   f.quant_addr >= cfg.acc_depth) {
          err = E(ErrorCode::kAccRange);
        }
        d.rows = f.rows;
        d.acc_addr = f.acc_addr;
        d.ub_addr = f.ub_addr;
        d.bias_addr = f.bias_addr;
        d.quant_addr = f.quant_addr;
        d.zero_point = static_cast<int8_t>(static_cast<uint8_t>(f.zero_point));
        d.relu = f.relu;
        d.bias = f.bias;
        d.integer = f.int8;
        d.r_acc = {true, f.acc_addr, f.acc_addr + f.rows};
        d.w_ub = {true, f.ub_addr, f.ub_addr + f.rows};
        if (f.bias) d.r_bias = {true, f.bias_addr, f.bias_addr + 1};
        if (f.int8) d.r_quant = {true, f.quant_addr, f.quant_addr + 1};
        break;
      }
      case isa::Opcode::kSync:
      case isa::Opcode::kHalt:
        d.kind = op == isa::Opcode::kSync ? Kind::kSync : Kind::kHalt;
        if (reserved) err = E(ErrorCode::kIllegalField);
        break;
      default:
        err = E(ErrorCode::kIllegalOpcode);
        break;
    }
    d.err = err;
    return d;
  }

  // ------------------------------------------------------------------- functional
  bool AnyFails(const std::vector<Burst>& bursts) const {
    for (const Burst& b : bursts) {
      if (mem.Fails(b.addr, b.beats * beat_bytes)) return true;
    }
    return false;
  }

  // Lane j of a plain LOAD's row i of int8 host bytes, sign-extended (the integer mode never
  // transposes).
  uint16_t HostInt8(const Decoded& d, uint32_t i, uint32_t j) const {
    uint8_t byte;
    mem.Read(d.host + uint64_t{i} * d.stride + j, &byte, 1);
    return Int8Lane(byte);
  }

  void ExecLoad(const Decoded& d, bool ok) {
    if (!ok) return;  // the device stops at the error; what was written is not specified
    const uint32_t kAcc = 2;
    if (d.kind == Kind::kWload) {
      std::vector<uint16_t> tile(size_t{R} * C, 0);
      for (uint32_t r = 0; r < d.rows; ++r) {
        for (uint32_t n = 0; n < d.lanes; ++n) {
          if (d.integer) {
            tile[size_t{r} * C + n] = HostInt8(d, r, n);
            continue;
          }
          const uint64_t e = d.flag ? uint64_t{n} * d.stride + r : uint64_t{r} * d.stride + n;
          tile[size_t{r} * C + n] = mem.Load16(d.host + 2 * e);
        }
      }
      tiles.push_back(std::move(tile));
      return;
    }
    if (d.buf == kAcc) {  // int32 words in the integer mode: the same raw 4-byte words
      for (uint32_t i = 0; i < d.rows; ++i) {
        uint32_t* row = &core.acc_[size_t{d.buf_addr + i} * C];
        std::fill(row, row + C, 0u);
        mem.Read(d.host + 4ull * i * d.stride, row, 4ull * d.lanes);
      }
      return;
    }
    for (uint32_t i = 0; i < d.rows; ++i) {
      uint16_t* row = &core.ub_[size_t{d.buf_addr + i} * L];
      std::fill(row, row + L, uint16_t{0});
      if (d.integer) {
        for (uint32_t j = 0; j < d.lanes; ++j) row[j] = HostInt8(d, i, j);
      } else if (!d.flag) {
        mem.Read(d.host + 2ull * i * d.stride, row, 2ull * d.lanes);
      } else {
        for (uint32_t j = 0; j < d.lanes; ++j) {
          row[j] = mem.Load16(d.host + 2 * (uint64_t{j} * d.stride + i));
        }
      }
    }
  }

  void ExecStore(const Decoded& d) {
    const bool from_acc = d.buf == 2;
    const uint64_t size = ElementBytes(d);
    const uint64_t row_bytes = d.lanes * size;
    // Bursts that fail write nothing: collect the failing beat ranges first (rare).
    const StorePlan& plan = st.plan;
    std::vector<std::pair<uint64_t, uint64_t>> bad;
    {
      std::vector<Burst> bursts;
      if (plan.linear) {
        LinearBursts(plan.lin_addr, plan.lin_beats, beat_bytes, bursts);
      } else {
        for (uint32_t i = 0; i < d.rows; ++i) {
          uint64_t a = plan.row_base[i];
          uint32_t left = plan.row_beats[i];
          while (left > 0) {
            const uint32_t b = std::min<uint32_t>(
                {left, static_cast<uint32_t>((kPage - a % kPage) / beat_bytes), kMaxBurst});
            bursts.push_back({a, b, false});
            a += b * beat_bytes;
            left -= b;
          }
        }
      }
      for (const Burst& b : bursts) {
        if (mem.Fails(b.addr, b.beats * beat_bytes))
          bad.push_back({b.addr, b.addr + b.beats * beat_bytes});
      }
    }
    std::vector<uint8_t> bytes(row_bytes);
    for (uint32_t i = 0; i < d.rows; ++i) {
      const uint64_t host = d.host + i * uint64_t{d.stride} * size;
      if (from_acc) {
        const uint32_t* row = &core.acc_[size_t{d.buf_addr + i} * C];
        for (uint32_t j = 0; j < d.lanes; ++j) {
          // int32 words have no NaN: the integer ReLU only zeroes negatives.
          const uint32_t relu = d.integer ? ((row[j] >> 31) ? 0u : row[j]) : ReluBits(row[j]);
          const uint32_t v = d.flag ? relu : row[j];
          std::memcpy(&bytes[4 * j], &v, 4);
        }
      } else if (d.integer) {  // each lane's low byte
        const uint16_t* row = &core.ub_[size_t{d.buf_addr + i} * L];
        for (uint32_t j = 0; j < d.lanes; ++j) bytes[j] = static_cast<uint8_t>(row[j] & 0xFF);
      } else {
        std::memcpy(bytes.data(), &core.ub_[size_t{d.buf_addr + i} * L], row_bytes);
      }
      if (bad.empty()) {
        mem.Write(host, bytes.data(), row_bytes);
      } else {
        for (uint64_t k = 0; k < row_bytes; ++k) {
          const uint64_t a = host + k;
          bool skip = false;
          for (const auto& [lo, hi] : bad) skip = skip || (a >= lo && a < hi);
          if (!skip) mem.Write(a, &bytes[k], 1);
        }
      }
    }
  }

  void ExecMatmul(const Decoded& d) {
    if (d.new_weights) {
      const std::vector<uint16_t>& t = tiles.front();
      weights.resize(size_t{R} * C);
      weights_nonfinite.resize(size_t{R} * C);
      for (size_t i = 0; i < t.size(); ++i) {
        weights[i] = Bf16ToFloat(t[i]);
        weights_nonfinite[i] = (t[i] & 0x7F80) == 0x7F80;
      }
      weights_raw = t;
      tiles.pop_front();
      have_weights = true;
    }
    if (!have_weights) {  // never loaded: the banks hold zeros after reset
      weights.assign(size_t{R} * C, 0.0f);
      weights_nonfinite.assign(size_t{R} * C, 0);
      weights_raw.assign(size_t{R} * C, 0);
      have_weights = true;
    }
    if (d.integer) {
      ExecMatmulInteger(d);
      return;
    }
    const uint32_t k = d.k_rows;
    // Lanes k .. R-1 enter as +0: they add +-0 to a partial sum (never -0) unless the weight is
    // Inf or NaN, which makes the column NaN.
    std::vector<uint8_t> nan_col(C, 0);
    for (uint32_t r = k; r < R; ++r) {
      for (uint32_t c = 0; c < C; ++c) nan_col[c] |= weights_nonfinite[size_t{r} * C + c];
    }
    const float* w = weights.data();
    std::vector<float> psum(C);
    for (uint32_t i = 0; i < d.rows; ++i) {
      const uint16_t* a = &core.ub_[size_t{d.ub_addr + i} * L];
      uint32_t* acc = &core.acc_[size_t{d.acc_addr + i} * C];
      if (C == 16) {
        float p[16] = {};
        for (uint32_t r = 0; r < k; ++r) {
          const float av = Bf16ToFloat(a[r]);
          const float* wr = w + size_t{r} * 16;
          for (int c = 0; c < 16; ++c) p[c] = p[c] + av * wr[c];
        }
        std::copy(p, p + 16, psum.begin());
      } else {
        std::fill(psum.begin(), psum.end(), 0.0f);
        for (uint32_t r = 0; r < k; ++r) {
          const float av = Bf16ToFloat(a[r]);
          const float* wr = w + size_t{r} * C;
          for (uint32_t c = 0; c < C; ++c) psum[c] = psum[c] + av * wr[c];
        }
      }
      for (uint32_t c = 0; c < C; ++c) {
        float v = psum[c];
        if (d.accumulate) v = F(acc[c]) + v;
        acc[c] = nan_col[c] ? kNan : Canon(v);
      }
    }
  }

  // The integer MATMUL: each PE multiplies the low bytes of its operands as int8; a column's sum
  // of at most R products is exact in int32 (|product| <= 2^14), so the order is immaterial.
  // Lanes k_rows .. R-1 enter as zero and add nothing (no NaN here). With accumulate, the sum
  // is added to the accumulator word as a wrapping int32 add, whatever the word holds.
  void ExecMatmulInteger(const Decoded& d) {
    const uint32_t k = d.k_rows;
    std::vector<int32_t> w(size_t{k} * C);
    for (size_t i = 0; i < w.size(); ++i) w[i] = LaneInt8(weights_raw[i]);
    std::vector<int32_t> psum(C);
    for (uint32_t i = 0; i < d.rows; ++i) {
      const uint16_t* a = &core.ub_[size_t{d.ub_addr + i} * L];
      uint32_t* acc = &core.acc_[size_t{d.acc_addr + i} * C];
      std::fill(psum.begin(), psum.end(), 0);
      for (uint32_t r = 0; r < k; ++r) {
        const int32_t av = LaneInt8(a[r]);
        const int32_t* wr = &w[size_t{r} * C];
        for (uint32_t c = 0; c < C; ++c) psum[c] += av * wr[c];
      }
      for (uint32_t c = 0; c < C; ++c) {
        const uint32_t sum = static_cast<uint32_t>(psum[c]);
        acc[c] = d.accumulate ? acc[c] + sum : sum;  // unsigned: wraps modulo 2^32
      }
    }
  }

  void ExecActivate(const Decoded& d) {
    if (d.integer) {
      ExecActivateInteger(d);
      return;
    }
    std::vector<uint32_t> bias(C, 0);
    if (d.bias) std::copy_n(&core.acc_[size_t{d.bias_addr} * C], C, bias.begin());
    for (uint32_t i = 0; i < d.rows; ++i) {
      const uint32_t* acc = &core.acc_[size_t{d.acc_addr + i} * C];
      uint16_t* out = &core.ub_[size_t{d.ub_addr + i} * L];
      for (uint32_t c = 0; c < C; ++c) {
        uint32_t v = acc[c];
        if (d.bias) v = Canon(F(v) + F(bias[c]));
        if (d.relu) v = ReluBits(v);
        out[c] = FloatToBf16(F(v), cfg.subnormals);
      }
      for (uint32_t c = C; c < L; ++c) out[c] = 0;
    }
  }

  // The integer ACTIVATE: each lane requantized to int8 with its word of the quantization row
  // (read once, before the accumulator rows, as the bias row) and sign-extended into its UB lane;
  // lanes beyond ArrayCols zero. The rule (x = acc + bias exactly, p = x * m, p / 2^s rounded
  // half away from zero, zero point, clamp) is the golden model's scalar operation, as the fp
  // path reuses its bf16 rounding: the RTL's two-stage unit is checked against the same rule.
  void ExecActivateInteger(const Decoded& d) {
    std::vector<uint32_t> bias(C, 0), quant(C);
    if (d.bias) std::copy_n(&core.acc_[size_t{d.bias_addr} * C], C, bias.begin());
    std::copy_n(&core.acc_[size_t{d.quant_addr} * C], C, quant.begin());
    for (uint32_t i = 0; i < d.rows; ++i) {
      const uint32_t* acc = &core.acc_[size_t{d.acc_addr + i} * C];
      uint16_t* out = &core.ub_[size_t{d.ub_addr + i} * L];
      for (uint32_t c = 0; c < C; ++c) {
        const int8_t y =
            golden::Requantize(static_cast<int32_t>(acc[c]), static_cast<int32_t>(bias[c]),
                               quant[c], d.zero_point, d.relu);
        out[c] = static_cast<uint16_t>(int16_t{y});
      }
      for (uint32_t c = C; c < L; ++c) out[c] = 0;
    }
  }

  // ------------------------------------------------------------------------ timing
  void IssueRead(int owner, uint64_t addr, uint32_t beats) {
    const bool error = mem.Fails(addr, beats * beat_bytes);
    const uint64_t completion = error ? now : memm.Schedule(now, beats * beat_bytes);
    rq.push_back({std::max(completion, now + 1), addr, beats, 0, owner, error});
  }

  // Fetch: bursts of up to four beats while the buffer has room.
  bool FetchWants(uint32_t* burst) const {
    if (stop || fetch_err || fetch_slot >= end_slot) return false;
    const uint64_t beat_slot = fetch_slot & ~(slots_per_beat - 1);
    uint32_t b = 4;
    if (beat_slot + 4 * slots_per_beat > end_slot) {
      b = static_cast<uint32_t>((end_slot - beat_slot + slots_per_beat - 1) / slots_per_beat);
    }
    const uint32_t page_beats = static_cast<uint32_t>(kPage / beat_bytes);
    const uint32_t in_page = static_cast<uint32_t>((fetch_slot / slots_per_beat) % page_beats);
    if (in_page + b > page_beats) b = page_beats - in_page;
    if (ibuf.size() + beats_out + b > ibuf_beats) return false;
    *burst = b;
    return true;
  }

  void FetchIssue(uint32_t b) {
    const uint64_t beat_slot = fetch_slot & ~(slots_per_beat - 1);
    const uint64_t addr = beat_slot * 16;
    IssueRead(kFetch, addr, b);
    // The words are read when the request is made (the platform's memory is loosely timed).
    if (!mem.Fails(addr, b * beat_bytes)) {
      for (uint64_t s = beat_slot; s < beat_slot + slots_per_beat * b; ++s) {
        if (s >= first_slot && s < end_slot) {
          const size_t i = static_cast<size_t>(s - first_slot);
          uint32_t words[4];
          mem.Read(s * 16, words, 16);
          program[i] = {words[0], words[1], words[2], words[3]};
        }
      }
    }
    fetch_slot = beat_slot + slots_per_beat * b;
    beats_out += b;
  }

  bool SlotValid(uint64_t s) const { return s >= first_slot && s < end_slot; }

  // The instruction at the head of the fetch buffer this cycle, if any.
  bool HeadValid(uint64_t* slot) const {
    if (ibuf.empty() || ibuf.front().pushed >= now) return false;
    const uint64_t s = ibuf.front().slot_lo + head_slot;
    *slot = s;
    return SlotValid(s);
  }
  // To the next slot of the head beat while one of the later ones holds an instruction (slots
  // outside the program lie before or after it), else to the next beat.
  void AdvanceHead() {
    const uint64_t lo = ibuf.front().slot_lo;
    bool later = false;
    for (uint64_t i = head_slot + 1; i < slots_per_beat; ++i) later = later || SlotValid(lo + i);
    if (later) {
      ++head_slot;
    } else {
      ibuf.pop_front();
      head_slot = 0;
    }
  }

  void Error(ErrorCode code, uint32_t epc, uint64_t addr = 0) {
    if (stop) return;
    stop = failed = true;
    res.error = true;
    res.error_code = static_cast<uint32_t>(code);
    res.error_pc = epc;
    res.error_addr = addr;
  }

  // Load engine: read-data consumption and row writes for this cycle.
  static uint32_t Owed(const LoadEngine& e) {
    uint32_t owed = 0;
    for (const LoadCmd& c : e.q) owed += c.ready_rows - c.written;
    return owed;
  }
  LoadCmd* Consuming(LoadEngine& e) {
    for (LoadCmd& c : e.q) {
      if (c.beats_got < c.beats_total) return &c;
    }
    return nullptr;
  }
  // Whether the row the engine writes next may be written this cycle: room in the weight FIFO;
  // the DMA has the lowest priority on the UB's write port (the activation unit's) and on an
  // accumulator bank's (the array's results).
  bool TargetReady(const LoadEngine& e) const {
    if (e.weights) return wfifo < cfg.wfifo_depth;
    for (const LoadCmd& c : e.q) {
      if (c.written < c.ready_rows) {
        if (c.d.buf == static_cast<uint32_t>(isa::Buffer::kAcc)) {
          return (ResWrites() & BankBit(c.d.buf_addr + c.written)) == 0;
        }
        return !ac_writes_ub;
      }
    }
    return true;
  }

  bool LoadReady(LoadEngine& e) {
    const LoadCmd* c = Consuming(e);
    if (c == nullptr) return false;
    const bool target_ready = TargetReady(e);
    uint32_t earlier = 0;
    for (const LoadCmd& q : e.q) {
      if (&q == c) break;
      // The engine's queue hands a plain LOAD on only when its last row is written: the next
      // one's beats wait (and, the read channel being in order, whatever is behind them).
      if (!q.d.flag) return false;
      earlier += q.ready_rows - q.written;
    }
    const uint32_t own = c->ready_rows - c->written;
    if (c->d.flag) {  // transposed: the other half of the double buffer
      const uint32_t owed = earlier + own;
      return owed < c->plan.trows || (owed == c->plan.trows && target_ready);
    }
    // Plain: one row register (behind it, the rest of a beat of packed rows), written once the
    // transposed rows ahead are out.
    return own == 0 || (own == 1 && earlier == 0 && target_ready);
  }

  void LoadRows(LoadEngine& e) {
    if (!TargetReady(e)) return;
    for (LoadCmd& c : e.q) {
      if (c.written < c.ready_rows) {
        ++c.written;
        if (e.weights) ++wfifo;
        return;
      }
    }
  }

  void LoadBeat(LoadEngine& e, bool last_of_burst) {
    if (last_of_burst) --e.bursts_out;
    LoadCmd& c = *Consuming(e);
    ++c.beats_got;
    const uint32_t seg_beats = c.plan.linear ? c.plan.row_beats : c.plan.seg_beats[c.seg];
    if (++c.beat < seg_beats) return;
    c.beat = 0;
    if (!c.plan.linear) {
      --e.segs_out;
      ++c.seg;
    }
    if (!c.d.flag && c.d.stride == 0) {
      c.ready_rows = c.d.rows;  // broadcast: the one row serves every row
    } else if (!c.d.flag) {
      const uint32_t rows = c.beats_got == 1 ? c.plan.first_rows : c.plan.rows_per_beat;
      c.ready_rows = std::min(c.d.rows, c.ready_rows + rows);
    } else if (++c.cols_done == c.d.lanes) {
      c.cols_done = 0;
      c.ready_rows += std::min(c.plan.trows, c.d.rows - c.block_i);
      c.block_i += c.plan.trows;
    }
  }

  LoadCmd* Generating(LoadEngine& e) {
    for (LoadCmd& c : e.q) {
      if (c.next_burst < c.plan.bursts.size()) return &c;
    }
    return nullptr;
  }

  bool LoadWants(LoadEngine& e) {
    LoadCmd* c = Generating(e);
    if (c == nullptr || c->accepted >= now || e.bursts_out >= cfg.max_in_flight) return false;
    const Burst& b = c->plan.bursts[c->next_burst];
    return c->plan.linear || !b.seg_start || e.segs_out < cfg.max_in_flight;
  }

  void LoadIssue(LoadEngine& e, int owner) {
    LoadCmd& c = *Generating(e);
    const Burst& b = c.plan.bursts[c.next_burst++];
    ++e.bursts_out;
    if (b.seg_start && !c.plan.linear) ++e.segs_out;
    IssueRead(owner, b.addr, b.beats);
  }

  // The oldest LOAD is done once all its rows are written.
  bool LoadDone(const LoadEngine& e) const {
    return !e.q.empty() && e.q.front().written == e.q.front().d.rows &&
           e.q.front().next_burst >= e.q.front().plan.bursts.size();
  }

  // Store engine, one cycle.
  void StoreCycle() {
    StoreEngine& s = st;
    // Write responses, in order: the tail's first.
    if (st_tail.valid) {
      if (st_tail.bq.front().second <= now) {
        if (st_tail.bq_error.front())
          Error(ErrorCode::kMemWrite, st_tail.pc, st_tail.bq.front().first);
        st_tail.bq.pop_front();
        st_tail.bq_error.pop_front();
        --outstanding_writes;
        if (st_tail.bq.empty()) {
          Trace("done store tail", st_tail.pc);
          st_tail.valid = false;
          ++Ctr(csr::Counter::kInstructions);
        }
      }
    }
    if (!s.busy) return;
    if (!st_tail.valid && !s.bq.empty() && s.bq.front().second != 0 && s.bq.front().second <= now) {
      if (s.bq_error.front()) Error(ErrorCode::kMemWrite, s.pc, s.bq.front().first);
      s.bq.pop_front();
      s.bq_error.pop_front();
      --outstanding_writes;
    }
    // Emission.
    bool row_done = false;
    if (s.cur.valid) {
      bool aw_fire = false;
      if (s.burst_left == 0 && s.bq.size() < cfg.max_in_flight) {
        uint64_t addr;
        uint64_t beats;
        if (s.plan.linear) {
          addr = s.lin_addr;
          beats = std::min<uint64_t>(s.lin_left, 16);
        } else {
          addr = s.plan.row_base[s.cur.row] + uint64_t{s.beat} * beat_bytes;
          beats = s.plan.row_beats[s.cur.row] - s.beat;
        }
        beats = std::min<uint64_t>({beats, (kPage - addr % kPage) / beat_bytes, 16});
        aw_fire = true;
        s.burst_left = static_cast<uint32_t>(beats);
        s.burst_addr = addr;
        s.burst_beats = static_cast<uint32_t>(beats);
        if (s.plan.linear) {
          s.lin_addr += beats * beat_bytes;
          s.lin_left -= beats;
        }
        s.bq.push_back({addr, 0});
        s.bq_error.push_back(false);
        ++outstanding_writes;
      }
      if (s.burst_left != 0 || aw_fire) {
        --s.burst_left;
        if (s.burst_left == 0) {
          // The last beat: the platform performs the write now.
          const uint64_t len = uint64_t{s.burst_beats} * beat_bytes;
          const bool error = mem.Fails(s.burst_addr, len);
          const uint64_t completion = error ? now : memm.Schedule(now, len);
          uint64_t due = std::max({completion, now + 1, st_last_due});
          st_last_due = due;
          s.bq.back().second = due;  // one burst is open at a time: the newest
          s.bq_error.back() = error;
        }
        if (++s.beat == s.plan.row_beats[s.cur.row]) {
          row_done = true;
          s.beat = 0;
          ++s.rows_done;
        }
      }
    }
    // Row registers: current and next.
    bool cur_valid = s.cur.valid && !row_done;
    if (!cur_valid && s.nxt.valid) {
      s.cur = s.nxt;
      s.nxt.valid = false;
      cur_valid = true;
    }
    s.cur.valid = cur_valid;
    const bool was_pending = s.rd_pending;
    const uint32_t pending_row = s.pending_row;
    // Reader.
    bool rd_en = s.rd_row != s.d.rows && !s.rd_pending && !s.nxt.valid;
    // The store path has the lowest priority on the buffers' read ports: the array's stream (UB),
    // the activation unit and accumulating results (ACC).
    if (s.d.buf == static_cast<uint32_t>(isa::Buffer::kAcc)) {
      rd_en = rd_en && !ac_reads_acc && (ResReads() & BankBit(s.d.buf_addr + s.rd_row)) == 0;
    } else {
      rd_en = rd_en && !mm_reads_ub;
    }
    s.rd_pending = rd_en;
    if (rd_en) s.pending_row = s.rd_row++;
    if (was_pending) {
      if (!s.cur.valid) {
        s.cur = {true, pending_row};
      } else {
        s.nxt = {true, pending_row};
      }
    }
    // Every beat out, responses still to come: this STORE becomes the tail.
    if (s.rows_done == s.d.rows && !s.bq.empty() && !st_tail.valid) {
      st_tail.valid = true;
      st_tail.pc = s.pc;
      st_tail.bq.swap(s.bq);
      st_tail.bq_error.swap(s.bq_error);
      s.busy = false;
    }
  }

  bool StoreDone() const { return st.busy && st.rows_done == st.d.rows && st.bq.empty(); }

  // ------------------------------------------------------------------------ the loop
  RunResult Run(uint64_t cmd_addr, uint32_t n) {
    golden::ScopedFpMode fp_mode(cfg.subnormals);
    memm.t = cfg.timing;
    count = n;
    program.assign(n, isa::Words{});
    first_slot = cmd_addr / 16;
    end_slot = first_slot + n;
    fetch_slot = first_slot;
    wld.weights = true;
    size_t ring = 8;
    while (ring < latency + 3) ring *= 2;
    cur_idle = other_idle = commit_gap;
    res_ring.assign(ring, ResSlot{});
    // Cycle 0: the clear state (the start is checked there).
    now = 0;
    if (cmd_addr % 16 != 0) {
      Error(ErrorCode::kMisaligned, 0, cmd_addr);
    } else if (n == 0) {
      Error(ErrorCode::kCmdOverrun, 0);
    }
    uint64_t end = 0;
    const uint64_t kLimit = ~uint64_t{0};
    // A watchdog for the model itself: the device's engines never wait on each other for long,
    // so a stretch with no progress is a model bug. It stops with an error instead of a hang.
    const uint64_t stuck_limit = 100'000 + 4 * uint64_t{cfg.timing.latency_cycles};
    uint64_t last_signature = ~uint64_t{0}, last_progress = 0;
    for (now = 1; now < kLimit; ++now) {
      if ((now & 1023) == 0) {
        const uint64_t signature = ProgressSignature();
        if (signature != last_signature) {
          last_signature = signature;
          last_progress = now;
        } else if (now - last_progress > stuck_limit) {
          throw std::logic_error("model: no progress for " + std::to_string(now - last_progress) +
                                 " cycles at instruction " + std::to_string(pc) +
                                 " (a bug in the model backend; the RTL backend runs the program)");
        }
      }
      if (stop) {
        // Drain: every read response and write response still on its way.
        while (!rq.empty() && rq.front().due <= now) {
          ReadBurst& b = rq.front();
          if (++b.next == b.beats) rq.pop_front();
          break;
        }
        if (!st.bq.empty() && st.bq.front().second == 0) {
          // The burst whose data was going out when the error came: the drain sends its last
          // beats (nothing more is written) and waits for its response, as the RTL does.
          st.bq.front().second = now + st.burst_left + 1;
        }
        if (!st.bq.empty() && st.bq.front().second != 0 && st.bq.front().second <= now) {
          st.bq.pop_front();
          st.bq_error.pop_front();
          --outstanding_writes;
        }
        if (rq.empty() && st.bq.empty()) {
          end = now;
          break;
        }
        continue;
      }
      Step();
      if (stop && rq.empty() && st.bq.empty()) {
        end = now + 1;
        break;
      }
    }
    Ctr(csr::Counter::kCycles) = end + 1;
    res.pc = pc;
    return res;
  }

  // Changes whenever an engine moves: instructions dispatched, read beats taken, rows written,
  // store rows read and write responses.
  uint64_t ProgressSignature() const {
    uint64_t sig = pc * 0x9E3779B97F4A7C15ull + rq.size() * 0x100000001B3ull + st.rows_done * 31 +
                   st.bq.size() * 131 + ibuf.size() * 7 + wfifo * 13;
    for (const LoadEngine* e : {&ld, &wld}) {
      for (const LoadCmd& c : e->q) sig = sig * 1099511628211ull + c.beats_got * 3 + c.written;
    }
    if (!rq.empty()) sig += rq.front().next * 17;
    for (uint32_t c = 0; c < csr::kNumCounters; ++c) {
      if (c != static_cast<uint32_t>(csr::Counter::kCycles) && c < 6)
        sig += res.counters[c] * (c + 3);
    }
    return sig;
  }

  void Step() {
    // ---- snapshot of the scoreboard (registered state)
    // A load engine takes a command only once it has requested every burst of the last one.
    const bool ld_busy = ld.busy() || Generating(ld) != nullptr;
    const bool wld_busy = wld.busy() || Generating(wld) != nullptr;
    const bool st_busy = st.busy, ac_busy = ac.busy;
    const bool ld_any = ld.any(), wld_any = wld.any();
    const bool mm_full = mms.size() >= 4;
    const bool ld_done = LoadDone(ld), wld_done = LoadDone(wld), st_done = StoreDone();
    bool ld_moved = false, wld_moved = false, st_moved = false;
    ld_moved = Owed(ld) > 0;
    wld_moved = Owed(wld) > 0 && wfifo < cfg.wfifo_depth;
    st_moved =
        st.rd_pending || (st.cur.valid && (st.burst_left != 0 || st.bq.size() < cfg.max_in_flight));

    // ---- datapath: weight shift, MATMUL issue, ACTIVATE
    const bool shadow_ready = shadow_pending && !wl_active;
    const bool commit_ok = shadow_ready && other_idle == commit_gap;
    const bool mm_issue = mm_active && (!mm_need_commit || commit_ok);
    const bool commit = mm_issue && mm_need_commit;
    const bool mm_last_issue = mm_issue && mm_left == 1;
    const bool mm_ready = !mm_active || mm_last_issue;
    if (mm_active && mm_need_commit && !commit_ok) ++Ctr(csr::Counter::kStallWeights);
    // A commit swaps the banks' roles: the row issued with it starts the new bank's count.
    if (commit) {
      other_idle = std::min(cur_idle + 1, commit_gap);
      cur_idle = 1;
    } else {
      cur_idle = mm_issue ? 1 : std::min(cur_idle + 1, commit_gap);
      other_idle = std::min(other_idle + 1, commit_gap);
    }
    // WLOAD start (may coincide with a commit) and shift.
    const bool wl_ready = !wl_active && (!shadow_pending || commit);
    bool wl_start = false;
    if (!wlq.empty() && wl_ready) {
      wl_start = true;
      wl_k = wlq.front();
      wlq.pop_front();
      wl_slot = 0;
    }
    const bool wl_act = wl_active || wl_start;
    if (wl_act) {
      const bool need_pop = wl_slot < wl_k;
      if (!need_pop || wfifo > 0) {
        if (need_pop) --wfifo;
        if (wl_slot == R - 1) {
          wl_active = false;
        } else {
          wl_active = true;
        }
        ++wl_slot;
      } else {
        wl_active = true;
      }
    }
    shadow_pending = (shadow_pending && !commit) || wl_start;
    mm_reads_ub = mm_issue;
    if (mm_issue) {
      const Matmul& m = mms.back();  // the newest MATMUL is the one issuing
      if (mm_left == m.rows_total) Trace("mm first row", m.pc);
      // Its result row reaches the accumulators `latency` cycles later, is written the next.
      const uint32_t bank = BankBit(m.w_acc.lo + m.rows_total - mm_left);
      if (m.accumulate) ResAt(now + latency).rd |= bank;
      ResAt(now + latency + 1).wr |= bank;
      ++Ctr(csr::Counter::kArrayBusy);
      Ctr(csr::Counter::kMacs) += uint64_t{R} * C;
      mm_need_commit = false;
      if (--mm_left == 0) {
        mm_active = false;
        for (Matmul& m : mms) {
          if (m.done_at == 0) {
            m.done_at = now + latency + 2;
            break;
          }
        }
      }
    }

    // ---- ACTIVATE: the bias row (if any), then the quantization row (integer), then one
    // accumulator row per cycle the read port is granted. A row read in cycle t is in the
    // activation unit at t + 1 and written to the UB when it leaves the unit's registers: one
    // stage in the fp path, two in the integer path (the multiply, then the rounding shift and
    // clamp). The scoreboard sees the done of the last row the cycle after it is written.
    ac_writes_ub = !ac_ub_writes.empty() && ac_ub_writes.front() == now;
    if (ac_writes_ub) ac_ub_writes.pop_front();
    ac_reads_acc = ac.busy && ac.reads_left > 0;
    if (ac_reads_acc) {
      const uint32_t setup = ActivateSetupReads(ac.d);
      const uint32_t reads_done = ac.d.rows + setup - ac.reads_left;
      const bool bias_phase = reads_done < (ac.d.bias ? 1u : 0u);
      const bool quant_phase = !bias_phase && reads_done < setup;
      const uint32_t row = bias_phase    ? ac.d.bias_addr
                           : quant_phase ? ac.d.quant_addr
                                         : ac.d.acc_addr + reads_done - setup;
      if ((ResReads() & BankBit(row)) == 0) {
        const uint32_t unit_stages = ac.d.integer ? 2 : 1;
        const uint32_t write_at = 1 + unit_stages;  // cycles from the read to the UB write
        if (reads_done >= setup) ac_ub_writes.push_back(now + write_at);
        if (--ac.reads_left == 0) ac.done_at = now + write_at + 1;
      }
    }

    // ---- read data: one beat per cycle, in order
    if (!rq.empty() && rq.front().due <= now) {
      ReadBurst& b = rq.front();
      bool ready = true;
      if (b.owner == kLd) ready = LoadReady(ld);
      if (b.owner == kWld) ready = LoadReady(wld);
      LoadRows(ld);
      LoadRows(wld);
      if (ready) {
        Ctr(csr::Counter::kDmaReadBytes) += beat_bytes;
        const bool last = b.next + 1 == b.beats;
        if (b.owner == kFetch) {
          if (b.error) {
            if (!fetch_err) fetch_err_addr = b.addr + uint64_t{b.next} * beat_bytes;
            fetch_err = true;
          } else {
            ibuf.push_back({b.addr / 16 + uint64_t{b.next} * slots_per_beat, now});
          }
          --beats_out;
        } else {
          LoadEngine& e = b.owner == kLd ? ld : wld;
          (b.owner == kLd ? ld_moved : wld_moved) = true;
          if (b.error) Error(ErrorCode::kMemRead, Consuming(e)->pc, b.addr);
          LoadBeat(e, last);
        }
        if (++b.next == b.beats) rq.pop_front();
      }
    } else {
      LoadRows(ld);
      LoadRows(wld);
    }
    StoreCycle();
    if (stop) return;

    // ---- dispatch
    uint64_t slot = 0;
    const bool valid = HeadValid(&slot);
    if (!ibuf.empty() && ibuf.front().pushed < now && !valid) {
      AdvanceHead();  // a slot outside the program
    } else if (valid) {
      const uint32_t i = static_cast<uint32_t>(slot - first_slot);
      const Decoded d = Decode(program[i]);
      if (d.err != 0) {
        Error(static_cast<ErrorCode>(d.err), pc);
        return;
      }
      bool conflict = false;
      const auto conflicts = [&](const Range& r_ub, const Range& w_ub, const Range& r_acc,
                                 const Range& w_acc) {
        return Overlap(d.r_ub, w_ub) || Overlap(d.w_ub, w_ub) || Overlap(d.w_ub, r_ub) ||
               Overlap(d.r_acc, w_acc) || Overlap(d.w_acc, w_acc) || Overlap(d.w_acc, r_acc);
      };
      for (const LoadCmd& c : ld.q) conflict |= conflicts(c.d.r_ub, c.d.w_ub, c.d.r_acc, c.d.w_acc);
      if (st_busy) conflict |= conflicts(st.d.r_ub, st.d.w_ub, st.d.r_acc, st.d.w_acc);
      // An ACTIVATE's bias and quantization rows are one-row read ranges: nothing may write
      // them while it runs, and it waits for the writers already in flight.
      if (ac_busy) {
        conflict |= conflicts(ac.d.r_ub, ac.d.w_ub, ac.d.r_acc, ac.d.w_acc) ||
                    Overlap(d.w_acc, ac.d.r_bias) || Overlap(d.w_acc, ac.d.r_quant);
      }
      if (d.kind == Kind::kActivate) {
        for (const Range& row : {d.r_bias, d.r_quant}) {
          for (const LoadCmd& c : ld.q) conflict |= Overlap(row, c.d.w_acc);
          for (const Matmul& m : mms) conflict |= Overlap(row, m.w_acc);
        }
      }
      if (d.kind != Kind::kMatmul) {
        for (const Matmul& m : mms) conflict |= conflicts(m.r_ub, Range{}, Range{}, m.w_acc);
      } else {
        // MATMULs keep their order in the datapath; other engines' ranges still count.
      }
      const bool in_flight =
          ld_any || wld_any || st_busy || st_tail.valid || ac_busy || !mms.empty() || mm_active;
      bool structural = false;
      switch (d.kind) {
        case Kind::kLoad:
          structural = ld_busy;
          break;
        case Kind::kWload:
          structural = wld_busy || wlq.size() >= 4;
          break;
        case Kind::kStore:
          structural = st_busy;
          break;
        case Kind::kMatmul:
          structural = !mm_ready || mm_full;
          break;
        case Kind::kActivate:
          structural = ac_busy;
          break;
        default:
          structural = in_flight;
          break;
      }
      if (conflict || structural) {
        ++Ctr(csr::Counter::kStallDependency);
      } else {
        Dispatch(d, i);
        AdvanceHead();
        ++pc;
        if (stop) return;
      }
    } else if (pc == count) {
      Error(ErrorCode::kCmdOverrun, pc);
      return;
    } else if (fetch_err && ibuf.empty() && beats_out == 0) {
      Error(ErrorCode::kMemRead, pc, fetch_err_addr);
      return;
    } else {
      ++Ctr(csr::Counter::kStallFetch);
    }

    // ---- read requests: fetch first, then loads and weights in turn
    uint32_t fb = 0;
    if (FetchWants(&fb)) {
      FetchIssue(fb);
    } else {
      const bool lw = LoadWants(ld), ww = LoadWants(wld);
      const bool pick_w = ww && (!lw || weights_turn);
      if (pick_w) {
        LoadIssue(wld, kWld);
        weights_turn = false;
        wld_moved = true;
      } else if (lw) {
        LoadIssue(ld, kLd);
        weights_turn = true;
        ld_moved = true;
      }
    }
    // A DMA engine busy with nothing requested, arriving or written: waiting on memory.
    if ((ld_any && !ld_moved) || (wld_any && !wld_moved) || (st_busy && !st_moved)) {
      ++Ctr(csr::Counter::kStallMemory);
    }

    // ---- completions: the scoreboard frees an engine the cycle after its done
    if (ld_done) {
      Trace("done load", ld.q.front().pc);
      ld.q.pop_front();
      ++Ctr(csr::Counter::kInstructions);
    }
    if (wld_done) {
      Trace("done wload", wld.q.front().pc);
      wld.q.pop_front();
      ++Ctr(csr::Counter::kInstructions);
    }
    if (st_done) {
      Trace("done store", st.pc);
      st.busy = false;
      ++Ctr(csr::Counter::kInstructions);
    }
    while (!mms.empty() && mms.front().done_at != 0 && mms.front().done_at <= now) {
      Trace("done matmul", mms.front().pc);
      mms.pop_front();
      ++Ctr(csr::Counter::kInstructions);
    }
    if (ac.busy && ac.reads_left == 0 && ac.done_at <= now) {
      Trace("done activate", ac.pc);
      ac.busy = false;
      ++Ctr(csr::Counter::kInstructions);
    }
  }

  void Dispatch(const Decoded& d, uint32_t i) {
    Trace("dispatch", i);
    switch (d.kind) {
      case Kind::kLoad:
      case Kind::kWload: {
        LoadEngine& e = d.kind == Kind::kLoad ? ld : wld;
        LoadCmd c;
        c.pc = i;
        c.accepted = now;
        c.d = d;
        c.plan = PlanLoad(d, beat_bytes);
        for (const Burst& b : c.plan.bursts) c.beats_total += b.beats;
        e.q.push_back(std::move(c));
        const LoadCmd& cmd = e.q.back();
        ExecLoad(d, !AnyFails(cmd.plan.bursts));
        if (e.weights) {
          ++unclaimed;
          wlq.push_back(d.rows);
          if (AnyFails(cmd.plan.bursts)) tiles.push_back(std::vector<uint16_t>(size_t{R} * C, 0));
        }
        break;
      }
      case Kind::kStore:
        st = StoreEngine();
        st.busy = true;
        st.pc = i;
        st.d = d;
        st.plan = PlanStore(d, beat_bytes);
        st.lin_addr = st.plan.lin_addr;
        st.lin_left = st.plan.lin_beats;
        ExecStore(d);
        Ctr(csr::Counter::kDmaWriteBytes) += uint64_t{d.rows} * d.lanes * ElementBytes(d);
        break;
      case Kind::kMatmul:
        if (d.new_weights) --unclaimed;
        ExecMatmul(d);
        mms.push_back({i, d.r_ub, d.w_acc, 0, d.rows, d.accumulate});
        mm_active = true;
        mm_left = d.rows;
        mm_need_commit = d.new_weights;
        break;
      case Kind::kActivate:
        ExecActivate(d);
        ac.busy = true;
        ac.pc = i;
        ac.d = d;
        ac.reads_left = d.rows + ActivateSetupReads(d);
        ac.done_at = 0;
        break;
      case Kind::kSync:
        ++Ctr(csr::Counter::kInstructions);
        break;
      case Kind::kHalt:
        ++Ctr(csr::Counter::kInstructions);
        stop = true;
        break;
      default:
        break;
    }
  }
};

Core::Core(const Config& config) : config_(config), memory_(config.memory_bytes) {
  if (config.bus_bytes < 16 || config.bus_bytes > 1024 ||
      (config.bus_bytes & (config.bus_bytes - 1)) != 0) {
    throw std::invalid_argument("model: the bus must be a power of two from 16 to 1024 bytes");
  }
  if (config.rows < 1 || config.cols < 1) throw std::invalid_argument("model: empty array");
  if (config.acc_banks < 1 || config.acc_banks > 32 || config.acc_depth % config.acc_banks != 0) {
    throw std::invalid_argument("model: the accumulator banks must divide its rows (at most 32)");
  }
  ub_.assign(size_t{config.ub_depth} * config.ub_lanes(), 0);
  acc_.assign(size_t{config.acc_depth} * config.cols, 0);
}

Core::~Core() = default;

RunResult Core::Run(uint64_t cmd_addr, uint32_t count) {
  Impl impl(*this);
  return impl.Run(cmd_addr, count);
}

}  // namespace mxu::backends::model
