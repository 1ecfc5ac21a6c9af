`ifdef FORMAL
`include "harness.svh"

// Proof harness: mxu_fifo_ptr refuses a push when full and a pop when empty (no overflow, no
// underflow), and its flags and count agree. Method: k-induction (run.sh).
module fifo_ptr_flow #(
  parameter int unsigned Depth = 4
) (
  input logic clk_i,
  input logic rst_ni,
  input logic push_i,
  input logic pop_i
);
  localparam int unsigned PtrWidth = (Depth > 1) ? $clog2(Depth) : 1;
  localparam int unsigned CntWidth = $clog2(Depth + 1);

  logic                wr_en, rd_en, full, empty;
  logic [PtrWidth-1:0] wr_ptr, rd_ptr;
  logic [CntWidth-1:0] count;

  mxu_fifo_ptr #(.Depth(Depth)) dut (
    .clk_i, .rst_ni, .push_i, .pop_i, .wr_en_o(wr_en), .rd_en_o(rd_en), .wr_ptr_o(wr_ptr),
    .rd_ptr_o(rd_ptr), .full_o(full), .empty_o(empty), .count_o(count)
  );

  `MXU_FORMAL_RESET_FIRST(clk_i, rst_ni)

  always_comb begin
    if (rst_ni) begin
      assert (wr_en == (push_i && !full));  // a push is taken exactly when not full
      assert (rd_en == (pop_i && !empty));  // a pop is taken exactly when not empty
      assert (count <= CntWidth'(Depth));
      assert (full == (count == CntWidth'(Depth)));
      assert (empty == (count == '0));
    end
  end
endmodule
`endif  // FORMAL
