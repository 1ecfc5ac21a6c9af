// The load engines (mxu_dma_load), one for LOAD into the UB or the accumulators and one for
// LOAD WEIGHTS into the weight FIFO: how a LOAD is cut into read bursts and segments (linear,
// strided, broadcast, transposed), the bursts' requests, the beats' arrival and the row writes.
#include <algorithm>
#include <vector>

#include "backends/model/bits.h"
#include "backends/model/core_state.h"

namespace mxu::backends::model {
namespace {

// A segment: the beats holding `seg_bytes` bytes from `seg_addr`, one or more bursts.
void SplitSegment(uint64_t seg_addr, uint64_t seg_bytes, uint64_t beat, LoadPlan& plan) {
  const uint32_t beats = static_cast<uint32_t>((seg_addr % beat + seg_bytes + beat - 1) / beat);
  plan.seg_beats.push_back(beats);
  AppendBursts(seg_addr & ~(beat - 1), beats, beat, true, plan.bursts);
}

// Transposed: runs of up to TransposeRows elements of one host row (common/device_table.h), one
// beat's elements fewer when host rows are not all bus aligned.
uint32_t ShortTransposeRows(uint64_t beat) {
  const uint32_t rows = TransposeRows(static_cast<uint32_t>(beat)),
                 per_beat = static_cast<uint32_t>(beat / 2);
  return rows > 2 * per_beat ? rows - per_beat : rows;
}

// Transposed: per block of buffer rows, one segment per lane (a run of one host row).
void PlanTransposed(const Decoded& d, uint64_t beat, uint64_t stride_bytes, LoadPlan& plan) {
  const bool aligned = d.host % beat == 0 && stride_bytes % beat == 0;
  const uint32_t block_rows_max =
      aligned ? TransposeRows(static_cast<uint32_t>(beat)) : ShortTransposeRows(beat);
  plan.trows = block_rows_max;
  for (uint32_t i0 = 0; i0 < d.rows; i0 += block_rows_max) {
    const uint32_t block_rows = std::min(block_rows_max, d.rows - i0);
    for (uint32_t j = 0; j < d.lanes; ++j) {
      SplitSegment(d.host + 2ull * i0 + j * stride_bytes, 2ull * block_rows, beat, plan);
    }
  }
}

}  // namespace

LoadPlan PlanLoad(const Decoded& d, uint64_t beat) {
  LoadPlan plan;
  // Every rule below holds for any element size: the integer mode's 1-byte rows pack, stream
  // linearly and split into segments by the same byte arithmetic (it never transposes).
  const HostRows host_rows = HostRowsOf(d);
  const uint64_t stride_bytes = host_rows.stride, row_bytes = host_rows.row;
  const bool transpose = d.flag != 0;
  // Rows back to back stream as one run of beats, whatever their length and alignment: a row is
  // cut out of the beats as soon as those that hold it are in.
  plan.linear = !transpose && d.stride != 0 && row_bytes == stride_bytes;
  if (plan.linear) {
    plan.lin_off = d.host % beat;
    plan.lin_row_bytes = row_bytes;
    AppendBursts(d.host - plan.lin_off, (plan.lin_off + d.rows * row_bytes + beat - 1) / beat, beat,
                 false, plan.bursts);
  } else if (!transpose && d.stride == 0) {  // broadcast: the one row is read once
    SplitSegment(d.host, row_bytes, beat, plan);
  } else if (!transpose) {
    for (uint32_t i = 0; i < d.rows; ++i) {
      SplitSegment(d.host + i * stride_bytes, row_bytes, beat, plan);
    }
  } else {
    PlanTransposed(d, beat, stride_bytes, plan);
  }
  return plan;
}

void Core::Impl::DispatchLoad(const Decoded& d, uint32_t i) {
  LoadEngine& e = d.kind == Kind::kLoad ? ld : wld;
  LoadCmd c;
  c.pc = i;
  c.accepted = now;
  c.d = d;
  c.plan = PlanLoad(d, beat_bytes);
  for (const Burst& b : c.plan.bursts) c.beats_total += b.beats;
  // The device stops at a failing burst; what was written is not specified, so nothing is.
  const bool ok = !AnyFails(c.plan.bursts);
  e.q.push_back(std::move(c));
  if (ok) ExecLoad(d);
  if (e.weights) {
    ++array.unclaimed;
    array.wlq.push_back({d.rows, d.lanes});
    array.tile_extents.push_back({d.rows, d.lanes});
    if (!ok) array.tiles.push_back(std::vector<uint16_t>(size_t{R} * C, 0));
  }
}

bool Core::Impl::AnyFails(const std::vector<Burst>& bursts) const {
  for (const Burst& b : bursts) {
    if (mem.Fails(b.addr, b.beats * beat_bytes)) return true;
  }
  return false;
}

// The lanes of a plain LOAD's row i of int8 host bytes, sign-extended (the integer mode never
// transposes).
void Core::Impl::HostInt8Row(const Decoded& d, uint32_t i, uint16_t* lanes) const {
  uint8_t bytes[1024];  // a row's lanes: at most the UB's, ArrayCols or ArrayRows
  std::vector<uint8_t> wide;
  uint8_t* row = bytes;
  if (d.lanes > sizeof bytes) {
    wide.resize(d.lanes);
    row = wide.data();
  }
  mem.Read(d.host + uint64_t{i} * d.stride, row, d.lanes);
  for (uint32_t j = 0; j < d.lanes; ++j) lanes[j] = Int8Lane(row[j]);
}

void Core::Impl::ExecLoad(const Decoded& d) {
  if (d.kind == Kind::kWload) {
    std::vector<uint16_t> tile(size_t{R} * C, 0);
    if (d.integer) {
      for (uint32_t r = 0; r < d.rows; ++r) HostInt8Row(d, r, &tile[size_t{r} * C]);
    } else if (!d.flag) {  // a host row's lanes are contiguous
      mem.ReadRows(d.host, 2ull * d.stride, d.rows, 2ull * d.lanes, tile.data(), 2ull * C);
    } else {
      for (uint32_t r = 0; r < d.rows; ++r) {
        for (uint32_t n = 0; n < d.lanes; ++n) {
          tile[size_t{r} * C + n] = mem.Load16(d.host + 2 * (uint64_t{n} * d.stride + r));
        }
      }
    }
    array.tiles.push_back(std::move(tile));
    return;
  }
  if (IsAcc(d)) {  // int32 words in the integer mode: the same raw 4-byte words
    uint32_t* rows = &core.acc_[size_t{d.buf_addr} * C];
    mem.ReadRows(d.host, 4ull * d.stride, d.rows, 4ull * d.lanes, rows, 4ull * C);
    for (uint32_t i = 0; i < d.rows; ++i) {
      std::fill(rows + size_t{i} * C + d.lanes, rows + size_t{i + 1} * C, 0u);
    }
    return;
  }
  if (!d.integer && !d.flag) {  // the lanes past the row's are zero
    uint16_t* rows = &core.ub_[size_t{d.buf_addr} * L];
    mem.ReadRows(d.host, 2ull * d.stride, d.rows, 2ull * d.lanes, rows, 2ull * L);
    for (uint32_t i = 0; i < d.rows; ++i) {
      std::fill(rows + size_t{i} * L + d.lanes, rows + size_t{i + 1} * L, uint16_t{0});
    }
    return;
  }
  for (uint32_t i = 0; i < d.rows; ++i) {
    uint16_t* row = &core.ub_[size_t{d.buf_addr + i} * L];
    std::fill(row, row + L, uint16_t{0});
    if (d.integer) {
      HostInt8Row(d, i, row);
    } else {
      for (uint32_t j = 0; j < d.lanes; ++j) {
        row[j] = mem.Load16(d.host + 2 * (uint64_t{j} * d.stride + i));
      }
    }
  }
}

// Whether the row the engine writes next may be written this cycle: room in the weight FIFO;
// the DMA has the lowest priority on a UB bank's write port (the activation unit's) and on an
// accumulator bank's (the array's results).
bool Core::Impl::TargetReady(const LoadEngine& e) const {
  if (e.weights) return array.wfifo < cfg.wfifo_depth;
  for (const LoadCmd& c : e.q) {
    if (c.written < c.ready_rows) {
      if (IsAcc(c.d)) return (results.Writes(now) & BankBit(c.d.buf_addr + c.written)) == 0;
      return !(ac.writes_ub && UbBank(ac.ub_write_row) == UbBank(c.d.buf_addr + c.written));
    }
  }
  return true;
}

// Whether the engine takes the read beat at the channel's head this cycle.
bool Core::Impl::LoadReady(LoadEngine& e) const {
  const LoadCmd* c = e.Consuming();
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

// At most one row a cycle into the buffer (or the weight FIFO).
void Core::Impl::LoadRows(LoadEngine& e) {
  if (!e.weights) {  // a row owed to the accumulators: their write port asks
    for (const LoadCmd& c : e.q) {
      if (c.written < c.ready_rows) {
        if (IsAcc(c.d)) GatedClocks::Mark(clocks.acc, now, now);
        break;
      }
    }
  }
  if (!TargetReady(e)) return;
  for (LoadCmd& c : e.q) {
    if (c.written < c.ready_rows) {
      ++c.written;
      if (e.weights) ++array.wfifo;
      return;
    }
  }
}

// A beat taken: the rows it completes become ready to be written.
void Core::Impl::LoadBeat(LoadEngine& e, bool last_of_burst) {
  if (last_of_burst) --e.bursts_out;
  LoadCmd& c = *e.Consuming();
  ++c.beats_got;
  if (c.plan.linear) {  // every row whose last byte has come in
    const uint64_t in = c.beats_got * beat_bytes - c.plan.lin_off;
    c.ready_rows = static_cast<uint32_t>(std::min<uint64_t>(c.d.rows, in / c.plan.lin_row_bytes));
    return;
  }
  if (++c.beat < c.plan.seg_beats[c.seg]) return;
  c.beat = 0;
  --e.segs_out;
  ++c.seg;
  if (!c.d.flag && c.d.stride == 0) {
    c.ready_rows = c.d.rows;  // broadcast: the one row serves every row
  } else if (!c.d.flag) {
    c.ready_rows = std::min(c.d.rows, c.ready_rows + 1);
  } else if (++c.cols_done == c.d.lanes) {
    c.cols_done = 0;
    c.ready_rows += std::min(c.plan.trows, c.d.rows - c.block_i);
    c.block_i += c.plan.trows;
  }
}

// Whether the engine requests a burst this cycle: bursts and segments in flight are limited.
bool Core::Impl::LoadWants(LoadEngine& e) const {
  const LoadCmd* c = e.Generating();
  if (c == nullptr || c->accepted >= now || e.bursts_out >= cfg.max_in_flight) return false;
  const Burst& b = c->plan.bursts[c->next_burst];
  return c->plan.linear || !b.seg_start || e.segs_out < cfg.max_in_flight;
}

void Core::Impl::LoadIssue(LoadEngine& e, int owner) {
  LoadCmd& c = *e.Generating();
  const Burst& b = c.plan.bursts[c.next_burst++];
  ++e.bursts_out;
  if (b.seg_start && !c.plan.linear) ++e.segs_out;
  IssueRead(owner, b.addr, b.beats);
}

}  // namespace mxu::backends::model
