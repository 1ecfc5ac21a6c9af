// Small first-word-fall-through FIFO in flip-flops (a few entries of metadata: bursts and
// segments in flight). rdata_o is valid while !empty_o; push when !full_o, pop when !empty_o.
// The pointers and the count are mxu_fifo_ptr's.
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
  logic [PtrWidth-1:0]    wr_ptr, rd_ptr;
  logic                   push, pop;

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
    .empty_o,
    .count_o
  );

  always_comb begin
    entries_d = entries_q;
    if (push) entries_d[wr_ptr*Width +: Width] = wdata_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      // Bit by bit: a '0 of the whole array is a replication of over 8k bits on wide entries
      // (the fetch buffer's beats at bus=1024 are 8,256 bits each).
      for (int unsigned i = 0; i < Depth * Width; i++) entries_q[i] <= 1'b0;
    end else begin
      entries_q <= entries_d;
    end
  end

  assign rdata_o = entries_q[rd_ptr*Width +: Width];

  `MXU_ASSERT_STATIC(gen_depth_check, Depth >= 1 && Width >= 1,
                     "mxu_sync_fifo: Depth and Width must be at least 1")

  logic unused_signals;
  assign unused_signals = pop;

endmodule
