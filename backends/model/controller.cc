// The controller (mxu_controller): instruction fetch (mxu_ctrl_fetch), in-order dispatch with
// the conflict rules (mxu_ctrl_dispatch) and the scoreboard's completions
// (mxu_ctrl_scoreboard). The decoder is decode.cc.
#include "backends/model/core_state.h"

namespace mxu::backends::model {

using csr::ErrorCode;

// Fetch: bursts of up to kFetchBurstBeats (4) beats while the buffer has room.
bool Core::Impl::FetchWants(uint32_t* burst) const {
  if (stop || fetch.error || fetch.next_slot >= fetch.end_slot) return false;
  if (fetch.ibuf.size() + fetch.beats_out >= ibuf_beats) return false;  // no room for a beat
  const uint64_t beat_slot = fetch.next_slot & ~(slots_per_beat - 1);
  uint32_t b = kFetchBurstBeats;
  if (beat_slot + kFetchBurstBeats * slots_per_beat > fetch.end_slot) {
    b = static_cast<uint32_t>((fetch.end_slot - beat_slot + slots_per_beat - 1) >> slot_shift);
  }
  // Powers of two: shifts and masks, not divisions, in a test made most cycles.
  const uint32_t page_beats = static_cast<uint32_t>(kPage >> beat_shift);
  const uint32_t in_page =
      static_cast<uint32_t>((fetch.next_slot >> slot_shift) & (page_beats - 1));
  if (in_page + b > page_beats) b = page_beats - in_page;
  if (fetch.ibuf.size() + fetch.beats_out + b > ibuf_beats) return false;
  *burst = b;
  return true;
}

void Core::Impl::FetchIssue(uint32_t beats) {
  const uint64_t beat_slot = fetch.next_slot & ~(slots_per_beat - 1);
  const uint64_t addr = beat_slot * 16;
  IssueRead(kFetch, addr, beats);
  // The words are read when the request is made (the platform's memory is loosely timed).
  if (!mem.Fails(addr, beats * beat_bytes)) {
    for (uint64_t s = beat_slot; s < beat_slot + slots_per_beat * beats; ++s) {
      if (fetch.SlotValid(s)) {
        uint32_t words[4];
        mem.Read(s * 16, words, 16);
        fetch.program[static_cast<size_t>(s - fetch.first_slot)] = {words[0], words[1], words[2],
                                                                    words[3]};
      }
    }
  }
  fetch.next_slot = beat_slot + slots_per_beat * beats;
  fetch.beats_out += beats;
}

// A fetched beat into the fetch buffer; a failed one is the fetch's error, reported when the
// instructions before it have dispatched.
void Core::Impl::FetchTakeBeat(const ReadBurst& b) {
  if (b.error) {
    if (!fetch.error) fetch.error_addr = b.addr + uint64_t{b.next} * beat_bytes;
    fetch.error = true;
  } else {
    fetch.ibuf.push_back({b.addr / 16 + uint64_t{b.next} * slots_per_beat, now});
  }
  --fetch.beats_out;
}

// The instruction at the head of the fetch buffer this cycle, if any.
bool Core::Impl::HeadValid(uint64_t* slot) const {
  if (fetch.ibuf.empty() || fetch.ibuf.front().pushed >= now) return false;
  const uint64_t s = fetch.ibuf.front().slot_lo + fetch.head_slot;
  *slot = s;
  return fetch.SlotValid(s);
}

// To the next slot of the head beat while one of the later ones holds an instruction (slots
// outside the program lie before or after it), else to the next beat.
void Core::Impl::AdvanceHead() {
  const uint64_t lo = fetch.ibuf.front().slot_lo;
  bool later = false;
  for (uint64_t i = fetch.head_slot + 1; i < slots_per_beat; ++i) {
    later = later || fetch.SlotValid(lo + i);
  }
  if (later) {
    ++fetch.head_slot;
  } else {
    fetch.ibuf.pop_front();
    fetch.head_slot = 0;
  }
}

// Dispatch, one instruction at most a cycle. False when the run stops (an error, HALT).
bool Core::Impl::DispatchCycle(const Scoreboard& sb) {
  uint64_t slot = 0;
  const bool valid = HeadValid(&slot);
  if (!fetch.ibuf.empty() && fetch.ibuf.front().pushed < now && !valid) {
    AdvanceHead();  // a slot outside the program
    return true;
  }
  if (valid) return TryDispatch(sb, slot);
  if (pc == count) {
    Error(ErrorCode::kCmdOverrun, pc);
    return false;
  }
  if (fetch.error && fetch.ibuf.empty() && fetch.beats_out == 0) {
    Error(ErrorCode::kMemRead, pc, fetch.error_addr);
    return false;
  }
  ++Ctr(csr::Counter::kStallFetch);
  return true;
}

bool Core::Impl::TryDispatch(const Scoreboard& sb, uint64_t slot) {
  const uint32_t i = static_cast<uint32_t>(slot - fetch.first_slot);
  // An instruction waiting on a hazard is tried every cycle: decode it once (its words are
  // fixed; the weights' count is the decoder's only other input).
  if (decoded_i != i || decoded_unclaimed != array.unclaimed) {
    decoded = Decode(fetch.program[i], cfg, array.unclaimed);
    decoded_i = i;
    decoded_unclaimed = array.unclaimed;
  }
  const Decoded& d = decoded;
  if (d.err != 0) {
    Error(static_cast<ErrorCode>(d.err), pc);
    return false;
  }
  if (Conflicts(d, sb) || StructuralHazard(d, sb)) {
    ++Ctr(csr::Counter::kStallDependency);
    return true;
  }
  Dispatch(d, i);
  AdvanceHead();
  ++pc;
  return !stop;
}

namespace {

// Whether `d` may not start beside an instruction in flight with these ranges: it would read
// what that one writes, or write what it reads or writes.
bool Hazard(const Decoded& d, const Range& r_ub, const Range& w_ub, const Range& r_acc,
            const Range& w_acc) {
  return Overlap(d.r_ub, w_ub) || Overlap(d.w_ub, w_ub) || Overlap(d.w_ub, r_ub) ||
         Overlap(d.r_acc, w_acc) || Overlap(d.w_acc, w_acc) || Overlap(d.w_acc, r_acc);
}
bool Hazard(const Decoded& d, const Decoded& other) {
  return Hazard(d, other.r_ub, other.w_ub, other.r_acc, other.w_acc);
}

}  // namespace

bool Core::Impl::Conflicts(const Decoded& d, const Scoreboard& sb) const {
  for (const LoadCmd& c : ld.q) {
    if (Hazard(d, c.d)) return true;
  }
  if (sb.st_busy && Hazard(d, st.d)) return true;
  // An ACTIVATE's bias and quantization rows are one-row read ranges: nothing may write them
  // while it runs, and it waits for the writers already in flight.
  if (sb.ac_busy &&
      (Hazard(d, ac.d) || Overlap(d.w_acc, ac.d.r_bias) || Overlap(d.w_acc, ac.d.r_quant))) {
    return true;
  }
  if (d.kind == Kind::kActivate) {
    for (const Range& row : {d.r_bias, d.r_quant}) {
      for (const LoadCmd& c : ld.q) {
        if (Overlap(row, c.d.w_acc)) return true;
      }
      for (const Matmul& m : array.mms) {
        if (Overlap(row, m.w_acc)) return true;
      }
    }
  }
  // MATMULs keep their order in the datapath; other engines' ranges still count.
  if (d.kind != Kind::kMatmul) {
    for (const Matmul& m : array.mms) {
      if (Hazard(d, m.r_ub, Range{}, Range{}, m.w_acc)) return true;
    }
  }
  return false;
}

// Whether the engine `d` needs cannot take it; SYNC and HALT wait for every engine.
bool Core::Impl::StructuralHazard(const Decoded& d, const Scoreboard& sb) const {
  switch (d.kind) {
    case Kind::kLoad:
      return sb.ld_busy;
    case Kind::kWload:
      return sb.wld_busy || array.wlq.size() >= kWeightLoadQueueDepth;
    case Kind::kStore:
      return sb.st_busy;
    case Kind::kMatmul:
      return !sb.mm_ready || sb.mm_full;
    case Kind::kActivate:
      return sb.ac_busy;
    default:
      return sb.ld_any || sb.wld_any || sb.st_busy || st_tail.valid || sb.ac_busy ||
             !array.mms.empty() || array.mm_active;
  }
}

void Core::Impl::Dispatch(const Decoded& d, uint32_t i) {
  Trace("dispatch", i);
  switch (d.kind) {
    case Kind::kLoad:
    case Kind::kWload:
      DispatchLoad(d, i);
      break;
    case Kind::kStore:
      DispatchStore(d, i);
      break;
    case Kind::kMatmul:
      DispatchMatmul(d, i);
      break;
    case Kind::kActivate:
      DispatchActivate(d, i);
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

void Core::Impl::Completed(const char* what, uint32_t i) {
  Trace(what, i);
  ++Ctr(csr::Counter::kInstructions);
}

// Completions: the scoreboard frees an engine the cycle after its done.
void Core::Impl::RetireCycle(const Scoreboard& sb) {
  if (sb.ld_done) {
    Completed("done load", ld.q.front().pc);
    ld.PopFront();
  }
  if (sb.wld_done) {
    Completed("done wload", wld.q.front().pc);
    wld.PopFront();
  }
  if (sb.st_done) {
    Completed("done store", st.pc);
    st.busy = false;
  }
  while (!array.mms.empty() && array.mms.front().done_at != 0 && array.mms.front().done_at <= now) {
    Completed("done matmul", array.mms.front().pc);
    array.mms.pop_front();
  }
  if (ac.busy && ac.reads_left == 0 && ac.done_at <= now) {
    Completed("done activate", ac.pc);
    ac.busy = false;
  }
}

}  // namespace mxu::backends::model
