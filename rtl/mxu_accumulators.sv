// Accumulators: fp32 rows of Lanes lanes on a 1R1W SRAM. Result rows from the array either
// overwrite a row or are added into it (fp32_add per lane, docs/numerics.md):
//   cycle o   : result row arrives; an accumulating row reads its old value;
//   cycle o+1 : old + result (or result alone) is written; res_done_o pulses for a last row.
// A row written in cycle o and accumulated into again in cycle o+1 is forwarded, so results of
// consecutive tiles may hit the same row back to back. The read port (activation unit, store
// path) is granted when no accumulating result needs it; the write port (DMA preload) when no
// result is being written.
module mxu_accumulators #(
  parameter int unsigned Lanes           = mxu_pkg::ArrayCols,
  parameter int unsigned Depth           = mxu_pkg::AccDepth,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
  localparam int unsigned AddrWidth = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // Result rows from the array.
  input  logic                 res_valid_i,
  input  logic [AddrWidth-1:0] res_addr_i,
  input  logic                 res_accumulate_i,
  input  logic                 res_last_i,
  input  logic [Lanes*32-1:0]  res_data_i,
  output logic                 res_done_o,
  // Read port: data on rd_data_o the cycle after the grant.
  input  logic                 rd_en_i,
  input  logic [AddrWidth-1:0] rd_addr_i,
  output logic                 rd_gnt_o,
  output logic [Lanes*32-1:0]  rd_data_o,
  // Write port.
  input  logic                 wr_en_i,
  input  logic [AddrWidth-1:0] wr_addr_i,
  input  logic [Lanes*32-1:0]  wr_data_i,
  output logic                 wr_gnt_o
);

  // Stage 1 -> 2 registers.
  logic                 s2_valid_q, s2_accumulate_q, s2_last_q;
  logic [AddrWidth-1:0] s2_addr_q;
  logic [Lanes*32-1:0]  s2_data_q;
  // The most recent write (of any source), for forwarding.
  logic                 last_wr_valid_q;
  logic [AddrWidth-1:0] last_wr_addr_q;
  logic [Lanes*32-1:0]  last_wr_data_q;

  logic                 sram_rd_en, sram_wr_en;
  logic [AddrWidth-1:0] sram_rd_addr, sram_wr_addr;
  logic [Lanes*32-1:0]  sram_rd_data, sram_wr_data;
  logic [Lanes*32-1:0]  old_value, sum;
  logic                 res_read;

  always_comb begin
    res_read     = res_valid_i && res_accumulate_i;
    rd_gnt_o     = rd_en_i && !res_read;
    sram_rd_en   = res_read || rd_en_i;
    sram_rd_addr = res_read ? res_addr_i : rd_addr_i;
    // The value read in the previous cycle misses a write made in that same cycle: forward it.
    old_value = (last_wr_valid_q && last_wr_addr_q == s2_addr_q) ? last_wr_data_q : sram_rd_data;
    wr_gnt_o     = wr_en_i && !s2_valid_q;
    sram_wr_en   = s2_valid_q || wr_en_i;
    sram_wr_addr = s2_valid_q ? s2_addr_q : wr_addr_i;
    sram_wr_data = s2_valid_q ? (s2_accumulate_q ? sum : s2_data_q) : wr_data_i;
  end

  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    mxu_fp32_add #(.FlushSubnormals(FlushSubnormals)) u_add (
      .a_i  (old_value[l*32 +: 32]),
      .b_i  (s2_data_q[l*32 +: 32]),
      .sum_o(sum[l*32 +: 32])
    );
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s2_valid_q      <= 1'b0;
      s2_accumulate_q <= 1'b0;
      s2_last_q       <= 1'b0;
      s2_addr_q       <= '0;
      s2_data_q       <= '0;
      last_wr_valid_q <= 1'b0;
      last_wr_addr_q  <= '0;
      last_wr_data_q  <= '0;
    end else begin
      s2_valid_q      <= res_valid_i;
      s2_accumulate_q <= res_accumulate_i;
      s2_last_q       <= res_valid_i && res_last_i;
      s2_addr_q       <= res_addr_i;
      s2_data_q       <= res_data_i;
      last_wr_valid_q <= sram_wr_en;
      last_wr_addr_q  <= sram_wr_addr;
      last_wr_data_q  <= sram_wr_data;
    end
  end

  mxu_sram_1r1w #(.Width(Lanes*32), .Depth(Depth)) u_sram (
    .clk_i,
    .rd_en_i  (sram_rd_en),
    .rd_addr_i(sram_rd_addr),
    .rd_data_o(sram_rd_data),
    .wr_en_i  (sram_wr_en),
    .wr_addr_i(sram_wr_addr),
    .wr_data_i(sram_wr_data)
  );

  assign rd_data_o  = sram_rd_data;
  assign res_done_o = s2_last_q;

endmodule
