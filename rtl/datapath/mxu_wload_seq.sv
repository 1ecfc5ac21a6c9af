// The datapath's WLOAD sequencer (mxu_datapath): shifts the next weight tile into the array's
// shadow chain, its k_rows rows popped from the weight FIFO for PE rows 0 .. k_rows-1 (k_rows
// cycles: the rows enter at PE row k_rows-1, mxu_pe_col; the rows below are not the tile's). A
// load may start when the shadow is free or is being committed this very cycle (commit_i, from
// mxu_matmul_seq), and issues its first row in the cycle it starts: a load accepted as its
// predecessor is committed then finishes exactly k_rows cycles later.
module mxu_wload_seq #(
  localparam int unsigned Cols   = mxu_pkg::ArrayCols,
  localparam int unsigned KWidth = mxu_pkg::KWidth,
  localparam int unsigned NWidth = mxu_pkg::NWidth
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  // WLOAD.
  input  logic               wl_valid_i,
  output logic               wl_ready_o,
  input  logic [KWidth-1:0]  wl_k_rows_i,
  input  logic [NWidth-1:0]  wl_n_cols_i,
  // The weight FIFO.
  input  logic               wf_empty_i,
  output logic               wf_pop_o,
  input  logic [Cols*16-1:0] wf_data_i,    // the row popped, the cycle after
  // The shadow chain.
  output logic               w_shift_o,    // a row shifts in
  output logic [KWidth-1:0]  w_k_o,        // ... into a tile of this many rows
  output logic [NWidth-1:0]  w_cols_o,        // ... and columns (the columns past it rest)
  output logic [Cols*16-1:0] w_o,          // ... this row
  output logic               shadow_ready_o,  // the shadow holds a complete tile
  output logic [KWidth-1:0]  shadow_k_o,   // ... of this many rows
  output logic [NWidth-1:0]  shadow_cols_o,   // ... and columns
  input  logic               commit_i,     // the shadow is committed
  output logic               busy_o
);

  logic              wl_active_d, wl_active_q;
  logic [KWidth-1:0] wl_slot_d, wl_slot_q;    // next tile row to fill (0 .. k_rows-1)
  logic [KWidth-1:0] wl_k_d, wl_k_q;
  logic [NWidth-1:0] wl_cols_d, wl_cols_q;
  logic              wl_shift_d, wl_shift_q;  // a row shifts into the array this cycle
  logic              shadow_pending_d, shadow_pending_q;  // loaded or loading, not committed
  logic              wl_start, wl_active, wl_issue;
  logic [KWidth-1:0] wl_slot;

  always_comb begin
    wl_ready_o  = !wl_active_q && (!shadow_pending_q || commit_i);
    wl_start    = wl_valid_i && wl_ready_o;
    wl_active   = wl_active_q || wl_start;
    wl_slot     = wl_start ? '0 : wl_slot_q;
    wl_k_d      = wl_start ? wl_k_rows_i : wl_k_q;
    wl_cols_d      = wl_start ? wl_n_cols_i : wl_cols_q;
    wl_issue    = wl_active && !wf_empty_i;
    wf_pop_o    = wl_issue;
    wl_active_d = wl_active && !(wl_issue && wl_slot + 1'b1 == wl_k_d);
    wl_slot_d   = wl_issue ? wl_slot + 1'b1 : wl_slot;
    wl_shift_d  = wl_issue;
    shadow_pending_d = (shadow_pending_q && !commit_i) || wl_start;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wl_active_q      <= 1'b0;
      wl_slot_q        <= '0;
      wl_k_q           <= '0;
      wl_cols_q           <= '0;
      wl_shift_q       <= 1'b0;
      shadow_pending_q <= 1'b0;
    end else begin
      wl_active_q      <= wl_active_d;
      wl_slot_q        <= wl_slot_d;
      wl_k_q           <= wl_k_d;
      wl_cols_q           <= wl_cols_d;
      wl_shift_q       <= wl_shift_d;
      shadow_pending_q <= shadow_pending_d;
    end
  end

  assign w_shift_o = wl_shift_q;
  assign w_k_o     = wl_k_q;
  assign w_cols_o     = wl_cols_q;
  assign w_o       = wf_data_i;
  // The shadow chain holds a complete tile once its load has issued every row (the last row
  // shifts in this cycle at the latest, and a commit captures that too).
  assign shadow_ready_o = shadow_pending_q && !wl_active_q;
  assign shadow_k_o     = wl_k_q;
  assign shadow_cols_o     = wl_cols_q;
  assign busy_o         = wl_active_q || wl_shift_q;

endmodule
