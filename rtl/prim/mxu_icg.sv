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
//
// SimOpen: in Verilator the gate passes every edge (clk_o = clk_i). For gates too many to
// simulate gated (mxu_pe's, three a PE) whose enables the design checks in every cycle instead:
// an assertion that no register behind the gate would change while its enable is low, which is
// the condition for the gate to change nothing. Synthesis and other tools take the gate.
module mxu_icg #(
  parameter bit SimOpen = 1'b0
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic en_i,
  output logic clk_o
);

  logic en;

`ifndef SYNTHESIS
  assign en = en_i || !rst_ni;
`else
  assign en = en_i;
  logic unused_rst;
  assign unused_rst = rst_ni;
`endif

`ifdef VERILATOR
  localparam bit Open = SimOpen;
`else
  localparam bit Open = 1'b0;
`endif

  if (Open) begin : g_open
    assign clk_o = clk_i;
    logic unused_en;
    assign unused_en = en;
  end else begin : g_gate
    logic en_latched;

    always_latch begin
      if (!clk_i) begin
        en_latched = en;
      end
    end

    assign clk_o = clk_i & en_latched;
  end

endmodule
