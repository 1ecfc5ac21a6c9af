// Unified buffer: bf16 rows of Lanes lanes on two 1R1W SRAM banks, even rows in one and odd rows
// in the other. Every cycle each bank reads one row and writes one row; each port pair is shared
// by two requesters with fixed priority:
//   read:  a = matmul stream (always granted), b = store path (granted unless a reads its bank);
//   write: a = activation unit (always granted), b = DMA (granted unless a writes its bank).
// A matmul stream reads consecutive rows, so it holds each bank every other cycle and a store of
// the activation unit's results reads at half rate beside it, where one bank would starve it.
// Read data appears on rd_a_data_o / rd_b_data_o the cycle after the grant.
`include "mxu_assert.svh"

module mxu_unified_buffer #(
  parameter int unsigned Lanes = mxu_pkg::ArrayRows,
  parameter int unsigned Depth = mxu_pkg::UbDepth,
  localparam int unsigned AddrWidth = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 rd_a_en_i,
  input  logic [AddrWidth-1:0] rd_a_addr_i,
  output logic [Lanes*16-1:0]  rd_a_data_o,
  input  logic                 rd_b_en_i,
  input  logic [AddrWidth-1:0] rd_b_addr_i,
  output logic                 rd_b_gnt_o,
  output logic [Lanes*16-1:0]  rd_b_data_o,
  input  logic                 wr_a_en_i,
  input  logic [AddrWidth-1:0] wr_a_addr_i,
  input  logic [Lanes*16-1:0]  wr_a_data_i,
  input  logic                 wr_b_en_i,
  input  logic [AddrWidth-1:0] wr_b_addr_i,
  input  logic [Lanes*16-1:0]  wr_b_data_i,
  output logic                 wr_b_gnt_o
);

  localparam int unsigned BankDepth = Depth / 2;
  localparam int unsigned BankAddrWidth = (BankDepth > 1) ? $clog2(BankDepth) : 1;

  logic [1:0]                rd_en, wr_en;
  logic [BankAddrWidth-1:0]  rd_addr [2];
  logic [BankAddrWidth-1:0]  wr_addr [2];
  logic [Lanes*16-1:0]       wr_data [2];
  logic [Lanes*16-1:0]       rd_data [2];
  logic                      rd_a_bank_d, rd_a_bank_q, rd_b_bank_d, rd_b_bank_q;

  assign rd_b_gnt_o = rd_b_en_i && !(rd_a_en_i && rd_a_addr_i[0] == rd_b_addr_i[0]);
  assign wr_b_gnt_o = wr_b_en_i && !(wr_a_en_i && wr_a_addr_i[0] == wr_b_addr_i[0]);

  for (genvar k = 0; k < 2; k++) begin : g_bank
    logic rd_a_here, wr_a_here;
    assign rd_a_here  = rd_a_en_i && rd_a_addr_i[0] == k[0];
    assign wr_a_here  = wr_a_en_i && wr_a_addr_i[0] == k[0];
    assign rd_en[k]   = rd_a_here || (rd_b_gnt_o && rd_b_addr_i[0] == k[0]);
    assign rd_addr[k] = rd_a_here ? rd_a_addr_i[AddrWidth-1:1] : rd_b_addr_i[AddrWidth-1:1];
    assign wr_en[k]   = wr_a_here || (wr_b_gnt_o && wr_b_addr_i[0] == k[0]);
    assign wr_addr[k] = wr_a_here ? wr_a_addr_i[AddrWidth-1:1] : wr_b_addr_i[AddrWidth-1:1];
    assign wr_data[k] = wr_a_here ? wr_a_data_i : wr_b_data_i;

    mxu_sram_1r1w #(.Width(Lanes*16), .Depth(BankDepth)) u_sram (
      .clk_i,
      .rd_en_i  (rd_en[k]),
      .rd_addr_i(rd_addr[k]),
      .rd_data_o(rd_data[k]),
      .wr_en_i  (wr_en[k]),
      .wr_addr_i(wr_addr[k]),
      .wr_data_i(wr_data[k])
    );
  end

  // Each requester's data comes from the bank it read last.
  assign rd_a_bank_d = rd_a_en_i ? rd_a_addr_i[0] : rd_a_bank_q;
  assign rd_b_bank_d = rd_b_gnt_o ? rd_b_addr_i[0] : rd_b_bank_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_a_bank_q <= 1'b0;
      rd_b_bank_q <= 1'b0;
    end else begin
      rd_a_bank_q <= rd_a_bank_d;
      rd_b_bank_q <= rd_b_bank_d;
    end
  end

  assign rd_a_data_o = rd_data[rd_a_bank_q];
  assign rd_b_data_o = rd_data[rd_b_bank_q];

  `MXU_ASSERT_STATIC(gen_two_banks, Depth >= 4 && Depth % 2 == 0,
                     "mxu_unified_buffer: Depth must be even (two banks of Depth / 2 rows)")

endmodule
