// Processing element of the weight-stationary array. Holds two weight banks and a shadow register:
// the shadow chain shifts the next tile in (upward, one PE row per cycle) while the banks compute,
// and a commit copies the shadow into the bank the next tile's activations name. Each activation
// carries its bank, so the switch between tiles costs no cycle.
//
// For every valid activation: psum_o = psum_i + act_i * weight[act_bank_i] (bf16 x bf16 -> fp32
// exactly rounded, then fp32 add: docs/numerics.md), pipelined over Stages register stages
// (mxu_pkg::pe_*_cuts) after the activation register. The multiplier reads the activation from
// that register (the one that passes it to the right) and the weight bank it names, one cycle
// after the activation entered: no logic of the PE hangs off its inputs, so a column verilated on
// its own evaluates its arithmetic once a cycle, with its clock, rather than on every change of
// its inputs (docs/performance.md, "Array sizes"). The multiply takes pe_mul_cycles(Stages)
// cycles counted from act_i, that register included, so psum_i must arrive that many cycles
// after act_i, and psum_o follows psum_i by pe_add_cycles(Stages). Stages = 1: the product of
// the registered activation and psum_o <= psum_i + product.
//
// The int8 mode (act_int8_i, travelling with each activation like its bank): psum_o = psum_i +
// int8(act_i[7:0]) x int8(weight[7:0]) in wrapping int32, exact (docs/numerics.md). Its own small
// multiplier and adder, delayed to the float path's latency so that both modes keep one timing;
// the float path sees no valid for an int8 activation. Int8 = 0 leaves the integer path out
// (scripts/hw_cost.sh measures what it costs); the flag then only passes along.
//
// ClockGating: the PE's parts run on clocks of their own, gated (mxu_icg) from its column's:
// the float pipeline's registers while a float operation is in flight in them, the int8
// pipeline's likewise, the shadow and weight banks' in a cycle with a shift or a commit. A lane
// passing the partial sum (a row past its tile's K, an int8 zero) runs the int8 pipeline only,
// a bf16 row the float one only. The activation and partial-sum registers run on the column's
// clock. An operation entering the pipelines (from the activation register) keeps its gate open
// for PipeRegs more cycles, until its last valid bit has left the last register; a count per
// pipeline says how many are left. Nothing moves, cycle or bit (formal/clock_gating_pe.sv).
// In Verilator these gates pass every edge (mxu_icg's SimOpen): three gated clocks a PE made the
// simulation 4.2x slower (docs/performance.md). Their enables are still traced (the PPA's
// duties) and checked in every cycle (mxu_pe_col's pe_parts_still_while_gated: no register of a
// part would change while its gate is shut, so shutting it changes nothing); synthesis and the
// proofs take the real gates.
`include "mxu_assert.svh"

module mxu_pe #(
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
  parameter int unsigned Stages          = mxu_pkg::PeStages,
  parameter bit          Int8            = 1'b1,
  parameter bit          ClockGating     = mxu_pkg::ClockGating,
  localparam int unsigned MulCycles = mxu_pkg::pe_mul_cycles(Stages),
  localparam int unsigned AddCycles = mxu_pkg::pe_add_cycles(Stages),
  // Each pipeline's registers between the activation register and the partial sum's.
  localparam int unsigned PipeRegs  = MulCycles + AddCycles - 2
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Activation from the left, passed on to the right one cycle later; its operands are taken only
  // with its valid (operand isolation: a lane stopped at a column at rest changes nothing).
  input  logic        act_valid_i,
  input  logic [15:0] act_i,
  input  logic        act_bank_i,
  input  logic        act_int8_i,
  output logic        act_valid_o,
  output logic [15:0] act_o,
  output logic        act_bank_o,
  output logic        act_int8_o,
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
  logic [15:0] act_d, act_q;
  logic        act_bank_d, act_bank_q, act_int8_d, act_int8_q;
  logic        int_valid;
  logic [31:0] int_sum;
  logic [31:0] psum_d, psum_q;
  logic [15:0] shadow_d, shadow_q;
  logic [15:0] weight0_d, weight0_q;
  logic [15:0] weight1_d, weight1_q;
  logic [15:0] weight;
  logic        mul_valid, product_valid, sum_valid;
  logic [31:0] mul_product, product, sum;

  // The clocks of the float pipeline, the int8 pipeline and the weights (clk_i without gating).
  logic clk_float, clk_int, clk_weights;
  logic float_starts, int_starts;

  assign float_starts = act_valid_q && !act_int8_q;
  assign int_starts   = act_valid_q && act_int8_q;

  `MXU_ASSERT_STATIC(gen_stages_in_range, Stages >= 1 && Stages <= mxu_pkg::PeMaxStages,
                     "the PE has 1 to PeMaxStages pipeline stages")

  // Read one cycle after the activation entered: a commit must leave the bank a cycle longer
  // (mxu_pkg::pe_commit_gap).
  assign weight = act_bank_q ? weight1_q : weight0_q;

  mxu_bf16_mul #(
    .FlushSubnormals(FlushSubnormals),
    .Cuts           (mxu_pkg::pe_mul_cuts(Stages))
  ) u_mul (
    .clk_i    (clk_float),
    .rst_ni,
    .valid_i  (float_starts),
    .a_i      (act_q),
    .b_i      (weight),
    .valid_o  (mul_valid),
    .product_o(mul_product)
  );

  mxu_pipe_reg #(.Width(32), .Enable(mxu_pkg::pe_product_cut(Stages))) u_cut_product (
    .clk_i  (clk_float),
    .rst_ni,
    .valid_i(mul_valid),
    .data_i (mul_product),
    .valid_o(product_valid),
    .data_o (product)
  );

  mxu_fp32_add #(
    .FlushSubnormals(FlushSubnormals),
    .Cuts           (mxu_pkg::pe_add_cuts(Stages))
  ) u_add (
    .clk_i  (clk_float),
    .rst_ni,
    .valid_i(product_valid),
    .a_i    (psum_i),
    .b_i    (product),
    .valid_o(sum_valid),
    .sum_o  (sum)
  );

