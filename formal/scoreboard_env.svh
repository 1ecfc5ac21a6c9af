// The environment of the scoreboard proofs (formal/scoreboard_*.sv include it inside their
// module): mxu_ctrl_scoreboard at LdSlots = MmSlots = 2, the decoded head instruction dec_i free
// but shaped as mxu_ctrl_decode shapes it (formal/decode.sv proves that shape), and the
// dispatcher and engines keeping their contracts. The harness counts the work in flight per
// engine on its own:
// - an instruction is dispatched only when the scoreboard reports no conflict and its engine has
//   room (LOAD queues of 2, MATMUL queue of 2, two STOREs of which one still reads its rows, one
//   ACTIVATE); SYNC and HALT only when nothing is in flight;
// - the store engine takes a STORE only once the previous one has read all its rows (its
//   cmd_ready_o is low until then);
// - completions come only for work in flight, in order per engine; a STORE completes after its
//   release.
// Ports expected of the including module: clk_i, rst_ni, restart_i, dispatch_i, ld_done_i,
// wld_done_i, st_done_i, st_release_i, mm_done_i, ac_done_i, ld_skip_i, wld_skip_i, pc_i, dec_i.

localparam int unsigned Slots = 2;

logic       conflict, ld_full, wld_full, st_full, ac_busy, mm_full, in_flight;
logic [2:0] tiles, retired;
logic [31:0] ld_pc, wld_pc, st_pc;

mxu_ctrl_scoreboard #(.MmSlots(Slots), .LdSlots(Slots)) dut (
  .clk_i, .rst_ni, .restart_i, .dec_i, .dispatch_i, .pc_i, .ld_done_i, .wld_done_i, .ld_skip_i,
  .wld_skip_i, .st_done_i, .st_release_i, .mm_done_i, .ac_done_i, .conflict_o(conflict),
  .ld_full_o(ld_full), .wld_full_o(wld_full), .st_full_o(st_full), .ac_busy_o(ac_busy),
  .mm_full_o(mm_full), .in_flight_o(in_flight), .tiles_o(tiles), .ld_pc_o(ld_pc),
  .wld_pc_o(wld_pc), .st_pc_o(st_pc), .retired_o(retired)
);

logic unused_env;
assign unused_env = ^{ld_pc, wld_pc, st_pc, retired};

`MXU_FORMAL_RESET_FIRST(clk_i, rst_ni)

// [lo1, hi1) and [lo2, hi2) share a row; row r lies in [lo, hi).
function automatic logic ov(logic [16:0] lo1, logic [16:0] hi1, logic [16:0] lo2,
                            logic [16:0] hi2);
  ov = lo1 < hi2 && lo2 < hi1;
endfunction
function automatic logic within(logic [16:0] r, logic [16:0] lo, logic [16:0] hi);
  within = lo <= r && r < hi;
endfunction

// A decoded instruction as mxu_ctrl_decode gives it: one class, ranges [lo, lo + rows) with
// rows >= 1 (rows: the field, which the scoreboard compares as lo + rows) and 16-bit addresses,
// the buffers each class reads and writes. (Macros, not functions: Yosys 0.23 takes no
// struct-typed function arguments.)
function automatic logic range_ok(logic [16:0] lo, logic [16:0] hi);
  range_ok = !lo[16] && lo < hi && hi - lo <= 17'h0FFFF;
endfunction
`define SB_WELLFORMED(d)                                                                      \
  ($onehot0({d.is_load, d.is_store, d.is_mm, d.is_ac, d.is_sync, d.is_halt}) &&              \
   d.is_wload == (d.is_load && d.buf_sel == mxu_isa_pkg::BufWeights) &&                       \
   (!d.is_load || d.buf_sel != 2'd3) && (!d.is_store || d.buf_sel == mxu_isa_pkg::BufUb ||    \
                                         d.buf_sel == mxu_isa_pkg::BufAcc) &&                 \
   (!d.new_weights || d.is_mm) &&                                                             \
   d.w_ub == (d.is_load && d.buf_sel == mxu_isa_pkg::BufUb || d.is_ac) &&                     \
   d.w_acc == (d.is_load && d.buf_sel == mxu_isa_pkg::BufAcc || d.is_mm) &&                   \
   d.r_ub == (d.is_store && d.buf_sel == mxu_isa_pkg::BufUb || d.is_mm) &&                    \
   d.r_acc == (d.is_store && d.buf_sel == mxu_isa_pkg::BufAcc || d.is_ac) &&                  \
   (!d.r_bias || d.is_ac) && (!d.r_quant || d.is_ac) &&                                       \
   (!(d.is_load || d.is_store) || range_ok(d.buf_lo, d.buf_hi)) &&                            \
   (!d.w_ub || range_ok(d.w_ub_lo, d.w_ub_hi)) && (!d.w_acc || range_ok(d.w_acc_lo, d.w_acc_hi)) && \
   (!d.r_ub || range_ok(d.r_ub_lo, d.r_ub_hi)) && (!d.r_acc || range_ok(d.r_acc_lo, d.r_acc_hi)) && \
   (!(d.is_load || d.is_store) || d.buf_hi - d.buf_lo == 17'(d.rows)) &&                      \
   (!d.w_ub || d.w_ub_hi - d.w_ub_lo == 17'(d.rows)) &&                                      \
   (!d.w_acc || d.w_acc_hi - d.w_acc_lo == 17'(d.rows)) &&                                   \
   (!d.r_ub || d.r_ub_hi - d.r_ub_lo == 17'(d.rows)) &&                                      \
   (!d.r_acc || d.r_acc_hi - d.r_acc_lo == 17'(d.rows)) &&                                   \
   (!(d.is_load || d.is_store) || ((!d.w_ub || (d.w_ub_lo == d.buf_lo && d.w_ub_hi == d.buf_hi)) && \
     (!d.w_acc || (d.w_acc_lo == d.buf_lo && d.w_acc_hi == d.buf_hi)) &&                      \
     (!d.r_ub || (d.r_ub_lo == d.buf_lo && d.r_ub_hi == d.buf_hi)) &&                         \
     (!d.r_acc || (d.r_acc_lo == d.buf_lo && d.r_acc_hi == d.buf_hi)))) &&                    \
   !d.bias_row[16] && !d.quant_row[16])

