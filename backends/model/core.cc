// The model's run: the cycle loop, the memory port the engines share (the read-data channel,
// the request arbiter) and errors. The engines are in the files core_state.h lists.
#include "backends/model/core.h"

#include <stdexcept>
#include <string>

#include "backends/model/core_state.h"
#include "golden/numerics.h"

namespace mxu::backends::model {

using csr::ErrorCode;

Core::Impl::Impl(Core& c)
    : core(c),
      cfg(c.config_),
      mem(c.memory_),
      R(cfg.rows),
      C(cfg.cols),
      L(cfg.ub_lanes()),
      latency(ArrayLatency(R, C, PePipelineOf(cfg.pe_stages))),
      add_cycles(PePipelineOf(cfg.pe_stages).add_cycles),
      mm_slots(MatmulSlots(R, C, PePipelineOf(cfg.pe_stages))),
      column_span((R - 1) * PePipelineOf(cfg.pe_stages).add_cycles +
                  PePipelineOf(cfg.pe_stages).mul_cycles + PePipelineOf(cfg.pe_stages).add_cycles -
                  1),
      beat_bytes(cfg.bus_bytes),
      slots_per_beat(cfg.bus_bytes / 16),
      ibuf_beats(FetchIbufBeats(cfg.bus_bytes)),
      beat_shift(static_cast<uint32_t>(__builtin_ctzll(beat_bytes))),
      slot_shift(static_cast<uint32_t>(__builtin_ctzll(slots_per_beat))),
      bank_rows(cfg.acc_depth / cfg.acc_banks) {}

RunResult Core::Impl::Run(uint64_t cmd_addr, uint32_t n) {
  golden::ScopedFpMode fp_mode(cfg.subnormals);
  Start(cmd_addr, n);
  Ctr(csr::Counter::kCycles) = RunCycles() + 1;
  CountClocks();
  res.pc = pc;
  return res;
}

// Cycle 0: the clear state (the start is checked there).
void Core::Impl::Start(uint64_t cmd_addr, uint32_t n) {
  memm.t = cfg.timing;
  count = n;
  fetch.program.assign(n, isa::Words{});
  fetch.first_slot = cmd_addr / 16;
  fetch.end_slot = fetch.first_slot + n;
  fetch.next_slot = fetch.first_slot;
  wld.weights = true;
  array.cur_drain = array.other_drain = 0;
  array.cur = array.other = TileExtent{R, C};
  now = 0;
  if (cmd_addr % 16 != 0) {
    Error(ErrorCode::kMisaligned, 0, cmd_addr);
  } else if (n == 0) {
    Error(ErrorCode::kCmdOverrun, 0);
  }
}

// Steps the cycles from 1 to the last one (returned): past HALT or an error, the drain lets
// every read and write response still on its way come back.
uint64_t Core::Impl::RunCycles() {
  // A watchdog for the model itself: the device's engines never wait on each other for long,
  // so a stretch with no progress is a model bug. It stops with an error instead of a hang.
  const uint64_t stuck_limit = 100'000 + 4 * uint64_t{cfg.timing.latency_cycles};
  uint64_t last_signature = ~uint64_t{0}, last_progress = 0;
  for (now = 1; now < ~uint64_t{0}; ++now) {
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
      DrainCycle();
      CountCycleClocks();
      if (Drained()) return now;
      continue;
    }
    // The scoreboard's view, taken once: for the stretch's checks and for the step.
    DmaProgress moved;
    Scoreboard sb;
    bool have_sb = false;
    Steady steady;
    // A stretch never passes the watchdog's next look.
    const uint64_t k = std::min(SteadyCycles(steady, sb, moved, have_sb), 1024 - (now & 1023));
    if (k >= 2 && Jump(k, steady) != 0) continue;
    if (!have_sb) Snapshot(sb, moved);
    Step(sb, moved);
    CountCycleClocks();
    if (stop && Drained()) return now + 1;
  }
  return 0;
}

// This cycle's gated clocks: the datapath's as marked, each DMA engine's while it holds a command
// (offered in this cycle, or accepted and not yet done).
void Core::Impl::CountCycleClocks() {
  clocks.Count(now);
  clocks.dma_cycles +=
      (ld.any() ? 1 : 0) + (wld.any() ? 1 : 0) + (st.busy || st_tail.valid ? 1 : 0);
}

// The clock counters. Ungated (gate=0) every clock runs in every cycle of the program.
void Core::Impl::CountClocks() {
  const uint64_t cycles = Ctr(csr::Counter::kCycles);
  const bool gated = cfg.clock_gating;
  Ctr(csr::Counter::kColumnClocks) = gated ? clocks.column_clocks : uint64_t{C} * cycles;
  Ctr(csr::Counter::kAccClocks) = gated ? clocks.acc_cycles : cycles;
  Ctr(csr::Counter::kActivateClocks) = gated ? clocks.activate_cycles : cycles;
  Ctr(csr::Counter::kDmaClocks) = gated ? clocks.dma_cycles : 3 * cycles;
}

