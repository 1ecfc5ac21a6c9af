// IEEE-754 binary32 addition, round to nearest even: align the smaller operand with guard, round
// and sticky bits, add or subtract the significands, normalize, round once (fp32_finish).
//
// Four steps, each but the last followed by an optional pipeline register (Cuts[i]):
//   align     classify (fp_classify), order by magnitude, shift the smaller one;  Cuts[0]
//   sum       add or subtract the significands, count leading zeros;            Cuts[1]
//   normalize shift the leading one to the top;                                 Cuts[2]
//   round     fp32_finish: round once, then exact zeros, infinities and NaNs.
// The multiplier (mxu_bf16_mul) shares the first and the last step's modules.
// Cuts = '0 is one combinational block (clk_i, rst_ni and valid_i unused); the result is the same
// at every setting, only popcount(Cuts) cycles later.
module mxu_fp32_add #(
  parameter bit         FlushSubnormals = mxu_pkg::FlushSubnormals,
  parameter logic [2:0] Cuts            = 3'b000
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        valid_i,
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic        valid_o,
  output logic [31:0] sum_o
);

  // ---- align
  logic [1:0]  nan, inf, zero;  // bit 0: a_i's, bit 1: b_i's
  logic [23:0] a_sig_in, b_sig_in;
  logic [23:0] a_sig, b_sig;
  logic [7:0]  a_exp, b_exp;
  logic        swap;
  logic [23:0] big_sig, small_sig;
  logic [7:0]  small_exp, exp_diff;
  logic [4:0]  shift;
  logic [27:0] small_ext, small_aligned;
  mxu_pkg::add_align_t align_d, align_q;
  logic        align_valid;

  mxu_fp_classify #(.ExpWidth(8), .FracWidth(23), .FlushSubnormals(FlushSubnormals)) u_classify (
    .a_i    (a_i[30:0]),
    .b_i    (b_i[30:0]),
    .nan_o  (nan),
    .inf_o  (inf),
    .zero_o (zero),
    .sig_o  ({b_sig_in, a_sig_in}),
    .exp_o  ({b_exp, a_exp})
  );

  always_comb begin
    // Zeros get a zero significand so that they always lose the magnitude comparison. A true
    // zero's is zero already; a flushed subnormal (no hidden bit) has its fraction cleared.
    a_sig = {a_sig_in[23], (FlushSubnormals && zero[0]) ? 23'd0 : a_sig_in[22:0]};
    b_sig = {b_sig_in[23], (FlushSubnormals && zero[1]) ? 23'd0 : b_sig_in[22:0]};

    // Order the operands by magnitude so the difference of significands is never negative.
    swap             = {b_exp, b_sig} > {a_exp, a_sig};
    align_d.exp      = swap ? b_exp : a_exp;
    big_sig          = swap ? b_sig : a_sig;
    small_exp        = swap ? a_exp : b_exp;
    small_sig        = swap ? a_sig : b_sig;
    align_d.subtract = a_i[31] ^ b_i[31];

    // Align: 24 significand bits plus guard, round and sticky below and a carry bit above.
    exp_diff          = align_d.exp - small_exp;
    shift             = (exp_diff > 8'd31) ? 5'd31 : exp_diff[4:0];
    small_ext         = {1'b0, small_sig, 3'b000};
    small_aligned     = small_ext >> shift;
    small_aligned[0]  = small_aligned[0] | (|(small_ext & ~({28{1'b1}} << shift)));
    align_d.sig_big   = {1'b0, big_sig, 3'b000};
    align_d.sig_small = small_aligned;

    if ((|nan) || (inf[0] && inf[1] && align_d.subtract)) begin
      align_d.cls  = mxu_pkg::FpNan;
      align_d.sign = 1'b0;
    end else if (|inf) begin
      align_d.cls  = mxu_pkg::FpInf;
      align_d.sign = inf[0] ? a_i[31] : b_i[31];
    end else if (&zero) begin
      // +0 under round to nearest, except -0 + -0 = -0.
      align_d.cls  = mxu_pkg::FpZero;
      align_d.sign = a_i[31] && b_i[31];
    end else begin
      align_d.cls  = mxu_pkg::FpFinite;
      align_d.sign = swap ? b_i[31] : a_i[31];
    end
  end

  mxu_pipe_reg #(.Width($bits(align_d)), .Enable(Cuts[0])) u_cut_align (
    .clk_i,
    .rst_ni,
    .valid_i,
    .data_i (align_d),
    .valid_o(align_valid),
    .data_o (align_q)
  );

  // ---- sum
  mxu_pkg::add_sum_t sum_d, sum_q;
  logic              sum_valid;
  logic [27:0]       sig_sum;
  logic [4:0]        lead_zeros;

  assign sig_sum = align_q.subtract ? (align_q.sig_big - align_q.sig_small) :
                                      (align_q.sig_big + align_q.sig_small);

  mxu_lzc #(.Width(28)) u_lzc (
    .in_i (sig_sum),
    .cnt_o(lead_zeros)
  );

  always_comb begin
    sum_d.sig        = sig_sum;
    sum_d.lead_zeros = lead_zeros;
    sum_d.exp  = align_q.exp;
    sum_d.sign = align_q.sign;
    sum_d.cls  = align_q.cls;
    // An exact cancellation is a zero: +0 under round to nearest.
    if (align_q.cls == mxu_pkg::FpFinite && sig_sum == '0) begin
      sum_d.cls  = mxu_pkg::FpZero;
      sum_d.sign = 1'b0;
    end
  end

  mxu_pipe_reg #(.Width($bits(sum_d)), .Enable(Cuts[1])) u_cut_sum (
    .clk_i,
    .rst_ni,
    .valid_i(align_valid),
    .data_i (sum_d),
    .valid_o(sum_valid),
    .data_o (sum_q)
  );

  // ---- normalize: bring the leading one to bit 27. A left shift of more than one only happens
  // on near-total cancellation (exponent difference 0 or 1), where no sticky bit has been set.

  mxu_pkg::fp32_norm_t norm_d;

  always_comb begin
    norm_d.cls  = sum_q.cls;
    norm_d.sign = sum_q.sign;
    norm_d.sig  = sum_q.sig << sum_q.lead_zeros;
    norm_d.exp  = 10'(sum_q.exp) + 10'sd1 - 10'(sum_q.lead_zeros);
  end

  // ---- round (after the cut Cuts[2]), then exact zeros, infinities and NaNs
  mxu_fp32_finish #(.FlushSubnormals(FlushSubnormals), .Cut(Cuts[2])) u_finish (
    .clk_i,
    .rst_ni,
    .valid_i (sum_valid),
    .norm_i  (norm_d),
    .valid_o,
    .result_o(sum_o)
  );

`ifndef SYNTHESIS
  // Whether a register would take a new value at the next edge (a gated domain's assertion).
  logic would_change;
  assign would_change = u_cut_align.would_change || u_cut_sum.would_change ||
                        u_finish.would_change;
`endif

endmodule
