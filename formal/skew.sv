`ifdef FORMAL
`include "harness.svh"

// Proof harness: the systolic array's skew and de-skew, built as mxu_systolic_array builds them
// (its g_skew and g_deskew loops of mxu_delay_line): lane r of an activation row is delayed
// exactly r x Add cycles, unchanged; a result row whose column c enters the de-skew c cycles
// late (the diagonal the array produces) leaves it aligned, all columns together Cols - 1
// cycles after column 0 entered. Rows are chosen freely (track_i, dtrack_i) and followed.
// Method: k-induction with k > (Rows - 1) x Add.
module skew #(
  parameter int unsigned Rows  = 4,
  parameter int unsigned Cols  = 4,
  parameter int unsigned Add   = 2,
  parameter int unsigned Width = 8
) (
  input logic                  clk_i,
  input logic                  rst_ni,
  input logic [Rows*Width-1:0] act_i,
  input logic                  track_i,
  input logic [Cols*Width-1:0] psum_i,
  input logic                  dtrack_i
);
  logic [Rows*Width-1:0] act_skewed;
  logic [Cols*Width-1:0] psum_o;

  for (genvar r = 0; r < Rows; r++) begin : g_skew
    mxu_delay_line #(.Width(Width), .Depth(r * Add)) u_skew (
      .clk_i, .rst_ni, .d_i(act_i[r*Width +: Width]), .q_o(act_skewed[r*Width +: Width])
    );
  end
  for (genvar c = 0; c < Cols; c++) begin : g_deskew
    mxu_delay_line #(.Width(Width), .Depth(Cols - 1 - c)) u_deskew (
      .clk_i, .rst_ni, .d_i(psum_i[c*Width +: Width]), .q_o(psum_o[c*Width +: Width])
    );
  end

  `MXU_FORMAL_RESET_FIRST(clk_i, rst_ni)

  // Skew: the tracked row, and the cycles since it entered (0 .. (Rows-1) x Add).
  localparam int unsigned SkewMax = (Rows - 1) * Add;
  logic                  held_q;
  logic [Rows*Width-1:0] row_q;
  logic [7:0]            age_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q <= 1'b0;
      row_q  <= '0;
      age_q  <= '0;
    end else if (held_q) begin
      if (age_q == 8'(SkewMax)) held_q <= 1'b0;
      else age_q <= age_q + 1'b1;
    end else if (track_i && SkewMax > 0) begin
      held_q <= 1'b1;
      row_q  <= act_i;
      age_q  <= 8'd1;
    end
  end

  // De-skew: column c of the tracked result row is taken c cycles after column 0.
  logic                  dheld_q;
  logic [Cols*Width-1:0] drow_q;
  logic [7:0]            dage_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dheld_q <= 1'b0;
      drow_q  <= '0;
      dage_q  <= '0;
    end else if (dheld_q) begin
      drow_q[dage_q*Width +: Width] <= psum_i[dage_q*Width +: Width];
      if (dage_q == 8'(Cols - 1)) dheld_q <= 1'b0;
      else dage_q <= dage_q + 1'b1;
    end else if (dtrack_i && Cols > 1) begin
      dheld_q <= 1'b1;
      drow_q  <= psum_i;
      dage_q  <= 8'd1;
    end
  end

  always_comb begin
    if (rst_ni) begin
      assert (act_skewed[0 +: Width] == act_i[0 +: Width]);  // lane 0: no delay
      for (int unsigned r = 1; r < Rows; r++) begin
        if (held_q && age_q == 8'(r * Add))
          assert (act_skewed[r*Width +: Width] == row_q[r*Width +: Width]);
      end
      if (dheld_q && dage_q == 8'(Cols - 1)) begin
        for (int unsigned c = 0; c < Cols - 1; c++)
          assert (psum_o[c*Width +: Width] == drow_q[c*Width +: Width]);
        assert (psum_o[(Cols-1)*Width +: Width] == psum_i[(Cols-1)*Width +: Width]);
      end
      if (held_q) assert (age_q >= 8'd1 && age_q <= 8'(SkewMax));
      if (dheld_q) assert (dage_q >= 8'd1 && dage_q <= 8'(Cols - 1));
    end
  end
endmodule
`endif  // FORMAL
