// bf16 x bf16 -> fp32: the product is formed exactly (8 x 8 significand bits) and rounded once to
// binary32, round to nearest even. Only results outside the normal fp32 range round at all.
//
// Three steps, each followed by an optional pipeline register (Cuts[i], mxu_pipe_reg):
//   product   classify the operands, multiply the significands;   Cuts[0]
//   normalize leading zeros of a subnormal operand's product;      Cuts[1]
//   round     fp32_round, then zeros, infinities and NaNs.
// Cuts = '0 is one combinational block (clk_i, rst_ni and valid_i unused); the result is the same
// at every setting, only Cuts cycles later.
module mxu_bf16_mul #(
  parameter bit         FlushSubnormals = mxu_pkg::FlushSubnormals,
  parameter logic [1:0] Cuts            = 2'b00
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        valid_i,
  input  logic [15:0] a_i,
  input  logic [15:0] b_i,
  output logic        valid_o,
  output logic [31:0] product_o
);

  // ---- product

  logic       a_nan, a_inf, a_zero, b_nan, b_inf, b_zero;
  logic [7:0] a_sig, b_sig;
  logic [7:0] a_exp, b_exp;
  mxu_pkg::mul_product_t prod_d, prod_q;
  logic       prod_valid;

  always_comb begin
    a_nan  = (a_i[14:7] == 8'hFF) && (a_i[6:0] != '0);
    b_nan  = (b_i[14:7] == 8'hFF) && (b_i[6:0] != '0);
    a_inf  = (a_i[14:7] == 8'hFF) && (a_i[6:0] == '0);
    b_inf  = (b_i[14:7] == 8'hFF) && (b_i[6:0] == '0);
    // In flush mode a subnormal operand reads as a signed zero.
    a_zero = (a_i[14:7] == 8'h00) && ((a_i[6:0] == '0) || FlushSubnormals);
    b_zero = (b_i[14:7] == 8'h00) && ((b_i[6:0] == '0) || FlushSubnormals);
    // A subnormal has no hidden bit and the exponent of 1.
    a_sig  = {a_i[14:7] != 8'h00, a_i[6:0]};
    b_sig  = {b_i[14:7] != 8'h00, b_i[6:0]};
    a_exp  = (a_i[14:7] == 8'h00) ? 8'd1 : a_i[14:7];
    b_exp  = (b_i[14:7] == 8'h00) ? 8'd1 : b_i[14:7];

    if (a_nan || b_nan || (a_inf && b_zero) || (b_inf && a_zero)) begin
      prod_d.cls = mxu_pkg::FpNan;
    end else if (a_inf || b_inf) begin
      prod_d.cls = mxu_pkg::FpInf;
    end else if (a_zero || b_zero) begin
      prod_d.cls = mxu_pkg::FpZero;
    end else begin
      prod_d.cls = mxu_pkg::FpFinite;
    end
    prod_d.sign    = a_i[15] ^ b_i[15];
    prod_d.exp_sum = 9'(a_exp) + 9'(b_exp);
    prod_d.sig     = a_sig * b_sig;
  end

  mxu_pipe_reg #(.Width($bits(prod_d)), .Enable(Cuts[0])) u_cut_product (
    .clk_i,
    .rst_ni,
    .valid_i,
    .data_i (prod_d),
    .valid_o(prod_valid),
    .data_o (prod_q)
  );

  // ---- normalize (subnormal operands leave leading zeros)

  logic [4:0]  lead_zeros;
  mxu_pkg::mul_norm_t norm_d, norm_q;
  logic        norm_valid;

  mxu_lzc #(.Width(16)) u_lzc (
    .in_i (prod_q.sig),
    .cnt_o(lead_zeros)
  );

  always_comb begin
    norm_d.cls  = prod_q.cls;
    norm_d.sign = prod_q.sign;
    norm_d.sig  = prod_q.sig << lead_zeros;
    // value = sig[15].[14:0] x 2^(a_exp + b_exp - 253 - lead_zeros), biased by 127.
    norm_d.exp  = 10'(prod_q.exp_sum) - 10'sd126 - 10'(lead_zeros);
  end

  mxu_pipe_reg #(.Width($bits(norm_d)), .Enable(Cuts[1])) u_cut_normalize (
    .clk_i,
    .rst_ni,
    .valid_i(prod_valid),
    .data_i (norm_d),
    .valid_o(norm_valid),
    .data_o (norm_q)
  );

  // ---- round
  logic [31:0] rounded;

  mxu_fp32_round #(.FlushSubnormals(FlushSubnormals)) u_round (
    .sign_i  (norm_q.sign),
    .exp_i   (norm_q.exp),
    .sig_i   ({norm_q.sig, 12'd0}),
    .result_o(rounded)
  );

  mxu_fp32_class_mux u_class_mux (
    .cls_i    (norm_q.cls),
    .sign_i   (norm_q.sign),
    .rounded_i(rounded),
    .result_o (product_o)
  );

  assign valid_o = norm_valid;

`ifndef SYNTHESIS
  // Whether a register would take a new value at the next edge (a gated domain's assertion).
  logic would_change;
  assign would_change = u_cut_product.would_change || u_cut_normalize.would_change;
`endif

endmodule
