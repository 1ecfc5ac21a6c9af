// The array side of the datapath (mxu_datapath): the weight FIFO and the two weight banks
// (shift into the shadow bank, commit), the systolic array streaming one row a cycle, and the
// accumulators its result rows reach `latency` cycles later. The arithmetic is the contract's,
// in plain host floats (bf16 x bf16 products, fp32 sums in the array's order) or int8 x int8
// into int32.
#include <algorithm>

#include "backends/model/bits.h"
#include "backends/model/core_state.h"
#include "backends/model/matmul_kernels.h"
#include "common/bf16.h"

namespace mxu::backends::model {

void Core::Impl::DispatchMatmul(const Decoded& d, uint32_t i) {
  if (d.new_weights) --array.unclaimed;
  ExecMatmul(d);
  array.mms.push_back({i, d.r_ub, d.w_acc, 0, d.rows, d.accumulate, d.k_rows});
  array.mm_active = true;
  array.mm_left = d.rows;
  array.mm_need_commit = d.new_weights;
}

void Core::Impl::ExecMatmul(const Decoded& d) {
  ArrayState& a = array;
  if (d.new_weights) {
    const std::vector<uint16_t>& t = a.tiles.front();
    a.weights.resize(size_t{R} * C);
    for (size_t i = 0; i < t.size(); ++i) a.weights[i] = Bf16ToFloat(t[i]);
    a.weights_raw = t;
    a.weights_extent = a.tile_extents.front();
    a.tiles.pop_front();
    a.tile_extents.pop_front();
    a.have_weights = true;
  }
  if (!a.have_weights) {  // never loaded: the banks hold zeros after reset, all R rows
    a.weights.assign(size_t{R} * C, 0.0f);
    a.weights_raw.assign(size_t{R} * C, 0);
    a.weights_extent = {R, C};
    a.have_weights = true;
  }
  if (d.integer) {
    ExecMatmulInteger(d);
    return;
  }
  // The row sums its first k lanes' products; the lanes past them pass the partial sum through
  // unchanged (mxu_systolic_array), whatever the weights below the tile hold. Its result lanes
  // past the tile's columns are +0 (those columns rest).
  MatmulFloatRows({a.weights.data(), std::min(d.k_rows, a.weights_extent.k), C, a.weights_extent.n,
                   &core.ub_[size_t{d.ub_addr} * L], L, &core.acc_[size_t{d.acc_addr} * C], d.rows,
                   d.accumulate});
}

// The integer MATMUL: each PE multiplies the low bytes of its operands as int8; a column's sum
// of at most R products is exact in int32 (|product| <= 2^14), so the order is immaterial.
// The lanes past k pass the partial sum through; the result lanes past the tile's columns are 0.
// With accumulate, the sum is added to the accumulator word as a wrapping int32 add, whatever the
// word holds.
void Core::Impl::ExecMatmulInteger(const Decoded& d) {
  const uint32_t k = std::min(d.k_rows, array.weights_extent.k);
  const uint32_t n = array.weights_extent.n;
  std::vector<int32_t> w(size_t{k} * C);
  for (size_t i = 0; i < w.size(); ++i) w[i] = LaneInt8(array.weights_raw[i]);
  MatmulIntRows({w.data(), k, C, n, &core.ub_[size_t{d.ub_addr} * L], L,
                 &core.acc_[size_t{d.acc_addr} * C], d.rows, d.accumulate});
}

// One cycle of the weight path and the array. A MATMUL that needs new weights issues its first
// row with the commit, once the shadow bank is full and the other bank is drained (each of its
// rows CommitGap(k) cycles after it issued); an accumulating row waits while a row issued fewer
// than kAccAddCycles cycles ago goes to the same accumulator row. Returns whether the array
// takes a MATMUL.
bool Core::Impl::ArrayCycle() {
  ArrayState& a = array;
  const bool shadow_ready = a.shadow_pending && !a.wl_active;
  // A commit that narrows the bank's tile also waits for the bank's passing lanes
  // (mxu_matmul_seq).
  const bool narrowing = a.wl.n < a.other.n;
  const bool commit_ok = shadow_ready && a.other_drain == 0 && (!narrowing || a.other_full == 0);
  while (!a.recent_rows.empty() && now - a.recent_rows.front().first >= kAccAddCycles) {
    a.recent_rows.pop_front();
  }
  bool acc_hazard = false;
  if (a.mm_active && a.mms.back().accumulate) {
    const Matmul& m = a.mms.back();
    const uint32_t row = m.w_acc.lo + m.rows_total - a.mm_left;
    for (const auto& [cycle, acc_row] : a.recent_rows) acc_hazard |= acc_row == row;
  }
  const bool mm_issue = a.mm_active && (!a.mm_need_commit || commit_ok) && !acc_hazard;
  const bool commit = mm_issue && a.mm_need_commit;
  const bool mm_ready = !a.mm_active || (mm_issue && a.mm_left == 1);
  if (a.mm_active && a.mm_need_commit && !commit_ok) ++Ctr(csr::Counter::kStallWeights);
  // A row issued now drains its bank CommitGap(k) cycles later. A commit swaps the banks'
  // roles: the row issued with it starts the new bank's count.
  const uint32_t cur_dec = a.cur_drain - (a.cur_drain != 0);
  const uint32_t other_dec = a.other_drain - (a.other_drain != 0);
  const uint32_t cur_full_dec = a.cur_full - (a.cur_full != 0);
  const uint32_t other_full_dec = a.other_full - (a.other_full != 0);
  const uint32_t full_drain = CommitGap(R, add_cycles) - 1;
  uint32_t issue_drain = 0;
  if (mm_issue) {
    const uint32_t tile_k = commit ? a.wl.k : a.cur.k;
    issue_drain = CommitGap(std::min(a.mms.back().k_rows, tile_k), add_cycles) - 1;
  }
  if (commit) {
    a.other = a.cur;
    a.cur = a.wl;
    a.other_drain = cur_dec;
    a.cur_drain = issue_drain;
    a.other_full = cur_full_dec;
    a.cur_full = full_drain;
  } else {
    a.cur_drain = std::max(cur_dec, issue_drain);
    a.other_drain = other_dec;
    a.cur_full = mm_issue ? full_drain : cur_full_dec;
    a.other_full = other_full_dec;
  }
  ShiftWeights(commit);
  a.reads_ub = mm_issue;
  if (mm_issue) IssueMatmulRow();
  return mm_ready;
}

// The next LOAD WEIGHTS' rows shift from the FIFO into the shadow bank, one a cycle (its rows
// only, mxu_pe_col); it starts once the shadow is free or being committed.
void Core::Impl::ShiftWeights(bool commit) {
  ArrayState& a = array;
  const bool wl_ready = !a.wl_active && (!a.shadow_pending || commit);
  bool wl_start = false;
  // The commit reaches the committed tile's columns.
  if (commit) clocks.MarkColumns(a.wl.n, now);
  if (!a.wlq.empty() && wl_ready) {
    wl_start = true;
    a.wl = a.wlq.front();
    a.wlq.pop_front();
    a.wl_slot = 0;
  }
  if (a.wl_active || wl_start) {
    if (a.wfifo > 0) {
      clocks.MarkColumns(a.wl.n, now);  // a weight row shifts into the tile's columns
      --a.wfifo;
      a.wl_active = a.wl_slot + 1 != a.wl.k;
      ++a.wl_slot;
    } else {
      a.wl_active = true;
    }
  }
  a.shadow_pending = (a.shadow_pending && !commit) || wl_start;
}

// A row of the newest MATMUL enters the array; its result row reaches the accumulators
// `latency` cycles later (read then if it accumulates) and is written kAccAddCycles later.
void Core::Impl::IssueMatmulRow() {
  ArrayState& a = array;
  const Matmul& m = a.mms.back();
  if (a.mm_left == m.rows_total) Trace("mm first row", m.pc);
  const uint32_t row = m.w_acc.lo + m.rows_total - a.mm_left;
  a.ub_read_row = m.r_ub.lo + m.rows_total - a.mm_left;
  a.recent_rows.emplace_back(now, row);
  const uint32_t bank = BankBit(row);
  const uint64_t arrive = now + latency, written = arrive + kAccAddCycles;
  if (m.accumulate) ResultSlots::Add(results.rd, now, arrive, arrive, bank);
  ResultSlots::Add(results.wr, now, written, written, bank);
  // The tile's columns run while the row is in them (in column 0's time); the accumulators from
  // its result's arrival to its write.
  clocks.MarkColumns(a.cur.n, now + column_span);
  GatedClocks::Mark(clocks.acc, now + latency, now + latency + kAccAddCycles);
  ++Ctr(csr::Counter::kArrayBusy);
  Ctr(csr::Counter::kMacs) += uint64_t{R} * C;
  a.mm_need_commit = false;
  if (--a.mm_left != 0) return;
  a.mm_active = false;
  for (Matmul& mm : a.mms) {
    if (mm.done_at == 0) {
      mm.done_at = now + latency + kAccAddCycles + 1;
      break;
    }
  }
}

}  // namespace mxu::backends::model