`ifndef SYNTHESIS
  logic int8_changes;
`endif

  if (Int8) begin : g_int8
    // The product is ready when the float product would be; the sum is formed as psum_i arrives
    // and waits out the float adder's remaining cycles. Both are held between valid operands, so
    // that an idle PE's registers stay still (its column's clock gate, mxu_pe_col).
    logic        prod_valid;
    logic [15:0] act_wide, weight_wide, prod_now, prod;
    logic [31:0] sum_now;

    // Sign-extended to 16 bits, where the product of two int8 values fits exactly.
    assign act_wide    = {{8{act_q[7]}}, act_q[7:0]};
    assign weight_wide = {{8{weight[7]}}, weight[7:0]};
    assign prod_now    = act_wide * weight_wide;

    // The activation register is the first of the MulCycles.
    mxu_valid_pipe #(.Width(16), .Depth(MulCycles - 1)) u_int_mul (
      .clk_i  (clk_int),
      .rst_ni,
      .valid_i(int_starts),
      .data_i (prod_now),
      .valid_o(prod_valid),
      .data_o (prod)
    );

    assign sum_now = psum_i + {{16{prod[15]}}, prod};

    mxu_valid_pipe #(.Width(32), .Depth(AddCycles - 1)) u_int_add (
      .clk_i  (clk_int),
      .rst_ni,
      .valid_i(prod_valid),
      .data_i (sum_now),
      .valid_o(int_valid),
      .data_o (int_sum)
    );
`ifndef SYNTHESIS
    assign int8_changes = u_int_mul.would_change || u_int_add.would_change;
`endif
  end else begin : g_no_int8
    assign int_valid = 1'b0;
    assign int_sum   = '0;
    logic unused_int;
    assign unused_int = clk_int ^ int_starts;
