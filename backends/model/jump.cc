// Time that jumps: stretches of cycles in which the device does the same thing each cycle, done
// in closed form instead of cycle by cycle: a MATMUL's rows streaming, a weight tile shifting
// into the shadow bank, a commit waiting for the other bank to drain, a load engine taking a
// beat and writing a row a cycle, and the waits and countdowns beside them (a STORE moving is
// stepped on its own inside a stretch, as an ACTIVATE reading: JumpSide). A stretch ends before the
// next event any engine waits for (a read beat or a write response due, a done, a request to make,
// the stream's last row), so every counter grows by the same amount each cycle of it, or as the
// marks say (marks.h). Anything else is stepped (core.cc).
#include <algorithm>

#include "backends/model/core_state.h"

namespace mxu::backends::model {
namespace {

// The first cycle of an event at `due` bounds the stretch to the cycles before it.
void Until(uint64_t due, uint64_t now, uint64_t& cycles) {
  cycles = std::min(cycles, due > now ? due - now : 0);
}

}  // namespace

// Whether the array's side stays as it is or moves the same way each cycle from this one: rows
// streaming (`issue`), weight rows shifting from the FIFO into the shadow bank (`shift`), a
// MATMUL waiting for its commit (`stall_weights`). The number of cycles it can (bounded by its
// own events), 0 if not.
uint64_t Core::Impl::ArraySteady(bool* issue, bool* shift, bool* stall_weights) const {
  const ArrayState& a = array;
  uint64_t cycles = ~uint64_t{0};
  // The weight shift: idle, waiting on an empty FIFO (which no load fills in the stretch), or a
  // row a cycle short of the tile's last.
  *shift = a.wl_active && a.wfifo != 0;
  if (*shift) {  // (and short of the FIFO's last row, unless a LOAD WEIGHTS streams: SteadyCycles)
    if (a.wl.k - a.wl_slot < 2) return 0;
    cycles = a.wl.k - a.wl_slot - 1;
  } else if (!a.wl_active && !a.wlq.empty() && !a.shadow_pending) {
    return 0;
  }
  *issue = a.mm_active && !a.mm_need_commit;
  *stall_weights = a.mm_active && a.mm_need_commit;
  if (!a.mm_active) return cycles;
  if (a.mm_need_commit) {  // the commit waits for the shadow bank, then for the other to drain
    if (!a.shadow_pending || a.wl_active) return cycles;
    const bool narrowing = a.wl.n < a.other.n;
    const uint64_t drain = std::max<uint32_t>(a.other_drain, narrowing ? a.other_full : 0);
    return std::min(cycles, drain);  // 0: it commits now
  }
  const Matmul& m = a.mms.back();
  // Streaming: short of the last row (ready), past the first while tracing (it is traced).
  if (a.mm_left < 2 || (trace && a.mm_left == m.rows_total)) return 0;
  if (m.accumulate) {  // no hazard: the rows still in the adder are all behind the stream's
    const uint32_t row = m.w_acc.lo + m.rows_total - a.mm_left;
    for (const auto& [cycle, acc_row] : a.recent_rows) {
      if (now - cycle < kAccAddCycles && acc_row >= row) return 0;
    }
  }
  return std::min<uint64_t>(cycles, a.mm_left - 1);
}

// Whether the DMA engines, the activation unit and the completions stay still (but for a load
// engine streaming, `stream`: its owner, else -1, and the store engine, stepped on its own in
// the stretch, `store`); bounds `cycles` by their next event. The tests most cycles fail come
// first.
bool Core::Impl::EnginesStill(bool shift, uint64_t& cycles, Steady& steady) {
  steady.store = false;
  if (st.busy && !StoreStill(cycles)) {
    if (!StoreMoves(cycles)) return false;
    steady.store = true;
  }
  if (ld.Done() || wld.Done()) return false;
  uint32_t burst = 0;
  if (FetchWants(&burst) || LoadWants(ld) || LoadWants(wld)) return false;
  // An ACTIVATE reading its rows is stepped on its own too (JumpSide): its reads of the
  // accumulators see the result rows issued before the stretch; its UB writes, a LOAD's rows.
  steady.activate = ac.busy && ac.reads_left > 0;
  if (steady.activate && array.mm_active) cycles = std::min<uint64_t>(cycles, latency);
  if (ac.busy && !steady.activate) Until(ac.done_at, now, cycles);
  if (!ac.ub_writes.empty() && !steady.activate) Until(ac.ub_writes.front().first, now, cycles);
  if (!array.mms.empty() && array.mms.front().done_at != 0) {
    Until(array.mms.front().done_at, now, cycles);
  }
  if (st_tail.valid) Until(st_tail.bq.front().due, now, cycles);
  return ReadChannelSteady(shift, cycles, steady) && !(steady.activate && steady.stream == kLd);
}

// The read channel: nothing arrives in the stretch, or a load engine takes one beat a cycle, one
// plain row a beat, and writes one row a cycle: LOAD into the UB, LOAD WEIGHTS into the FIFO
// while it has room, or beside the shift taking a row a cycle. Rows owed to the weights
// otherwise wait for room in the FIFO, which no shift makes.
bool Core::Impl::ReadChannelSteady(bool shift, uint64_t& cycles, Steady& steady) {
  steady.stream = -1;
  steady.ld_steps = false;
  const bool wld_still = wld.Owed() == 0 || (!shift && array.wfifo >= cfg.wfifo_depth);
  if (rq.empty() || rq.front().due > now) {
    if (!rq.empty()) Until(rq.front().due, now, cycles);
    return ld.Owed() == 0 && wld_still;
  }
  const ReadBurst& b = rq.front();
  if (b.owner == kFetch || b.error || (b.owner == kLd ? !wld_still : ld.Owed() != 0)) return false;
  LoadEngine& e = b.owner == kLd ? ld : wld;
  if (e.q.empty()) return false;
  const LoadCmd& c = e.q.front();
  const uint32_t own = c.ready_rows - c.written;
  // A linear LOAD of rows of a beat or more, the only one owing rows: a beat completes a row at
  // most, so one is owed at most, a beat and a row each cycle.
  const bool linear = c.beats_got < c.beats_total && c.plan.linear && !c.d.flag && !IsAcc(c.d) &&
                      c.plan.lin_row_bytes >= beat_bytes && own <= 1 && e.Owed() == own;
  if (!e.weights && !linear) {
    // Any other LOAD's beats (short rows, strided, transposed, into the accumulators): its
    // read-data side stepped on its own (JumpSide), up to a request or a done. Rows into the
    // accumulators see the result rows issued before the stretch.
    if (array.mm_active) {
      for (const LoadCmd& q : ld.q) {
        if (IsAcc(q.d)) cycles = std::min<uint64_t>(cycles, latency);
      }
    }
    steady.stream = kLd;
    steady.ld_steps = true;
    return true;
  }
  if (!linear) return false;
  // LOAD WEIGHTS beside the shift taking a row a cycle: a row in, a row out, each cycle, from a
  // row owed on (a beat a row).
  const bool beside_shift = e.weights && (array.wl_active || shift);
  if (beside_shift && (!shift || own != 1 || c.plan.lin_row_bytes != beat_bytes)) return false;
  // Up to the burst's last beat, which frees a request (made in that cycle: Jump).
  cycles = std::min<uint64_t>(cycles, b.beats - b.next);
  if (e.weights && !beside_shift) {  // room in the FIFO for every row written in the stretch
    if (array.wfifo + own >= cfg.wfifo_depth) return false;
    cycles = std::min<uint64_t>(cycles, cfg.wfifo_depth - array.wfifo - own);
  }
  steady.stream = b.owner;
  return true;
}

// The store engine waits: no row to read or move, its current beat waiting for a write burst to
// be answered; bounds `cycles` by the next response.
bool Core::Impl::StoreStill(uint64_t& cycles) const {
  const StoreEngine& s = st;
  if (s.rd_pending || (!s.cur.valid && s.nxt.valid)) return false;
  if (s.rd_row != s.d.rows && !s.nxt.valid) return false;  // a row read may be granted
  if (s.rows_done == s.d.rows) return false;
  if (s.cur.valid &&
      (s.plan.row_beats[s.cur.row] == 0 || s.burst_left != 0 || s.bq.size() < cfg.max_in_flight)) {
    return false;
  }
  if (!st_tail.valid && !s.bq.empty() && s.bq.front().due != 0) {
    Until(s.bq.front().due, now, cycles);
  }
  return true;
}

// The store engine moving in the stretch, stepped on its own (JumpSide): its rows not all sent;
// an ACC source's read port sees only the result rows issued before the stretch.
bool Core::Impl::StoreMoves(uint64_t& cycles) const {
  if (st.rows_done == st.d.rows) return false;
  if (!st_tail.valid && !st.bq.empty() && st.bq.front().due != 0) {
    Until(st.bq.front().due, now, cycles);
  }
  if (IsAcc(st.d) && array.mm_active) cycles = std::min<uint64_t>(cycles, latency);
  return true;
}

// The stall counter dispatch adds to each cycle while nothing else changes (kStallDependency or
// kStallFetch); kNumCounters if it would dispatch, advance or stop.
uint32_t Core::Impl::DispatchStall(const Scoreboard& sb) {
  uint64_t slot = 0;
  const bool valid = HeadValid(&slot);
  if (!fetch.ibuf.empty() && fetch.ibuf.front().pushed < now && !valid) return csr::kNumCounters;
  if (valid) {
    const uint32_t i = static_cast<uint32_t>(slot - fetch.first_slot);
    if (decoded_i != i || decoded_unclaimed != array.unclaimed) return csr::kNumCounters;
    const Decoded& d = decoded;
    if (d.err == 0 && (Conflicts(d, sb) || StructuralHazard(d, sb))) {
      return static_cast<uint32_t>(csr::Counter::kStallDependency);
    }
    return csr::kNumCounters;
  }
  if (pc == count || (fetch.error && fetch.ibuf.empty() && fetch.beats_out == 0)) {
    return csr::kNumCounters;
  }
  return static_cast<uint32_t>(csr::Counter::kStallFetch);
}

// Cycles from now that may be done in closed form (0: step this one).
// `sb` and `moved`: the scoreboard's view of this cycle, when it was taken (`have_sb`).
uint64_t Core::Impl::SteadyCycles(Steady& steady, Scoreboard& sb, DmaProgress& moved,
                                  bool& have_sb) {
  bool issue = false, shift = false, stall_weights = false;
  uint64_t cycles = ArraySteady(&issue, &shift, &stall_weights);
  if (cycles < 2) return 0;
  if (!EnginesStill(shift, cycles, steady)) return 0;
  const int stream = steady.stream;
  if (shift && stream != kWld) cycles = std::min<uint64_t>(cycles, array.wfifo);  // none comes in
  if (cycles < 2) return 0;
  Snapshot(sb, moved);
  have_sb = true;
  Scoreboard seen = sb;  // as dispatch sees it in each cycle of the stretch
  seen.mm_ready = !array.mm_active;
  steady.stall = DispatchStall(seen);
  if (steady.stall == csr::kNumCounters) return 0;
  steady.issue = issue;
  steady.shift = shift;
  steady.stall_weights = stall_weights;
  steady.stall_memory = (sb.ld_any && !moved.ld && stream != kLd) ||
                        (sb.wld_any && !moved.wld && stream != kWld) ||
                        (!steady.store && sb.st_busy && !moved.st);
  steady.dma = (ld.any() ? 1 : 0) + (wld.any() ? 1 : 0) + (st.busy || st_tail.valid ? 1 : 0);
  return cycles;
}

// Cycles now .. now + k - 1 in closed form; now is left at the last.
uint64_t Core::Impl::Jump(uint64_t k, const Steady& steady) {
  ArrayState& a = array;
  ac.writes_ub = false;
  ac.reads_acc = false;
  if (steady.store || steady.activate || steady.ld_steps) k = JumpSide(k, steady);
  if (k == 0) return 0;
  const uint64_t s = now, e = now + k - 1;
  Ctr(static_cast<csr::Counter>(steady.stall)) += k;
  if (steady.stall_memory) Ctr(csr::Counter::kStallMemory) += k;
  if (steady.stall_weights) Ctr(csr::Counter::kStallWeights) += k;
  clocks.dma_cycles += k * steady.dma;
  clocks.activate_cycles += clocks.activate.Count(s, e);
  if (steady.stream >= 0 && !steady.ld_steps) JumpLoadBeats(steady.stream == kLd ? ld : wld, k);
  // The columns: each cycle's shifting row and streaming row run the tiles' columns.
  clocks.CountColumns(s, e, std::max(steady.issue ? a.cur.n : 0, steady.shift ? a.wl.n : 0));
  if (steady.shift) {
    clocks.MarkColumns(a.wl.n, e);
    a.wfifo -= static_cast<uint32_t>(k);
    a.wl_slot += static_cast<uint32_t>(k);
  }
  if (!steady.issue) {
    clocks.acc_cycles += clocks.acc.Count(s, e);
  } else {
    JumpRows(s, e);
  }
  a.other_drain = a.other_drain > k ? a.other_drain - static_cast<uint32_t>(k) : 0;
  a.other_full = a.other_full > k ? a.other_full - static_cast<uint32_t>(k) : 0;
  const uint32_t cur_full = a.cur_full > k ? a.cur_full - static_cast<uint32_t>(k) : 0;
  a.cur_full = steady.issue ? CommitGap(R, add_cycles) - 1 : cur_full;
  uint32_t floor = 0;
  if (steady.issue) floor = CommitGap(std::min(a.mms.back().k_rows, a.cur.k), add_cycles) - 1;
  const uint32_t cur_drain = a.cur_drain > k ? a.cur_drain - static_cast<uint32_t>(k) : 0;
  a.cur_drain = std::max(cur_drain, floor);
  a.reads_ub = steady.issue;
  now = e;
  // The last cycle's requests: none before it (a load's last beat may free one; then it is its
  // engine's, which moved taking the beat, so STALL_MEMORY is as counted).
  DmaProgress moved;
  ReadRequestCycle(moved);
  return k;
}

// The store engine, the activation unit and a LOAD of short rows, cycle by cycle from now for at
// most k cycles, the rest of the device as the stretch has it (the array's stream reading its
// UB rows). It stops before a write response is due, after the cycle the STORE's last row goes
// out, the ACTIVATE's last row is read or the LOAD's burst ends (`burst_done`). Returns the
// cycles done, now left as it was.
uint64_t Core::Impl::JumpSide(uint64_t k, const Steady& steady) {
  const uint64_t s = now;
  const Matmul* m = steady.issue ? &array.mms.back() : nullptr;
  const uint32_t ub_row = m != nullptr ? m->r_ub.lo + m->rows_total - array.mm_left : 0;
  uint64_t done = 0;
  for (; done < k; ++done) {
    now = s + done;
    const std::deque<WriteBurst>& bq = st_tail.valid ? st_tail.bq : st.bq;
    if (!bq.empty() && bq.front().due != 0 && bq.front().due <= now) break;
    // STALL_MEMORY: the engines' view before they move (Snapshot), then the beat taken.
    bool stalled = steady.store && !st.Moves(cfg.max_in_flight);
    const bool ld_owed = ld.Owed() > 0;
    array.reads_ub = steady.issue;
    array.ub_read_row = ub_row + static_cast<uint32_t>(done);
    ActivationCycle();
    bool burst_end = false;
    const bool beat = steady.ld_steps && LoadStep(&burst_end);
    StoreCycle();
    stalled = stalled || (steady.ld_steps && !ld_owed && !beat);
    if (stalled && !steady.stall_memory) ++Ctr(csr::Counter::kStallMemory);
    if ((steady.store && (st.rows_done == st.d.rows || !st.busy)) ||
        (steady.activate && ac.reads_left == 0) ||
        (steady.ld_steps && (burst_end || LoadWants(ld) || ld.Done()))) {
      ++done;
      break;
    }
  }
  now = s;
  return done;
}

// A cycle of the LOAD engine's read-data side, as ReadDataCycle does it: a row out if owed, the
// channel's beat taken when the engine is ready. Returns whether it took the beat;
// `burst_end`: the beat ended its burst.
bool Core::Impl::LoadStep(bool* burst_end) {
  ReadBurst& b = rq.front();
  const bool ready = LoadReady(ld);
  LoadRows(ld);
  if (!ready) return false;
  Ctr(csr::Counter::kDmaReadBytes) += beat_bytes;
  LoadBeat(ld, b.next + 1 == b.beats);
  if (++b.next == b.beats) {
    rq.pop_front();
    *burst_end = true;
  }
  return true;
}

// A beat a cycle into the load at the head of its engine, which writes a row a cycle while one
// is owed: after k cycles it has written the rows the first k - 1 beats completed.
void Core::Impl::JumpLoadBeats(LoadEngine& e, uint64_t k) {
  LoadCmd& c = e.q.front();
  const auto ready = [&](uint64_t beats) {  // LoadBeat's rule
    const uint64_t in = beats * beat_bytes - c.plan.lin_off;
    return static_cast<uint32_t>(std::min<uint64_t>(c.d.rows, in / c.plan.lin_row_bytes));
  };
  const uint32_t written = c.beats_got + k - 1 == 0 ? 0 : ready(c.beats_got + k - 1);
  if (e.weights) array.wfifo += std::max(written, c.written) - c.written;
  c.written = std::max(written, c.written);
  c.beats_got += k;
  c.ready_rows = ready(c.beats_got);
  Ctr(csr::Counter::kDmaReadBytes) += k * beat_bytes;
  if ((rq.front().next += static_cast<uint32_t>(k)) != rq.front().beats) return;
  rq.pop_front();  // the burst's last beat
  --e.bursts_out;
}

// The rows of cycles s .. e: their counters, clocks, result slots and adder history. No mark
// made in the stretch covers a cycle before the one it is made in, so the stretch's cycles are
// counted after its rows' marks.
void Core::Impl::JumpRows(uint64_t s, uint64_t e) {
  ArrayState& a = array;
  const Matmul& m = a.mms.back();
  const uint64_t k = e - s + 1;
  const uint32_t row_s = m.w_acc.lo + m.rows_total - a.mm_left;
  clocks.acc.Mark(s + latency, e + latency + kAccAddCycles);
  clocks.acc_cycles += clocks.acc.Count(s, e);
  // The result rows' banks: a span for each bank the rows cross.
  for (uint64_t t = s; t <= e;) {
    const uint32_t bank = (row_s + static_cast<uint32_t>(t - s)) / bank_rows;
    const uint64_t bank_end = s + ((bank + 1) * bank_rows - row_s) - 1;  // its last row's cycle
    const uint64_t last = std::min(e, bank_end);
    const uint64_t arrive = t + latency, written = arrive + kAccAddCycles;
    if (m.accumulate) ResultSlots::Add(results.rd, s, arrive, last + latency, 1u << bank);
    ResultSlots::Add(results.wr, s, written, last + latency + kAccAddCycles, 1u << bank);
    t = last + 1;
  }
  clocks.MarkColumns(a.cur.n, e + column_span);
  for (uint64_t t = std::max(s, e >= kAccAddCycles ? e - kAccAddCycles + 1 : 0); t <= e; ++t) {
    a.recent_rows.emplace_back(t, row_s + static_cast<uint32_t>(t - s));
  }
  while (!a.recent_rows.empty() && e - a.recent_rows.front().first >= kAccAddCycles) {
    a.recent_rows.pop_front();
  }
  Ctr(csr::Counter::kArrayBusy) += k;
  Ctr(csr::Counter::kMacs) += k * R * C;
  a.ub_read_row = m.r_ub.lo + m.rows_total - a.mm_left + static_cast<uint32_t>(k) - 1;
  a.mm_left -= static_cast<uint32_t>(k);
}

}  // namespace mxu::backends::model
