// Activation unit, per lane, in one of two modes fixed for an ACTIVATE, each a pipeline of
// mxu_pkg::ActCycles (4) register stages from a row in to its result out:
//   float (int8_i = 0): optional bias add (fp32_add, cut after each of its steps as the
//     accumulators' is: 3 stages), then optional ReLU and fp32 -> bf16 (round to nearest even)
//     in the fourth. Both the fp32 value after bias and ReLU (the raw path for results that
//     leave the device as fp32) and its bf16 rounding come out;
//   int8 (int8_i = 1): requantization of the int32 accumulator to int8 (docs/numerics.md):
//     x = acc + bias | p = x * m (a 33 x 25 signed multiplier) | p / 2^s rounded half away from
//     zero | zero point and clamp; the lane leaves sign-extended to 16 bits. The quantization
//     word of each lane is m << 8 | s.
// row_o is the unified-buffer row (bf16 or int8 lanes); tag_i travels with each row (the caller's
// address and last flag) and leaves with it, ActCycles cycles later. The mode, bias_en_i,
// relu_i, bias_i, quant_i and zero_point_i hold while rows are in the unit (an ACTIVATE starts
// only once the unit is empty: busy_o).
//
// ReLU(x) = x for x > 0, NaN for NaN, +0 otherwise (-0 included). Every NaN leaves as the
// canonical NaN, also one preloaded into the accumulators with another payload.
//
// Operand isolation and clock gating (docs/architecture.md, "Clock gating"): each stage register
// takes a new value only with a row of its mode in that stage, so the unit's registers stand still
// between rows and the other mode's path does not toggle; under ClockGating the unit runs on a
// gated clock only while a row enters or is inside (an assertion checks that nothing would have
// changed while it was off).
`include "mxu_assert.svh"

module mxu_activation_unit #(
  parameter int unsigned Lanes           = mxu_pkg::ArrayCols,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
  parameter int unsigned TagWidth        = 1,
  parameter bit          ClockGating     = mxu_pkg::ClockGating
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
  output logic                busy_o,  // a row is in the unit
  // The clock runs this cycle (ACTIVATE_CLOCKS counts it; always with ClockGating off).
  output logic                clock_on_o
);

  localparam int unsigned Stages = mxu_pkg::ActCycles;

  logic [Lanes*32-1:0] raw, biased, activated;
  logic [Lanes*16-1:0] rounded, requant;
  // The int8 path's stage registers, per lane: x, then x * m and the shift, then the shifted sum.
  logic [Lanes*33-1:0] sum_new, sum_q;
  logic [Lanes*58-1:0] prod_new, prod_q, shifted_new, shifted_q;
  logic [Lanes*6-1:0]  shift_new, shift_q;
  // Valid and tag of the rows in stages 1 .. Stages-1, then the output registers.
  logic [Stages-2:0]          stage_valid_d, stage_valid_q;
  logic [(Stages-1)*TagWidth-1:0] stage_tag_d, stage_tag_q;
  logic                       valid_q;
  logic [TagWidth-1:0]        tag_q;
  logic [Lanes*32-1:0]        fp32_q;
  logic [Lanes*16-1:0]        row_q;
  logic                       valid_d;
  logic [TagWidth-1:0]        tag_d;
  logic [Lanes*32-1:0]        fp32_d;
  logic [Lanes*16-1:0]        row_d;
  // The int8 path's stage registers as registered: a new row's value or the last one's again.
  logic [Lanes*33-1:0]        sum_d;
  logic [Lanes*58-1:0]        prod_d, shifted_d;
  logic [Lanes*6-1:0]         shift_d;
  logic                       clk_unit, active, raw_valid;

  // The fp path's input as it was when its bias add began, for rows without a bias.
  mxu_valid_pipe #(.Width(Lanes*32), .Depth(Stages - 1)) u_raw_delay (
    .clk_i  (clk_unit),
    .rst_ni,
    .valid_i(valid_i && !bias_en_i),
    .data_i (data_i),
    .valid_o(raw_valid),
    .data_o (raw)
  );

  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    logic [31:0] x;
    logic        is_nan;
    logic        unused_valid;

    // ----- float, stages 1-3: the bias add.
    mxu_fp32_add #(.FlushSubnormals(FlushSubnormals), .Cuts(mxu_pkg::AccAddCuts)) u_bias (
      .clk_i  (clk_unit),
      .rst_ni,
      .valid_i(valid_i && !int8_i && bias_en_i),
      .a_i    (data_i[l*32 +: 32]),
      .b_i    (bias_i[l*32 +: 32]),
      .valid_o(unused_valid),
      .sum_o  (x)
    );

    // ----- float, stage 4: ReLU and the bf16 rounding.
    always_comb begin
      biased[l*32 +: 32] = bias_en_i ? x : raw[l*32 +: 32];
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

    // ----- int8, stage 1: the exact 33-bit sum; stage 2: its 58-bit product with the multiplier.
    logic signed [32:0] int_x;
    logic signed [24:0] int_m;
    always_comb begin
      sum_new[l*33 +: 33] = $signed({data_i[l*32+31], data_i[l*32 +: 32]}) +
                          (bias_en_i ? $signed({bias_i[l*32+31], bias_i[l*32 +: 32]}) : 33'sd0);
      int_x = $signed(sum_q[l*33 +: 33]);
      int_m = $signed({1'b0, quant_i[l*32+8 +: 24]});
      prod_new[l*58 +: 58] = int_x * int_m;
      shift_new[l*6 +: 6]  = quant_i[l*32 +: 6];
    end

    // ----- int8, stage 3: p / 2^s rounded half away from zero (an arithmetic shift of p + half,
    // less one for a negative p, truncates toward minus infinity to that).
    // In 64 bits: half reaches 2^62; the shifted sum fits p's 58 bits again.
    logic signed [63:0] p, half;
    logic        [5:0]  s;
    always_comb begin
      s    = shift_q[l*6 +: 6];
      p    = 64'($signed(prod_q[l*58 +: 58]));
      half = (s == 6'd0) ? 64'sd0 : (64'sd1 <<< (s - 6'd1));
      shifted_new[l*58 +: 58] = 58'((p + half - ((s != 6'd0 && p < 0) ? 64'sd1 : 64'sd0)) >>> s);
    end

    // ----- int8, stage 4: zero point and clamp.
    logic signed [58:0] y, lo;
    always_comb begin
      y  = 59'($signed(shifted_q[l*58 +: 58])) + 59'($signed(zero_point_i));
      lo = relu_i ? 59'($signed(zero_point_i)) : -59'sd128;
      if (y < lo) begin
        requant[l*16 +: 16] = 16'(lo);
      end else if (y > 59'sd127) begin
        requant[l*16 +: 16] = 16'd127;
      end else begin
        requant[l*16 +: 16] = 16'(y);
      end
    end
  end

  // Each stage takes a row's tag, and the int8 path's registers its values, only with the row.
  always_comb begin
    stage_valid_d = (Stages-1)'({stage_valid_q, valid_i});
    stage_tag_d   = stage_tag_q;
    if (valid_i) begin
      stage_tag_d[0 +: TagWidth] = tag_i;
    end
    for (int unsigned st = 1; st < Stages - 1; st++) begin
      if (stage_valid_q[st-1]) begin
        stage_tag_d[st*TagWidth +: TagWidth] = stage_tag_q[(st-1)*TagWidth +: TagWidth];
      end
    end
    valid_d      = stage_valid_q[Stages-2];
    tag_d        = valid_d ? stage_tag_q[(Stages-2)*TagWidth +: TagWidth] : tag_q;
    fp32_d       = valid_d ? activated : fp32_q;
    row_d        = valid_d ? (int8_i ? requant : rounded) : row_q;
    sum_d     = (valid_i && int8_i) ? sum_new : sum_q;
    prod_d    = (stage_valid_q[0] && int8_i) ? prod_new : prod_q;
    shift_d   = (stage_valid_q[0] && int8_i) ? shift_new : shift_q;
    shifted_d = (stage_valid_q[1] && int8_i) ? shifted_new : shifted_q;
  end

  always_ff @(posedge clk_unit or negedge rst_ni) begin
    if (!rst_ni) begin
      stage_valid_q <= '0;
      stage_tag_q   <= '0;
      valid_q       <= 1'b0;
      tag_q         <= '0;
      fp32_q        <= '0;
      row_q         <= '0;
      for (int unsigned l = 0; l < Lanes; l++) begin  // by lane: no '0 over 8k bits
        sum_q[l*33 +: 33]     <= '0;
        prod_q[l*58 +: 58]    <= '0;
        shifted_q[l*58 +: 58] <= '0;
      end
      shift_q       <= '0;
    end else begin
      stage_valid_q <= stage_valid_d;
      stage_tag_q   <= stage_tag_d;
      valid_q       <= valid_d;
      tag_q         <= tag_d;
      fp32_q        <= fp32_d;
      row_q         <= row_d;
      sum_q         <= sum_d;
      prod_q        <= prod_d;
      shifted_q     <= shifted_d;
      shift_q       <= shift_d;
    end
  end

  // The clock: on while a row enters or is inside.
  assign active = valid_i || busy_o;

  mxu_clock_domain #(.ClockGating(ClockGating)) u_clock (
    .clk_i,
    .rst_ni,
    .active_i  (active),
    .clk_o     (clk_unit),
    .clock_on_o
  );

`ifndef SYNTHESIS
  logic [Lanes-1:0] bias_changes;
  for (genvar l = 0; l < Lanes; l++) begin : g_bias_changes
    assign bias_changes[l] = g_lane[l].u_bias.would_change;
  end
  `MXU_ASSERT_STILL_WHILE_GATED(unit_still_while_gated, ClockGating, clock_on_o,
      {stage_valid_d, stage_tag_d, valid_d, tag_d, fp32_d, row_d, sum_d, prod_d, shift_d,
       shifted_d} !=
      {stage_valid_q, stage_tag_q, valid_q, tag_q, fp32_q, row_q, sum_q, prod_q, shift_q,
       shifted_q} ||
      bias_changes != '0 || u_raw_delay.would_change, clk_i, rst_ni)
`endif

  assign valid_o = valid_q;
  assign tag_o   = tag_q;
  assign row_o   = row_q;
  assign fp32_o  = fp32_q;
  assign busy_o  = valid_q || (stage_valid_q != '0);

  `MXU_ASSERT_STATIC(gen_act_stages, Stages == mxu_pkg::AccAddCycles,
                     "mxu_activation_unit: the int8 path's 4 stages must match the bias add's")

  // Bits 7:6 of each quantization word are ignored (docs/numerics.md); the raw row's valid
  // is the stage's own.
  logic unused_quant;
  always_comb begin
    unused_quant = raw_valid;
    for (int unsigned l = 0; l < Lanes; l++) unused_quant ^= ^quant_i[l*32+6 +: 2];
  end

endmodule