// Changes whenever an engine moves: instructions dispatched, read beats taken, rows written,
// store rows read and write responses.
uint64_t Core::Impl::ProgressSignature() const {
  uint64_t sig = pc * 0x9E3779B97F4A7C15ull + rq.size() * 0x100000001B3ull + st.rows_done * 31 +
                 st.bq.size() * 131 + fetch.ibuf.size() * 7 + array.wfifo * 13;
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

// One cycle, in the order the RTL's blocks see each other's registered state.
void Core::Impl::Step(Scoreboard sb, DmaProgress moved) {
  sb.mm_ready = ArrayCycle();
  ActivationCycle();
  ReadDataCycle(moved);
  StoreCycle();
  if (stop) return;
  if (!DispatchCycle(sb)) return;
  ReadRequestCycle(moved);
  // A DMA engine busy with nothing requested, arriving or written: waiting on memory.
  if ((sb.ld_any && !moved.ld) || (sb.wld_any && !moved.wld) || (sb.st_busy && !moved.st)) {
    ++Ctr(csr::Counter::kStallMemory);
  }
  RetireCycle(sb);
}

// The scoreboard's view before anything moves; `moved`: the DMA engines that move whatever
// else happens this cycle (rows owed to a buffer with room, a store row or beat). Written in
// place: a returned struct of flags is read back wider than it was written, which stalls.
void Core::Impl::Snapshot(Scoreboard& sb, DmaProgress& moved) {
  sb.mm_ready = false;
  // A load engine takes a command only once it has requested every burst of the last one.
  sb.ld_busy = ld.busy() || ld.Generating() != nullptr;
  sb.wld_busy = wld.busy() || wld.Generating() != nullptr;
  sb.st_busy = st.busy;
  sb.ac_busy = ac.busy;
  sb.ld_any = ld.any();
  sb.wld_any = wld.any();
  sb.mm_full = array.mms.size() >= mm_slots;
  sb.ld_done = ld.Done();
  sb.wld_done = wld.Done();
  sb.st_done = st.Done();
  moved.ld = ld.Owed() > 0;
  moved.wld = wld.Owed() > 0 && array.wfifo < cfg.wfifo_depth;
  moved.st = st.Moves(cfg.max_in_flight);
}

// Past HALT or an error: read beats are dropped one a cycle, the store engine drains.
void Core::Impl::DrainCycle() {
  if (!rq.empty() && rq.front().due <= now) {
    ReadBurst& b = rq.front();
    if (++b.next == b.beats) rq.pop_front();
  }
  StoreDrain();
}

void Core::Impl::Error(ErrorCode code, uint32_t epc, uint64_t addr) {
  if (stop) return;
  stop = true;
  res.error = true;
  res.error_code = static_cast<uint32_t>(code);
  res.error_pc = epc;
  res.error_addr = addr;
}

void Core::Impl::IssueRead(int owner, uint64_t addr, uint32_t beats) {
  const bool error = mem.Fails(addr, beats * beat_bytes);
  const uint64_t completion = error ? now : memm.Schedule(now, beats * beat_bytes);
  rq.push_back({std::max(completion, now + 1), addr, beats, 0, owner, error});
}

// The read-data channel: one beat a cycle, in order, taken when its owner has room; the load
// engines write their rows either way.
void Core::Impl::ReadDataCycle(DmaProgress& moved) {
  ReadBurst* b = !rq.empty() && rq.front().due <= now ? &rq.front() : nullptr;
  const bool ready = b != nullptr && (b->owner == kFetch || LoadReady(b->owner == kLd ? ld : wld));
  LoadRows(ld);
  LoadRows(wld);
  if (!ready) return;
  Ctr(csr::Counter::kDmaReadBytes) += beat_bytes;
  if (b->owner == kFetch) {
    FetchTakeBeat(*b);
  } else {
    LoadEngine& e = b->owner == kLd ? ld : wld;
    (b->owner == kLd ? moved.ld : moved.wld) = true;
    if (b->error) Error(ErrorCode::kMemRead, e.Consuming()->pc, b->addr);
    LoadBeat(e, b->next + 1 == b->beats);
  }
  if (++b->next == b->beats) rq.pop_front();
}

// Read requests: fetch first, then the load engines in turn.
void Core::Impl::ReadRequestCycle(DmaProgress& moved) {
  uint32_t fetch_beats = 0;
  if (FetchWants(&fetch_beats)) {
    FetchIssue(fetch_beats);
    return;
  }
  const bool lw = LoadWants(ld), ww = LoadWants(wld);
  if (ww && (!lw || weights_turn)) {
    LoadIssue(wld, kWld);
    weights_turn = false;
    moved.wld = true;
  } else if (lw) {
    LoadIssue(ld, kLd);
    weights_turn = true;
    moved.ld = true;
  }
}

Core::Core(const Config& config) : config_(config), memory_(config.memory_bytes) {
  if (config.bus_bytes < 16 || config.bus_bytes > 1024 ||
      (config.bus_bytes & (config.bus_bytes - 1)) != 0) {
    throw std::invalid_argument("model: the bus must be a power of two from 16 to 1024 bytes");
  }
  if (config.rows < 1 || config.cols < 1) throw std::invalid_argument("model: empty array");
  if (config.acc_banks < 1 || config.acc_banks > 32 || config.acc_depth % config.acc_banks != 0) {
    throw std::invalid_argument("model: the accumulator banks must divide its rows (at most 32)");
  }
  set_timing(config.timing);
  ub_.assign(size_t{config.ub_depth} * config.ub_lanes(), 0);
  acc_.assign(size_t{config.acc_depth} * config.cols, 0);
}

Core::~Core() = default;

RunResult Core::Run(uint64_t cmd_addr, uint32_t count) {
  Impl impl(*this);
  return impl.Run(cmd_addr, count);
}

}  // namespace mxu::backends::model
