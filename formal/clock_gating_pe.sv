`ifdef FORMAL
// Proof harness: the PE's own clock gates (rtl/array/mxu_pe.sv: its float pipeline's, its int8
// pipeline's, its weights') change nothing. It is formal/clock_gating at a PE depth with
// pipeline registers between the activation register and the partial sum's (the gates are wires
// at one stage): the same two arrays, the same inputs and the same discipline; its mutant is in
// mxu_pe, where the other proof's is in mxu_systolic_array.
`include "clock_gating.sv"

module clock_gating_pe #(
  parameter int unsigned Rows   = 2,
  parameter int unsigned Cols   = 1,
  parameter int unsigned Stages = 3,
  localparam int unsigned KWidth = $clog2(Rows + 1),
  localparam int unsigned NWidth = $clog2(Cols + 1)
) (
  input logic               clk_i,
  input logic               rst_ni,
  input logic               act_valid_i,
  input logic [Rows*16-1:0] act_i,
  input logic               act_bank_i,
  input logic               act_int8_i,
  input logic [Rows-1:0]    act_pass_i,
  input logic [NWidth-1:0]  act_cols_i,
  input logic               w_shift_i,
  input logic [KWidth-1:0]  w_k_i,
  input logic [NWidth-1:0]  w_cols_i,
  input logic [Cols*16-1:0] w_i,
  input logic               w_commit_i,
  input logic               w_commit_bank_i
);
  clock_gating #(.Rows(Rows), .Cols(Cols), .Stages(Stages)) u_proof (.*);
endmodule
`endif
