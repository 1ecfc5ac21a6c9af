`ifdef FORMAL
`include "harness.svh"

// Proof harness: mxu_weight_fifo's rows leave in order and unchanged. A push chosen freely
// (track_i) carries a free row; the pop that comes after exactly the rows ahead of it (pushes are
// taken while !full_o, pops while !empty_o) must give it on pop_data_o the cycle after.
// Method: bounded (run.sh states the depth): the SRAM's contents are a memory the harness does
// not reach, so no induction invariant is stated here.
module weight_fifo_data #(
  parameter int unsigned Lanes = 1,
  parameter int unsigned Depth = 4
) (
  input logic                clk_i,
  input logic                rst_ni,
  input logic                push_i,
  input logic [Lanes*16-1:0] push_data_i,
  input logic                pop_i,
  input logic                track_i
);
  localparam int unsigned CntWidth = $clog2(Depth + 1);

  logic                full, empty;
  logic [Lanes*16-1:0] pop_data;
  logic [CntWidth-1:0] count;

  mxu_weight_fifo #(.Lanes(Lanes), .Depth(Depth)) dut (
    .clk_i, .rst_ni, .push_i, .push_data_i, .full_o(full), .pop_i, .pop_data_o(pop_data),
    .empty_o(empty), .count_o(count)
  );

  `MXU_FORMAL_RESET_FIRST(clk_i, rst_ni)

  logic push, pop;
  assign push = push_i && !full;
  assign pop  = pop_i && !empty;

  logic                held_q, out_q;
  logic [Lanes*16-1:0] value_q;
  logic [CntWidth-1:0] ahead_q;
  logic                start;
  assign start = track_i && push && !held_q && !out_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q  <= 1'b0;
      out_q   <= 1'b0;
      value_q <= '0;
      ahead_q <= '0;
    end else begin
      out_q <= 1'b0;
      if (start) begin
        held_q  <= 1'b1;
        value_q <= push_data_i;
        ahead_q <= count - CntWidth'(pop);
      end else if (held_q && pop) begin
        if (ahead_q == '0) begin
          held_q <= 1'b0;
          out_q  <= 1'b1;  // popped now: on pop_data_o next cycle
        end else begin
          ahead_q <= ahead_q - 1'b1;
        end
      end
    end
  end

  always_comb begin
    if (rst_ni) begin
      if (out_q) assert (pop_data == value_q);
      if (held_q) assert (ahead_q < count);
    end
  end
endmodule
`endif  // FORMAL
