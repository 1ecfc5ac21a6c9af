// fp32 -> bf16, round to nearest even. Overflow gives Inf (the carry runs into the exponent
// field), NaN gives the canonical 0x7FC0. Combinational.
//
// Flush mode: a subnormal input reads as signed zero. A normal input never rounds below 2^-126,
// so no result is subnormal after that.
module mxu_fp32_to_bf16 #(
  parameter bit FlushSubnormals = mxu_pkg::FlushSubnormals
) (
  input  logic [31:0] a_i,
  output logic [15:0] bf16_o
);

  logic a_nan, a_subnormal, round_up;

  always_comb begin
    a_nan       = (a_i[30:23] == 8'hFF) && (a_i[22:0] != '0);
    a_subnormal = (a_i[30:23] == 8'h00) && (a_i[22:0] != '0);
    round_up    = a_i[15] & ((|a_i[14:0]) | a_i[16]);

    if (a_nan) begin
      bf16_o = mxu_pkg::Bf16CanonicalNan;
    end else if (FlushSubnormals && a_subnormal) begin
      bf16_o = {a_i[31], 15'd0};
    end else begin
      bf16_o = {a_i[31], a_i[30:16] + 15'(round_up)};
    end
  end

endmodule
