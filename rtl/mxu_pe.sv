// Processing element of the weight-stationary array. Holds two weight banks and a shadow register:
// the shadow chain shifts the next tile in (upward, one PE row per cycle) while the banks compute,
// and a commit copies the shadow into the bank the next tile's activations name. Each activation
// carries its bank, so the switch between tiles costs no cycle.
//
// Every cycle with a valid activation: psum_o <= psum_i + act_i * weight[act_bank_i]
// (bf16 x bf16 -> fp32 exactly rounded, then fp32 add: docs/numerics.md).
module mxu_pe #(
  parameter bit FlushSubnormals = mxu_pkg::FlushSubnormals
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Activation from the left, passed on to the right one cycle later.
  input  logic        act_valid_i,
  input  logic [15:0] act_i,
  input  logic        act_bank_i,
  output logic        act_valid_o,
  output logic [15:0] act_o,
  output logic        act_bank_o,
  // Partial sum from the PE above, result to the PE below.
  input  logic [31:0] psum_i,
  output logic [31:0] psum_o,
  // Weight shadow chain, from the PE below to the PE above.
  input  logic        w_shift_i,
  input  logic [15:0] w_i,
  output logic [15:0] w_o,
  // Copy the shadow (with a value shifting in this very cycle) into bank w_commit_bank_i.
  input  logic        w_commit_i,
  input  logic        w_commit_bank_i
);

  logic        act_valid_q;
  logic [15:0] act_q;
  logic        act_bank_q;
  logic [31:0] psum_d, psum_q;
  logic [15:0] shadow_d, shadow_q;
  logic [15:0] weight0_d, weight0_q;
  logic [15:0] weight1_d, weight1_q;
  logic [15:0] weight;
  logic [31:0] product, sum;

  assign weight = act_bank_i ? weight1_q : weight0_q;

  mxu_bf16_mul #(.FlushSubnormals(FlushSubnormals)) u_mul (
    .a_i      (act_i),
    .b_i      (weight),
    .product_o(product)
  );

  mxu_fp32_add #(.FlushSubnormals(FlushSubnormals)) u_add (
    .a_i  (psum_i),
    .b_i  (product),
    .sum_o(sum)
  );

  always_comb begin
    psum_d    = act_valid_i ? sum : psum_q;
    shadow_d  = w_shift_i ? w_i : shadow_q;
    weight0_d = (w_commit_i && !w_commit_bank_i) ? shadow_d : weight0_q;
    weight1_d = (w_commit_i && w_commit_bank_i) ? shadow_d : weight1_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      act_valid_q <= 1'b0;
      act_q       <= '0;
      act_bank_q  <= 1'b0;
      psum_q      <= '0;
      shadow_q    <= '0;
      weight0_q   <= '0;
      weight1_q   <= '0;
    end else begin
      act_valid_q <= act_valid_i;
      act_q       <= act_i;
      act_bank_q  <= act_bank_i;
      psum_q      <= psum_d;
      shadow_q    <= shadow_d;
      weight0_q   <= weight0_d;
      weight1_q   <= weight1_d;
    end
  end

  assign act_valid_o = act_valid_q;
  assign act_o       = act_q;
  assign act_bank_o  = act_bank_q;
  assign psum_o      = psum_q;
  assign w_o         = shadow_q;

endmodule
