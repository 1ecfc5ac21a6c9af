// The activation unit (mxu_activation_unit): an ACTIVATE reads its bias row, its quantization
// row (integer mode) and then its accumulator rows, one a cycle the read port is granted, and
// writes each result row to the UB: fp32 + bias, ReLU, rounded to bf16; or, in the integer mode,
// requantized to int8.
#include <algorithm>

#include "backends/model/bits.h"
#include "backends/model/core_state.h"
#include "common/bf16.h"
#include "golden/int8.h"

namespace mxu::backends::model {

void Core::Impl::DispatchActivate(const Decoded& d, uint32_t i) {
  ExecActivate(d);
  ac.busy = true;
  ac.pc = i;
  ac.d = d;
  ac.reads_left = d.rows + ActivationState::SetupReads(d);
  ac.done_at = 0;
}

void Core::Impl::ExecActivate(const Decoded& d) {
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
    std::fill(out + C, out + L, uint16_t{0});
  }
}

// The integer ACTIVATE: each lane requantized to int8 with its word of the quantization row
// (read once, before the accumulator rows, as the bias row) and sign-extended into its UB lane;
// lanes beyond ArrayCols zero. The rule (x = acc + bias exactly, p = x * m, p / 2^s rounded
// half away from zero, zero point, clamp) is the golden model's scalar operation, as the fp
// path reuses its bf16 rounding: the RTL's two-stage unit is checked against the same rule.
void Core::Impl::ExecActivateInteger(const Decoded& d) {
  std::vector<uint32_t> bias(C, 0), quant(C);
  if (d.bias) std::copy_n(&core.acc_[size_t{d.bias_addr} * C], C, bias.begin());
  std::copy_n(&core.acc_[size_t{d.quant_addr} * C], C, quant.begin());
  for (uint32_t i = 0; i < d.rows; ++i) {
    const uint32_t* acc = &core.acc_[size_t{d.acc_addr + i} * C];
    uint16_t* out = &core.ub_[size_t{d.ub_addr + i} * L];
    for (uint32_t c = 0; c < C; ++c) {
      const int8_t y =
          golden::Requantize(static_cast<int32_t>(acc[c]), static_cast<int32_t>(bias[c]), quant[c],
                             d.zero_point, d.relu);
      out[c] = static_cast<uint16_t>(int16_t{y});
    }
    std::fill(out + C, out + L, uint16_t{0});
  }
}

// One cycle: the bias row (if any), then the quantization row (integer), then one accumulator
// row per cycle the read port is granted. A row read in cycle t is in the unit at t + 1 and
// written to the UB when it leaves the unit's kActCycles stages (either mode). The
// scoreboard sees the done of the last row the cycle after it is written.
void Core::Impl::ActivationCycle() {
  ac.writes_ub = !ac.ub_writes.empty() && ac.ub_writes.front().first == now;
  if (ac.writes_ub) {
    ac.ub_write_row = ac.ub_writes.front().second;
    ac.ub_writes.pop_front();
  }
  ac.reads_acc = ac.busy && ac.reads_left > 0;
  if (!ac.reads_acc) return;
  GatedClocks::Mark(clocks.acc, now, now);  // the read port asks
  const uint32_t setup = ActivationState::SetupReads(ac.d);
  const uint32_t reads_done = ac.d.rows + setup - ac.reads_left;
  const bool bias_phase = reads_done < (ac.d.bias ? 1u : 0u);
  const bool quant_phase = !bias_phase && reads_done < setup;
  const uint32_t row = bias_phase    ? ac.d.bias_addr
                       : quant_phase ? ac.d.quant_addr
                                     : ac.d.acc_addr + reads_done - setup;
  if ((results.Reads(now) & BankBit(row)) != 0) return;  // an accumulating result row's bank
  const uint32_t write_at = 1 + kActCycles;              // cycles from the read to the UB write
  if (reads_done >= setup) {
    ac.ub_writes.emplace_back(now + write_at, ac.d.ub_addr + reads_done - setup);
    GatedClocks::Mark(clocks.activate, now + 1, now + 1 + kActCycles);  // the row inside
  }
  if (--ac.reads_left == 0) ac.done_at = now + write_at + 1;
}

}  // namespace mxu::backends::model
