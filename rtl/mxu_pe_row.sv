// One row of the systolic array: Cols PEs chained left to right by the activation bus.
//
// The row is the array's unit of hierarchical verilation (docs/architecture.md, "Devices"): large
// devices verilate it once as its own model and instantiate it Rows times, so that the C++ the
// array costs grows with Cols instead of Rows x Cols. It adds no logic and no cycle.
//
// The parameters have no defaults from mxu_pkg, unlike the other blocks': Verilator 5.006's
// hierarchical flow reads this file before the packages. mxu_systolic_array sets both.
module mxu_pe_row #(
  parameter int unsigned Cols            = 1,
  parameter bit          FlushSubnormals = 1'b0
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  // The activation entering PE(r, 0), already skewed.
  input  logic               act_valid_i,
  input  logic [15:0]        act_i,
  input  logic               act_bank_i,
  // Partial sums from the row above, results to the row below.
  input  logic [Cols*32-1:0] psum_i,
  output logic [Cols*32-1:0] psum_o,
  // The weight shadow chain, per column: from the row below, to the row above.
  input  logic [Cols-1:0]    w_shift_i,
  input  logic [Cols*16-1:0] w_i,
  output logic [Cols*16-1:0] w_o,
  input  logic [Cols-1:0]    w_commit_i,
  input  logic [Cols-1:0]    w_commit_bank_i
);

  // Entry c feeds PE(r, c); c = Cols is the right edge, which goes nowhere.
  logic [(Cols+1)*16-1:0] act_bus;
  logic [Cols:0]          act_valid_bus, act_bank_bus;

  assign act_bus[15:0]    = act_i;
  assign act_valid_bus[0] = act_valid_i;
  assign act_bank_bus[0]  = act_bank_i;

  for (genvar c = 0; c < Cols; c++) begin : g_col
    mxu_pe #(.FlushSubnormals(FlushSubnormals)) u_pe (
      .clk_i,
      .rst_ni,
      .act_valid_i    (act_valid_bus[c]),
      .act_i          (act_bus[c*16 +: 16]),
      .act_bank_i     (act_bank_bus[c]),
      .act_valid_o    (act_valid_bus[c+1]),
      .act_o          (act_bus[(c+1)*16 +: 16]),
      .act_bank_o     (act_bank_bus[c+1]),
      .psum_i         (psum_i[c*32 +: 32]),
      .psum_o         (psum_o[c*32 +: 32]),
      .w_shift_i      (w_shift_i[c]),
      .w_i            (w_i[c*16 +: 16]),
      .w_o            (w_o[c*16 +: 16]),
      .w_commit_i     (w_commit_i[c]),
      .w_commit_bank_i(w_commit_bank_i[c])
    );
  end

  logic unused_right_edge;
  assign unused_right_edge = ^{act_valid_bus[Cols], act_bank_bus[Cols], act_bus[Cols*16 +: 16]};

endmodule
