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
// r x Add cycles after it entered: mxu_datapath spaces commits so it has passed the rows that
// tile used.
// A tile's extent (docs/architecture.md, "Tiles of any extent"): a weight tile of K rows and N
// columns shifts in K cycles, entering each column at PE row K-1 (mxu_pe_col); its shifts and
// its commit reach columns 0 .. N-1 only. The lanes of a row past its tile's K (act_pass_i)
// enter as the int8 value 0: the PE's integer path adds exactly 0, so they pass the partial sum
// down unchanged in every bit (-0 and NaN payloads included) and no weight in those rows, stale
// or not, can reach a result. Activations stop at the tile's last column: each column knows,
// from the commits, whether it is in each bank's tile, and takes a lane only if it is in the
// tile of the lane's bank (the lane's valid is dropped there, and a PE takes operands only with a
// valid). A result row's lanes at or past its tile's N (res_cols_i, the N of the row leaving) are
// +0: what the columns past N hold is no result.
//
// Clock gating (ClockGating, docs/architecture.md "Clock gating"): each column runs on its own
// gated clock (mxu_pe_col), and the skew, weight-skew and de-skew registers on one for the array.
// Column c sees what column 0 saw, c cycles later, so the enables are decided in column 0's time:
// column c has work in a cycle with a row of a tile wider than c, or a weight shift or commit of
// such a tile, at the edge, and for ActiveSpan cycles after such a row; its enable is that,
// delayed c cycles. The columns in use are always a prefix 0 .. cols-1 (a wider tile's row
// wakes every narrower column too), so one count per cycle travels across the columns. The
// array's clock runs until the de-skew has passed the last column's results. Operand isolation:
// between rows the edge holds the last row's operands, and lanes stop at their tile's last
// column, so that no register of an idle PE changes and the multipliers see no new operands;
// nothing else moves, cycle or bit.
`include "mxu_assert.svh"

module mxu_systolic_array #(
  parameter int unsigned Rows            = mxu_pkg::ArrayRows,
  parameter int unsigned Cols            = mxu_pkg::ArrayCols,
  parameter int unsigned Stages          = mxu_pkg::PeStages,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
  parameter bit          ClockGating     = mxu_pkg::ClockGating,
  localparam int unsigned Add     = mxu_pkg::pe_add_cycles(Stages),
  localparam int unsigned KWidth  = $clog2(Rows + 1),
  localparam int unsigned NWidth  = $clog2(Cols + 1),
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
  input  logic [Rows-1:0]      act_pass_i,  // lanes past the tile's K: pass the partial sum
  input  logic [NWidth-1:0]    act_cols_i,     // the columns of the row's tile
  // One weight row per cycle into the shadow chain of a tile of w_k_i rows, entering at PE row
  // w_k_i - 1: after w_k_i shifts the first row shifted sits in PE row 0.
  input  logic                 w_shift_i,
  input  logic [KWidth-1:0]    w_k_i,
  input  logic [NWidth-1:0]    w_cols_i,       // ... and its columns (of a shift and a commit)
  input  logic [Cols*16-1:0]   w_i,
  // Copy every shadow register into weight bank w_commit_bank_i.
  input  logic                 w_commit_i,
  input  logic                 w_commit_bank_i,
  // One de-skewed fp32 result row per cycle, Latency cycles after its activation row, its lanes
  // at or past res_cols_i (the N of that row's tile) +0.
  input  logic [NWidth-1:0]    res_cols_i,
  output logic [Cols*32-1:0]   psum_o,
  // How many columns' clocks run, in column 0's time (column c's clock runs c cycles later):
  // COLUMN_CLOCKS adds it up. Cols with ClockGating off.
  output logic [NWidth-1:0]    col_clocks_o
);

  // Activation buses between columns: entry (c, r) feeds PE(r, c); c = Cols is the right edge.
  logic [(Cols+1)*Rows*16-1:0] act_bus;
  logic [(Cols+1)*Rows-1:0]    act_valid_bus;
  logic [(Cols+1)*Rows-1:0]    act_bank_bus;
  logic [(Cols+1)*Rows-1:0]    act_int8_bus;
  // Each column's weight element, commit and result, skewed per column.
  logic [Cols*16-1:0]          w_col;
  logic [Cols-1:0]             w_shift_col, w_commit_col, w_commit_bank_col;
  logic [Cols-1:0]             w_in_tile;  // the column is in the shifting or committed tile
  logic [Cols*KWidth-1:0]      w_k_col;
  logic [Cols*NWidth-1:0]      w_n_col;
  logic [Cols*32-1:0]          psum_col, psum_deskew;
  // The operands of the last valid row (bank, each lane's int8 flag, lanes), held until the next.
  logic [Rows*17:0]            edge_d, edge_q;
  logic [Rows*16-1:0]          edge_act, act_lanes;
  logic [Rows-1:0]             edge_int8;
  logic                        edge_bank;
  // Clocks: the array's (skews and de-skew) and each column's, and their enables.
  logic                        clk_array, array_en, array_on;
  logic [Cols-1:0]             col_en;
  // Whether column c is in the tile of each weight bank (set by the bank's commits), and column
  // c's lanes in: valid only in the columns of their bank's tile.
  logic [2*Cols-1:0]           in_tile_d, in_tile_q;
  logic [Cols*Rows-1:0]        col_valid_in;

  // The weight row and tile rows of the last shift, the tile columns of the last shift or commit
  // and the bank of the last commit, likewise.
  logic [Cols*16+KWidth+NWidth:0] w_edge_d, w_edge_q;
  logic [Cols*16-1:0]          w_edge;
  logic [KWidth-1:0]           w_edge_k;
  logic [NWidth-1:0]           w_edge_cols;
  logic                        w_edge_bank;

  // A passing lane enters as the int8 value 0.
  always_comb begin
    act_lanes = act_i;
    for (int unsigned r = 0; r < Rows; r++) begin
      if (act_pass_i[r]) act_lanes[r*16 +: 16] = 16'h0000;
    end
  end

  assign edge_d   = act_valid_i ? {act_bank_i, act_pass_i | {Rows{act_int8_i}}, act_lanes} : edge_q;
  assign w_edge_d = {w_commit_i ? w_commit_bank_i : w_edge_q[Cols*16+KWidth+NWidth],
                     (w_shift_i || w_commit_i) ? w_cols_i : w_edge_q[Cols*16+KWidth +: NWidth],
                     w_shift_i ? {w_k_i, w_i} : w_edge_q[Cols*16+KWidth-1:0]};
  assign {edge_bank, edge_int8, edge_act}         = edge_d;
  assign {w_edge_bank, w_edge_cols, w_edge_k, w_edge} = w_edge_d;

  // Data only (the valids, shifts and commits that qualify them arrive beside): no reset.
  always_ff @(posedge clk_array) begin
    edge_q   <= edge_d;
    w_edge_q <= w_edge_d;
  end

  // Every column is in both banks' tiles (all +0, Rows x Cols) until the first commit.
  always_ff @(posedge clk_array or negedge rst_ni) begin
    if (!rst_ni) begin
      in_tile_q <= '1;
    end else begin
      in_tile_q <= in_tile_d;
    end
  end

  if (ClockGating) begin : g_gate
    localparam int unsigned SpanWidth = $clog2(ActiveSpan + 1);
    // In column 0's time: the columns a row, a shift or a commit wakes, each column's cycles
    // left after its last row, and the columns in use (a prefix: their count).
    logic [Cols-1:0]           row_wakes, use0;
    logic [Cols*SpanWidth-1:0] span_d, span_q;
    logic [NWidth-1:0]         cols0;
    // cols0 delayed c+1 cycles in entry c: the columns in use as column c+1 sees them.
    logic [Cols*NWidth-1:0]    cols_d, cols_q;

    always_comb begin
      cols0 = '0;
      for (int unsigned c = 0; c < Cols; c++) begin
        row_wakes[c] = act_valid_i && NWidth'(c) < act_cols_i;
        use0[c] = row_wakes[c] || ((w_shift_i || w_commit_i) && NWidth'(c) < w_cols_i) ||
                  span_q[c*SpanWidth +: SpanWidth] != '0;
        span_d[c*SpanWidth +: SpanWidth] =
            row_wakes[c] ? SpanWidth'(ActiveSpan) :
            (span_q[c*SpanWidth +: SpanWidth] != '0) ? span_q[c*SpanWidth +: SpanWidth] - 1'b1 :
                                                        span_q[c*SpanWidth +: SpanWidth];
        cols0 = cols0 + NWidth'(use0[c]);
      end
    end

    if (Cols > 1) begin : g_many
      assign cols_d = {cols_q[(Cols-1)*NWidth-1:0], cols0};
    end else begin : g_one
      assign cols_d = cols0;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        span_q <= '0;
        cols_q <= '0;
      end else begin
        span_q <= span_d;
        cols_q <= cols_d;
      end
    end

    for (genvar c = 0; c < Cols; c++) begin : g_col_en
      if (c == 0) begin : g_first
        assign col_en[c] = cols0 != '0;
      end else begin : g_later
        assign col_en[c] = cols_q[(c-1)*NWidth +: NWidth] > NWidth'(c);
      end
    end

    // The de-skew holds column c's result Cols-1-c cycles: the array's clock runs Cols cycles
    // past column 0's last.
    assign array_en     = cols0 != '0 || cols_q != '0;
    assign col_clocks_o = cols0;
  end else begin : g_no_gate
    assign col_en       = '1;
    assign array_en     = 1'b1;
    assign col_clocks_o = NWidth'(Cols);
    // Every column runs: a row's tile columns only decide which result lanes are taken.
    logic unused_no_gate;
    assign unused_no_gate = ^act_cols_i;
  end

  mxu_clock_domain #(.ClockGating(ClockGating)) u_clock (
    .clk_i,
    .rst_ni,
    .active_i  (array_en),
    .clk_o     (clk_array),
    .clock_on_o(array_on)
  );

  // Input skew: lane r is delayed r x Add cycles.
  for (genvar r = 0; r < Rows; r++) begin : g_skew
    mxu_delay_line #(.Width(19), .Depth(r * Add), .ResetBits(1)) u_skew (  // the valid resets
      .clk_i (clk_array),
      .rst_ni,
      .d_i({act_valid_i, edge_bank, edge_int8[r], edge_act[r*16 +: 16]}),
      .q_o({act_valid_bus[r], act_bank_bus[r], act_int8_bus[r], act_bus[r*16 +: 16]})
    );
  end

  for (genvar c = 0; c < Cols; c++) begin : g_col
    // Weight and commit skew: column c is delayed c cycles.
    // The shift and the commit reset; the rest is data they qualify.
    mxu_delay_line #(.Width(19 + KWidth + NWidth), .Depth(c), .ResetBits(2)) u_wskew (
      .clk_i (clk_array),
      .rst_ni,
      .d_i({w_shift_i, w_commit_i, w_edge_bank, w_edge_cols, w_edge_k, w_edge[c*16 +: 16]}),
      .q_o({w_shift_col[c], w_commit_col[c], w_commit_bank_col[c], w_n_col[c*NWidth +: NWidth],
            w_k_col[c*KWidth +: KWidth], w_col[c*16 +: 16]})
    );
    // A tile's shifts and its commit reach its own columns only; every commit tells each column
    // whether it is in the tile of the bank committed.
    assign w_in_tile[c] = NWidth'(c) < w_n_col[c*NWidth +: NWidth];
    for (genvar b = 0; b < 2; b++) begin : g_bank
      assign in_tile_d[2*c + b] = (w_commit_col[c] && w_commit_bank_col[c] == 1'(b)) ?
                                  w_in_tile[c] : in_tile_q[2*c + b];
    end
    // A lane enters the column only if the column is in its bank's tile: activations stop at the
    // tile's last column. (A commit that narrows a bank's tile waits until every lane on it has
    // left the array, mxu_matmul_seq, so that no lane of the old tile meets the new columns.)
    assign col_valid_in[c*Rows +: Rows] = act_valid_bus[c*Rows +: Rows] &
        ((~act_bank_bus[c*Rows +: Rows] & {Rows{in_tile_q[2*c]}}) |
         (act_bank_bus[c*Rows +: Rows] & {Rows{in_tile_q[2*c + 1]}}));

    mxu_pe_col #(
      .Rows           (Rows),
      .Stages         (Stages),
      .FlushSubnormals(FlushSubnormals),
      .ClockGating    (ClockGating)
    ) u_col (
      .clk_i,
      .rst_ni,
      .clk_en_i       (col_en[c]),
      .act_valid_i    (col_valid_in[c*Rows +: Rows]),
      .act_i          (act_bus[c*Rows*16 +: Rows*16]),
      .act_bank_i     (act_bank_bus[c*Rows +: Rows]),
      .act_int8_i     (act_int8_bus[c*Rows +: Rows]),
      .act_valid_o    (act_valid_bus[(c+1)*Rows +: Rows]),
      .act_o          (act_bus[(c+1)*Rows*16 +: Rows*16]),
      .act_bank_o     (act_bank_bus[(c+1)*Rows +: Rows]),
      .act_int8_o     (act_int8_bus[(c+1)*Rows +: Rows]),
      .w_shift_i      (w_shift_col[c] && w_in_tile[c]),
      .w_k_i          (w_k_col[c*KWidth +: KWidth]),
      .w_i            (w_col[c*16 +: 16]),
      .w_commit_i     (w_commit_col[c] && w_in_tile[c]),
      .w_commit_bank_i(w_commit_bank_col[c]),
      .psum_o         (psum_col[c*32 +: 32])
    );

    // Output de-skew: column c is delayed Cols-1-c cycles.
    mxu_delay_line #(.Width(32), .Depth(Cols - 1 - c), .ResetBits(0)) u_deskew (  // data
      .clk_i (clk_array),
      .rst_ni,
      .d_i(psum_col[c*32 +: 32]),
      .q_o(psum_deskew[c*32 +: 32])
    );
    assign psum_o[c*32 +: 32] = (NWidth'(c) < res_cols_i) ? psum_deskew[c*32 +: 32] : 32'h0000_0000;
  end

`ifndef SYNTHESIS
  // The array's own registers stand still while its clock is off (each column checks its own).
  logic [Rows-1:0] skew_changes;
  logic [Cols-1:0] col_changes;
  for (genvar r = 0; r < Rows; r++) begin : g_skew_changes
    assign skew_changes[r] = g_skew[r].u_skew.would_change;
  end
  for (genvar c = 0; c < Cols; c++) begin : g_col_changes
    assign col_changes[c] = g_col[c].u_wskew.would_change || g_col[c].u_deskew.would_change;
  end
  `MXU_ASSERT_STILL_WHILE_GATED(array_still_while_gated, ClockGating, array_on,
      edge_d != edge_q || w_edge_d != w_edge_q || skew_changes != '0 || col_changes != '0 ||
      in_tile_d != in_tile_q, clk_i, rst_ni)
`endif

  // The right edge of the activation buses goes nowhere.
  logic unused_right_edge;
  assign unused_right_edge = ^{act_valid_bus[Cols*Rows +: Rows], act_bank_bus[Cols*Rows +: Rows],
                               act_int8_bus[Cols*Rows +: Rows],
                               act_bus[Cols*Rows*16 +: Rows*16]};

endmodule