`ifndef SYNTHESIS
    assign int8_changes = 1'b0;
`endif
  end

  always_comb begin
    act_d      = act_valid_i ? act_i : act_q;
    act_bank_d = act_valid_i ? act_bank_i : act_bank_q;
    act_int8_d = act_valid_i ? act_int8_i : act_int8_q;
    psum_d    = sum_valid ? sum : int_valid ? int_sum : psum_q;
    shadow_d  = w_shift_i ? w_i : shadow_q;
    weight0_d = (w_commit_i && !w_commit_bank_i) ? shadow_d : weight0_q;
    weight1_d = (w_commit_i && w_commit_bank_i) ? shadow_d : weight1_q;
  end

  // The valid resets; the weight banks (all +0 until the first commit, docs/isa.md) too.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      act_valid_q <= 1'b0;
    end else begin
      act_valid_q <= act_valid_i;
    end
  end

  always_ff @(posedge clk_weights or negedge rst_ni) begin
    if (!rst_ni) begin
      weight0_q <= '0;
      weight1_q <= '0;
    end else begin
      weight0_q <= weight0_d;
      weight1_q <= weight1_d;
    end
  end

  // Data the valid, a shift or a commit qualifies: no reset (docs/architecture.md, "Reset").
  always_ff @(posedge clk_i) begin
    act_q      <= act_d;
    act_bank_q <= act_bank_d;
    act_int8_q <= act_int8_d;
    psum_q     <= psum_d;
  end

  always_ff @(posedge clk_weights) begin
    shadow_q <= shadow_d;
  end

  // The parts' clocks: the pipelines' are gated where there is a pipeline register to gate
  // (PipeRegs > 0; the integer one where there is an integer pipeline). Their enables are 1
  // where a part is not gated.
  localparam bit GatePipes = ClockGating && PipeRegs > 0;
  logic float_active, int_active, float_en, int_en, weights_en;
`ifndef SYNTHESIS
  logic counters_change;
`endif

  if (GatePipes) begin : g_pipes
    localparam int unsigned LeftWidth = $clog2(PipeRegs + 1);
    // Cycles each pipeline's gate stays open after this one: PipeRegs after an operation enters.
    logic [LeftWidth-1:0] float_left_d, float_left_q, int_left_d, int_left_q;

    assign float_active = float_starts || float_left_q != '0;
    assign int_active   = int_starts || int_left_q != '0;
    assign float_left_d = float_starts ? LeftWidth'(PipeRegs) :
                          float_left_q - LeftWidth'(float_left_q != '0);
    assign int_left_d   = int_starts ? LeftWidth'(PipeRegs) :
                          int_left_q - LeftWidth'(int_left_q != '0);

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        float_left_q <= '0;
        int_left_q   <= '0;
      end else begin
        float_left_q <= float_left_d;
        int_left_q   <= int_left_d;
      end
    end
`ifndef SYNTHESIS
    assign counters_change = float_left_d != float_left_q || int_left_d != int_left_q;
`endif
  end else begin : g_no_pipes
    assign float_active = 1'b1;
    assign int_active   = 1'b1;
    logic unused_starts;
    assign unused_starts = float_starts ^ int_starts;
`ifndef SYNTHESIS
    assign counters_change = 1'b0;
`endif
  end

  mxu_clock_domain #(.ClockGating(ClockGating), .SimOpen(1'b1)) u_clock_weights (
    .clk_i,
    .rst_ni,
    .active_i  (w_shift_i || w_commit_i),
    .clk_o     (clk_weights),
    .clock_on_o(weights_en)
  );
  mxu_clock_domain #(.ClockGating(GatePipes), .SimOpen(1'b1)) u_clock_float (
    .clk_i,
    .rst_ni,
    .active_i  (float_active),
    .clk_o     (clk_float),
    .clock_on_o(float_en)
  );
  mxu_clock_domain #(.ClockGating(GatePipes && Int8), .SimOpen(1'b1)) u_clock_int (
    .clk_i,
    .rst_ni,
    .active_i  (int_active),
    .clk_o     (clk_int),
    .clock_on_o(int_en)
  );

  assign act_valid_o = act_valid_q;
  assign act_o       = act_q;
  assign act_bank_o  = act_bank_q;
  assign act_int8_o  = act_int8_q;
  assign psum_o      = psum_q;
  assign w_o         = shadow_q;

`ifndef SYNTHESIS
  // Whether a register would take a new value at the next edge: mxu_pe_col asserts that none
  // would while the column's clock is off (docs/architecture.md, "Clock gating"), and none of a
  // part whose own clock is off (gated_would_change).
  logic float_changes, weights_changes, would_change, gated_would_change;
  assign float_changes   = u_mul.would_change || u_cut_product.would_change || u_add.would_change;
  assign weights_changes = shadow_d != shadow_q || weight0_d != weight0_q || weight1_d != weight1_q;
  assign would_change =
      {act_valid_i, act_d, act_bank_d, act_int8_d} != {act_valid_q, act_q, act_bank_q, act_int8_q} ||
      psum_d != psum_q || weights_changes || float_changes || int8_changes || counters_change;
  assign gated_would_change = (!float_en && float_changes) || (!int_en && int8_changes) ||
                        (!weights_en && weights_changes);
`endif

endmodule
