// Small first-word-fall-through FIFO in flip-flops (a few entries of metadata: bursts and
// segments in flight, the controller's fetched instructions). rdata_o is valid while !empty_o;
// push when !full_o, pop when !empty_o. The pointers and the count are mxu_fifo_ptr's.
//
// rdata_o comes from a register of its own (head_q), a copy of the entry at the read pointer:
// the head feeds decisions made late in the cycle (the controller decodes and dispatches the
// instruction at the fetch buffer's head, the DMA works from its command queue's head), and a
// read multiplexer in front of them, its select fanning out to every bit of every entry, cost
// the device's worst path (issue 55: 1.8 ns of 8.5 at 180 nm). The copy is exact, in every
// cycle and also while the FIFO is empty: head_d is entries_d at rd_ptr_d, formed as the entry
// after the head or the head itself (both from registers), the push's data where it lands there,
// and the pop taken as the last select. No cycle moves; Width flip-flops more.
//
// The free slot at the write pointer takes wdata_i in every cycle the FIFO is not full, pushed or
// not (a push moves the pointer; an unpushed value is overwritten before anything reads it), and
// an empty FIFO's head likewise. So the push, which arrives late (the controller's dispatch is
// the DMA queues' push), reaches the pointers only, not the enable of every storage bit: that
// fan-out was the device's worst path (issue 66: dispatch -> the weight DMA's queue, 7.9 ns).
`include "mxu_assert.svh"

module mxu_sync_fifo #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4,
  localparam int unsigned PtrWidth = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned CntWidth = $clog2(Depth + 1)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                push_i,
  input  logic [Width-1:0]    wdata_i,
  output logic                full_o,
  input  logic                pop_i,
  output logic [Width-1:0]    rdata_o,
  output logic                empty_o,
  output logic [CntWidth-1:0] count_o
);

  logic [Depth*Width-1:0] entries_d, entries_q;
  logic [Width-1:0]       head_d, head_q, next_entry, head_stay, head_after_pop;
  logic [PtrWidth-1:0]    wr_ptr, rd_ptr, rd_ptr_inc;
  logic                   push, pop, empty;
  logic                   unused_push;

  mxu_fifo_ptr #(.Depth(Depth)) u_ptr (
    .clk_i,
    .rst_ni,
    .push_i,
    .pop_i,
    .wr_en_o (push),
    .rd_en_o (pop),
    .wr_ptr_o(wr_ptr),
    .rd_ptr_o(rd_ptr),
    .full_o,
    .empty_o (empty),
    .count_o
  );

  always_comb begin
    entries_d = entries_q;
    if (!full_o) entries_d[wr_ptr*Width +: Width] = wdata_i;
  end

  // The head after this cycle: the entry at the read pointer as it will be (entries_d at
  // rd_ptr_d), without the late pop in front of the read multiplexer. Without a pop the head
  // stays, unless the free slot is at the read pointer (only in an empty FIFO); with one it is
  // the next entry, or wdata_i where the free slot is there.
  always_comb begin
    rd_ptr_inc = (rd_ptr == PtrWidth'(Depth - 1)) ? '0 : rd_ptr + 1'b1;
    next_entry = entries_q[rd_ptr_inc*Width +: Width];
    head_stay  = empty ? wdata_i : head_q;
    head_after_pop  = (!full_o && wr_ptr == rd_ptr_inc) ? wdata_i : next_entry;
    head_d     = pop ? head_after_pop : head_stay;
  end

  // Storage: data only (the pointers say what holds an entry), so no reset (docs/architecture.md,
  // "Reset"); until the first push the head and the entries hold their power-up values.
  always_ff @(posedge clk_i) begin
    entries_q <= entries_d;
    head_q    <= head_d;
  end

  assign rdata_o = head_q;
  assign unused_push = push;  // the storage takes wdata_i whenever a slot is free
  assign empty_o = empty;

`ifndef SYNTHESIS
  // Whether a register would take a new value at the next edge (a gated domain's assertion).
  logic would_change;
  // The entries held, and the head while there is one, change only with a push or a pop; the free
  // slot's value is not data until pushed (a gated clock may freeze it or not).
  assign would_change = u_ptr.would_change;
`endif

  `MXU_ASSERT_STATIC(gen_depth_check, Depth >= 1 && Width >= 1,
                     "mxu_sync_fifo: Depth and Width must be at least 1")
  // The head register is the entry at the read pointer, always while there is one.
  `MXU_ASSERT(HeadCopy, empty || head_q == entries_q[rd_ptr*Width +: Width], clk_i, rst_ni)

endmodule
