// The bookkeeping of a circular FIFO of Depth entries, without its storage: the write and read
// pointers and the count of entries held. A push is taken while the FIFO is not full, a pop while
// it is not empty (wr_en_o, rd_en_o: write or read the storage at wr_ptr_o, rd_ptr_o this cycle);
// both may happen in one cycle. mxu_sync_fifo keeps its entries in flip-flops, mxu_weight_fifo in
// an SRAM.
`include "mxu_assert.svh"

module mxu_fifo_ptr #(
  parameter int unsigned Depth = 4,
  localparam int unsigned PtrWidth = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned CntWidth = $clog2(Depth + 1)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                push_i,
  input  logic                pop_i,
  output logic                wr_en_o,   // the push is taken
  output logic                rd_en_o,   // the pop is taken
  output logic [PtrWidth-1:0] wr_ptr_o,  // where the next push goes
  output logic [PtrWidth-1:0] rd_ptr_o,  // the oldest entry
  output logic                full_o,
  output logic                empty_o,
  output logic [CntWidth-1:0] count_o
);

  logic [PtrWidth-1:0] wr_ptr_d, wr_ptr_q, rd_ptr_d, rd_ptr_q;
  logic [CntWidth-1:0] count_d, count_q, count_push;

  always_comb begin
    wr_en_o  = push_i && (count_q != CntWidth'(Depth));
    rd_en_o  = pop_i && (count_q != '0);
    wr_ptr_d = wr_ptr_q;
    rd_ptr_d = rd_ptr_q;
    if (wr_en_o) wr_ptr_d = (wr_ptr_q == PtrWidth'(Depth - 1)) ? '0 : wr_ptr_q + 1'b1;
    if (rd_en_o) rd_ptr_d = (rd_ptr_q == PtrWidth'(Depth - 1)) ? '0 : rd_ptr_q + 1'b1;
    // The count after the push, then the pop as a last mux: a pop decided late in its cycle (the
    // controller's dispatch) passes no add.
    count_push = count_q + CntWidth'(wr_en_o);
    count_d    = rd_en_o ? count_push - 1'b1 : count_push;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      count_q  <= '0;
    end else begin
      wr_ptr_q <= wr_ptr_d;
      rd_ptr_q <= rd_ptr_d;
      count_q  <= count_d;
    end
  end

  assign wr_ptr_o = wr_ptr_q;
  assign rd_ptr_o = rd_ptr_q;
  assign full_o   = (count_q == CntWidth'(Depth));
  assign empty_o  = (count_q == '0);
  assign count_o  = count_q;

`ifndef SYNTHESIS
  // Whether a register would take a new value at the next edge (a gated domain's assertion).
  logic would_change;
  assign would_change = wr_en_o || rd_en_o;
`endif

  `MXU_ASSERT_STATIC(gen_depth_check, Depth >= 1, "mxu_fifo_ptr: Depth must be at least 1")
  // No push into a full FIFO (the entry would be lost), no pop from an empty one.
  `MXU_ASSERT_NEVER(Overflow, push_i && full_o, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(Underflow, pop_i && empty_o, clk_i, rst_ni)
  `MXU_ASSERT(CountInRange, count_q <= CntWidth'(Depth), clk_i, rst_ni)

endmodule
