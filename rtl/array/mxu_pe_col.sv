// One column of the systolic array: Rows PEs chained top to bottom by the partial sum and bottom
// to top by the weight shadow chain, with the activations passing through to the next column.
//
// A weight tile of K rows (w_k_i, 1 .. Rows) loads in K shifts: its rows enter the shadow chain at
// PE row K-1 (the column's weight bus reaches every row) and shift up, so that after K shifts the
// first row sits in PE row 0; rows K and below keep their shadow. Their stale values may reach a
// bank, never a result: the lanes of a tile's rows past its K pass the partial sum through
// (mxu_systolic_array), which no weight can change.
//
// The column is the array's unit of hierarchical verilation (docs/architecture.md, "Devices"):
// large devices verilate it once as its own model and instantiate it Cols times, so that the C++
// the array costs grows with Rows instead of Rows x Cols. Between columns only the activations
// flow, left to right, so the columns' models form no loop. It adds no logic and no cycle.
//
// ClockGating: the column's PEs run on a clock of their own, gated by clk_en_i (mxu_icg), which
// mxu_systolic_array raises while the column has anything to do: weights shifting in or being
// committed, activations or partial sums in flight (docs/architecture.md, "Clock gating"); each
// PE gates its pipelines and weights again from it (mxu_pe). The assertions below check, every
// cycle of every simulation, that no register of the column would have changed while its clock
// was off, nor a PE's part while the part's was.
//
// The parameters have no defaults from mxu_pkg, unlike the other blocks': Verilator 5.006's
// hierarchical flow reads this file before the packages. mxu_systolic_array sets them all.
`include "mxu_assert.svh"

module mxu_pe_col #(
  parameter int unsigned Rows            = 1,
  parameter int unsigned Stages          = 1,
  parameter bit          FlushSubnormals = 1'b0,
  parameter bit          ClockGating     = 1'b0,
  localparam int unsigned KWidth         = $clog2(Rows + 1)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               clk_en_i,  // the column has work this cycle (ClockGating)
  // Activations from the column to the left (lane r feeds PE(r, c)), passed on one cycle later.
  input  logic [Rows-1:0]    act_valid_i,
  input  logic [Rows*16-1:0] act_i,
  input  logic [Rows-1:0]    act_bank_i,
  input  logic [Rows-1:0]    act_int8_i,
  output logic [Rows-1:0]    act_valid_o,
  output logic [Rows*16-1:0] act_o,
  output logic [Rows-1:0]    act_bank_o,
  output logic [Rows-1:0]    act_int8_o,
  // The weight row's element for this column, entering the shadow chain at PE row w_k_i - 1 (the
  // tile's K rows shift, the rest hold), and the commit, all already skewed for this column.
  input  logic               w_shift_i,
  input  logic [KWidth-1:0]  w_k_i,
  input  logic [15:0]        w_i,
  input  logic               w_commit_i,
  input  logic               w_commit_bank_i,
  // The column's result, from its bottom PE (partial sums enter the top as +0.0).
  output logic [31:0]        psum_o
);

  // Entry r feeds PE(r) from above (psum); PE(r) passes its shadow up on w_bus entry r.
  logic [(Rows+1)*32-1:0] psum_bus;
  logic [Rows*16-1:0]     w_bus;
  // Each PE's shadow input (the row below's, or the weight bus at the tile's entry row) and shift.
  logic [Rows*16-1:0]     w_in;
  logic [Rows-1:0]        w_shift_row;

  assign psum_bus[31:0] = 32'h0000_0000;
  assign psum_o         = psum_bus[Rows*32 +: 32];

  for (genvar r = 0; r < Rows; r++) begin : g_wload
    if (r == Rows - 1) begin : g_bottom
      assign w_in[r*16 +: 16] = w_i;
    end else begin : g_inner
      assign w_in[r*16 +: 16] = (w_k_i == KWidth'(r + 1)) ? w_i : w_bus[(r+1)*16 +: 16];
    end
    assign w_shift_row[r] = w_shift_i && KWidth'(r) < w_k_i;
  end

  logic clk_pe, clock_on;

  mxu_clock_domain #(.ClockGating(ClockGating)) u_clock (
    .clk_i,
    .rst_ni,
    .active_i  (clk_en_i),
    .clk_o     (clk_pe),
    .clock_on_o(clock_on)
  );

  for (genvar r = 0; r < Rows; r++) begin : g_row
    mxu_pe #(
      .FlushSubnormals(FlushSubnormals),
      .Stages         (Stages),
      .ClockGating    (ClockGating)
    ) u_pe (
      .clk_i          (clk_pe),
      .rst_ni,
      .act_valid_i    (act_valid_i[r]),
      .act_i          (act_i[r*16 +: 16]),
      .act_bank_i     (act_bank_i[r]),
      .act_int8_i     (act_int8_i[r]),
      .act_valid_o    (act_valid_o[r]),
      .act_o          (act_o[r*16 +: 16]),
      .act_bank_o     (act_bank_o[r]),
      .act_int8_o     (act_int8_o[r]),
      .psum_i         (psum_bus[r*32 +: 32]),
      .psum_o         (psum_bus[(r+1)*32 +: 32]),
      .w_shift_i      (w_shift_row[r]),
      .w_i            (w_in[r*16 +: 16]),
      .w_o            (w_bus[r*16 +: 16]),
      .w_commit_i,
      .w_commit_bank_i
    );
  end

`ifndef SYNTHESIS
  // Every PE's registers stand still while the column's clock is off, and each part of a PE
  // while its own clock is (mxu_pe).
  logic [Rows-1:0] pe_changes, pe_gated_would_changes;
  for (genvar r = 0; r < Rows; r++) begin : g_changes
    assign pe_changes[r]             = g_row[r].u_pe.would_change;
    assign pe_gated_would_changes[r] = g_row[r].u_pe.gated_would_change;
  end
  `MXU_ASSERT_STILL_WHILE_GATED(column_still_while_gated, ClockGating, clock_on,
                                pe_changes != '0, clk_i, rst_ni)
  if (ClockGating) begin : g_parts_check
    `MXU_ASSERT(pe_parts_still_while_gated, pe_gated_would_changes == '0, clk_i, rst_ni)
  end
`endif

  // The top of the weight chain goes nowhere.
  logic unused_top;
  assign unused_top = ^w_bus[15:0];

endmodule
