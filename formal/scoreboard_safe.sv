`ifdef FORMAL
`include "harness.svh"

// Proof harness: mxu_ctrl_scoreboard lets no instruction start while an older one it depends on
// is in flight (formal/scoreboard_env.svh: the environment, and `depends`, the hazard rule of
// docs/isa.md written once for every pair of classes). An instruction dispatched at a cycle
// chosen freely (track_i) is followed until its engine completes it (the entries of the same
// engine ahead of it counted: every engine completes in order) or, for a STORE, until it has read
// its rows; while it is in flight, every head instruction that depends on it must see conflict_o.
module scoreboard_safe (
  `MXU_FORMAL_SCOREBOARD_PORTS,
  input logic               track_i
);
  `include "scoreboard_env.svh"

  // The tracked instruction, its engine's completion and the entries ahead of it.
  mxu_pkg::ctrl_dec_t a_q;
  logic               held_q;
  logic [1:0]         ahead_q;
  logic               a_done, start;
  always_comb begin
    a_done = 1'b0;
    if (a_q.is_load && !a_q.is_wload) a_done = ld_done_i;
    if (a_q.is_wload) a_done = wld_done_i;
    if (a_q.is_mm) a_done = mm_done_i;
    if (a_q.is_ac) a_done = ac_done_i;
    if (a_q.is_store) a_done = st_release_i;  // its reads are over
    start = track_i && dispatch_i && !held_q && (d_ld || d_mm || d_st || d_ac);
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q  <= 1'b0;
      a_q     <= '0;
      ahead_q <= '0;
    end else if (restart_i) begin
      held_q <= 1'b0;
    end else if (start) begin
      held_q  <= 1'b1;
      a_q     <= dec_i;
      ahead_q <= d_ld ? n_ld_q - 2'(ld_done_i) : d_mm ? n_mm_q - 2'(mm_done_i) : '0;
    end else if (held_q && a_done) begin
      if (ahead_q == '0) held_q <= 1'b0;
      else ahead_q <= ahead_q - 1'b1;
    end
  end

  always_comb begin
    if (rst_ni) begin
      if (held_q && `SB_DEPENDS(a_q, dec_i)) assert (conflict);
      // Invariants: the tracked instruction is well formed and its rows sit where it was put.
      if (held_q) begin
        assert (`SB_WELLFORMED(a_q));
        assert (a_q.is_load && !a_q.is_wload || a_q.is_mm || a_q.is_store || a_q.is_ac);
        if (a_q.is_load) begin
          assert (ahead_q < n_ld_q);
          assert (probe_ld_buf[(probe_ld_head ^ ahead_q[0])*2 +: 2] == a_q.buf_sel);
          assert (probe_ld_lo[(probe_ld_head ^ ahead_q[0])*17 +: 17] == a_q.buf_lo);
          assert (probe_ld_hi[(probe_ld_head ^ ahead_q[0])*17 +: 17] == a_q.buf_hi);
        end
        if (a_q.is_mm) begin
          assert (ahead_q < n_mm_q);
          assert (probe_mm_ub_lo[(probe_mm_head ^ ahead_q[0])*17 +: 17] == a_q.r_ub_lo);
          assert (probe_mm_ub_hi[(probe_mm_head ^ ahead_q[0])*17 +: 17] == a_q.r_ub_hi);
          assert (probe_mm_acc_lo[(probe_mm_head ^ ahead_q[0])*17 +: 17] == a_q.w_acc_lo);
          assert (probe_mm_acc_hi[(probe_mm_head ^ ahead_q[0])*17 +: 17] == a_q.w_acc_hi);
        end
        if (a_q.is_store || a_q.is_ac) assert (ahead_q == '0);  // a single instruction
        if (a_q.is_store) begin
          assert (st_reading_q && probe_st_buf == a_q.buf_sel);
          assert (probe_st_lo == a_q.buf_lo && probe_st_hi == a_q.buf_hi);
        end
        if (a_q.is_ac) begin
          assert (ac_q);
          assert (probe_ac_acc_lo == a_q.r_acc_lo && probe_ac_acc_hi == a_q.r_acc_hi);
          assert (probe_ac_ub_lo == a_q.w_ub_lo && probe_ac_ub_hi == a_q.w_ub_hi);
          assert (probe_ac_has_bias == a_q.r_bias && probe_ac_bias == a_q.bias_row);
          assert (probe_ac_has_quant == a_q.r_quant && probe_ac_quant == a_q.quant_row);
        end
      end
    end
  end
endmodule
`endif  // FORMAL
