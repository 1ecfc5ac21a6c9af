// The last step of a pipelined unit (mxu_bf16_mul, mxu_fp32_add): a NaN, an infinity or a zero as
// the operands' class says, the rounded value otherwise.
//
// A module rather than a package function on purpose: Verilator 5.006 inlines a function with
// temporaries named per call site, so each PE instance of a flat array would get its own copy of
// the PE's clocked code instead of sharing one (docs/performance.md, "Simulation speed").
module mxu_fp32_class_mux (
  input  mxu_pkg::fp_class_e cls_i,
  input  logic               sign_i,
  input  logic [31:0]        rounded_i,
  output logic [31:0]        result_o
);

  // A plain case: `unique` would add an assertion naming each instance, which again keeps the
  // instances from sharing code (the four items are distinct constants; nothing to check).
  always_comb begin
    case (cls_i)
      mxu_pkg::FpNan:  result_o = mxu_pkg::Fp32CanonicalNan;
      mxu_pkg::FpInf:  result_o = {sign_i, 8'hFF, 23'd0};
      mxu_pkg::FpZero: result_o = {sign_i, 31'd0};
      default:         result_o = rounded_i;
    endcase
  end

endmodule
