// Yosys techmap for formal/clock_gating.sv: every multiplier ($mul) left in the arrays (the PE's
// int8 product) becomes its operands interleaved by XOR, a function the solver reads at once;
// the gating never looks at a product's value (formal/clock_gating.sv says why that is enough).
(* techmap_celltype = "$mul" *)
module stand_in_mul (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  input [A_WIDTH-1:0] A;
  input [B_WIDTH-1:0] B;
  output [Y_WIDTH-1:0] Y;
  wire [Y_WIDTH-1:0] a = A;
  wire [Y_WIDTH-1:0] b = B;
  assign Y = a ^ (b << (Y_WIDTH / 2));
endmodule
