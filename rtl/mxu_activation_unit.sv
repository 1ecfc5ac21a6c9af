// Activation unit: per lane, optional bias add (fp32_add), optional ReLU, and fp32 -> bf16
// (round to nearest even), registered once. Both the fp32 value after bias and ReLU (the raw
// path for results that leave the device as fp32) and its bf16 rounding come out.
//
// ReLU(x) = x for x > 0, NaN for NaN, +0 otherwise (-0 included). Every NaN leaves as the
// canonical NaN, also one preloaded into the accumulators with another payload.
module mxu_activation_unit #(
  parameter int unsigned Lanes           = mxu_pkg::ArrayCols,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                valid_i,
  input  logic [Lanes*32-1:0] data_i,
  input  logic                bias_en_i,
  input  logic [Lanes*32-1:0] bias_i,
  input  logic                relu_i,
  output logic                valid_o,
  output logic [Lanes*32-1:0] fp32_o,
  output logic [Lanes*16-1:0] bf16_o
);

  logic [Lanes*32-1:0] biased, activated, fp32_q;
  logic [Lanes*16-1:0] rounded, bf16_q;
  logic                valid_q;

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
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
      fp32_q  <= '0;
      bf16_q  <= '0;
    end else begin
      valid_q <= valid_i;
      fp32_q  <= activated;
      bf16_q  <= rounded;
    end
  end

  assign valid_o = valid_q;
  assign fp32_o  = fp32_q;
  assign bf16_o  = bf16_q;

endmodule
