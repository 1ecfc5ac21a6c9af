// The first step of a pipelined unit (mxu_bf16_mul, mxu_fp32_add): both operands of an IEEE-754
// format (ExpWidth exponent bits, FracWidth fraction bits; bf16 8/7, fp32 8/23) classified, and
// their significands and exponents as the arithmetic reads them. Bit 0 of each flag is a_i's,
// bit 1 b_i's. The operands come without their signs, which the units combine in their own ways.
//
// A module rather than a package function for the reason mxu_fp32_finish gives.
module mxu_fp_classify #(
  parameter int unsigned ExpWidth        = 8,
  parameter int unsigned FracWidth       = 23,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
  localparam int unsigned Width    = ExpWidth + FracWidth,
  localparam int unsigned SigWidth = FracWidth + 1
) (
  input  logic [Width-1:0]      a_i,
  input  logic [Width-1:0]      b_i,
  output logic [1:0]            nan_o,
  output logic [1:0]            inf_o,
  output logic [1:0]            zero_o,  // flush mode: subnormals too (a signed zero)
  output logic [2*SigWidth-1:0] sig_o,   // {b, a}: the hidden bit (0 for a subnormal), fraction
  output logic [2*ExpWidth-1:0] exp_o    // {b, a}: the exponent field, 1 for a subnormal
);

  logic [2*Width-1:0]   ops;
  logic [ExpWidth-1:0]  exp_field;
  logic [FracWidth-1:0] frac;
  logic                 exp_min;

  assign ops = {b_i, a_i};

  always_comb begin
    for (int unsigned i = 0; i < 2; i++) begin
      exp_field = ops[i*Width + FracWidth +: ExpWidth];
      frac      = ops[i*Width +: FracWidth];
      exp_min   = exp_field == '0;
      nan_o[i]  = (exp_field == '1) && (frac != '0);
      inf_o[i]  = (exp_field == '1) && (frac == '0);
      zero_o[i] = exp_min && ((frac == '0) || FlushSubnormals);
      // A subnormal has no hidden bit and the exponent of 1.
      sig_o[i*SigWidth +: SigWidth] = {!exp_min, frac};
      exp_o[i*ExpWidth +: ExpWidth] = exp_min ? ExpWidth'(1) : exp_field;
    end
  end

endmodule
