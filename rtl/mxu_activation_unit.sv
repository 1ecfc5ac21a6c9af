// Activation unit, per lane, in one of two modes fixed for an ACTIVATE:
//   float (int8_i = 0): optional bias add (fp32_add), optional ReLU, and fp32 -> bf16 (round to
//     nearest even), registered once. Both the fp32 value after bias and ReLU (the raw path for
//     results that leave the device as fp32) and its bf16 rounding come out;
//   int8 (int8_i = 1): requantization of the int32 accumulator to int8 (docs/numerics.md):
//     x = acc + bias, p = x * m in the first stage (a 33 x 25 signed multiplier), then rounding
//     shift, zero point and clamp in the second; the lane leaves sign-extended to 16 bits. The
//     quantization word of each lane is m << 8 | s.
// row_o is the unified-buffer row (bf16 or int8 lanes); tag_i travels with each row (the caller's
// address and last flag) and leaves with it, one cycle later in float mode, two in int8 mode.
//
// ReLU(x) = x for x > 0, NaN for NaN, +0 otherwise (-0 included). Every NaN leaves as the
// canonical NaN, also one preloaded into the accumulators with another payload.
module mxu_activation_unit #(
  parameter int unsigned Lanes           = mxu_pkg::ArrayCols,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
  parameter int unsigned TagWidth        = 1
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                valid_i,
  input  logic [TagWidth-1:0] tag_i,
  input  logic [Lanes*32-1:0] data_i,
  input  logic                bias_en_i,
  input  logic [Lanes*32-1:0] bias_i,
  input  logic                relu_i,
  input  logic                int8_i,
  input  logic [Lanes*32-1:0] quant_i,
  input  logic [7:0]          zero_point_i,
  output logic                valid_o,
  output logic [TagWidth-1:0] tag_o,
  output logic [Lanes*32-1:0] fp32_o,
  output logic [Lanes*16-1:0] row_o,
  output logic                busy_o  // a row is in the unit
);

  logic [Lanes*32-1:0] biased, activated, fp32_q;
  logic [Lanes*16-1:0] rounded, bf16_q, requant, int8_q;
  logic [Lanes*58-1:0] prod_d, prod_q;   // int8 stage 1: x * m per lane
  logic [Lanes*6-1:0]  shift_d, shift_q;  // ... and the lane's shift
  logic                fp_valid_q, int_valid_q1, int_valid_q2;
  logic [TagWidth-1:0] fp_tag_q, int_tag_q1, int_tag_q2;

  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    logic [31:0] x;
    logic        is_nan;
    logic        unused_valid;

    mxu_fp32_add #(.FlushSubnormals(FlushSubnormals), .Cuts(3'b000)) u_bias (
      .clk_i,
      .rst_ni,
      .valid_i(1'b1),
      .a_i    (data_i[l*32 +: 32]),
      .b_i    (bias_i[l*32 +: 32]),
      .valid_o(unused_valid),
      .sum_o  (x)
    );

    always_comb begin
      biased[l*32 +: 32] = bias_en_i ? x : data_i[l*32 +: 32];
      is_nan = (biased[l*32+23 +: 8] == 8'hFF) && (biased[l*32 +: 23] != '0);
      if (is_nan) begin
        activated[l*32 +: 32] = mxu_pkg::Fp32CanonicalNan;
      end else if (relu_i && biased[l*32+31]) begin
        activated[l*32 +: 32] = 32'h0;  // negative numbers and -0
      end else begin
        activated[l*32 +: 32] = biased[l*32 +: 32];
      end
    end

    mxu_fp32_to_bf16 #(.FlushSubnormals(FlushSubnormals)) u_round (
      .a_i   (activated[l*32 +: 32]),
      .bf16_o(rounded[l*16 +: 16])
    );

    // ----- int8, stage 1: the exact 33-bit sum and its 57-bit product with the multiplier.
    logic signed [32:0] int_x;
    logic signed [24:0] int_m;
    logic signed [57:0] int_p;
    always_comb begin
      int_x = $signed({data_i[l*32+31], data_i[l*32 +: 32]}) +
              (bias_en_i ? $signed({bias_i[l*32+31], bias_i[l*32 +: 32]}) : 33'sd0);
      int_m = $signed({1'b0, quant_i[l*32+8 +: 24]});
      int_p = int_x * int_m;
      prod_d[l*58 +: 58] = int_p;
      shift_d[l*6 +: 6]  = quant_i[l*32 +: 6];
    end

    // ----- int8, stage 2: p / 2^s rounded half away from zero, + zero point, clamped.
    logic signed [63:0] p64, half, r, y, lo;
    logic        [5:0]  s;
    always_comb begin
      s    = shift_q[l*6 +: 6];
      p64  = 64'($signed(prod_q[l*58 +: 58]));
      half = (s == 6'd0) ? 64'sd0 : (64'sd1 <<< (s - 6'd1));
      r    = (p64 + half - ((s != 6'd0 && p64 < 0) ? 64'sd1 : 64'sd0)) >>> s;
      y    = r + 64'($signed(zero_point_i));
      lo   = relu_i ? 64'($signed(zero_point_i)) : -64'sd128;
      if (y < lo) begin
        requant[l*16 +: 16] = 16'(lo);
      end else if (y > 64'sd127) begin
        requant[l*16 +: 16] = 16'd127;
      end else begin
        requant[l*16 +: 16] = 16'(y);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fp_valid_q   <= 1'b0;
      fp_tag_q     <= '0;
      fp32_q       <= '0;
      bf16_q       <= '0;
      int_valid_q1 <= 1'b0;
      int_tag_q1   <= '0;
      for (int unsigned l = 0; l < Lanes; l++) begin  // by lane: no '0 over 8k bits
        prod_q[l*58 +: 58] <= '0;
      end
      shift_q      <= '0;
      int_valid_q2 <= 1'b0;
      int_tag_q2   <= '0;
      int8_q       <= '0;
    end else begin
      fp_valid_q   <= valid_i && !int8_i;
      fp_tag_q     <= tag_i;
      fp32_q       <= activated;
      bf16_q       <= rounded;
      int_valid_q1 <= valid_i && int8_i;
      int_tag_q1   <= tag_i;
      prod_q       <= prod_d;
      shift_q      <= shift_d;
      int_valid_q2 <= int_valid_q1;
      int_tag_q2   <= int_tag_q1;
      int8_q       <= requant;
    end
  end

  // The two modes never overlap: an ACTIVATE starts only once the unit is empty.
  assign valid_o = fp_valid_q || int_valid_q2;
  assign tag_o   = int_valid_q2 ? int_tag_q2 : fp_tag_q;
  assign row_o   = int_valid_q2 ? int8_q : bf16_q;
  assign fp32_o  = fp32_q;
  assign busy_o  = fp_valid_q || int_valid_q1 || int_valid_q2;

  // Bits 7:6 of each quantization word are ignored (docs/numerics.md).
  logic unused_quant;
  always_comb begin
    unused_quant = 1'b0;
    for (int unsigned l = 0; l < Lanes; l++) unused_quant ^= ^quant_i[l*32+6 +: 2];
  end

endmodule
