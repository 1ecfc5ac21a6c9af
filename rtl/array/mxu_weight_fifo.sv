// Weight FIFO: stages weight rows (Lanes bf16 each) between the DMA and the array's shadow chain,
// on a 1R1W SRAM. Push when !full_o; pop when !empty_o, the row appearing on pop_data_o the
// cycle after. A push and a pop may happen in the same cycle. The pointers and the count are
// mxu_fifo_ptr's.

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

  // u_ptr's pointer registers, under the names the layouts of waves/ show.
  logic [PtrWidth-1:0] wr_ptr_q, rd_ptr_q;
  logic                push, pop;

  mxu_fifo_ptr #(.Depth(Depth)) u_ptr (
    .clk_i,
    .rst_ni,
    .push_i,
    .pop_i,
    .wr_en_o (push),
    .rd_en_o (pop),
    .wr_ptr_o(wr_ptr_q),
    .rd_ptr_o(rd_ptr_q),
    .full_o,
    .empty_o,
    .count_o
  );

  mxu_sram_1r1w #(.Width(Lanes*16), .Depth(Depth)) u_sram (
    .clk_i,
    .rd_en_i  (pop),
    .rd_addr_i(rd_ptr_q),
    .rd_data_o(pop_data_o),
    .wr_en_i  (push),
    .wr_addr_i(wr_ptr_q),
    .wr_data_i(push_data_i)
  );

endmodule
