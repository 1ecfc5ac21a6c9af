// The datapath's MATMUL sequencer (mxu_datapath): streams `rows` unified-buffer rows into the
// array, one per cycle, bound for consecutive accumulator rows (overwrite or accumulate); lanes
// >= k_rows enter as -0. With new_weights it first commits the shadow into the free weight
// bank, which needs the shadow loaded (shadow_ready_i, from mxu_wload_seq) and the bank it
// overwrites drained: that bank's last row must have been multiplied in PE row Rows-1, which it
// reaches (Rows-1) x Add cycles after entering the array (Add: the PE's partial-sum step,
// mxu_pkg::pe_add_cycles) and multiplies a cycle later (mxu_pkg::pe_commit_gap). The row read from the unified buffer enters the array the cycle
// after its read (act_*), with where its result goes (res_*: it travels beside the array).
// An accumulating row waits while a row issued fewer than mxu_pkg::acc_add_cycles() cycles ago
// is bound for the same accumulator row: that row's add is still in the accumulators' pipeline
// (mxu_accumulators). Only tiles shorter than the add's cycles (or overlapping address ranges)
// ever wait; a row stalled mid-MATMUL enters the array later as a bubble would.
module mxu_matmul_seq #(
  localparam int unsigned Rows       = mxu_pkg::ArrayRows,
  localparam int unsigned PeStages   = mxu_pkg::PeStages,
  localparam int unsigned UbAw       = mxu_pkg::UbAddrWidth,
  localparam int unsigned AccAw      = mxu_pkg::AccAddrWidth,
  localparam int unsigned KWidth     = mxu_pkg::KWidth,
  localparam int unsigned CountWidth = 16,
  // The cycles a bank needs after its last row entered before a commit may overwrite it.
  localparam int unsigned CommitGap  = mxu_pkg::pe_commit_gap(Rows, PeStages),
  localparam int unsigned IdleWidth  = $clog2(CommitGap + 1),
  // Rows remembered for the accumulation hazard: those issued in the last AddCycles - 1 cycles.
  localparam int unsigned Hist       = mxu_pkg::acc_add_cycles() - 1
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
  // Cycles since a row last entered on the current bank and on the other (saturating at
  // CommitGap): the other bank may take a commit once its count reaches CommitGap.
  logic [IdleWidth-1:0]  cur_idle_d, cur_idle_q, other_idle_d, other_idle_q;
  logic                  bank_drained, commit_ok;
  // The accumulator rows of the rows issued in the last Hist cycles (entry 0: the last cycle).
  logic [Hist-1:0]       hist_valid_d, hist_valid_q;
  logic [Hist*AccAw-1:0] hist_addr_d, hist_addr_q;
  logic                  acc_hazard;
  // Array input stage (the cycle after the unified-buffer read).
  logic                  in_valid_d, in_valid_q, in_bank_d, in_bank_q, in_accum_d, in_accum_q;
  logic                  in_last_d, in_last_q, in_int8_d, in_int8_q;
  logic [KWidth-1:0]     in_k_d, in_k_q;
  logic [AccAw-1:0]      in_acc_d, in_acc_q;

  // ----- Issue one row per cycle; a new-weights command first waits for its commit.
  always_comb begin
    bank_drained  = other_idle_q == IdleWidth'(CommitGap);
    commit_ok     = shadow_ready_i && bank_drained;
    acc_hazard    = 1'b0;
    for (int unsigned h = 0; h < Hist; h++) begin
      acc_hazard |= hist_valid_q[h] && hist_addr_q[h*AccAw +: AccAw] == mm_acc_q;
    end
    acc_hazard    = acc_hazard && mm_accum_q;
    mm_issue      = mm_active_q && (!mm_need_commit_q || commit_ok) && !acc_hazard;
    commit        = mm_issue && mm_need_commit_q;
    issue_bank    = commit ? !cur_bank_q : cur_bank_q;
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
    in_k_d        = mm_k_q;
    in_acc_d      = mm_acc_q;
    hist_valid_d  = Hist'({hist_valid_q, mm_issue});
    hist_addr_d   = (Hist*AccAw)'({hist_addr_q, mm_acc_q});
  end

  always_comb begin
    // A commit swaps the banks' roles: the row issued with it starts the new current bank's
    // count, the old current bank's count goes on as the other's.
    if (commit) begin
      cur_idle_d   = IdleWidth'(1);
      other_idle_d = (cur_idle_q == IdleWidth'(CommitGap)) ? cur_idle_q : cur_idle_q + 1'b1;
    end else begin
      cur_idle_d   = mm_issue ? IdleWidth'(1) :
                     (cur_idle_q == IdleWidth'(CommitGap)) ? cur_idle_q : cur_idle_q + 1'b1;
      other_idle_d = (other_idle_q == IdleWidth'(CommitGap)) ? other_idle_q : other_idle_q + 1'b1;
    end
  end

  always_comb begin
    // Lanes at or beyond k_rows enter as bf16 -0 (the padding of a partial tile): against the
    // +0 weights a WLOAD of k_rows rows leaves below them, each adds the product -0, which
    // changes no partial sum (x + -0 = x in both subnormal modes, -0 included), so a partial
    // tile sums exactly its k_rows products (docs/numerics.md). Its low byte, the int8 operand,
    // is 0.
    for (int unsigned r = 0; r < Rows; r++) begin
      act_o[r*16 +: 16] = (KWidth'(r) < in_k_q) ? ub_rd_data_i[r*16 +: 16] : 16'h8000;
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
      cur_idle_q       <= IdleWidth'(CommitGap);
      other_idle_q     <= IdleWidth'(CommitGap);
      in_valid_q       <= 1'b0;
      in_bank_q        <= 1'b0;
      in_accum_q       <= 1'b0;
      in_last_q        <= 1'b0;
      in_int8_q        <= 1'b0;
      in_k_q           <= '0;
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
      cur_idle_q       <= cur_idle_d;
      other_idle_q     <= other_idle_d;
      in_valid_q       <= in_valid_d;
      in_bank_q        <= in_bank_d;
      in_accum_q       <= in_accum_d;
      in_last_q        <= in_last_d;
      in_int8_q        <= in_int8_d;
      in_k_q           <= in_k_d;
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
