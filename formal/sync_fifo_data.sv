`ifdef FORMAL
`include "harness.svh"

// Proof harness: mxu_sync_fifo's data leave in order and unchanged. A push chosen freely
// (track_i) carries a free value; after exactly the entries ahead of it have been popped it must
// be the head: rdata_o shows it (first word fall-through) until it is popped. A push while full
// and a pop while empty are refused (the entries ahead do not change, nothing is overwritten).
// Method: k-induction; its invariants read the storage, the pointers and the head register
// (probe_*, connected by run.sh to the flattened dut's entries_q, rd_ptr, wr_ptr, head_q).
module sync_fifo_data #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             push_i,
  input logic [Width-1:0] wdata_i,
  input logic             pop_i,
  input logic             track_i
);
  localparam int unsigned PtrWidth = (Depth > 1) ? $clog2(Depth) : 1;
  localparam int unsigned CntWidth = $clog2(Depth + 1);
  localparam int unsigned SumWidth = CntWidth + 1;

  logic                full, empty;
  logic [Width-1:0]    rdata;
  logic [CntWidth-1:0] count;

  mxu_sync_fifo #(.Width(Width), .Depth(Depth)) dut (
    .clk_i, .rst_ni, .push_i, .wdata_i, .full_o(full), .pop_i, .rdata_o(rdata), .empty_o(empty),
    .count_o(count)
  );

  // Connected by run.sh (connect -set) to the dut's internals.
  logic [Depth*Width-1:0] probe_entries;
  logic [PtrWidth-1:0]    probe_rd_ptr, probe_wr_ptr;
  logic [Width-1:0]       probe_head;

  `MXU_FORMAL_ADD_MOD(SumWidth, Depth)

  `MXU_FORMAL_RESET_FIRST(clk_i, rst_ni)

  // As documented: a push is taken while !full_o, a pop while !empty_o.
  logic push, pop;
  assign push = push_i && !full;
  assign pop  = pop_i && !empty;

  logic                held_q;
  logic [Width-1:0]    value_q;
  logic [CntWidth-1:0] ahead_q;
  logic                start;
  assign start = track_i && push && !held_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q  <= 1'b0;
      value_q <= '0;
      ahead_q <= '0;
    end else if (start) begin
      held_q  <= 1'b1;
      value_q <= wdata_i;
      ahead_q <= count - CntWidth'(pop);
    end else if (held_q && pop) begin
      if (ahead_q == '0) held_q <= 1'b0;
      else ahead_q <= ahead_q - 1'b1;
    end
  end

  logic [SumWidth-1:0] slot;
  assign slot = add_mod(SumWidth'(probe_rd_ptr), SumWidth'(ahead_q));

  always_comb begin
    if (rst_ni) begin
      if (held_q && ahead_q == '0) begin
        assert (!empty);           // the oldest entry is there to pop
        assert (rdata == value_q); // and it is the tracked value, unchanged
      end
      // Invariants (true of every reachable state; they make the induction go through).
      assert (32'(probe_rd_ptr) < Depth && 32'(probe_wr_ptr) < Depth && 32'(count) <= Depth);
      assert (SumWidth'(probe_wr_ptr) == add_mod(SumWidth'(probe_rd_ptr), SumWidth'(count)));
      // rdata_o's register is a copy of the entry at the read pointer while there is one (the
      // storage has no reset: before the first push both hold their power-up values).
      assert (empty || probe_head == probe_entries[probe_rd_ptr*Width +: Width]);
      if (held_q) begin
        assert (ahead_q < count);
        assert (probe_entries[slot*Width +: Width] == value_q);
      end
    end
  end
endmodule
`endif  // FORMAL
