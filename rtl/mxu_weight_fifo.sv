// Weight FIFO: stages weight rows (Lanes bf16 each) between the DMA and the array's shadow chain,
// on a 1R1W SRAM. Push when !full_o; pop when !empty_o, the row appearing on pop_data_o the
// cycle after. A push and a pop may happen in the same cycle.
`include "mxu_assert.svh"

module mxu_weight_fifo #(
  parameter int unsigned Lanes = mxu_pkg::ArrayCols,
  parameter int unsigned Depth = mxu_pkg::WeightFifoDepth,
  localparam int unsigned PtrWidth = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned CntWidth = $clog2(Depth + 1)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                push_i,
  input  logic [Lanes*16-1:0] push_data_i,
  output logic                full_o,
  input  logic                pop_i,
  output logic [Lanes*16-1:0] pop_data_o,
  output logic                empty_o,
  output logic [CntWidth-1:0] count_o
);

  logic [PtrWidth-1:0] wr_ptr_d, wr_ptr_q, rd_ptr_d, rd_ptr_q;
  logic [CntWidth-1:0] count_d, count_q;
  logic                push, pop;

  always_comb begin
    push = push_i && (count_q != CntWidth'(Depth));
    pop  = pop_i && (count_q != '0);
    wr_ptr_d = wr_ptr_q;
    rd_ptr_d = rd_ptr_q;
    if (push) wr_ptr_d = (wr_ptr_q == PtrWidth'(Depth - 1)) ? '0 : wr_ptr_q + 1'b1;
    if (pop)  rd_ptr_d = (rd_ptr_q == PtrWidth'(Depth - 1)) ? '0 : rd_ptr_q + 1'b1;
    count_d = count_q + CntWidth'(push) - CntWidth'(pop);
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

  mxu_sram_1r1w #(.Width(Lanes*16), .Depth(Depth)) u_sram (
    .clk_i,
    .rd_en_i  (pop),
    .rd_addr_i(rd_ptr_q),
    .rd_data_o(pop_data_o),
    .wr_en_i  (push),
    .wr_addr_i(wr_ptr_q),
    .wr_data_i(push_data_i)
  );

  assign full_o  = (count_q == CntWidth'(Depth));
  assign empty_o = (count_q == '0);
  assign count_o = count_q;

  `MXU_ASSERT_STATIC(gen_depth_check, Depth >= 1, "mxu_weight_fifo: Depth must be at least 1")
  // No push into a full FIFO (the row would be lost), no pop from an empty one.
  `MXU_ASSERT_NEVER(Overflow, push_i && full_o, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(Underflow, pop_i && empty_o, clk_i, rst_ni)
  `MXU_ASSERT(CountInRange, count_q <= CntWidth'(Depth), clk_i, rst_ni)

endmodule
