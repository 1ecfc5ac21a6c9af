// The store engine (mxu_dma_store): a STORE's rows read from the UB or the accumulators (the
// lowest priority on their read ports), sent as write bursts, and their responses in order.
// A STORE whose beats are all out leaves its responses to the tail and the engine takes the
// next one.
#include <algorithm>
#include <cstring>
#include <utility>

#include "backends/model/bits.h"
#include "backends/model/core_state.h"

namespace mxu::backends::model {

using csr::ErrorCode;

StorePlan PlanStore(const Decoded& d, uint64_t beat) {
  StorePlan plan;
  const HostRows host_rows = HostRowsOf(d);
  const uint64_t stride_bytes = host_rows.stride, row_bytes = host_rows.row;
  // Rows back to back stream, whatever their length and alignment: a beat that ends one row and
  // starts the next is kept by the first (the carry) and sent with the second.
  plan.linear = row_bytes == stride_bytes;
  plan.row_beats.resize(d.rows);
  plan.row_base.resize(d.rows);
  for (uint32_t i = 0; i < d.rows; ++i) {
    const uint64_t a = d.host + i * stride_bytes;
    const bool keeps = plan.linear && (a + row_bytes) % beat != 0 && i + 1 < d.rows;
    plan.row_base[i] = a & ~(beat - 1);
    plan.row_beats[i] = static_cast<uint32_t>((a % beat + row_bytes + beat - 1) / beat - keeps);
  }
  plan.lin_addr = d.host & ~(beat - 1);
  plan.lin_beats =
      plan.linear ? (d.host % beat + uint64_t{d.rows} * row_bytes + beat - 1) / beat : 0;
  return plan;
}

void Core::Impl::DispatchStore(const Decoded& d, uint32_t i) {
  st = StoreEngine();
  st.busy = true;
  st.pc = i;
  st.d = d;
  st.plan = PlanStore(d, beat_bytes);
  st.lin_addr = st.plan.lin_addr;
  st.lin_left = st.plan.lin_beats;
  ExecStore(d);
  Ctr(csr::Counter::kDmaWriteBytes) += uint64_t{d.rows} * d.lanes * ElementBytes(d);
}

// Bursts that fail write nothing: the byte ranges of a STORE's failing bursts (rare).
std::vector<std::pair<uint64_t, uint64_t>> Core::Impl::FailingWrites(const Decoded& d) const {
  std::vector<Burst> bursts;
  if (st.plan.linear) {
    AppendBursts(st.plan.lin_addr, st.plan.lin_beats, beat_bytes, false, bursts);
  } else {
    for (uint32_t i = 0; i < d.rows; ++i) {
      AppendBursts(st.plan.row_base[i], st.plan.row_beats[i], beat_bytes, false, bursts);
    }
  }
  std::vector<std::pair<uint64_t, uint64_t>> bad;
  for (const Burst& b : bursts) {
    if (mem.Fails(b.addr, b.beats * beat_bytes))
      bad.push_back({b.addr, b.addr + b.beats * beat_bytes});
  }
  return bad;
}

// Row i of a STORE as the engine sends it: fp32 or int32 words (ReLU with the flag), the int8
// mode's low bytes, or bf16 lanes.
void Core::Impl::StoreRowBytes(const Decoded& d, uint32_t i, uint8_t* bytes) const {
  if (IsAcc(d)) {
    const uint32_t* row = &core.acc_[size_t{d.buf_addr + i} * C];
    for (uint32_t j = 0; j < d.lanes; ++j) {
      // int32 words have no NaN: the integer ReLU only zeroes negatives.
      const uint32_t relu = d.integer ? ((row[j] >> 31) ? 0u : row[j]) : ReluBits(row[j]);
      const uint32_t v = d.flag ? relu : row[j];
      std::memcpy(&bytes[4 * j], &v, 4);
    }
  } else if (d.integer) {
    const uint16_t* row = &core.ub_[size_t{d.buf_addr + i} * L];
    for (uint32_t j = 0; j < d.lanes; ++j) bytes[j] = static_cast<uint8_t>(row[j] & 0xFF);
  } else {
    std::memcpy(bytes, &core.ub_[size_t{d.buf_addr + i} * L], 2ull * d.lanes);
  }
}

void Core::Impl::ExecStore(const Decoded& d) {
  const HostRows host_rows = HostRowsOf(d);
  const uint64_t row_bytes = host_rows.row;
  const std::vector<std::pair<uint64_t, uint64_t>> bad = FailingWrites(d);
  std::vector<uint8_t> bytes(row_bytes);
  for (uint32_t i = 0; i < d.rows; ++i) {
    const uint64_t host = d.host + i * host_rows.stride;
    StoreRowBytes(d, i, bytes.data());
    if (bad.empty()) {
      mem.Write(host, bytes.data(), row_bytes);
      continue;
    }
    for (uint64_t k = 0; k < row_bytes; ++k) {
      const uint64_t a = host + k;
      bool skip = false;
      for (const auto& [lo, hi] : bad) skip = skip || (a >= lo && a < hi);
      if (!skip) mem.Write(a, &bytes[k], 1);
    }
  }
}

// The store engine, one cycle: write responses, a beat out, a row read.
void Core::Impl::StoreCycle() {
  // Write responses, in order: the tail's first.
  if (st_tail.valid && PopWriteResponse(st_tail.bq, st_tail.pc) && st_tail.bq.empty()) {
    st_tail.valid = false;
    Completed("done store tail", st_tail.pc);
  }
  if (!st.busy) return;
  if (!st_tail.valid) PopWriteResponse(st.bq, st.pc);
  StoreReadRows(StoreEmitBeat());
  // Every beat out, responses still to come: this STORE becomes the tail.
  if (st.rows_done == st.d.rows && !st.bq.empty() && !st_tail.valid) {
    st_tail.valid = true;
    st_tail.pc = st.pc;
    st_tail.bq.swap(st.bq);
    st.busy = false;
  }
}

// The oldest write response if it is due; a failed write is the STORE's error.
bool Core::Impl::PopWriteResponse(std::deque<WriteBurst>& bq, uint32_t epc) {
  if (bq.empty() || bq.front().due == 0 || bq.front().due > now) return false;
  if (bq.front().error) Error(ErrorCode::kMemWrite, epc, bq.front().addr);
  bq.pop_front();
  return true;
}

// The next write burst's address (one at a time, at most max_in_flight awaiting responses).
void Core::Impl::OpenWriteBurst() {
  StoreEngine& s = st;
  uint64_t addr;
  uint64_t beats;
  if (s.plan.linear) {
    addr = s.lin_addr;
    beats = s.lin_left;
  } else {
    addr = s.plan.row_base[s.cur.row] + uint64_t{s.beat} * beat_bytes;
    beats = s.plan.row_beats[s.cur.row] - s.beat;
  }
  beats = BurstBeats(addr, beats, beat_bytes);
  s.burst_left = static_cast<uint32_t>(beats);
  s.burst_addr = addr;
  s.burst_beats = static_cast<uint32_t>(beats);
  if (s.plan.linear) {
    s.lin_addr += beats * beat_bytes;
    s.lin_left -= beats;
  }
  s.bq.push_back({addr, 0, false});
}

// A beat of the current row out, if it may go; true when it ends the row.
bool Core::Impl::StoreEmitBeat() {
  StoreEngine& s = st;
  if (!s.cur.valid) return false;
  if (s.plan.row_beats[s.cur.row] == 0) {  // inside the carry's beat: nothing of its own to send
    ++s.rows_done;
    return true;
  }
  const bool opened = s.burst_left == 0 && s.bq.size() < cfg.max_in_flight;
  if (opened) OpenWriteBurst();
  if (s.burst_left == 0 && !opened) return false;
  if (--s.burst_left == 0) {
    // The last beat: the platform performs the write now.
    const uint64_t len = uint64_t{s.burst_beats} * beat_bytes;
    const bool error = mem.Fails(s.burst_addr, len);
    const uint64_t completion = error ? now : memm.Schedule(now, len);
    const uint64_t due = std::max({completion, now + 1, st_last_due});
    st_last_due = due;
    s.bq.back().due = due;  // one burst is open at a time: the newest
    s.bq.back().error = error;
  }
  if (++s.beat != s.plan.row_beats[s.cur.row]) return false;
  s.beat = 0;
  ++s.rows_done;
  return true;
}

// The row registers (current and next) and the reader (up to a row a cycle), which has the
// lowest priority on the buffers' read ports: the array's stream (on the UB bank it reads), the
// activation unit and accumulating results (ACC).
void Core::Impl::StoreReadRows(bool row_done) {
  StoreEngine& s = st;
  // A read beside a row arriving needs the current row register free or leaving for certain (a
  // row with no beat of its own), as the cycle found it (mxu_dma_store's reader).
  const bool cur_frees = !s.cur.valid || s.plan.row_beats[s.cur.row] == 0;
  bool cur_valid = s.cur.valid && !row_done;
  if (!cur_valid && s.nxt.valid) {
    s.cur = s.nxt;
    s.nxt.valid = false;
    cur_valid = true;
  }
  s.cur.valid = cur_valid;
  const bool was_pending = s.rd_pending;
  const uint32_t pending_row = s.pending_row;
  bool rd_en = s.rd_row != s.d.rows && (!s.rd_pending || cur_frees) && !s.nxt.valid;
  if (IsAcc(s.d)) {
    rd_en = rd_en && !ac.reads_acc && (results.Reads(now) & BankBit(s.d.buf_addr + s.rd_row)) == 0;
  } else {
    rd_en =
        rd_en && !(array.reads_ub && UbBank(array.ub_read_row) == UbBank(s.d.buf_addr + s.rd_row));
  }
  s.rd_pending = rd_en;
  if (rd_en && IsAcc(s.d)) GatedClocks::Mark(clocks.acc, now, now);
  if (rd_en) s.pending_row = s.rd_row++;
  if (was_pending) {
    if (!s.cur.valid) {
      s.cur = {true, pending_row};
    } else {
      s.nxt = {true, pending_row};
    }
  }
}

// Past an error or HALT: the burst whose data was going out sends its last beats (nothing more
// is written) and waits for its response, as the RTL does; responses are taken as they come.
void Core::Impl::StoreDrain() {
  if (!st.bq.empty() && st.bq.front().due == 0) st.bq.front().due = now + st.burst_left + 1;
  PopWriteResponse(st.bq, st.pc);
}

}  // namespace mxu::backends::model
