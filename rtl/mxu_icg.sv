// Integrated clock-gating cell: the one way the device gates a clock (docs/architecture.md,
// "Clock gating"). The enable is caught by a latch that is transparent while the clock is low
// and ANDed with the clock, so that an enable which changes during the high phase cannot cut a
// pulse short or make a glitch: the gated clock either copies a whole pulse or stays low. The
// enable must settle within the low phase before the rising edge it is meant for (OpenSTA's
// clock-gating setup check on the AND). The PPA flow maps the latch and the AND onto the
// library's cells (scripts/ppa.py); a library with an integrated cell would take it instead.
// This is lowRISC's prim_clock_gating, without the scan enable the device has no use for.
module mxu_icg (
  input  logic clk_i,
  input  logic en_i,
  output logic clk_o
);

  logic en_latched;

  always_latch begin
    if (!clk_i) begin
      en_latched = en_i;
    end
  end

  assign clk_o = clk_i & en_latched;

endmodule
