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
module mxu_systolic_array #(
  parameter int unsigned Rows            = mxu_pkg::ArrayRows,
  parameter int unsigned Cols            = mxu_pkg::ArrayCols,
  parameter int unsigned Stages          = mxu_pkg::PeStages,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
  localparam int unsigned Add     = mxu_pkg::pe_add_cycles(Stages)
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
  output logic [Cols*32-1:0]   psum_o
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

  // Input skew: lane r is delayed r x Add cycles.
  for (genvar r = 0; r < Rows; r++) begin : g_skew
    mxu_delay_line #(.Width(19), .Depth(r * Add)) u_skew (
      .clk_i,
      .rst_ni,
      .d_i({act_valid_i, act_bank_i, act_int8_i, act_i[r*16 +: 16]}),
      .q_o({act_valid_bus[r], act_bank_bus[r], act_int8_bus[r], act_bus[r*16 +: 16]})
    );
  end

  for (genvar c = 0; c < Cols; c++) begin : g_col
    // Weight and commit skew: column c is delayed c cycles.
    mxu_delay_line #(.Width(19), .Depth(c)) u_wskew (
      .clk_i,
      .rst_ni,
      .d_i({w_shift_i, w_commit_i, w_commit_bank_i, w_i[c*16 +: 16]}),
      .q_o({w_shift_col[c], w_commit_col[c], w_commit_bank_col[c], w_col[c*16 +: 16]})
    );

    mxu_pe_col #(.Rows(Rows), .Stages(Stages), .FlushSubnormals(FlushSubnormals)) u_col (
      .clk_i,
      .rst_ni,
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
      .clk_i,
      .rst_ni,
      .d_i(psum_col[c*32 +: 32]),
      .q_o(psum_o[c*32 +: 32])
    );
  end

  // The right edge of the activation buses goes nowhere.
  logic unused_right_edge;
  assign unused_right_edge = ^{act_valid_bus[Cols*Rows +: Rows], act_bank_bus[Cols*Rows +: Rows],
                               act_int8_bus[Cols*Rows +: Rows],
                               act_bus[Cols*Rows*16 +: Rows*16]};

endmodule
