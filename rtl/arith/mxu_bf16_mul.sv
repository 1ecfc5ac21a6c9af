// bf16 x bf16 -> fp32: the product is formed exactly (8 x 8 significand bits) and rounded once to
// binary32, round to nearest even. Only results outside the normal fp32 range round at all.
//
// Three steps, each but the last followed by an optional pipeline register (Cuts[i]):
//   product   classify the operands (fp_classify), multiply the significands;  Cuts[0]
//   normalize leading zeros of a subnormal operand's product;                  Cuts[1]
//   round     fp32_finish: round once to binary32, then zeros, infinities and NaNs.
// The adder (mxu_fp32_add) shares the first and the last step's modules.
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

  logic [1:0] nan, inf, zero;  // bit 0: a_i's, bit 1: b_i's
  logic [7:0] a_sig, b_sig;
  logic [7:0] a_exp, b_exp;
  mxu_pkg::mul_product_t prod_d, prod_q;
  logic       prod_valid;

  mxu_fp_classify #(.ExpWidth(8), .FracWidth(7), .FlushSubnormals(FlushSubnormals)) u_classify (
    .a_i    (a_i[14:0]),
    .b_i    (b_i[14:0]),
    .nan_o  (nan),
    .inf_o  (inf),
    .zero_o (zero),
    .sig_o  ({b_sig, a_sig}),
    .exp_o  ({b_exp, a_exp})
  );

  always_comb begin
    if ((|nan) || (inf[0] && zero[1]) || (inf[1] && zero[0])) begin
      prod_d.cls = mxu_pkg::FpNan;
    end else if (|inf) begin
      prod_d.cls = mxu_pkg::FpInf;
    end else if (|zero) begin
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
  mxu_pkg::fp32_norm_t norm_d;

  mxu_lzc #(.Width(16)) u_lzc (
    .in_i (prod_q.sig),
    .cnt_o(lead_zeros)
  );

  always_comb begin
    norm_d.cls  = prod_q.cls;
    norm_d.sign = prod_q.sign;
    // The exact 16-bit product: no guard, round or sticky bit set.
    norm_d.sig  = {prod_q.sig << lead_zeros, 12'd0};
    // value = sig[27].[26:0] x 2^(a_exp + b_exp - 253 - lead_zeros), biased by 127.
    norm_d.exp  = 10'(prod_q.exp_sum) - 10'sd126 - 10'(lead_zeros);
  end

  // ---- round (after the cut Cuts[1]), then zeros, infinities and NaNs
  mxu_fp32_finish #(.FlushSubnormals(FlushSubnormals), .Cut(Cuts[1])) u_finish (
    .clk_i,
    .rst_ni,
    .valid_i (prod_valid),
    .norm_i  (norm_d),
    .valid_o,
    .result_o(product_o)
  );

`ifndef SYNTHESIS
  // Whether a register would take a new value at the next edge (a gated domain's assertion).
  logic would_change;
  assign would_change = u_cut_product.would_change || u_finish.would_change;
`endif

endmodule
