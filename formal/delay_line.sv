`ifdef FORMAL
`include "harness.svh"

// Proof harness: mxu_delay_line gives a value back exactly Depth cycles after it entered,
// unchanged (a value entering at a freely chosen cycle, track_i, is followed), and gives 0 in
// the first Depth cycles after a reset. Method: k-induction with k > Depth.
module delay_line #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 3
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic [Width-1:0] d_i,
  input logic             track_i
);
  logic [Width-1:0] q;

  mxu_delay_line #(.Width(Width), .Depth(Depth)) dut (.clk_i, .rst_ni, .d_i, .q_o(q));

  `MXU_FORMAL_RESET_FIRST(clk_i, rst_ni)

  if (Depth == 0) begin : g_wire
    logic unused_track;
    assign unused_track = track_i;
    always_comb if (rst_ni) assert (q == d_i);
  end else begin : g_regs
    // The tracked value, and the cycles since it entered (1 .. Depth).
    logic             held_q;
    logic [Width-1:0] value_q;
    logic [7:0]       age_q;
    // Cycles since the last reset, saturating at Depth.
    logic [7:0]       since_q;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        held_q  <= 1'b0;
        value_q <= '0;
        age_q   <= '0;
        since_q <= '0;
      end else begin
        if (since_q < 8'(Depth)) since_q <= since_q + 1'b1;
        if (held_q && age_q == 8'(Depth)) begin
          held_q <= 1'b0;
        end else if (held_q) begin
          age_q <= age_q + 1'b1;
        end else if (track_i) begin
          held_q  <= 1'b1;
          value_q <= d_i;
          age_q   <= 8'd1;
        end
      end
    end

    always_comb begin
      if (rst_ni) begin
        if (held_q && age_q == 8'(Depth)) assert (q == value_q);  // exactly Depth cycles later
        if (since_q < 8'(Depth)) assert (q == '0);                // nothing before its time
        assert (since_q <= 8'(Depth));
        if (held_q) assert (age_q >= 8'd1 && age_q <= 8'(Depth) && age_q <= since_q);
      end
    end
  end
endmodule
`endif  // FORMAL
