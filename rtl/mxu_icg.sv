// Integrated clock-gating cell: the one way the device gates a clock (docs/architecture.md,
// "Clock gating"). The enable is caught by a latch that is transparent while the clock is low
// and ANDed with the clock, so that an enable which changes during the high phase cannot cut a
// pulse short or make a glitch: the gated clock either copies a whole pulse or stays low. The
// enable must settle within the low phase before the rising edge it is meant for (OpenSTA's
// clock-gating setup check on the AND). The PPA flow maps the latch and the AND onto the
// library's cells (scripts/ppa.py); a library with an integrated cell would take it instead.
// This is lowRISC's prim_clock_gating, without the scan enable the device has no use for.
//
// rst_ni (the domain's reset) opens the gate in simulation only. Silicon applies an asynchronous
// reset as a level; Verilator applies it at the reset's falling edge or at a clock edge while it
// is low. A reset that is already low when the simulation starts (the engines' reset: its clear
// flop may power up set, +verilator+rand+reset+2) has no falling edge, and a gated clock no edge
// either: the domain would keep its power-up values. With the gate open during reset, the clock
// edges apply it, as the level does in silicon. Synthesis leaves rst_ni unused.
module mxu_icg (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic en_i,
  output logic clk_o
);

  logic en, en_latched;

`ifndef SYNTHESIS
  assign en = en_i || !rst_ni;
`else
  assign en = en_i;
  logic unused_rst;
  assign unused_rst = rst_ni;
`endif

  always_latch begin
    if (!clk_i) begin
      en_latched = en;
    end
  end

  assign clk_o = clk_i & en_latched;

endmodule
