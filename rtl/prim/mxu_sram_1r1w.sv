// Synchronous SRAM with one read and one write port: the one memory type of the device, so every
// on-chip memory maps onto the same macro. The read is registered (data the cycle after rd_en_i);
// a read and a write of the same address in one cycle return the old data. Contents are not
// reset, as in an SRAM.
module mxu_sram_1r1w #(
  parameter int unsigned Width     = 32,
  parameter int unsigned Depth     = 16,
  localparam int unsigned AddrWidth = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic                 clk_i,
  input  logic                 rd_en_i,
  input  logic [AddrWidth-1:0] rd_addr_i,
  output logic [Width-1:0]     rd_data_o,
  input  logic                 wr_en_i,
  input  logic [AddrWidth-1:0] wr_addr_i,
  input  logic [Width-1:0]     wr_data_i
);

  logic [Width-1:0] mem_q [Depth];

  always_ff @(posedge clk_i) begin
    if (wr_en_i) begin
      mem_q[wr_addr_i] <= wr_data_i;
    end
    if (rd_en_i) begin
      rd_data_o <= mem_q[rd_addr_i];
    end
  end

`ifndef SYNTHESIS
  // Whether the macro would change at the next edge (a gated clock domain's assertion).
  logic would_change;
  assign would_change = rd_en_i || wr_en_i;
`endif

endmodule
