// Simulation harness of the arithmetic units: every unit in both subnormal modes, side by side,
// so that one verilated model serves the unit tests and `mxu selfcheck`.
module arith_harness (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] mul_ieee_o,     // mxu_bf16_mul(a_i[15:0], b_i[15:0])
  output logic [31:0] mul_flush_o,
  output logic [31:0] add_ieee_o,     // mxu_fp32_add(a_i, b_i)
  output logic [31:0] add_flush_o,
  output logic [15:0] to_bf16_ieee_o, // mxu_fp32_to_bf16(a_i)
  output logic [15:0] to_bf16_flush_o
);

  // The units without pipeline registers: no clock, every input valid.
  logic [3:0] unused_valid;
  mxu_bf16_mul #(.FlushSubnormals(1'b0)) u_mul_ieee (
    .clk_i(1'b0), .rst_ni(1'b1), .valid_i(1'b1), .a_i(a_i[15:0]), .b_i(b_i[15:0]),
    .valid_o(unused_valid[0]), .product_o(mul_ieee_o)
  );
  mxu_bf16_mul #(.FlushSubnormals(1'b1)) u_mul_flush (
    .clk_i(1'b0), .rst_ni(1'b1), .valid_i(1'b1), .a_i(a_i[15:0]), .b_i(b_i[15:0]),
    .valid_o(unused_valid[1]), .product_o(mul_flush_o)
  );
  mxu_fp32_add #(.FlushSubnormals(1'b0)) u_add_ieee (
    .clk_i(1'b0), .rst_ni(1'b1), .valid_i(1'b1), .a_i(a_i), .b_i(b_i),
    .valid_o(unused_valid[2]), .sum_o(add_ieee_o)
  );
  mxu_fp32_add #(.FlushSubnormals(1'b1)) u_add_flush (
    .clk_i(1'b0), .rst_ni(1'b1), .valid_i(1'b1), .a_i(a_i), .b_i(b_i),
    .valid_o(unused_valid[3]), .sum_o(add_flush_o)
  );
  mxu_fp32_to_bf16 #(.FlushSubnormals(1'b0)) u_to_bf16_ieee (
    .a_i(a_i), .bf16_o(to_bf16_ieee_o)
  );
  mxu_fp32_to_bf16 #(.FlushSubnormals(1'b1)) u_to_bf16_flush (
    .a_i(a_i), .bf16_o(to_bf16_flush_o)
  );

endmodule
