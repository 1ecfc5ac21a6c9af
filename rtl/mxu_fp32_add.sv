// IEEE-754 binary32 addition, round to nearest even: align the smaller operand with guard, round
// and sticky bits, add or subtract the significands, normalize, round once (fp32_round).
// Combinational; the PE registers its output.
module mxu_fp32_add #(
  parameter bit FlushSubnormals = mxu_pkg::FlushSubnormals
) (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] sum_o
);

  logic        a_nan, a_inf, a_zero, b_nan, b_inf, b_zero;
  logic [23:0] a_sig, b_sig;
  logic [7:0]  a_exp, b_exp;

  always_comb begin
    a_nan  = (a_i[30:23] == 8'hFF) && (a_i[22:0] != '0);
    b_nan  = (b_i[30:23] == 8'hFF) && (b_i[22:0] != '0);
    a_inf  = (a_i[30:23] == 8'hFF) && (a_i[22:0] == '0);
    b_inf  = (b_i[30:23] == 8'hFF) && (b_i[22:0] == '0);
    // In flush mode a subnormal operand reads as a signed zero.
    a_zero = (a_i[30:23] == 8'h00) && ((a_i[22:0] == '0) || FlushSubnormals);
    b_zero = (b_i[30:23] == 8'h00) && ((b_i[22:0] == '0) || FlushSubnormals);
    // Zeros get a zero significand so that they always lose the magnitude comparison.
    a_sig  = a_zero ? 24'd0 : {a_i[30:23] != 8'h00, a_i[22:0]};
    b_sig  = b_zero ? 24'd0 : {b_i[30:23] != 8'h00, b_i[22:0]};
    a_exp  = (a_i[30:23] == 8'h00) ? 8'd1 : a_i[30:23];
    b_exp  = (b_i[30:23] == 8'h00) ? 8'd1 : b_i[30:23];
  end

  // Order the operands by magnitude so the difference of significands is never negative.
  logic        swap;
  logic        big_sign;
  logic [7:0]  big_exp, small_exp;
  logic [23:0] big_sig, small_sig;
  logic [7:0]  exp_diff;
  logic [4:0]  shift;
  logic [27:0] big_ext, small_ext, small_aligned;
  logic        subtract;
  logic [27:0] sig_sum;

  always_comb begin
    swap      = {b_exp, b_sig} > {a_exp, a_sig};
    big_sign  = swap ? b_i[31] : a_i[31];
    big_exp   = swap ? b_exp : a_exp;
    big_sig   = swap ? b_sig : a_sig;
    small_exp = swap ? a_exp : b_exp;
    small_sig = swap ? a_sig : b_sig;

    // Align: 24 significand bits plus guard, round and sticky below and a carry bit above.
    exp_diff  = big_exp - small_exp;
    shift     = (exp_diff > 8'd31) ? 5'd31 : exp_diff[4:0];
    big_ext   = {1'b0, big_sig, 3'b000};
    small_ext = {1'b0, small_sig, 3'b000};
    small_aligned    = small_ext >> shift;
    small_aligned[0] = small_aligned[0] | (|(small_ext & ~({28{1'b1}} << shift)));

    subtract = a_i[31] ^ b_i[31];
    sig_sum  = subtract ? (big_ext - small_aligned) : (big_ext + small_aligned);
  end

  // Normalize: bring the leading one to bit 27. A left shift of more than one only happens on
  // near-total cancellation (exponent difference 0 or 1), where no sticky bit has been set.
  logic [4:0]        lead_zeros;
  logic [27:0]       sig_norm;
  logic signed [9:0] exp_norm;
  logic [31:0]       rounded;

  mxu_lzc #(.Width(28)) u_lzc (
    .in_i (sig_sum),
    .cnt_o(lead_zeros)
  );

  always_comb begin
    sig_norm = sig_sum << lead_zeros;
    exp_norm = 10'(big_exp) + 10'sd1 - 10'(lead_zeros);
  end

  mxu_fp32_round #(.FlushSubnormals(FlushSubnormals)) u_round (
    .sign_i  (big_sign),
    .exp_i   (exp_norm),
    .sig_i   (sig_norm),
    .result_o(rounded)
  );

  always_comb begin
    if (a_nan || b_nan || (a_inf && b_inf && subtract)) begin
      sum_o = mxu_pkg::Fp32CanonicalNan;
    end else if (a_inf || b_inf) begin
      sum_o = {a_inf ? a_i[31] : b_i[31], 8'hFF, 23'd0};
    end else if (sig_sum == '0) begin
      // Exact zero: +0 under round to nearest, except -0 + -0 = -0.
      sum_o = {a_zero && b_zero && a_i[31] && b_i[31], 31'd0};
    end else begin
      sum_o = rounded;
    end
  end

endmodule
