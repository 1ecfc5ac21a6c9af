// Rows x Cols weight-stationary systolic array with input skew and output de-skew.
//
// Timing (cycle numbers relative to the cycle a row is presented at act_i), with the PE's
// pipeline of PeStages stages: its multiply takes Mul = pe_mul_cycles cycles, its add (the step
// of the partial-sum chain from one row to the next) Add = pe_add_cycles (1 and 0 at one stage):
//   - lane r of the row enters PE(r, 0) at cycle r x Add (input skew) and PE(r, c) at r x Add + c;
//     its product meets the partial sum from PE(r-1, c) Mul cycles later, so the partial sum of
//     column c runs down the rows in order r = 0 .. Rows-1 starting from +0.0 (the contract's
//     accumulation order);
//   - the bottom of column c holds the result from cycle Latency - (Cols-1-c), and the de-skew
//     delays column c by Cols-1-c cycles: the whole result row appears at psum_o at cycle
//     Latency = Rows x Add + Mul + Cols - 1 (Rows + Cols - 1 at one stage).
// Weight rows (w_i) and commits are skewed per column like the activations, so that a commit
// presented one cycle before the first row of a new tile reaches every PE just in time. A commit
// reaches a column's rows in the same cycle, while the old tile's last row reaches row r up to
// (Rows-1) x Add cycles after it entered: mxu_datapath spaces commits so it has passed.
//
// Clock gating (ClockGating, docs/architecture.md "Clock gating"): each column runs on its own
// gated clock (mxu_pe_col), and the skew, weight-skew and de-skew registers on one for the array.
// Column c sees exactly what column 0 saw, c cycles later, so one enable serves them all: column
// 0 has work in a cycle with a row, a weight shift or a commit at the edge, and for ActiveSpan
// cycles after a row; column c's enable is column 0's delayed c cycles, and the array's
// runs until the de-skew has passed the last column's results. Operand isolation: between rows
// the edge holds the last row's operands, so that no register of an idle PE changes and the
// multipliers see no new operands; nothing else moves, cycle or bit.
`include "mxu_assert.svh"

module mxu_systolic_array #(
  parameter int unsigned Rows            = mxu_pkg::ArrayRows,
  parameter int unsigned Cols            = mxu_pkg::ArrayCols,
  parameter int unsigned Stages          = mxu_pkg::PeStages,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
  parameter bit          ClockGating     = mxu_pkg::ClockGating,
  localparam int unsigned Add     = mxu_pkg::pe_add_cycles(Stages),
  // The cycles after a row's edge cycle in which column 0 may still change: its bottom lane enters
  // (Rows-1) x Add cycles late, and its partial sum is written Mul + Add - 1 cycles later. (One
  // cycle fewer fails the column's assertion; formal/clock_gating.sv's mutant is that.)
  localparam int unsigned ActiveSpan = (Rows - 1) * Add + mxu_pkg::pe_mul_cycles(Stages) + Add - 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // One activation row per cycle: lane r multiplies the weights of PE row r.
  input  logic                 act_valid_i,
  input  logic [Rows*16-1:0]   act_i,
  input  logic                 act_bank_i,
  input  logic                 act_int8_i,  // the row is int8 (docs/numerics.md)
  // One weight row per cycle into the shadow chain, entering at the bottom: after Rows shifts the
  // first row shifted sits in PE row 0.
  input  logic                 w_shift_i,
  input  logic [Cols*16-1:0]   w_i,
  // Copy every shadow register into weight bank w_commit_bank_i.
  input  logic                 w_commit_i,
  input  logic                 w_commit_bank_i,
  // One de-skewed fp32 result row per cycle, Latency cycles after its activation row.
  output logic [Cols*32-1:0]   psum_o,
  // Column 0's clock runs this cycle; column c's runs the same cycles, c later (COLUMN_CLOCKS
  // counts Cols for each). Always with ClockGating off.
  output logic                 col0_clock_on_o
);

  // Activation buses between columns: entry (c, r) feeds PE(r, c); c = Cols is the right edge.
  logic [(Cols+1)*Rows*16-1:0] act_bus;
  logic [(Cols+1)*Rows-1:0]    act_valid_bus;
  logic [(Cols+1)*Rows-1:0]    act_bank_bus;
  logic [(Cols+1)*Rows-1:0]    act_int8_bus;
  // Each column's weight element, commit and result, skewed per column.
  logic [Cols*16-1:0]          w_col;
  logic [Cols-1:0]             w_shift_col, w_commit_col, w_commit_bank_col;
  logic [Cols*32-1:0]          psum_col;
  // The operands of the last valid row (bank, int8 flag, lanes), held until the next.
  logic [Rows*16+1:0]          edge_d, edge_q;
  logic [Rows*16-1:0]          edge_act;
  logic                        edge_bank, edge_int8;
  // Clocks: the array's (skews and de-skew) and each column's, and their enables.
  logic                        clk_array, array_en;
  logic [Cols-1:0]             col_en;

  // The weight row of the last shift and the bank of the last commit, likewise.
  logic [Cols*16:0]            w_edge_d, w_edge_q;
  logic [Cols*16-1:0]          w_edge;
  logic                        w_edge_bank;

  assign edge_d   = act_valid_i ? {act_bank_i, act_int8_i, act_i} : edge_q;
  assign w_edge_d = {w_commit_i ? w_commit_bank_i : w_edge_q[Cols*16],
                     w_shift_i ? w_i : w_edge_q[Cols*16-1:0]};
  assign {edge_bank, edge_int8, edge_act} = edge_d;
  assign {w_edge_bank, w_edge}            = w_edge_d;

  always_ff @(posedge clk_array or negedge rst_ni) begin
    if (!rst_ni) begin
      edge_q   <= '0;
      w_edge_q <= '0;
    end else begin
      edge_q   <= edge_d;
      w_edge_q <= w_edge_d;
    end
  end

  if (ClockGating) begin : g_gate
    localparam int unsigned SpanWidth = $clog2(ActiveSpan + 1);
    logic                 col0_active;
    logic [SpanWidth-1:0] span_d, span_q;
    // Column 0's enable delayed c+1 cycles in bit c: column c+1's enable.
    logic [Cols-1:0]      col_en_d, col_en_q;

    always_comb begin
      col0_active = act_valid_i || w_shift_i || w_commit_i || span_q != '0;
      span_d      = act_valid_i ? SpanWidth'(ActiveSpan) :
                    (span_q != '0) ? span_q - 1'b1 : span_q;
    end

    if (Cols > 1) begin : g_many
      assign col_en_d = {col_en_q[Cols-2:0], col0_active};
    end else begin : g_one
      assign col_en_d = col0_active;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        span_q   <= '0;
        col_en_q <= '0;
      end else begin
        span_q   <= span_d;
        col_en_q <= col_en_d;
      end
    end

    // The de-skew holds column c's result Cols-1-c cycles: the array's clock runs Cols cycles
    // past column 0's last.
    assign col_en          = col_en_d;
    assign array_en        = col0_active || col_en_q != '0;
    assign col0_clock_on_o = col0_active;

    mxu_icg u_icg (
      .clk_i,
      .rst_ni,
      .en_i (array_en),
      .clk_o(clk_array)
    );
  end else begin : g_no_gate
    assign col_en          = '1;
    assign array_en        = 1'b1;
    assign clk_array       = clk_i;
    assign col0_clock_on_o = 1'b1;
    logic unused_array_en;
    assign unused_array_en = array_en;
  end

  // Input skew: lane r is delayed r x Add cycles.
  for (genvar r = 0; r < Rows; r++) begin : g_skew
    mxu_delay_line #(.Width(19), .Depth(r * Add)) u_skew (
      .clk_i (clk_array),
      .rst_ni,
      .d_i({act_valid_i, edge_bank, edge_int8, edge_act[r*16 +: 16]}),
      .q_o({act_valid_bus[r], act_bank_bus[r], act_int8_bus[r], act_bus[r*16 +: 16]})
    );
  end

  for (genvar c = 0; c < Cols; c++) begin : g_col
    // Weight and commit skew: column c is delayed c cycles.
    mxu_delay_line #(.Width(19), .Depth(c)) u_wskew (
      .clk_i (clk_array),
      .rst_ni,
      .d_i({w_shift_i, w_commit_i, w_edge_bank, w_edge[c*16 +: 16]}),
      .q_o({w_shift_col[c], w_commit_col[c], w_commit_bank_col[c], w_col[c*16 +: 16]})
    );

    mxu_pe_col #(
      .Rows           (Rows),
      .Stages         (Stages),
      .FlushSubnormals(FlushSubnormals),
      .ClockGating    (ClockGating)
    ) u_col (
      .clk_i,
      .rst_ni,
      .clk_en_i       (col_en[c]),
      .act_valid_i    (act_valid_bus[c*Rows +: Rows]),
      .act_i          (act_bus[c*Rows*16 +: Rows*16]),
      .act_bank_i     (act_bank_bus[c*Rows +: Rows]),
      .act_int8_i     (act_int8_bus[c*Rows +: Rows]),
      .act_valid_o    (act_valid_bus[(c+1)*Rows +: Rows]),
      .act_o          (act_bus[(c+1)*Rows*16 +: Rows*16]),
      .act_bank_o     (act_bank_bus[(c+1)*Rows +: Rows]),
      .act_int8_o     (act_int8_bus[(c+1)*Rows +: Rows]),
      .w_shift_i      (w_shift_col[c]),
      .w_i            (w_col[c*16 +: 16]),
      .w_commit_i     (w_commit_col[c]),
      .w_commit_bank_i(w_commit_bank_col[c]),
      .psum_o         (psum_col[c*32 +: 32])
    );

    // Output de-skew: column c is delayed Cols-1-c cycles.
    mxu_delay_line #(.Width(32), .Depth(Cols - 1 - c)) u_deskew (
      .clk_i (clk_array),
      .rst_ni,
      .d_i(psum_col[c*32 +: 32]),
      .q_o(psum_o[c*32 +: 32])
    );
  end

`ifndef SYNTHESIS
  // The array's own registers stand still while its clock is off (each column checks its own).
  if (ClockGating) begin : g_gate_check
    logic [Rows-1:0] skew_changes;
    logic [Cols-1:0] col_changes;
    for (genvar r = 0; r < Rows; r++) begin : g_skew_changes
      assign skew_changes[r] = g_skew[r].u_skew.would_change;
    end
    for (genvar c = 0; c < Cols; c++) begin : g_col_changes
      assign col_changes[c] = g_col[c].u_wskew.would_change || g_col[c].u_deskew.would_change;
    end
    // One bit for the assertion, kept a signal of its own (rtl/mxu.vlt): Verilator 5.006 cannot
    // sample the wide vectors it compares (an undeclared loop variable in the generated _eval).
    logic regs_change;
    assign regs_change = edge_d != edge_q || w_edge_d != w_edge_q || skew_changes != '0 ||
                         col_changes != '0;
    `MXU_ASSERT(array_still_while_gated, array_en || !regs_change,
                clk_i, rst_ni)
  end
`endif

  // The right edge of the activation buses goes nowhere.
  logic unused_right_edge;
  assign unused_right_edge = ^{act_valid_bus[Cols*Rows +: Rows], act_bank_bus[Cols*Rows +: Rows],
                               act_int8_bus[Cols*Rows +: Rows],
                               act_bus[Cols*Rows*16 +: Rows*16]};

endmodule
