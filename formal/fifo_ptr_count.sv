`ifdef FORMAL
`include "harness.svh"

// Proof harness: mxu_fifo_ptr's count matches its contents. An occupancy bit per slot (set by a
// taken push at wr_ptr, cleared by a taken pop at rd_ptr) is the contents; the count must equal
// the number of occupied slots, the occupied slots must be the count slots from rd_ptr on
// (circularly), a push never lands on an occupied slot and a pop never reads a free one.
// Method: k-induction (run.sh).
module fifo_ptr_count #(
  parameter int unsigned Depth = 4
) (
  input logic clk_i,
  input logic rst_ni,
  input logic push_i,
  input logic pop_i
);
  `include "fifo_ptr_env.svh"

  logic [Depth-1:0] occ_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      occ_q <= '0;
    end else begin
      if (rd_en) occ_q[rd_ptr] <= 1'b0;
      if (wr_en) occ_q[wr_ptr] <= 1'b1;
    end
  end

  function automatic logic [CntWidth-1:0] ones(logic [Depth-1:0] v);
    ones = '0;
    for (int unsigned i = 0; i < Depth; i++) ones = ones + CntWidth'(v[i]);
  endfunction

  always_comb begin
    if (rst_ni) begin
      assert (32'(wr_ptr) < Depth);
      assert (32'(rd_ptr) < Depth);
      assert (count == ones(occ_q));
      // Slot i holds an entry exactly when it is one of the count slots from rd_ptr on.
      for (int unsigned i = 0; i < Depth; i++) begin
        assert (occ_q[i] == (add_mod(SumWidth'(i), SumWidth'(Depth) - SumWidth'(rd_ptr)) <
                             SumWidth'(count)));
      end
      assert (SumWidth'(wr_ptr) == add_mod(SumWidth'(rd_ptr), SumWidth'(count)));
      if (wr_en) assert (!occ_q[wr_ptr]);  // no entry overwritten
      if (rd_en) assert (occ_q[rd_ptr]);   // no free slot read
    end
  end
endmodule
`endif  // FORMAL
