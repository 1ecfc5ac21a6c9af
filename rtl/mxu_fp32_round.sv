// Rounds a normalized, unbounded-exponent significand to IEEE-754 binary32, round to nearest,
// ties to even. Shared by bf16_mul and fp32_add so that the contract's single rounding step lives
// in one place.
//
// Input value = sig_i[27:4] . sig_i[3:0] x 2^(exp_i - 127 - 23) with sig_i[27] = 1: bits [27:4]
// are the 24-bit significand, bit 3 the guard bit and bits [2:0] round/sticky. The caller handles
// zeros, infinities and NaNs; this block sees finite non-zero values only.
//
// Subnormal results: in IEEE mode the value is denormalized first (shifted right, shifted-out bits
// kept as sticky) and rounded at the subnormal position. In flush mode the value is rounded at full
// precision as if the exponent were unbounded and flushed to signed zero if that is below 2^-126:
// x86 detects tininess after rounding, and FTZ returns zero exactly for tiny results.
module mxu_fp32_round #(
  parameter bit FlushSubnormals = mxu_pkg::FlushSubnormals
) (
  input  logic              sign_i,
  input  logic signed [9:0] exp_i,
  input  logic [27:0]       sig_i,
  output logic [31:0]       result_o
);

  logic              denormalize;
  logic signed [10:0] shift_full;
  logic [4:0]        shift;
  logic [27:0]       shifted_out_mask;
  logic [27:0]       aligned;
  logic [7:0]        exp_field;
  logic              round_up;
  logic [30:0]       magnitude;
  logic              overflow;
  logic              flush_to_zero;
  logic              unused_hidden_bit;

  always_comb begin
    // Denormalize: shift right by 1 - exp_i so the exponent field becomes 0. Shifts of 28 or more
    // leave only sticky bits; 31 is as good as any larger amount.
    denormalize = !FlushSubnormals && (exp_i < 10'sd1);
    shift_full  = 11'sd1 - 11'(exp_i);
    shift       = (shift_full > 11'sd31) ? 5'd31 : shift_full[4:0];
    shifted_out_mask = ~({28{1'b1}} << shift);

    if (denormalize) begin
      aligned    = sig_i >> shift;
      aligned[0] = aligned[0] | (|(sig_i & shifted_out_mask));
      exp_field  = 8'd0;
    end else begin
      aligned    = sig_i;
      exp_field  = exp_i[7:0];
    end

    // Round to nearest even: guard set and (anything below it, or the kept LSB odd).
    round_up  = aligned[3] & ((|aligned[2:0]) | aligned[4]);
    // The hidden bit is implied by the exponent field; a carry out of the fraction moves into the
    // exponent field, which is exactly the IEEE encoding of the rounded value (subnormal -> min
    // normal, 2.0 -> next binade, max normal -> Inf).
    magnitude = {exp_field, aligned[26:4]} + 31'(round_up);
    unused_hidden_bit = aligned[27];

    overflow = (exp_i > 10'sd254);
    // Flush mode: tiny unless exp_i is 0 and rounding carried into the exponent field.
    flush_to_zero = FlushSubnormals &&
                    ((exp_i < 10'sd0) || ((exp_i == 10'sd0) && (magnitude[30:23] == 8'd0)));

    if (overflow) begin
      result_o = {sign_i, 8'hFF, 23'd0};
    end else if (flush_to_zero) begin
      result_o = {sign_i, 31'd0};
    end else begin
      result_o = {sign_i, magnitude};
    end
  end

endmodule
