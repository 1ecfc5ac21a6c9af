// A clock domain: the one way a block gets a clock of its own (docs/architecture.md, "Clock
// gating"). With ClockGating the domain's clock runs only in cycles with active_i (one mxu_icg);
// without it the clock is the free one and runs in every cycle. clock_on_o says whether it runs
// this cycle: what the block's clock counter (ACC_CLOCKS, ...) adds up, and what its
// still-while-gated assertion (`MXU_ASSERT_STILL_WHILE_GATED, rtl/mxu_assert.svh) checks against.
//
// The enable is named active_i, not en_i: the PPA's trace reader (scripts/ppa_activity.py) takes
// a scope with clk_i, en_i and clk_o for a gate, and only the mxu_icg inside is one. The PPA's
// synthesis flattens this wrapper into its parent (scripts/lib/ppa_lib/synth.py), so that the
// registers of a domain and their gate sit in one module, as the clock tracer expects.
module mxu_clock_domain #(
  parameter bit ClockGating = mxu_pkg::ClockGating,
  parameter bit SimOpen     = 1'b0  // mxu_icg's: Verilator passes every edge (the PE's gates)
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic active_i,   // the domain has work this cycle
  output logic clk_o,      // the domain's clock
  output logic clock_on_o  // clk_o runs this cycle (always without ClockGating)
);

  if (ClockGating) begin : g_gate
    mxu_icg #(.SimOpen(SimOpen)) u_icg (
      .clk_i,
      .rst_ni,
      .en_i (active_i),
      .clk_o
    );
    assign clock_on_o = active_i;
  end else begin : g_free
    assign clk_o      = clk_i;
    assign clock_on_o = 1'b1;
    logic unused_active;
    assign unused_active = active_i ^ rst_ni;
  end

endmodule
