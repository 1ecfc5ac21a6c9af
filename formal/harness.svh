// Shared scaffolding of the proof harnesses in formal/ (read by formal/run.sh with -I formal).
`ifndef MXU_FORMAL_HARNESS_SVH_
`define MXU_FORMAL_HARNESS_SVH_

// The first cycle is a reset, so every trace starts from the reset state; later resets may come
// at any cycle. formal_past_valid is high from the second cycle on: $past() is meaningful then.
`define MXU_FORMAL_RESET_FIRST(clk, rst_n)            \
  logic formal_init_q = 1'b1;                         \
  logic formal_past_valid;                            \
  always_ff @(posedge clk) formal_init_q <= 1'b0;     \
  assign formal_past_valid = !formal_init_q;          \
  always_comb if (formal_init_q) assume (!(rst_n));

// add_mod(a, b): (a + b) mod Depth for a, b <= Depth, in Width-bit arithmetic (a wide % makes the
// solver slow).
`define MXU_FORMAL_ADD_MOD(Width, Depth)                                                    \
  function automatic logic [(Width)-1:0] add_mod(logic [(Width)-1:0] a, logic [(Width)-1:0] b); \
    logic [(Width)-1:0] s;                                                                  \
    s = a + b;                                                                              \
    if (s >= (Width)'(Depth)) s = s - (Width)'(Depth);                                      \
    if (s >= (Width)'(Depth)) s = s - (Width)'(Depth);                                      \
    add_mod = s;                                                                            \
  endfunction

// The ports of the scoreboard harnesses (formal/scoreboard_*.sv), which formal/scoreboard_env.svh
// drives mxu_ctrl_scoreboard from: every input of the scoreboard, free for the solver.
`define MXU_FORMAL_SCOREBOARD_PORTS \
  input logic               clk_i,        \
  input logic               rst_ni,       \
  input logic               restart_i,    \
  input mxu_pkg::ctrl_dec_t dec_i,        \
  input logic               dispatch_i,   \
  input logic [31:0]        pc_i,         \
  input logic               ld_done_i,    \
  input logic               wld_done_i,   \
  input logic [1:0]         ld_skip_i,    \
  input logic [1:0]         wld_skip_i,   \
  input logic               st_done_i,    \
  input logic               st_release_i, \
  input logic               mm_done_i,    \
  input logic               ac_done_i

`endif  // MXU_FORMAL_HARNESS_SVH_
