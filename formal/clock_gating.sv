`ifdef FORMAL
// Proof harness: clock gating changes nothing (docs/formal.md). Two copies of the systolic array
// take the same inputs, one built with ClockGating (each column and the skews on gated clocks,
// mxu_icg) and one without; their result rows must agree in every cycle from reset. The clock is
// modelled (clk2fflogic): every step of the solver is half a clock cycle, so the gates' latches,
// transparent while the clock is low, are modelled as they are. Inputs change only while the clock
// is low, as a register's output after the rising edge would; any sequence of rows, weight shifts
// and commits is allowed, legal for the datapath or not.
// The arithmetic units are replaced by stand-ins below with the same ports and pipeline registers
// (mxu_pipe_reg at the same cuts) but cheap functions: the gating never looks at a value, only at
// valids, shifts and commits, and the stand-ins keep every operand bit in their result, so a value
// taken a cycle early or late, or not at all, still shows; the real units would make each solver
// step take minutes.
// Method: a bounded check from reset (the equivalence holds by construction of the enables, but
// an induction over two arrays' pipelines would need their states related register by register).
module clock_gating #(
  parameter int unsigned Rows   = 2,
  parameter int unsigned Cols   = 2,
  parameter int unsigned Stages = 1
) (
  input logic               clk_i,
  input logic               rst_ni,
  input logic               act_valid_i,
  input logic [Rows*16-1:0] act_i,
  input logic               act_bank_i,
  input logic               act_int8_i,
  input logic               w_shift_i,
  input logic [Cols*16-1:0] w_i,
  input logic               w_commit_i,
  input logic               w_commit_bank_i
);
  logic [Cols*32-1:0] psum_gated, psum_plain;

  mxu_systolic_array #(
    .Rows(Rows), .Cols(Cols), .Stages(Stages), .FlushSubnormals(1'b0), .ClockGating(1'b1)
  ) u_gated (
    .clk_i, .rst_ni, .act_valid_i, .act_i, .act_bank_i, .act_int8_i, .w_shift_i, .w_i,
    .w_commit_i, .w_commit_bank_i, .psum_o(psum_gated)
  );

  mxu_systolic_array #(
    .Rows(Rows), .Cols(Cols), .Stages(Stages), .FlushSubnormals(1'b0), .ClockGating(1'b0)
  ) u_plain (
    .clk_i, .rst_ni, .act_valid_i, .act_i, .act_bank_i, .act_int8_i, .w_shift_i, .w_i,
    .w_commit_i, .w_commit_bank_i, .psum_o(psum_plain)
  );

  // The solver's steps: the clock toggles every step; the first two steps are a reset; inputs and
  // the reset change only in steps with the clock low.
  localparam int unsigned InW = Rows * 16 + Cols * 16 + 6;
  logic [InW-1:0] inputs, inputs_q;
  logic           clk_q, rst_q;
  logic [1:0]     step_q = 2'd0;
  assign inputs = {act_valid_i, act_i, act_bank_i, act_int8_i, w_shift_i, w_i, w_commit_i,
                   w_commit_bank_i};

  always @($global_clock) begin
    clk_q    <= clk_i;
    rst_q    <= rst_ni;
    inputs_q <= inputs;
    if (step_q != 2'd3) step_q <= step_q + 2'd1;
  end

  always_comb begin
    if (step_q < 2'd2) assume (!rst_ni);
    // Two free bits a lane (values 0 to 3, their products and sums) are enough to tell a
    // value taken in the wrong cycle, and keep the solver's work small.
    for (int unsigned r = 0; r < Rows; r++) assume (act_i[r*16+2 +: 14] == '0);
    for (int unsigned c = 0; c < Cols; c++) assume (w_i[c*16+2 +: 14] == '0);
    if (step_q != 2'd0) begin
      assume (clk_i != clk_q);
      if (clk_i) assume (inputs == inputs_q && rst_ni == rst_q);
    end
    assert (psum_gated == psum_plain);
  end
endmodule

// Stand-in for rtl/mxu_bf16_mul.sv: the same cuts, the product replaced by the operands side by side.
module mxu_bf16_mul #(
  parameter bit         FlushSubnormals = 1'b0,
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
  logic        mid_valid;
  logic [31:0] mid;
  mxu_pipe_reg #(.Width(32), .Enable(Cuts[0])) u_cut_product (
    .clk_i, .rst_ni, .valid_i, .data_i({a_i, b_i}), .valid_o(mid_valid), .data_o(mid)
  );
  mxu_pipe_reg #(.Width(32), .Enable(Cuts[1])) u_cut_normalize (
    .clk_i, .rst_ni, .valid_i(mid_valid), .data_i(mid), .valid_o, .data_o(product_o)
  );
  logic unused_flush;
  assign unused_flush = FlushSubnormals;
endmodule

// Stand-in for rtl/mxu_fp32_add.sv: the same cuts, the sum an integer add.
module mxu_fp32_add #(
  parameter bit         FlushSubnormals = 1'b0,
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
  logic        v1, v2;
  logic [31:0] s1, s2;
  mxu_pipe_reg #(.Width(32), .Enable(Cuts[0])) u_cut_align (
    .clk_i, .rst_ni, .valid_i, .data_i(a_i + b_i), .valid_o(v1), .data_o(s1)
  );
  mxu_pipe_reg #(.Width(32), .Enable(Cuts[1])) u_cut_sum (
    .clk_i, .rst_ni, .valid_i(v1), .data_i(s1), .valid_o(v2), .data_o(s2)
  );
  mxu_pipe_reg #(.Width(32), .Enable(Cuts[2])) u_cut_normalize (
    .clk_i, .rst_ni, .valid_i(v2), .data_i(s2), .valid_o, .data_o(sum_o)
  );
  logic unused_flush;
  assign unused_flush = FlushSubnormals;
endmodule
`endif  // FORMAL
