// The last step of a pipelined unit (mxu_bf16_mul, mxu_fp32_add): the optional cut before it
// (Cut, mxu_pipe_reg), the one rounding to binary32, then a NaN, an infinity or a zero as the
// result's class says, the rounded value otherwise. norm_i is the unit's value normalized with its
// class (mxu_pkg::fp32_norm_t); the cut registers it, valid_i with it.
//
// The rounding: a normalized, unbounded-exponent significand to IEEE-754 binary32, round to
// nearest, ties to even. Value = sig[27:4] . sig[3:0] x 2^(exp - 127 - 23) with sig[27] = 1:
// bits [27:4] are the 24-bit significand, bit 3 the guard bit and bits [2:0] round/sticky. Zeros,
// infinities and NaNs are the class's (below); the rounding sees finite non-zero values only.
//
// Subnormal results: in IEEE mode the value is denormalized first (shifted right, shifted-out bits
// kept as sticky) and rounded at the subnormal position. In flush mode the value is rounded at full
// precision as if the exponent were unbounded and flushed to signed zero if that is below 2^-126:
// x86 detects tininess after rounding, and FTZ returns zero exactly for tiny results.
//
// Modules rather than package functions on purpose (this one, mxu_fp_classify): a function is
// inlined by Verilator 5.006 with temporaries named per call site, so each PE instance of a flat
// array would get its own copy of the PE's clocked code instead of sharing one
// (docs/performance.md, "Simulation speed").
module mxu_fp32_finish #(
  parameter bit FlushSubnormals = mxu_pkg::FlushSubnormals,
  parameter bit Cut             = 1'b0
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                valid_i,
  input  mxu_pkg::fp32_norm_t norm_i,
  output logic                valid_o,
  output logic [31:0]         result_o
);

  mxu_pkg::fp32_norm_t norm;
  logic [31:0]         rounded;
  logic               denormalize;
  logic signed [10:0] shift_full;
  logic [4:0]         shift;
  logic [27:0]        shifted_out_mask;
  logic [27:0]        aligned;
  logic [7:0]         exp_field;
  logic               round_up;
  logic [30:0]        magnitude;
  logic               overflow;
  logic               flush_to_zero;
  logic               unused_hidden_bit;

  mxu_pipe_reg #(.Width($bits(norm_i)), .Enable(Cut)) u_cut (
    .clk_i,
    .rst_ni,
    .valid_i,
    .data_i (norm_i),
    .valid_o,
    .data_o (norm)
  );

  // ---- round
  always_comb begin
    // Denormalize: shift right by 1 - exp so the exponent field becomes 0. Shifts of 28 or more
    // leave only sticky bits; 31 is as good as any larger amount.
    denormalize = !FlushSubnormals && (norm.exp < 10'sd1);
    shift_full  = 11'sd1 - 11'(norm.exp);
    shift       = (shift_full > 11'sd31) ? 5'd31 : shift_full[4:0];
    shifted_out_mask = ~({28{1'b1}} << shift);

    if (denormalize) begin
      aligned    = norm.sig >> shift;
      aligned[0] = aligned[0] | (|(norm.sig & shifted_out_mask));
      exp_field  = 8'd0;
    end else begin
      aligned    = norm.sig;
      exp_field  = norm.exp[7:0];
    end

    // Round to nearest even: guard set and (anything below it, or the kept LSB odd).
    round_up  = aligned[3] & ((|aligned[2:0]) | aligned[4]);
    // The hidden bit is implied by the exponent field; a carry out of the fraction moves into the
    // exponent field, which is exactly the IEEE encoding of the rounded value (subnormal -> min
    // normal, 2.0 -> next binade, max normal -> Inf).
    magnitude = {exp_field, aligned[26:4]} + 31'(round_up);
    unused_hidden_bit = aligned[27];

    overflow = (norm.exp > 10'sd254);
    // Flush mode: tiny unless exp is 0 and rounding carried into the exponent field.
    flush_to_zero = FlushSubnormals &&
                    ((norm.exp < 10'sd0) || ((norm.exp == 10'sd0) && (magnitude[30:23] == 8'd0)));

    if (overflow) begin
      rounded = {norm.sign, 8'hFF, 23'd0};
    end else if (flush_to_zero) begin
      rounded = {norm.sign, 31'd0};
    end else begin
      rounded = {norm.sign, magnitude};
    end
  end

  // ---- zeros, infinities and NaNs: the class's
  // A plain case: `unique` would add an assertion naming each instance, which again keeps the
  // instances from sharing code (the four items are distinct constants; nothing to check).
  always_comb begin
    case (norm.cls)
      mxu_pkg::FpNan:  result_o = mxu_pkg::Fp32CanonicalNan;
      mxu_pkg::FpInf:  result_o = {norm.sign, 8'hFF, 23'd0};
      mxu_pkg::FpZero: result_o = {norm.sign, 31'd0};
      default:         result_o = rounded;
    endcase
  end

`ifndef SYNTHESIS
  // Whether the register would take a new value at the next edge (a gated domain's assertion).
  logic would_change;
  assign would_change = u_cut.would_change;
`endif

endmodule
