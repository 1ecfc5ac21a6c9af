// The environment of the mxu_fifo_ptr proofs (formal/fifo_ptr_*.sv include it inside their
// module): the FIFO's pointer logic at the harness's Depth, every output named, the first cycle a
// reset, and add_mod(a, b) = (a + b) mod Depth over SumWidth bits (a wide % makes the solver
// slow; a, b <= Depth). Ports expected of the including module: clk_i, rst_ni, push_i, pop_i.

localparam int unsigned PtrWidth = (Depth > 1) ? $clog2(Depth) : 1;
localparam int unsigned CntWidth = $clog2(Depth + 1);
localparam int unsigned SumWidth = CntWidth + 1;

logic                wr_en, rd_en, full, empty;
logic [PtrWidth-1:0] wr_ptr, rd_ptr;
logic [CntWidth-1:0] count;

mxu_fifo_ptr #(.Depth(Depth)) dut (
  .clk_i, .rst_ni, .push_i, .pop_i, .wr_en_o(wr_en), .rd_en_o(rd_en), .wr_ptr_o(wr_ptr),
  .rd_ptr_o(rd_ptr), .full_o(full), .empty_o(empty), .count_o(count)
);

`MXU_FORMAL_ADD_MOD(SumWidth, Depth)

`MXU_FORMAL_RESET_FIRST(clk_i, rst_ni)
