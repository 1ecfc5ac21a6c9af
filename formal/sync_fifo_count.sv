`ifdef FORMAL
`include "harness.svh"

// Proof harness: mxu_sync_fifo's count and flags. count_o follows the pushes and pops the FIFO
// takes (a push while !full_o, a pop while !empty_o), never exceeds Depth, and full_o, empty_o
// agree with it. Method: k-induction.
module sync_fifo_count #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             push_i,
  input logic [Width-1:0] wdata_i,
  input logic             pop_i
);
  localparam int unsigned CntWidth = $clog2(Depth + 1);

  logic                full, empty;
  logic [Width-1:0]    rdata;
  logic [CntWidth-1:0] count;

  mxu_sync_fifo #(.Width(Width), .Depth(Depth)) dut (
    .clk_i, .rst_ni, .push_i, .wdata_i, .full_o(full), .pop_i, .rdata_o(rdata), .empty_o(empty),
    .count_o(count)
  );

  `MXU_FORMAL_RESET_FIRST(clk_i, rst_ni)

  // The number of entries held: taken pushes minus taken pops since reset.
  logic [CntWidth:0] held_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) held_q <= '0;
    else held_q <= held_q + (CntWidth+1)'(push_i && !full) - (CntWidth+1)'(pop_i && !empty);
  end

  logic unused_rdata;
  assign unused_rdata = ^rdata;

  always_comb begin
    if (rst_ni) begin
      assert (held_q <= (CntWidth+1)'(Depth));  // never more than Depth entries
      assert ((CntWidth+1)'(count) == held_q);
      assert (full == (32'(count) == Depth));
      assert (empty == (count == '0));
    end
  end
endmodule
`endif  // FORMAL
