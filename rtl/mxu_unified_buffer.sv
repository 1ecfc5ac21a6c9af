// Unified buffer: bf16 rows of Lanes lanes on one 1R1W SRAM. Every cycle it delivers one row to
// the array and accepts one row, each port shared by two requesters with fixed priority:
//   read:  a = matmul stream (always granted), b = store path (granted when a is idle);
//   write: a = activation unit (always granted), b = DMA (granted when a is idle).
// Read data appears on rd_data_o the cycle after the grant.
module mxu_unified_buffer #(
  parameter int unsigned Lanes = mxu_pkg::ArrayRows,
  parameter int unsigned Depth = mxu_pkg::UbDepth,
  localparam int unsigned AddrWidth = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 rd_a_en_i,
  input  logic [AddrWidth-1:0] rd_a_addr_i,
  input  logic                 rd_b_en_i,
  input  logic [AddrWidth-1:0] rd_b_addr_i,
  output logic                 rd_b_gnt_o,
  output logic [Lanes*16-1:0]  rd_data_o,
  input  logic                 wr_a_en_i,
  input  logic [AddrWidth-1:0] wr_a_addr_i,
  input  logic [Lanes*16-1:0]  wr_a_data_i,
  input  logic                 wr_b_en_i,
  input  logic [AddrWidth-1:0] wr_b_addr_i,
  input  logic [Lanes*16-1:0]  wr_b_data_i,
  output logic                 wr_b_gnt_o
);

  assign rd_b_gnt_o = rd_b_en_i && !rd_a_en_i;
  assign wr_b_gnt_o = wr_b_en_i && !wr_a_en_i;

  mxu_sram_1r1w #(.Width(Lanes*16), .Depth(Depth)) u_sram (
    .clk_i,
    .rd_en_i  (rd_a_en_i || rd_b_en_i),
    .rd_addr_i(rd_a_en_i ? rd_a_addr_i : rd_b_addr_i),
    .rd_data_o,
    .wr_en_i  (wr_a_en_i || wr_b_en_i),
    .wr_addr_i(wr_a_en_i ? wr_a_addr_i : wr_b_addr_i),
    .wr_data_i(wr_a_en_i ? wr_a_data_i : wr_b_data_i)
  );

  logic unused_rst;
  assign unused_rst = rst_ni;

endmodule
