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
  `include "fifo_ptr_env.svh"

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