// b depends on a (a dispatched earlier, still in flight): in one buffer, a writes rows b reads or
// writes, or a reads rows b writes (docs/isa.md). MATMULs keep their order among themselves.
`define SB_DEPENDS(a, b)                                                                     \
  (!(a.is_mm && b.is_mm) && (                                                           \
    (a.w_ub && ((b.r_ub && ov(a.w_ub_lo, a.w_ub_hi, b.r_ub_lo, b.r_ub_hi)) ||    \
                  (b.w_ub && ov(a.w_ub_lo, a.w_ub_hi, b.w_ub_lo, b.w_ub_hi)))) ||  \
    (a.r_ub && b.w_ub && ov(a.r_ub_lo, a.r_ub_hi, b.w_ub_lo, b.w_ub_hi)) ||      \
    (a.w_acc && ((b.r_acc && ov(a.w_acc_lo, a.w_acc_hi, b.r_acc_lo, b.r_acc_hi)) || \
                   (b.w_acc && ov(a.w_acc_lo, a.w_acc_hi, b.w_acc_lo, b.w_acc_hi)) || \
                   (b.r_bias && within(b.bias_row, a.w_acc_lo, a.w_acc_hi)) ||       \
                   (b.r_quant && within(b.quant_row, a.w_acc_lo, a.w_acc_hi)))) ||   \
    (b.w_acc && ((a.r_acc && ov(a.r_acc_lo, a.r_acc_hi, b.w_acc_lo, b.w_acc_hi)) || \
                   (a.r_bias && within(a.bias_row, b.w_acc_lo, b.w_acc_hi)) ||       \
                   (a.r_quant && within(a.quant_row, b.w_acc_lo, b.w_acc_hi))))))

// Work in flight per engine, as the harness counts it.
logic [1:0] n_ld_q, n_wld_q, n_mm_q, n_st_q;
logic       st_reading_q, ac_q;
logic       d_ld, d_wld, d_st, d_mm, d_ac;
always_comb begin
  d_ld  = dispatch_i && dec_i.is_load && !dec_i.is_wload;
  d_wld = dispatch_i && dec_i.is_wload;
  d_st  = dispatch_i && dec_i.is_store;
  d_mm  = dispatch_i && dec_i.is_mm;
  d_ac  = dispatch_i && dec_i.is_ac;
end
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) begin
    n_ld_q <= '0; n_wld_q <= '0; n_mm_q <= '0; n_st_q <= '0; st_reading_q <= 1'b0; ac_q <= 1'b0;
  end else if (restart_i) begin
    n_ld_q <= '0; n_wld_q <= '0; n_mm_q <= '0; n_st_q <= '0; st_reading_q <= 1'b0; ac_q <= 1'b0;
  end else begin
    n_ld_q       <= n_ld_q + 2'(d_ld) - 2'(ld_done_i);
    n_wld_q      <= n_wld_q + 2'(d_wld) - 2'(wld_done_i);
    n_mm_q       <= n_mm_q + 2'(d_mm) - 2'(mm_done_i);
    n_st_q       <= n_st_q + 2'(d_st) - 2'(st_done_i);
    st_reading_q <= (st_reading_q && !st_release_i) || d_st;
    ac_q         <= (ac_q && !ac_done_i) || d_ac;
  end
end

logic any_in_flight;
assign any_in_flight = n_ld_q != '0 || n_wld_q != '0 || n_mm_q != '0 || n_st_q != '0 || ac_q;

// Rows below 8, so that the solver keeps up: the hazard rules compare ranges the same way at
// any address (the 17-bit carry of lo + rows is the decoder's, proved in formal/decode.sv).
logic small_rows;
assign small_rows =
    ({dec_i.buf_lo, dec_i.buf_hi, dec_i.r_ub_lo, dec_i.r_ub_hi, dec_i.w_ub_lo, dec_i.w_ub_hi,
     dec_i.r_acc_lo, dec_i.r_acc_hi, dec_i.w_acc_lo, dec_i.w_acc_hi, dec_i.bias_row,
     dec_i.quant_row} & {12{17'h1FFF8}}) == '0;

always_comb begin
  assume (`SB_WELLFORMED(dec_i) && small_rows);
  assume (pc_i == '0);  // names errors only
  if (dispatch_i) begin
    assume (!conflict && !restart_i);
    if (d_ld) assume (n_ld_q < 2'(Slots));
    if (d_wld) assume (n_wld_q < 2'(Slots) && tiles < 3'd3);
    if (d_mm) assume (n_mm_q < 2'(Slots));
    if (d_st) assume (n_st_q < 2'd2 && !st_reading_q);
    if (d_ac) assume (!ac_q);
    if (dec_i.is_sync || dec_i.is_halt) assume (!any_in_flight);
    if (dec_i.new_weights) assume (tiles != '0);
  end
  if (!restart_i) begin
    if (ld_done_i) assume (n_ld_q != '0);
    if (wld_done_i) assume (n_wld_q != '0);
    if (mm_done_i) assume (n_mm_q != '0);
    if (ac_done_i) assume (ac_q);
    if (st_release_i) assume (st_reading_q);
    if (st_done_i) assume (n_st_q > 2'(st_reading_q));
  end
end

// Connected by run.sh (connect -set) to the scoreboard's registers: the induction's invariants
// say where the tracked instruction's rows are kept.
logic [Slots-1:0]    probe_ld_valid, probe_wld_valid, probe_mm_valid;
logic                probe_ld_head, probe_ld_tail, probe_wld_head, probe_wld_tail;
logic                probe_mm_head, probe_mm_tail;
logic [Slots*2-1:0]  probe_ld_buf;
logic [Slots*17-1:0] probe_ld_lo, probe_ld_hi, probe_mm_ub_lo, probe_mm_ub_hi;
logic [Slots*17-1:0] probe_mm_acc_lo, probe_mm_acc_hi;
logic [1:0]          probe_st_cnt, probe_st_buf;
logic                probe_st_rows, probe_ac_busy, probe_ac_has_bias, probe_ac_has_quant;
logic [16:0]         probe_st_lo, probe_st_hi, probe_ac_acc_lo, probe_ac_acc_hi, probe_ac_bias;
logic [16:0]         probe_ac_quant, probe_ac_ub_lo, probe_ac_ub_hi;

// Both proofs: the scoreboard's flags agree with the harness's counts of the work in flight, and
// (invariants for the induction) each queue holds its count from the head on.
always_comb begin
  if (rst_ni) begin
    assert (ld_full == (n_ld_q == 2'(Slots)));
    assert (wld_full == (n_wld_q == 2'(Slots)));
    assert (mm_full == (n_mm_q == 2'(Slots)));
    assert (st_full == (n_st_q == 2'd2));
    assert (ac_busy == ac_q);
    assert (in_flight == any_in_flight);
    assert (tiles <= 3'd3);
    assert (n_ld_q <= 2'(Slots) && n_wld_q <= 2'(Slots) && n_mm_q <= 2'(Slots));
    assert (probe_ld_tail == (probe_ld_head ^ n_ld_q[0]));
    assert (probe_ld_valid[probe_ld_head] == (n_ld_q != '0));
    assert (probe_ld_valid[!probe_ld_head] == (n_ld_q == 2'd2));
    assert (probe_wld_tail == (probe_wld_head ^ n_wld_q[0]));
    assert (probe_wld_valid[probe_wld_head] == (n_wld_q != '0));
    assert (probe_wld_valid[!probe_wld_head] == (n_wld_q == 2'd2));
    assert (probe_mm_tail == (probe_mm_head ^ n_mm_q[0]));
    assert (probe_mm_valid[probe_mm_head] == (n_mm_q != '0));
    assert (probe_mm_valid[!probe_mm_head] == (n_mm_q == 2'd2));
    assert (probe_st_cnt == n_st_q && n_st_q <= 2'd2 && n_st_q >= 2'(st_reading_q));
    assert (probe_st_rows == st_reading_q);
  end
end
