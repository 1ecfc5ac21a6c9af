// The array side of the datapath (mxu_datapath): the weight FIFO and the two weight banks
// (shift into the shadow bank, commit), the systolic array streaming one row a cycle, and the
// accumulators its result rows reach `latency` cycles later. The arithmetic is the contract's,
// in plain host floats (bf16 x bf16 products, fp32 sums in the array's order) or int8 x int8
// into int32.
#include <algorithm>

#include "backends/model/bits.h"
#include "backends/model/core_state.h"
#include "common/bf16.h"

namespace mxu::backends::model {

void Core::Impl::DispatchMatmul(const Decoded& d, uint32_t i) {
  if (d.new_weights) --array.unclaimed;
  ExecMatmul(d);
  array.mms.push_back({i, d.r_ub, d.w_acc, 0, d.rows, d.accumulate});
  array.mm_active = true;
  array.mm_left = d.rows;
  array.mm_need_commit = d.new_weights;
}

void Core::Impl::ExecMatmul(const Decoded& d) {
  ArrayState& a = array;
  if (d.new_weights) {
    const std::vector<uint16_t>& t = a.tiles.front();
    a.weights.resize(size_t{R} * C);
    a.weights_nonfinite.resize(size_t{R} * C);
    for (size_t i = 0; i < t.size(); ++i) {
      a.weights[i] = Bf16ToFloat(t[i]);
      a.weights_nonfinite[i] = (t[i] & 0x7F80) == 0x7F80;
    }
    a.weights_raw = t;
    a.tiles.pop_front();
    a.have_weights = true;
  }
  if (!a.have_weights) {  // never loaded: the banks hold zeros after reset
    a.weights.assign(size_t{R} * C, 0.0f);
    a.weights_nonfinite.assign(size_t{R} * C, 0);
    a.weights_raw.assign(size_t{R} * C, 0);
    a.have_weights = true;
  }
  if (d.integer) {
    ExecMatmulInteger(d);
    return;
  }
  const uint32_t k = d.k_rows;
  // Lanes k .. R-1 enter as -0 and add -0 x weight after the k real products: -0 where the
  // weight's sign is clear (the +0 of a WLOAD's padding), which changes no sum; +0 where it is
  // set, which turns a -0 sum into +0 and leaves any other; NaN where the weight is Inf or NaN,
  // which makes the column NaN. Their order does not matter.
  std::vector<uint8_t> nan_col(C, 0), plus_col(C, 0);
  for (uint32_t r = k; r < R; ++r) {
    for (uint32_t c = 0; c < C; ++c) {
      nan_col[c] |= a.weights_nonfinite[size_t{r} * C + c];
      plus_col[c] |= a.weights_raw[size_t{r} * C + c] >> 15;
    }
  }
  const float* w = a.weights.data();
  std::vector<float> psum(C);
  for (uint32_t i = 0; i < d.rows; ++i) {
    const uint16_t* in = &core.ub_[size_t{d.ub_addr + i} * L];
    uint32_t* acc = &core.acc_[size_t{d.acc_addr + i} * C];
    if (C == 16) {  // the default width, as a fixed-size loop
      float p[16] = {};
      for (uint32_t r = 0; r < k; ++r) {
        const float av = Bf16ToFloat(in[r]);
        const float* wr = w + size_t{r} * 16;
        for (int c = 0; c < 16; ++c) p[c] = p[c] + av * wr[c];
      }
      std::copy(p, p + 16, psum.begin());
    } else {
      std::fill(psum.begin(), psum.end(), 0.0f);
      for (uint32_t r = 0; r < k; ++r) {
        const float av = Bf16ToFloat(in[r]);
        const float* wr = w + size_t{r} * C;
        for (uint32_t c = 0; c < C; ++c) psum[c] = psum[c] + av * wr[c];
      }
    }
    for (uint32_t c = 0; c < C; ++c) {
      float v = psum[c];
      if (plus_col[c] && U(v) == 0x80000000u) v = 0.0f;
      if (d.accumulate) v = F(acc[c]) + v;
      acc[c] = nan_col[c] ? kNan : Canon(v);
    }
  }
}

// The integer MATMUL: each PE multiplies the low bytes of its operands as int8; a column's sum
// of at most R products is exact in int32 (|product| <= 2^14), so the order is immaterial.
// Lanes k_rows .. R-1 enter as -0, whose low byte is 0: they add nothing (no NaN here). With
// accumulate, the sum is added to the accumulator word as a wrapping int32 add, whatever the
// word holds.
void Core::Impl::ExecMatmulInteger(const Decoded& d) {
  const uint32_t k = d.k_rows;
  std::vector<int32_t> w(size_t{k} * C);
  for (size_t i = 0; i < w.size(); ++i) w[i] = LaneInt8(array.weights_raw[i]);
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

// One cycle of the weight path and the array. A MATMUL that needs new weights issues its first
// row with the commit, once the shadow bank is full and the other bank has been idle for
// commit_gap cycles; an accumulating row waits while a row issued fewer than kAccAddCycles
// cycles ago goes to the same accumulator row. Returns whether the array takes a MATMUL.
bool Core::Impl::ArrayCycle() {
  ArrayState& a = array;
  const bool shadow_ready = a.shadow_pending && !a.wl_active;
  const bool commit_ok = shadow_ready && a.other_idle == commit_gap;
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
  // A commit swaps the banks' roles: the row issued with it starts the new bank's count.
  if (commit) {
    a.other_idle = std::min(a.cur_idle + 1, commit_gap);
    a.cur_idle = 1;
  } else {
    a.cur_idle = mm_issue ? 1 : std::min(a.cur_idle + 1, commit_gap);
    a.other_idle = std::min(a.other_idle + 1, commit_gap);
  }
  ShiftWeights(commit);
  a.reads_ub = mm_issue;
  if (mm_issue) IssueMatmulRow();
  return mm_ready;
}

// The next LOAD WEIGHTS' rows shift from the FIFO into the shadow bank, one a cycle (its k_rows
// rows, then zeros to R rows); it starts once the shadow is free or being committed.
void Core::Impl::ShiftWeights(bool commit) {
  ArrayState& a = array;
  const bool wl_ready = !a.wl_active && (!a.shadow_pending || commit);
  bool wl_start = false;
  if (!a.wlq.empty() && wl_ready) {
    wl_start = true;
    a.wl_k = a.wlq.front();
    a.wlq.pop_front();
    a.wl_slot = 0;
  }
  if (commit) GatedClocks::Mark(clocks.column0, now, now);
  if (a.wl_active || wl_start) {
    const bool need_pop = a.wl_slot < a.wl_k;
    if (!need_pop || a.wfifo > 0) {
      GatedClocks::Mark(clocks.column0, now, now);  // a weight row shifts in
      if (need_pop) --a.wfifo;
      a.wl_active = a.wl_slot != R - 1;
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
  a.recent_rows.emplace_back(now, row);
  const uint32_t bank = BankBit(row);
  if (m.accumulate) results.At(now + latency).rd |= bank;
  results.At(now + latency + kAccAddCycles).wr |= bank;
  // Column 0 runs while the row is in it; the accumulators from its result's arrival to its write.
  GatedClocks::Mark(clocks.column0, now, now + column_span);
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
