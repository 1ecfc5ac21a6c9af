// The datapath's MATMUL sequencer (mxu_datapath): streams `rows` unified-buffer rows into the
// array, one per cycle, bound for consecutive accumulator rows (overwrite or accumulate). A row
// sums the products of its first k lanes, k = min(k_rows, the K of its bank's tile); its lanes
// from k on pass the partial sum through (act_pass_o), and it names its tile's columns
// (act_cols_o: the columns past them rest, and its result lanes past them are +0). With new_weights it first commits the
// shadow into the free weight bank, which needs the shadow loaded (shadow_ready_i, from
// mxu_wload_seq) and the bank it overwrites drained: each row on that bank must have been
// multiplied in the last PE row it uses, k-1, which it reaches (k-1) x Add cycles after entering
// the array (Add: the PE's partial-sum step, mxu_pkg::pe_add_cycles) and multiplies a cycle later
// (mxu_pkg::pe_commit_gap). A commit that narrows the bank's tile (fewer columns than the tile
// it overwrites) waits until every lane on the bank has entered its PE in every column, passing
// lanes included ((Rows-1) x Add + 2 cycles after the bank's last row): the columns the old tile
// had and the new one has not stop taking the bank's lanes (mxu_systolic_array). The row read
// from the unified buffer enters the array the cycle after its read (act_*), with where its
// result goes (res_*: it travels beside the array).
// An accumulating row waits while a row issued fewer than mxu_pkg::AccAddCycles cycles ago
// is bound for the same accumulator row: that row's add is still in the accumulators' pipeline
// (mxu_accumulators). Only tiles shorter than the add's cycles (or overlapping address ranges)
// ever wait; a row stalled mid-MATMUL enters the array later as a bubble would.
module mxu_matmul_seq #(
  localparam int unsigned Rows       = mxu_pkg::ArrayRows,
  localparam int unsigned Cols       = mxu_pkg::ArrayCols,
  localparam int unsigned PeStages   = mxu_pkg::PeStages,
  localparam int unsigned UbAw       = mxu_pkg::UbAddrWidth,
  localparam int unsigned AccAw      = mxu_pkg::AccAddrWidth,
  localparam int unsigned KWidth     = mxu_pkg::KWidth,
  localparam int unsigned NWidth     = mxu_pkg::NWidth,
  localparam int unsigned CountWidth = 16,
  // The most cycles a bank needs after a row entered before a commit may overwrite it.
  localparam int unsigned CommitGap  = mxu_pkg::pe_commit_gap(Rows, PeStages),
  localparam int unsigned AddCycles  = mxu_pkg::pe_add_cycles(PeStages),
  localparam int unsigned DrainWidth = $clog2(CommitGap + 1),
  // Rows remembered for the accumulation hazard: those issued in the last AddCycles - 1 cycles.
  localparam int unsigned Hist       = mxu_pkg::AccAddCycles - 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // MATMUL.
  input  logic                  mm_valid_i,
  output logic                  mm_ready_o,
  input  mxu_pkg::matmul_cmd_t  mm_cmd_i,        // the low bits of its addresses and k_rows
  input  logic                  mm_done_i,       // a MATMUL's last result row is written
  // Weights.
  input  logic                  shadow_ready_i,
  input  logic [KWidth-1:0]     shadow_k_i,      // the shadow tile's rows
  input  logic [NWidth-1:0]     shadow_cols_i,      // ... and columns
  output logic                  commit_o,        // the shadow into bank commit_bank_o
  output logic                  commit_bank_o,
  // The unified buffer's array read port, and the row it reads, the cycle after.
  output logic                  ub_rd_en_o,
  output logic [UbAw-1:0]       ub_rd_addr_o,
  input  logic [Rows*16-1:0]    ub_rd_data_i,
  // The row entering the array.
  output logic                  act_valid_o,
  output logic [Rows*16-1:0]    act_o,
  output logic                  act_bank_o,
  output logic                  act_int8_o,
  output logic [Rows-1:0]       act_pass_o,      // lanes past the row's k
  output logic [NWidth-1:0]     act_cols_o,         // the columns of the row's tile
  output logic                  res_accum_o,
  output logic                  res_last_o,      // the MATMUL's last row
  output logic [AccAw-1:0]      res_addr_o,
  // Status.
  output logic                  busy_o,
  output logic                  wait_weights_o   // waiting for its weight tile
);

  logic                  mm_active_d, mm_active_q;
  logic [UbAw-1:0]       mm_ub_d, mm_ub_q;
  logic [AccAw-1:0]      mm_acc_d, mm_acc_q;
  logic [CountWidth-1:0] mm_left_d, mm_left_q;
  logic [KWidth-1:0]     mm_k_d, mm_k_q;
  logic                  mm_accum_d, mm_accum_q;
  logic                  mm_int8_d, mm_int8_q;
  logic                  mm_need_commit_d, mm_need_commit_q;
  logic                  cur_bank_d, cur_bank_q;
  logic [CountWidth-1:0] mm_inflight_d, mm_inflight_q;         // accepted, not yet done
  logic                  mm_issue, mm_last_issue, mm_accept, commit, issue_bank;
  // The K of each bank's tile (the rows it loaded), and the issuing row's k.
  logic [2*KWidth-1:0]   bank_k_d, bank_k_q;
  logic [KWidth-1:0]     issue_tile_k, issue_k;
  // ... and the N of each bank's tile (its columns), and the issuing row's.
  logic [2*NWidth-1:0]   bank_cols_d, bank_cols_q;
  logic [NWidth-1:0]     issue_cols;
  // Cycles until the current bank and the other are drained (every row on it multiplied in the
  // last PE row it uses): the other bank may take a commit once its count is 0.
  logic [DrainWidth-1:0] cur_drain_d, cur_drain_q, other_drain_d, other_drain_q;
  logic [DrainWidth-1:0] cur_drain_dec, other_drain_dec, issue_drain;
  // ... and until every lane on it has entered its PE in every column (a narrowing commit's wait).
  logic [DrainWidth-1:0] cur_full_d, cur_full_q, other_full_d, other_full_q;
  logic [DrainWidth-1:0] cur_full_dec, other_full_dec;
  logic                  bank_drained, narrowing, commit_ok;
  // The accumulator rows of the rows issued in the last Hist cycles (entry 0: the last cycle).
  logic [Hist-1:0]       hist_valid_d, hist_valid_q;
  logic [Hist*AccAw-1:0] hist_addr_d, hist_addr_q;
  logic                  acc_hazard;
  // Array input stage (the cycle after the unified-buffer read).
  logic                  in_valid_d, in_valid_q, in_bank_d, in_bank_q, in_accum_d, in_accum_q;
  logic                  in_last_d, in_last_q, in_int8_d, in_int8_q;
  logic [KWidth-1:0]     in_k_d, in_k_q;
  logic [NWidth-1:0]     in_cols_d, in_cols_q;
  logic [AccAw-1:0]      in_acc_d, in_acc_q;

  // ----- Issue one row per cycle; a new-weights command first waits for its commit.
  always_comb begin
    narrowing     = shadow_cols_i < bank_cols_q[32'(!cur_bank_q)*NWidth +: NWidth];
    bank_drained  = other_drain_q == '0 && (!narrowing || other_full_q == '0);
    commit_ok     = shadow_ready_i && bank_drained;
    acc_hazard    = 1'b0;
    for (int unsigned h = 0; h < Hist; h++) begin
      acc_hazard |= hist_valid_q[h] && hist_addr_q[h*AccAw +: AccAw] == mm_acc_q;
    end
    acc_hazard    = acc_hazard && mm_accum_q;
    mm_issue      = mm_active_q && (!mm_need_commit_q || commit_ok) && !acc_hazard;
    commit        = mm_issue && mm_need_commit_q;
    issue_bank    = commit ? !cur_bank_q : cur_bank_q;
    issue_tile_k  = commit ? shadow_k_i : bank_k_q[32'(issue_bank)*KWidth +: KWidth];
    issue_k       = (mm_k_q < issue_tile_k) ? mm_k_q : issue_tile_k;
    issue_cols       = commit ? shadow_cols_i : bank_cols_q[32'(issue_bank)*NWidth +: NWidth];
    mm_last_issue = mm_issue && (mm_left_q == CountWidth'(1));
    mm_ready_o    = !mm_active_q || mm_last_issue;
  end

  always_comb begin
    mm_accept        = mm_valid_i && mm_ready_o;
    mm_active_d      = mm_active_q && !mm_last_issue;
    mm_ub_d          = mm_ub_q;
    mm_acc_d         = mm_acc_q;
    mm_left_d        = mm_left_q;
    mm_k_d           = mm_k_q;
    mm_accum_d       = mm_accum_q;
    mm_int8_d        = mm_int8_q;
    mm_need_commit_d = mm_need_commit_q && !commit;
    cur_bank_d       = mm_issue ? issue_bank : cur_bank_q;
    if (mm_issue) begin
      mm_ub_d   = mm_ub_q + 1'b1;
      mm_acc_d  = mm_acc_q + 1'b1;
      mm_left_d = mm_left_q - 1'b1;
    end
    if (mm_accept) begin
      mm_active_d      = 1'b1;
      mm_ub_d          = mm_cmd_i.ub_addr[UbAw-1:0];
      mm_acc_d         = mm_cmd_i.acc_addr[AccAw-1:0];
      mm_left_d        = mm_cmd_i.rows;
      mm_k_d           = mm_cmd_i.k_rows[KWidth-1:0];
      mm_accum_d       = mm_cmd_i.accumulate;
      mm_int8_d        = mm_cmd_i.int8;
      mm_need_commit_d = mm_cmd_i.new_weights;
    end
    mm_inflight_d = mm_inflight_q + CountWidth'(mm_accept) - CountWidth'(mm_done_i);
    in_valid_d    = mm_issue;
    in_bank_d     = issue_bank;
    in_accum_d    = mm_accum_q;
    in_last_d     = mm_last_issue;
    in_int8_d     = mm_int8_q;
    in_k_d        = issue_k;
    in_cols_d        = issue_cols;
    in_acc_d      = mm_acc_q;
    hist_valid_d  = Hist'({hist_valid_q, mm_issue});
    hist_addr_d   = (Hist*AccAw)'({hist_addr_q, mm_acc_q});
  end

  always_comb begin
    // A row issued now drains its bank pe_commit_gap(k) cycles later. A commit swaps the banks'
    // roles: the row issued with it starts the new current bank's count, the old current bank's
    // count goes on as the other's.
    cur_drain_dec   = (cur_drain_q == '0) ? cur_drain_q : cur_drain_q - 1'b1;
    other_drain_dec = (other_drain_q == '0) ? other_drain_q : other_drain_q - 1'b1;
    cur_full_dec    = (cur_full_q == '0) ? cur_full_q : cur_full_q - 1'b1;
    other_full_dec  = (other_full_q == '0) ? other_full_q : other_full_q - 1'b1;
    issue_drain     = DrainWidth'((32'(issue_k) - 1) * AddCycles + 1);
    bank_k_d        = bank_k_q;
    bank_cols_d        = bank_cols_q;
    if (commit) begin
      bank_k_d[32'(issue_bank)*KWidth +: KWidth] = shadow_k_i;
      bank_cols_d[32'(issue_bank)*NWidth +: NWidth] = shadow_cols_i;
      cur_drain_d   = issue_drain;
      other_drain_d = cur_drain_dec;
      cur_full_d    = DrainWidth'(CommitGap - 1);
      other_full_d  = cur_full_dec;
    end else begin
      cur_drain_d   = (mm_issue && issue_drain > cur_drain_dec) ? issue_drain : cur_drain_dec;
      other_drain_d = other_drain_dec;
      cur_full_d    = mm_issue ? DrainWidth'(CommitGap - 1) : cur_full_dec;
      other_full_d  = other_full_dec;
    end
  end

  always_comb begin
    // Lanes at or beyond the row's k pass the partial sum through (mxu_systolic_array), so a row
    // sums exactly its k products (docs/numerics.md).
    for (int unsigned r = 0; r < Rows; r++) begin
      act_pass_o[r] = KWidth'(r) >= in_k_q;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mm_active_q      <= 1'b0;
      mm_ub_q          <= '0;
      mm_acc_q         <= '0;
      mm_left_q        <= '0;
      mm_k_q           <= '0;
      mm_accum_q       <= 1'b0;
      mm_int8_q        <= 1'b0;
      mm_need_commit_q <= 1'b0;
      cur_bank_q       <= 1'b0;
      mm_inflight_q    <= '0;
      bank_k_q         <= {2{KWidth'(Rows)}};
      bank_cols_q         <= {2{NWidth'(Cols)}};
      cur_drain_q      <= '0;
      other_drain_q    <= '0;
      cur_full_q       <= '0;
      other_full_q     <= '0;
      in_valid_q       <= 1'b0;
      in_bank_q        <= 1'b0;
      in_accum_q       <= 1'b0;
      in_last_q        <= 1'b0;
      in_int8_q        <= 1'b0;
      in_k_q           <= '0;
      in_cols_q           <= '0;
      in_acc_q         <= '0;
      hist_valid_q     <= '0;
      hist_addr_q      <= '0;
    end else begin
      mm_active_q      <= mm_active_d;
      mm_ub_q          <= mm_ub_d;
      mm_acc_q         <= mm_acc_d;
      mm_left_q        <= mm_left_d;
      mm_k_q           <= mm_k_d;
      mm_accum_q       <= mm_accum_d;
      mm_int8_q        <= mm_int8_d;
      mm_need_commit_q <= mm_need_commit_d;
      cur_bank_q       <= cur_bank_d;
      mm_inflight_q    <= mm_inflight_d;
      bank_k_q         <= bank_k_d;
      bank_cols_q         <= bank_cols_d;
      cur_drain_q      <= cur_drain_d;
      other_drain_q    <= other_drain_d;
      cur_full_q       <= cur_full_d;
      other_full_q     <= other_full_d;
      in_valid_q       <= in_valid_d;
      in_bank_q        <= in_bank_d;
      in_accum_q       <= in_accum_d;
      in_last_q        <= in_last_d;
      in_int8_q        <= in_int8_d;
      in_k_q           <= in_k_d;
      in_cols_q           <= in_cols_d;
      in_acc_q         <= in_acc_d;
      hist_valid_q     <= hist_valid_d;
      hist_addr_q      <= hist_addr_d;
    end
  end

  assign commit_o       = commit;
  assign commit_bank_o  = !cur_bank_q;
  assign ub_rd_en_o     = mm_issue;
  assign ub_rd_addr_o   = mm_ub_q;
  assign act_valid_o    = in_valid_q;
  assign act_o          = ub_rd_data_i;
  assign act_cols_o        = in_cols_q;
  assign act_bank_o     = in_bank_q;
  assign act_int8_o     = in_int8_q;
  assign res_accum_o    = in_accum_q;
  assign res_last_o     = in_last_q;
  assign res_addr_o     = in_acc_q;
  assign busy_o         = mm_inflight_q != '0;
  assign wait_weights_o = mm_active_q && mm_need_commit_q && !commit_ok;

  // The command's fields are 16 bits wide (the instruction's); this device's addresses and k_rows
  // are narrower, and the decoder has checked the rest.
  logic unused_cmd;
  assign unused_cmd = ^{mm_cmd_i.ub_addr >> UbAw, mm_cmd_i.acc_addr >> AccAw,
                        mm_cmd_i.k_rows >> KWidth};

endmodule
