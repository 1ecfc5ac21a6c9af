// The last step of a pipelined unit (mxu_bf16_mul, mxu_fp32_add): the optional cut before it
// (Cut, mxu_pipe_reg), the one rounding to binary32 (mxu_fp32_round), then a NaN, an infinity or
// a zero as the result's class says, the rounded value otherwise. norm_i is the unit's value
// normalized with its class (mxu_pkg::fp32_norm_t); the cut registers it, valid_i with it.
//
// Modules rather than package functions on purpose (this one, mxu_fp_classify, mxu_fp32_round):
// a function is inlined by Verilator 5.006 with temporaries named per call site, so each PE
// instance of a flat array would get its own copy of the PE's clocked code instead of sharing one
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

  mxu_pipe_reg #(.Width($bits(norm_i)), .Enable(Cut)) u_cut (
    .clk_i,
    .rst_ni,
    .valid_i,
    .data_i (norm_i),
    .valid_o,
    .data_o (norm)
  );

  mxu_fp32_round #(.FlushSubnormals(FlushSubnormals)) u_round (
    .sign_i  (norm.sign),
    .exp_i   (norm.exp),
    .sig_i   (norm.sig),
    .result_o(rounded)
  );

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
