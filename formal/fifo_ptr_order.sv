`ifdef FORMAL
`include "harness.svh"

// Proof harness: mxu_fifo_ptr hands entries out in order. A push chosen freely (track_i) is
// followed: it must be read from the slot it was written to, by the pop that comes after exactly
// the entries ahead of it, and its slot must not be written while it is held.
// Method: k-induction (run.sh).
module fifo_ptr_order #(
  parameter int unsigned Depth = 4
) (
  input logic clk_i,
  input logic rst_ni,
  input logic push_i,
  input logic pop_i,
  input logic track_i
);
  `include "fifo_ptr_env.svh"

  // The tracked entry: held, its slot, and how many entries are ahead of it.
  logic                held_q;
  logic [PtrWidth-1:0] slot_q;
  logic [CntWidth-1:0] ahead_q;
  logic                start, leave;
  assign start = track_i && wr_en && !held_q;
  assign leave = held_q && rd_en && (ahead_q == '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q  <= 1'b0;
      slot_q  <= '0;
      ahead_q <= '0;
    end else if (start) begin
      held_q  <= 1'b1;
      slot_q  <= wr_ptr;
      ahead_q <= count - CntWidth'(rd_en);
    end else if (held_q && rd_en) begin
      if (ahead_q == '0) held_q <= 1'b0;
      else ahead_q <= ahead_q - 1'b1;
    end
  end

  always_comb begin
    if (rst_ni) begin
      if (leave) assert (rd_ptr == slot_q);                 // read from its slot, in its turn
      if (held_q && wr_en) assert (wr_ptr != slot_q);       // not overwritten while held
      // Invariants (true of every reachable state; they make the induction go through).
      assert (32'(rd_ptr) < Depth && 32'(wr_ptr) < Depth && 32'(count) <= Depth);
      assert (SumWidth'(wr_ptr) == add_mod(SumWidth'(rd_ptr), SumWidth'(count)));
      if (held_q) begin
        assert (ahead_q < count);
        assert (SumWidth'(slot_q) == add_mod(SumWidth'(rd_ptr), SumWidth'(ahead_q)));
      end
    end
  end
endmodule
`endif  // FORMAL
