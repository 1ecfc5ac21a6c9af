// Small first-word-fall-through FIFO in flip-flops (a few entries of metadata: bursts and
// segments in flight). rdata_o is valid while !empty_o; push when !full_o, pop when !empty_o.
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
  logic [PtrWidth-1:0]    wr_ptr_d, wr_ptr_q, rd_ptr_d, rd_ptr_q;
  logic [CntWidth-1:0]    count_d, count_q;
  logic                   push, pop;

  always_comb begin
    push      = push_i && (count_q != CntWidth'(Depth));
    pop       = pop_i && (count_q != '0);
    entries_d = entries_q;
    wr_ptr_d  = wr_ptr_q;
    rd_ptr_d  = rd_ptr_q;
    if (push) begin
      entries_d[wr_ptr_q*Width +: Width] = wdata_i;
      wr_ptr_d = (wr_ptr_q == PtrWidth'(Depth - 1)) ? '0 : wr_ptr_q + 1'b1;
    end
    if (pop) rd_ptr_d = (rd_ptr_q == PtrWidth'(Depth - 1)) ? '0 : rd_ptr_q + 1'b1;
    count_d = count_q + CntWidth'(push) - CntWidth'(pop);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      // Bit by bit: a '0 of the whole array is a replication of over 8k bits on wide entries
      // (the fetch buffer's beats at bus=1024 are 8,256 bits each).
      for (int unsigned i = 0; i < Depth * Width; i++) entries_q[i] <= 1'b0;
      wr_ptr_q  <= '0;
      rd_ptr_q  <= '0;
      count_q   <= '0;
    end else begin
      entries_q <= entries_d;
      wr_ptr_q  <= wr_ptr_d;
      rd_ptr_q  <= rd_ptr_d;
      count_q   <= count_d;
    end
  end

  assign rdata_o = entries_q[rd_ptr_q*Width +: Width];
  assign full_o  = (count_q == CntWidth'(Depth));
  assign empty_o = (count_q == '0);
  assign count_o = count_q;

  `MXU_ASSERT_STATIC(gen_depth_check, Depth >= 1 && Width >= 1,
                     "mxu_sync_fifo: Depth and Width must be at least 1")
  // No push into a full FIFO (the entry would be lost), no pop from an empty one.
  `MXU_ASSERT_NEVER(Overflow, push_i && full_o, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(Underflow, pop_i && empty_o, clk_i, rst_ni)
  `MXU_ASSERT(CountInRange, count_q <= CntWidth'(Depth), clk_i, rst_ni)

endmodule
