// Assertion macros in the style of lowRISC's prim_assert.sv.
//
// Under synthesis (Yosys's read_verilog defines SYNTHESIS by default) every run-time assertion
// expands to nothing, so Yosys 0.23 never sees `assert property` or `assert ... else`. In
// simulation (Verilator) they become concurrent assertions (checked only when the model is built with
// --assert, as the test models are) that stop the simulation with the assertion's name.
//
// The static checks (MXU_ASSERT_STATIC) are elaboration-time: they stop both tools whatever the
// flags, for parameter values the RTL does not support yet.
//
//   `MXU_ASSERT(name, prop, clk, rst_n)      prop holds on every clock edge out of reset
//   `MXU_ASSERT_NEVER(name, prop, clk, rst_n) prop never holds
//   `MXU_ASSERT_ONEHOT(name, sig, clk, rst_n) exactly one bit of sig is set
//   `MXU_ASSERT_ONEHOT0(name, sig, clk, rst_n) at most one bit of sig is set
//   `MXU_ASSERT_KNOWN(name, sig, clk, rst_n)  no X on sig (4-state simulators only)
//   `MXU_ASSERT_STABLE(name, valid, ready, payload, clk, rst_n)
//        a valid/ready handshake: once valid is up without ready, valid stays up and payload
//        does not change in the next cycle
//   `MXU_ASSERT_STILL_WHILE_GATED(name, gated, clock_on, changes, clk, rst_n)
//        a gated clock domain (mxu_clock_domain) changes nothing while its clock is off: changes
//        (1 when a register of the domain would take a new value at the next edge: its next
//        and present values compared, its blocks' would_change) is 0 in every cycle without
//        clock_on. The condition for the gate to be invisible; checked on the free clock clk,
//        where gated (a parameter: the block's ClockGating) is set, and not built otherwise
//        (nothing to check, and its comparisons would cost every cycle: left unused, they are
//        optimized away). changes is kept as
//        a one-bit signal of its own, regs_change in the generate block name_check (rtl/mxu.vlt)
//   `MXU_ASSERT_STATIC(name, cond, msg)       elaboration-time check of parameters
//   `MXU_COVER(name, prop, clk, rst_n)        counts the clock edges out of reset on which prop
//        holds (a coverage point of a --coverage build, page v_user; nothing otherwise):
//        scripts/coverage.sh reads the FSM's states and arcs from these (FsmState_*, FsmArc_*)
`ifndef MXU_ASSERT_SVH
`define MXU_ASSERT_SVH

`ifdef SYNTHESIS

`define MXU_ASSERT(__name, __prop, __clk, __rst_n)
`define MXU_ASSERT_NEVER(__name, __prop, __clk, __rst_n)
`define MXU_ASSERT_ONEHOT(__name, __sig, __clk, __rst_n)
`define MXU_ASSERT_ONEHOT0(__name, __sig, __clk, __rst_n)
`define MXU_ASSERT_KNOWN(__name, __sig, __clk, __rst_n)
`define MXU_ASSERT_STABLE(__name, __valid, __ready, __payload, __clk, __rst_n)
`define MXU_COVER(__name, __prop, __clk, __rst_n)
`define MXU_ASSERT_STILL_WHILE_GATED(__name, __gated, __on, __changes, __clk, __rst_n)
`define MXU_ASSERT_STATIC(__name, __cond, __msg) \
  if (!(__cond)) begin : __name \
    $error(__msg); \
  end

`else

`define MXU_ASSERT(__name, __prop, __clk, __rst_n) \
  __name: assert property (@(posedge __clk) disable iff (!(__rst_n)) (__prop)) \
    else $fatal(1, "[%m] assertion %s failed", `"__name`");

`define MXU_ASSERT_NEVER(__name, __prop, __clk, __rst_n) \
  `MXU_ASSERT(__name, !(__prop), __clk, __rst_n)

`define MXU_ASSERT_ONEHOT(__name, __sig, __clk, __rst_n) \
  `MXU_ASSERT(__name, $onehot(__sig), __clk, __rst_n)

`define MXU_ASSERT_ONEHOT0(__name, __sig, __clk, __rst_n) \
  `MXU_ASSERT(__name, $onehot0(__sig), __clk, __rst_n)

`define MXU_ASSERT_KNOWN(__name, __sig, __clk, __rst_n) \
  `MXU_ASSERT(__name, !$isunknown(__sig), __clk, __rst_n)

`define MXU_ASSERT_STABLE(__name, __valid, __ready, __payload, __clk, __rst_n) \
  `MXU_ASSERT(__name, ((__valid) && !(__ready)) |=> ((__valid) && $stable(__payload)), \
              __clk, __rst_n)

`define MXU_COVER(__name, __prop, __clk, __rst_n) \
  __name: cover property (@(posedge __clk) disable iff (!(__rst_n)) (__prop));

`define MXU_ASSERT_STILL_WHILE_GATED(__name, __gated, __on, __changes, __clk, __rst_n) \
  if (__gated) begin : __name``_check \
    logic regs_change; \
    assign regs_change = (__changes); \
    `MXU_ASSERT(__name, (__on) || !regs_change, __clk, __rst_n) \
  end else begin : __name``_off \
    logic unused_changes; \
    assign unused_changes = (__on) ^ (__changes); \
  end

`define MXU_ASSERT_STATIC(__name, __cond, __msg) \
  if (!(__cond)) begin : __name \
    $fatal(1, __msg); \
  end

`endif

`endif  // MXU_ASSERT_SVH
