`ifdef FORMAL
`include "harness.svh"

// Proof harness: no instruction waits at mxu_ctrl_scoreboard forever (formal/scoreboard_env.svh:
// the environment). The head instruction stays while it sees conflict_o (dispatch is in order);
// engines are fair: one with work completes its oldest instruction within F cycles, a STORE reads
// its rows within F cycles (its writes to host memory may take any time: nothing may wait on
// them). Then conflict_o comes only from a LOAD, MATMUL, reading STORE or ACTIVATE in flight,
// and lasts at most Slots x F - 1 cycles: the head's dependences drain, the queues in order. Method:
// k-induction; the invariant is a ranking: wait + F x (work left in a queue) - its age never
// grows while the head waits.
module scoreboard_live #(
  parameter int unsigned F = 2
) (
  `MXU_FORMAL_SCOREBOARD_PORTS
);
  `include "scoreboard_env.svh"

  localparam int unsigned Bound = Slots * F - 1;  // the cycle it first waits counts as one of F

  // Ages: cycles the oldest instruction of an engine has waited for its completion.
  logic [3:0] age_ld_q, age_mm_q, age_st_q, age_ac_q, wait_q;
  logic       hold_q;
  mxu_pkg::ctrl_dec_t head_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      age_ld_q <= '0; age_mm_q <= '0; age_st_q <= '0; age_ac_q <= '0; wait_q <= '0;
      hold_q   <= 1'b0;
      head_q   <= '0;
    end else begin
      age_ld_q <= (restart_i || n_ld_q == '0 || ld_done_i) ? '0 : age_ld_q + 1'b1;
      age_mm_q <= (restart_i || n_mm_q == '0 || mm_done_i) ? '0 : age_mm_q + 1'b1;
      age_st_q <= (restart_i || !st_reading_q || st_release_i) ? '0 : age_st_q + 1'b1;
      age_ac_q <= (restart_i || !ac_q || ac_done_i) ? '0 : age_ac_q + 1'b1;
      wait_q   <= (restart_i || !conflict) ? '0 : wait_q + 1'b1;
      hold_q   <= conflict && !restart_i;
      head_q   <= dec_i;
    end
  end

  always_comb begin
    if (rst_ni && !restart_i) begin
      if (n_ld_q != '0 && 32'(age_ld_q) == F - 1) assume (ld_done_i);
      if (n_mm_q != '0 && 32'(age_mm_q) == F - 1) assume (mm_done_i);
      if (st_reading_q && 32'(age_st_q) == F - 1) assume (st_release_i);
      if (ac_q && 32'(age_ac_q) == F - 1) assume (ac_done_i);
    end
    if (rst_ni && hold_q) assume (dec_i == head_q);
  end

  always_comb begin
    if (rst_ni) begin
      // A conflict only with work that completes by itself.
      if (conflict) assert (n_ld_q != '0 || n_mm_q != '0 || st_reading_q || ac_q);
      assert (32'(wait_q) <= Bound);
      // The ranking (invariants for the induction).
      assert (32'(age_ld_q) < F && 32'(age_mm_q) < F && 32'(age_st_q) < F && 32'(age_ac_q) < F);
      if (n_ld_q == '0) assert (age_ld_q == '0);
      if (n_mm_q == '0) assert (age_mm_q == '0);
      if (!st_reading_q) assert (age_st_q == '0);
      if (!ac_q) assert (age_ac_q == '0);
      if (wait_q != '0) begin
        assert (hold_q);
        assert (32'(wait_q) + F * 32'(n_ld_q) - 32'(age_ld_q) <= Bound);
        assert (32'(wait_q) + F * 32'(n_mm_q) - 32'(age_mm_q) <= Bound);
        assert (32'(wait_q) + F * 32'(st_reading_q) - 32'(age_st_q) <= Bound);
        assert (32'(wait_q) + F * 32'(ac_q) - 32'(age_ac_q) <= Bound);
      end
    end
  end
endmodule
`endif  // FORMAL
