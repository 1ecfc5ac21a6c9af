// bf16 x bf16 -> fp32: the product is formed exactly (8 x 8 significand bits) and rounded once to
// binary32, round to nearest even. Only results outside the normal fp32 range round at all.
// Combinational; the PE registers its output.
module mxu_bf16_mul #(
  parameter bit FlushSubnormals = mxu_pkg::FlushSubnormals
) (
  input  logic [15:0] a_i,
  input  logic [15:0] b_i,
  output logic [31:0] product_o
);

  // Operand classes and significands. A subnormal has no hidden bit and the exponent of 1.
  logic       a_nan, a_inf, a_zero, b_nan, b_inf, b_zero;
  logic [7:0] a_sig, b_sig;
  logic [7:0] a_exp, b_exp;

  always_comb begin
    a_nan  = (a_i[14:7] == 8'hFF) && (a_i[6:0] != '0);
    b_nan  = (b_i[14:7] == 8'hFF) && (b_i[6:0] != '0);
    a_inf  = (a_i[14:7] == 8'hFF) && (a_i[6:0] == '0);
    b_inf  = (b_i[14:7] == 8'hFF) && (b_i[6:0] == '0);
    // In flush mode a subnormal operand reads as a signed zero.
    a_zero = (a_i[14:7] == 8'h00) && ((a_i[6:0] == '0) || FlushSubnormals);
    b_zero = (b_i[14:7] == 8'h00) && ((b_i[6:0] == '0) || FlushSubnormals);
    a_sig  = {a_i[14:7] != 8'h00, a_i[6:0]};
    b_sig  = {b_i[14:7] != 8'h00, b_i[6:0]};
    a_exp  = (a_i[14:7] == 8'h00) ? 8'd1 : a_i[14:7];
    b_exp  = (b_i[14:7] == 8'h00) ? 8'd1 : b_i[14:7];
  end

  // Exact product and its normalization (subnormal operands leave leading zeros).
  logic [15:0]       sig_product;
  logic [4:0]        lead_zeros;
  logic [15:0]       sig_norm;
  logic signed [9:0] exp_norm;
  logic              sign;
  logic [31:0]       rounded;

  assign sig_product = a_sig * b_sig;

  mxu_lzc #(.Width(16)) u_lzc (
    .in_i (sig_product),
    .cnt_o(lead_zeros)
  );

  always_comb begin
    sig_norm = sig_product << lead_zeros;
    // value = sig_norm[15].[14:0] x 2^(a_exp + b_exp - 253 - lead_zeros), biased by 127.
    exp_norm = 10'(a_exp) + 10'(b_exp) - 10'sd126 - 10'(lead_zeros);
    sign     = a_i[15] ^ b_i[15];
  end

  mxu_fp32_round #(.FlushSubnormals(FlushSubnormals)) u_round (
    .sign_i  (sign),
    .exp_i   (exp_norm),
    .sig_i   ({sig_norm, 12'd0}),
    .result_o(rounded)
  );

  always_comb begin
    if (a_nan || b_nan || (a_inf && b_zero) || (b_inf && a_zero)) begin
      product_o = mxu_pkg::Fp32CanonicalNan;
    end else if (a_inf || b_inf) begin
      product_o = {sign, 8'hFF, 23'd0};
    end else if (a_zero || b_zero) begin
      product_o = {sign, 31'd0};
    end else begin
      product_o = rounded;
    end
  end

endmodule
