// The matrix unit's datapath: unified buffer -> systolic array -> accumulators -> activation unit
// -> unified buffer, with the weight FIFO feeding the array's shadow chain. Three engines run
// concurrently, each taking commands over a valid/ready handshake:
//   WLOAD    shifts the next weight tile into the shadow chain: k_rows rows popped from the
//            weight FIFO for PE rows 0 .. k_rows-1, zeros below (Rows cycles);
//   MATMUL   streams `rows` unified-buffer rows through the array, one per cycle, into
//            consecutive accumulator rows (overwrite or accumulate); lanes >= k_rows enter as
//            zero. With new_weights it first commits the shadow into the free weight bank;
//   ACTIVATE reads accumulator rows, applies bias / ReLU, rounds to bf16 (or, int8, requantizes
//            with the quantization row: docs/numerics.md) and writes them to the unified buffer.
// A MATMUL's int8 flag travels with its rows through the array (int8 products, int32 sums) and
// to the accumulators (an int32 add where it accumulates).
// Weight double-buffering: a WLOAD may start (and shift its first row) in the cycle its
// predecessor is committed, and a commit needs the shadow loaded and the bank it overwrites
// drained: that bank's last row must have passed PE row Rows-1, which it reaches (Rows-1) x Add
// cycles after entering the array (Add: the PE's partial-sum step, mxu_pkg::pe_add_cycles). So
// MATMULs of M >= max(Rows, (Rows-1) x Add + 1) rows run back to back with no bubble, switching
// weights between them; at Add = 1 the shadow's refill (Rows cycles) always covers the drain.
// Commands must be legal (rows >= 1, 1 <= k_rows <= Rows, addresses in
// range): the controller checks them.
module mxu_datapath #(
  parameter int unsigned Rows            = mxu_pkg::ArrayRows,
  parameter int unsigned Cols            = mxu_pkg::ArrayCols,
  parameter int unsigned UbDepth         = mxu_pkg::UbDepth,
  parameter int unsigned AccDepth        = mxu_pkg::AccDepth,
  parameter int unsigned WeightFifoDepth = 2 * Rows,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
  parameter int unsigned PeStages        = mxu_pkg::PeStages,
  localparam int unsigned UbLanes    = (Rows > Cols) ? Rows : Cols,
  localparam int unsigned UbAw       = (UbDepth > 1) ? $clog2(UbDepth) : 1,
  localparam int unsigned AccAw      = (AccDepth > 1) ? $clog2(AccDepth) : 1,
  localparam int unsigned KWidth     = $clog2(Rows + 1),
  localparam int unsigned CountWidth = 16,
  // The array's latency from an activation row to its result row, and the cycles a bank needs
  // after its last row entered before a commit may overwrite it.
  localparam int unsigned Add        = mxu_pkg::pe_add_cycles(PeStages),
  localparam int unsigned Latency    = Rows * Add + mxu_pkg::pe_mul_cycles(PeStages) + Cols - 1,
  localparam int unsigned CommitGap  = (Rows - 1) * Add + 1,
  localparam int unsigned IdleWidth  = $clog2(CommitGap + 1)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  // Weight FIFO fill.
  input  logic                  wf_push_i,
  input  logic [Cols*16-1:0]    wf_data_i,
  output logic                  wf_full_o,

  // WLOAD.
  input  logic                  wl_valid_i,
  output logic                  wl_ready_o,
  input  logic [KWidth-1:0]     wl_k_rows_i,

  // MATMUL.
  input  logic                  mm_valid_i,
  output logic                  mm_ready_o,
  input  logic [UbAw-1:0]       mm_ub_addr_i,
  input  logic [AccAw-1:0]      mm_acc_addr_i,
  input  logic [CountWidth-1:0] mm_rows_i,
  input  logic [KWidth-1:0]     mm_k_rows_i,
  input  logic                  mm_accumulate_i,
  input  logic                  mm_new_weights_i,
  input  logic                  mm_int8_i,
  output logic                  mm_done_o,

  // ACTIVATE.
  input  logic                  ac_valid_i,
  output logic                  ac_ready_o,
  input  logic [AccAw-1:0]      ac_acc_addr_i,
  input  logic [UbAw-1:0]       ac_ub_addr_i,
  input  logic [CountWidth-1:0] ac_rows_i,
  input  logic                  ac_relu_i,
  input  logic                  ac_bias_en_i,
  input  logic [AccAw-1:0]      ac_bias_addr_i,
  input  logic                  ac_int8_i,
  input  logic [AccAw-1:0]      ac_quant_addr_i,
  input  logic [7:0]            ac_zero_point_i,
  output logic                  ac_done_o,

  // Unified-buffer and accumulator ports for the DMA (lowest priority; data the cycle after a
  // read grant).
  input  logic                  ub_wr_en_i,
  input  logic [UbAw-1:0]       ub_wr_addr_i,
  input  logic [UbLanes*16-1:0] ub_wr_data_i,
  output logic                  ub_wr_gnt_o,
  input  logic                  ub_rd_en_i,
  input  logic [UbAw-1:0]       ub_rd_addr_i,
  output logic                  ub_rd_gnt_o,
  output logic [UbLanes*16-1:0] ub_rd_data_o,
  input  logic                  acc_wr_en_i,
  input  logic [AccAw-1:0]      acc_wr_addr_i,
  input  logic [Cols*32-1:0]    acc_wr_data_i,
  output logic                  acc_wr_gnt_o,
  input  logic                  acc_rd_en_i,
  input  logic [AccAw-1:0]      acc_rd_addr_i,
  output logic                  acc_rd_gnt_o,
  output logic [Cols*32-1:0]    acc_rd_data_o,

  // Status.
  output logic                  wl_busy_o,
  output logic                  mm_busy_o,
  output logic                  ac_busy_o,
  output logic                  array_row_o,      // an activation row enters the array now
  output logic                  mm_wait_weights_o  // a MATMUL waits for its weight tile
);

  // ------------------------------------------------------------------------------ weight load
  logic              wl_active_d, wl_active_q;
  logic [KWidth-1:0] wl_slot_d, wl_slot_q;    // next PE row to fill (0 .. Rows-1)
  logic [KWidth-1:0] wl_k_d, wl_k_q;
  logic              wl_shift_d, wl_shift_q;  // a row shifts into the array this cycle
  logic              wl_zero_d, wl_zero_q;    // ... and it is a padding row of zeros
  logic              shadow_pending_d, shadow_pending_q;  // loaded or loading, not committed
  logic              shadow_ready;
  logic              wl_start, wl_active, wl_need_pop, wl_issue, wl_pop;
  logic [KWidth-1:0] wl_slot;
  logic              wf_empty;
  logic [Cols*16-1:0] wf_pop_data;
  logic [$clog2(WeightFifoDepth+1)-1:0] wf_count;

  // ----------------------------------------------------------------------------------- matmul
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

  // Array input stage (the cycle after the unified-buffer read).
  logic                  in_valid_q, in_bank_q, in_accum_q, in_last_q, in_int8_q;
  logic [KWidth-1:0]     in_k_q;
  logic [AccAw-1:0]      in_acc_q;
  logic [Rows*16-1:0]    in_act;
  logic [UbLanes*16-1:0] ub_rd_data;
  logic [Cols*32-1:0]    array_out;
  logic                  res_valid, res_accum, res_last, res_int8;
  logic [AccAw-1:0]      res_addr;

  // --------------------------------------------------------------------------------- activate
  logic                  ac_active_d, ac_active_q;
  logic                  ac_bias_phase_d, ac_bias_phase_q;
  logic                  ac_quant_phase_d, ac_quant_phase_q;
  logic                  ac_int8_d, ac_int8_q;
  logic [AccAw-1:0]      ac_quant_addr_d, ac_quant_addr_q;
  logic [7:0]            ac_zp_d, ac_zp_q;
  logic [AccAw-1:0]      ac_acc_d, ac_acc_q, ac_bias_addr_d, ac_bias_addr_q;
  logic [UbAw-1:0]       ac_ub_d, ac_ub_q;
  logic [CountWidth-1:0] ac_left_d, ac_left_q;
  logic                  ac_relu_d, ac_relu_q, ac_bias_en_d, ac_bias_en_q;
  logic                  ac_rd_en, ac_rd_gnt;
  logic [AccAw-1:0]      ac_rd_addr;
  logic                  s1_valid_q, s1_bias_q, s1_quant_q, s1_last_q;
  logic [UbAw-1:0]       s1_ub_q;
  logic [Cols*32-1:0]    bias_d, bias_q, quant_d, quant_q;
  logic                  au_valid, au_busy, au_last;
  logic [UbAw-1:0]       au_ub;
  logic [Cols*32-1:0]    au_fp32;
  logic [Cols*16-1:0]    au_lanes;
  logic [UbLanes*16-1:0] au_row;
  logic                  acc_rd_en, acc_rd_gnt;
  logic [Cols*32-1:0]    acc_rd_data;

  // The shadow chain holds a complete tile once its load has issued every row (the last row
  // shifts in this cycle at the latest, and a commit captures that too).
  assign shadow_ready = shadow_pending_q && !wl_active_q;

  assign ac_ready_o = !ac_active_q && !s1_valid_q && !s1_bias_q && !s1_quant_q && !au_busy;

  // Accumulator read port: the activation engine first, then the DMA.
  assign ac_rd_en     = ac_active_q;
  assign ac_rd_addr   = ac_bias_phase_q ? ac_bias_addr_q : ac_quant_phase_q ? ac_quant_addr_q : ac_acc_q;
  assign acc_rd_en    = ac_rd_en || acc_rd_en_i;
  assign ac_rd_gnt    = ac_rd_en && acc_rd_gnt;
  assign acc_rd_gnt_o = !ac_rd_en && acc_rd_gnt;

  // --- MATMUL: issue one row per cycle; a new-weights command first waits for its commit.
  always_comb begin
    bank_drained  = other_idle_q == IdleWidth'(CommitGap);
    commit_ok     = shadow_ready && bank_drained;
    mm_issue      = mm_active_q && (!mm_need_commit_q || commit_ok);
    commit        = mm_issue && mm_need_commit_q;
    issue_bank    = commit ? !cur_bank_q : cur_bank_q;
    mm_last_issue = mm_issue && (mm_left_q == CountWidth'(1));
    mm_ready_o    = !mm_active_q || mm_last_issue;
  end

  always_comb begin
    mm_accept     = mm_valid_i && mm_ready_o;

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
      mm_ub_d          = mm_ub_addr_i;
      mm_acc_d         = mm_acc_addr_i;
      mm_left_d        = mm_rows_i;
      mm_k_d           = mm_k_rows_i;
      mm_accum_d       = mm_accumulate_i;
      mm_int8_d        = mm_int8_i;
      mm_need_commit_d = mm_new_weights_i;
    end
    mm_inflight_d = mm_inflight_q + CountWidth'(mm_accept) - CountWidth'(mm_done_o);
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
    // --- WLOAD: may start when the shadow is free or is being committed this very cycle.
    wl_ready_o   = !wl_active_q && (!shadow_pending_q || commit);
    wl_start     = wl_valid_i && wl_ready_o;
    // A started load issues its first row in the same cycle: a load accepted as its predecessor
    // is committed then finishes exactly Rows cycles later.
    wl_active    = wl_active_q || wl_start;
    wl_slot      = wl_start ? '0 : wl_slot_q;
    wl_k_d       = wl_start ? wl_k_rows_i : wl_k_q;
    wl_need_pop  = wl_slot < wl_k_d;
    wl_issue     = wl_active && (!wl_need_pop || !wf_empty);
    wl_pop       = wl_issue && wl_need_pop;
    wl_active_d  = wl_active && !(wl_issue && wl_slot == KWidth'(Rows - 1));
    wl_slot_d    = wl_issue ? wl_slot + 1'b1 : wl_slot;
    wl_shift_d   = wl_issue;
    wl_zero_d    = !wl_need_pop;
    shadow_pending_d = (shadow_pending_q && !commit) || wl_start;
  end

  always_comb begin
    // --- Array input: lanes at or beyond k_rows enter as +0 (zero padding of a partial tile).
    for (int unsigned r = 0; r < Rows; r++) begin
      in_act[r*16 +: 16] = (KWidth'(r) < in_k_q) ? ub_rd_data[r*16 +: 16] : 16'h0000;
    end
  end

  always_comb begin
    // --- ACTIVATE: read the bias row first (if any), then the quantization row (int8), then one
    // accumulator row per grant.
    ac_active_d     = ac_active_q;
    ac_bias_phase_d = ac_bias_phase_q;
    ac_quant_phase_d = ac_quant_phase_q;
    ac_int8_d       = ac_int8_q;
    ac_quant_addr_d = ac_quant_addr_q;
    ac_zp_d         = ac_zp_q;
    ac_acc_d        = ac_acc_q;
    ac_ub_d         = ac_ub_q;
    ac_left_d       = ac_left_q;
    ac_relu_d       = ac_relu_q;
    ac_bias_en_d    = ac_bias_en_q;
    ac_bias_addr_d  = ac_bias_addr_q;
    if (ac_rd_gnt) begin
      if (ac_bias_phase_q) begin
        ac_bias_phase_d = 1'b0;
      end else if (ac_quant_phase_q) begin
        ac_quant_phase_d = 1'b0;
      end else begin
        ac_acc_d    = ac_acc_q + 1'b1;
        ac_ub_d     = ac_ub_q + 1'b1;
        ac_left_d   = ac_left_q - 1'b1;
        ac_active_d = (ac_left_q != CountWidth'(1));
      end
    end
    if (ac_valid_i && ac_ready_o) begin
      ac_active_d     = 1'b1;
      ac_bias_phase_d = ac_bias_en_i;
      ac_acc_d        = ac_acc_addr_i;
      ac_ub_d         = ac_ub_addr_i;
      ac_left_d       = ac_rows_i;
      ac_relu_d       = ac_relu_i;
      ac_bias_en_d    = ac_bias_en_i;
      ac_bias_addr_d  = ac_bias_addr_i;
      ac_quant_phase_d = ac_int8_i;
      ac_int8_d       = ac_int8_i;
      ac_quant_addr_d = ac_quant_addr_i;
      ac_zp_d         = ac_zero_point_i;
    end
    bias_d  = s1_bias_q ? acc_rd_data : bias_q;
    quant_d = s1_quant_q ? acc_rd_data : quant_q;
    au_row = '0;
    au_row[Cols*16-1:0] = au_lanes;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wl_active_q      <= 1'b0;
      wl_slot_q        <= '0;
      wl_k_q           <= '0;
      wl_shift_q       <= 1'b0;
      wl_zero_q        <= 1'b0;
      shadow_pending_q <= 1'b0;
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
      ac_active_q      <= 1'b0;
      ac_bias_phase_q  <= 1'b0;
      ac_quant_phase_q <= 1'b0;
      ac_int8_q        <= 1'b0;
      ac_quant_addr_q  <= '0;
      ac_zp_q          <= '0;
      ac_acc_q         <= '0;
      ac_ub_q          <= '0;
      ac_left_q        <= '0;
      ac_relu_q        <= 1'b0;
      ac_bias_en_q     <= 1'b0;
      ac_bias_addr_q   <= '0;
      s1_valid_q       <= 1'b0;
      s1_bias_q        <= 1'b0;
      s1_quant_q       <= 1'b0;
      s1_last_q        <= 1'b0;
      s1_ub_q          <= '0;
      bias_q           <= '0;
      quant_q          <= '0;
    end else begin
      wl_active_q      <= wl_active_d;
      wl_slot_q        <= wl_slot_d;
      wl_k_q           <= wl_k_d;
      wl_shift_q       <= wl_shift_d;
      wl_zero_q        <= wl_zero_d;
      shadow_pending_q <= shadow_pending_d;
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
      in_valid_q       <= mm_issue;
      in_bank_q        <= issue_bank;
      in_accum_q       <= mm_accum_q;
      in_last_q        <= mm_last_issue;
      in_int8_q        <= mm_int8_q;
      in_k_q           <= mm_k_q;
      in_acc_q         <= mm_acc_q;
      ac_active_q      <= ac_active_d;
      ac_bias_phase_q  <= ac_bias_phase_d;
      ac_quant_phase_q <= ac_quant_phase_d;
      ac_int8_q        <= ac_int8_d;
      ac_quant_addr_q  <= ac_quant_addr_d;
      ac_zp_q          <= ac_zp_d;
      ac_acc_q         <= ac_acc_d;
      ac_ub_q          <= ac_ub_d;
      ac_left_q        <= ac_left_d;
      ac_relu_q        <= ac_relu_d;
      ac_bias_en_q     <= ac_bias_en_d;
      ac_bias_addr_q   <= ac_bias_addr_d;
      s1_valid_q       <= ac_rd_gnt && !ac_bias_phase_q && !ac_quant_phase_q;
      s1_bias_q        <= ac_rd_gnt && ac_bias_phase_q;
      s1_quant_q       <= ac_rd_gnt && !ac_bias_phase_q && ac_quant_phase_q;
      s1_last_q        <= ac_rd_gnt && !ac_bias_phase_q && !ac_quant_phase_q &&
                          (ac_left_q == CountWidth'(1));
      s1_ub_q          <= ac_ub_q;
      bias_q           <= bias_d;
      quant_q          <= quant_d;
    end
  end

  mxu_weight_fifo #(.Lanes(Cols), .Depth(WeightFifoDepth)) u_weight_fifo (
    .clk_i,
    .rst_ni,
    .push_i     (wf_push_i),
    .push_data_i(wf_data_i),
    .full_o     (wf_full_o),
    .pop_i      (wl_pop),
    .pop_data_o (wf_pop_data),
    .empty_o    (wf_empty),
    .count_o    (wf_count)
  );

  mxu_unified_buffer #(.Lanes(UbLanes), .Depth(UbDepth)) u_unified_buffer (
    .clk_i,
    .rst_ni,
    .rd_a_en_i  (mm_issue),
    .rd_a_addr_i(mm_ub_q),
    .rd_b_en_i  (ub_rd_en_i),
    .rd_b_addr_i(ub_rd_addr_i),
    .rd_b_gnt_o (ub_rd_gnt_o),
    .rd_data_o  (ub_rd_data),
    .wr_a_en_i  (au_valid),
    .wr_a_addr_i(au_ub),
    .wr_a_data_i(au_row),
    .wr_b_en_i  (ub_wr_en_i),
    .wr_b_addr_i(ub_wr_addr_i),
    .wr_b_data_i(ub_wr_data_i),
    .wr_b_gnt_o (ub_wr_gnt_o)
  );

  mxu_systolic_array #(
    .Rows           (Rows),
    .Cols           (Cols),
    .Stages         (PeStages),
    .FlushSubnormals(FlushSubnormals)
  ) u_array (
    .clk_i,
    .rst_ni,
    .act_valid_i    (in_valid_q),
    .act_i          (in_act),
    .act_bank_i     (in_bank_q),
    .act_int8_i     (in_int8_q),
    .w_shift_i      (wl_shift_q),
    .w_i            (wl_zero_q ? '0 : wf_pop_data),
    .w_commit_i     (commit),
    .w_commit_bank_i(!cur_bank_q),
    .psum_o         (array_out)
  );

  // Where each result row goes travels beside the array, arriving with the row.
  mxu_delay_line #(.Width(AccAw + 4), .Depth(Latency)) u_result_meta (
    .clk_i,
    .rst_ni,
    .d_i({in_valid_q, in_accum_q, in_last_q, in_int8_q, in_acc_q}),
    .q_o({res_valid, res_accum, res_last, res_int8, res_addr})
  );

  mxu_accumulators #(.Lanes(Cols), .Depth(AccDepth), .FlushSubnormals(FlushSubnormals)) u_acc (
    .clk_i,
    .rst_ni,
    .res_valid_i     (res_valid),
    .res_addr_i      (res_addr),
    .res_accumulate_i(res_accum),
    .res_int8_i      (res_int8),
    .res_last_i      (res_last),
    .res_data_i      (array_out),
    .res_done_o      (mm_done_o),
    .rd_en_i         (acc_rd_en),
    .rd_addr_i       (ac_rd_en ? ac_rd_addr : acc_rd_addr_i),
    .rd_gnt_o        (acc_rd_gnt),
    .rd_data_o       (acc_rd_data),
    .wr_en_i         (acc_wr_en_i),
    .wr_addr_i       (acc_wr_addr_i),
    .wr_data_i       (acc_wr_data_i),
    .wr_gnt_o        (acc_wr_gnt_o)
  );

  mxu_activation_unit #(
    .Lanes          (Cols),
    .FlushSubnormals(FlushSubnormals),
    .TagWidth       (UbAw + 1)
  ) u_activation (
    .clk_i,
    .rst_ni,
    .valid_i     (s1_valid_q),
    .tag_i       ({s1_last_q, s1_ub_q}),
    .data_i      (acc_rd_data),
    .bias_en_i   (ac_bias_en_q),
    .bias_i      (bias_q),
    .relu_i      (ac_relu_q),
    .int8_i      (ac_int8_q),
    .quant_i     (quant_q),
    .zero_point_i(ac_zp_q),
    .valid_o     (au_valid),
    .tag_o       ({au_last, au_ub}),
    .fp32_o      (au_fp32),
    .row_o       (au_lanes),
    .busy_o      (au_busy)
  );

  assign ub_rd_data_o  = ub_rd_data;
  assign acc_rd_data_o = acc_rd_data;
  assign ac_done_o     = au_valid && au_last;
  assign wl_busy_o     = wl_active_q || wl_shift_q;
  assign mm_busy_o     = mm_inflight_q != '0;
  assign ac_busy_o     = !ac_ready_o;
  assign array_row_o   = in_valid_q;
  assign mm_wait_weights_o = mm_active_q && mm_need_commit_q && !commit_ok;

  // The fp32 output of the activation unit feeds the store path of the device (mxu_top).
  logic unused_signals;
  assign unused_signals = ^{au_fp32, wf_count};

endmodule
