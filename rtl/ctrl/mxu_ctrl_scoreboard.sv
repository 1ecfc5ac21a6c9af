// Controller, scoreboard: what is in flight in each engine, and whether the decoded instruction
// conflicts with it. It records the buffer rows of up to LdSlots LOADs of the load engine (a
// queue: the engine completes them in order), of the store engine's and ACTIVATE's instruction
// and of up to MmSlots MATMULs (a queue too), and compares the new instruction's rows with all of
// them: it waits while an instruction in flight writes rows it reads or writes, or reads rows it
// writes. MATMULs among themselves, and weight tiles, keep their order in the datapath; the
// scoreboard counts loaded weight tiles no MATMUL has claimed and keeps up to LdSlots LOAD
// WEIGHTS in flight. It also keeps the program index of each DMA instruction, for error reports:
// a load engine's error names the oldest LOAD in flight, or a later one where the engine says
// that older ones are still completing (status error_skip).
`include "mxu_assert.svh"

module mxu_ctrl_scoreboard #(
  parameter int unsigned MmSlots = 4,                       // MATMULs tracked in flight
  parameter int unsigned LdSlots = mxu_pkg::DmaQueueDepth   // LOADs per load engine
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               restart_i,   // a new program: nothing in flight (synchronous)
  input  mxu_pkg::ctrl_dec_t dec_i,       // the instruction at the head
  input  logic               dispatch_i,  // ... leaves for its engine this cycle
  input  logic [31:0]        pc_i,        // ... its index in the program
  input  logic               ld_done_i,
  input  logic               wld_done_i,
  input  logic [1:0]         ld_skip_i,   // an error: older LOADs still completing ahead of it
  input  logic [1:0]         wld_skip_i,
  input  logic               st_done_i,
  input  logic               st_release_i, // the STORE in flight has read all its rows
  input  logic               mm_done_i,
  input  logic               ac_done_i,
  output logic               conflict_o,  // dec_i conflicts with an instruction in flight
  output logic               ld_full_o,   // every LOAD slot of the engine taken
  output logic               wld_full_o,
  output logic               st_full_o,   // two STOREs in flight (one still writing, one waiting for responses)
  output logic               ac_busy_o,
  output logic               mm_full_o,   // every MATMUL slot taken
  output logic               in_flight_o, // anything at all in flight
  output logic [2:0]         tiles_o,     // loaded weight tiles not yet claimed
  output logic [31:0]        ld_pc_o,     // the LOAD an error of the engine belongs to
  output logic [31:0]        wld_pc_o,
  output logic [31:0]        st_pc_o,
  output logic [2:0]         retired_o    // instructions completed this cycle
);

  localparam int unsigned SlotWidth = (MmSlots > 1) ? $clog2(MmSlots) : 1;
  localparam int unsigned LdWidth   = (LdSlots > 1) ? $clog2(LdSlots) : 1;
  localparam int unsigned RowBits   = mxu_pkg::RowBits;  // a row range's bounds (mxu_pkg::row_t)

  logic                 ac_busy_d, ac_busy_q;
  logic [1:0]           st_cnt_d, st_cnt_q;      // STOREs in flight: at most two
  logic [31:0]          st_old_pc_d, st_old_pc_q; // the older one's index when there are two
  logic                 st_rows_d, st_rows_q;  // the STORE's rows not all read yet
  // LOADs in flight per load engine: a queue each (UB / ACC loads: rows and buffer too).
  logic [LdSlots-1:0]   ld_valid_d, ld_valid_q, wld_valid_d, wld_valid_q;
  logic [LdSlots*2-1:0] ld_buf_d, ld_buf_q;
  logic [LdSlots*RowBits-1:0] ld_lo_d, ld_lo_q, ld_hi_d, ld_hi_q;
  logic [LdSlots*32-1:0] ld_pc_d, ld_pc_q, wld_pc_d, wld_pc_q;
  logic [LdWidth-1:0]   ld_head_d, ld_head_q, ld_tail_d, ld_tail_q;
  logic [LdWidth-1:0]   wld_head_d, wld_head_q, wld_tail_d, wld_tail_q;
  logic [LdWidth-1:0]   ld_err_slot, wld_err_slot;
  logic [1:0]           st_buf_d, st_buf_q;
  mxu_pkg::row_t        st_lo_d, st_lo_q, st_hi_d, st_hi_q;
  logic [31:0]          st_pc_d, st_pc_q;
  mxu_pkg::row_t        ac_acc_lo_d, ac_acc_lo_q, ac_acc_hi_d, ac_acc_hi_q;
  mxu_pkg::row_t        ac_bias_d, ac_bias_q, ac_ub_lo_d, ac_ub_lo_q, ac_ub_hi_d, ac_ub_hi_q;
  logic                 ac_has_bias_d, ac_has_bias_q;
  mxu_pkg::row_t        ac_quant_d, ac_quant_q;
  logic                 ac_has_quant_d, ac_has_quant_q;
  // Which instruction in flight the decoded one conflicts with.
  logic [LdSlots-1:0]   ld_hit;
  logic [MmSlots-1:0]   mm_hit;
  logic                 st_hit, ac_hit;
  logic [MmSlots-1:0]   mm_valid_d, mm_valid_q;
  logic [MmSlots*RowBits-1:0] mm_ub_lo_d, mm_ub_lo_q, mm_ub_hi_d, mm_ub_hi_q;
  logic [MmSlots*RowBits-1:0] mm_acc_lo_d, mm_acc_lo_q, mm_acc_hi_d, mm_acc_hi_q;
  logic [SlotWidth-1:0] mm_head_d, mm_head_q, mm_tail_d, mm_tail_q;
  logic [2:0]           tiles_d, tiles_q;
  logic                 disp_ld, disp_wld, disp_st, disp_mm, disp_ac;

  // True when e < lo + rows: the late bound of the decoded instruction's range compared without
  // its add. One carry-save step (lo + rows + ~e, three operands to two) and one carry: e < lo + rows
  // exactly when lo + rows - e - 1 >= 0, the carry out of the 19-bit sum with ~e. The add and then
  // the compare would be two carry chains in a row (14 + 15 gate levels, the controller's longest
  // path).
  function automatic logic below_end(logic [RowBits-1:0] e, logic [RowBits-1:0] lo,
                                     logic [15:0] rows);
    logic [RowBits+1:0] a, b, c, s, cy;
    logic [RowBits+2:0] t;
    a         = {2'b00, lo};  // (zero-extended by hand: Yosys 0.23 takes no (expr)' casts here)
    b         = {{(RowBits - 14){1'b0}}, rows};
    c         = ~{2'b00, e};
    s         = a ^ b ^ c;
    cy        = (a & b) | (a & c) | (b & c);
    t         = {1'b0, s} + {cy, 1'b0};
    below_end = t[RowBits+2];
  endfunction
  // True when [lo, lo + rows) and [lo2, hi2) share a row: the decoded instruction's range (lo,
  // rows) against one in flight (registered bounds).
  function automatic logic meets(logic [RowBits-1:0] lo, logic [15:0] rows,
                                 logic [RowBits-1:0] lo2, logic [RowBits-1:0] hi2);
    meets = (lo < hi2) && below_end(lo2, lo, rows);
  endfunction
  // True when row r lies in [lo, hi): a one-row range [r, r + 1) overlapping it, without the add.
  function automatic logic holds_row(logic [RowBits-1:0] r, logic [RowBits-1:0] lo,
                                     logic [RowBits-1:0] hi);
    holds_row = (lo <= r) && (r < hi);
  endfunction

  // ----- Conflicts with instructions in flight: reads and writes of UB and ACC rows.
  // Each check sets its own bit and conflict_o is their OR: a balanced tree, where a chain of
  // `if (...) conflict = 1` would be a priority chain one mux per check (30 gate levels deep).
  always_comb begin
    ld_hit = '0;
    mm_hit = '0;
    for (int unsigned s = 0; s < LdSlots; s++) begin
      // Against every LOAD of the load engine in flight (writes UB or ACC). A new LOAD of the
      // same engine writing the same rows waits too (WAW), although the engine would keep the
      // order: the check is the same for every instruction.
      ld_hit[s] =
          ld_valid_q[s] &&
          ((ld_buf_q[s*2 +: 2] == mxu_isa_pkg::BufUb &&
            ((dec_i.r_ub && meets(dec_i.r_ub_lo, dec_i.rows, ld_lo_q[s*RowBits +: RowBits],
                                  ld_hi_q[s*RowBits +: RowBits])) ||
             (dec_i.w_ub && meets(dec_i.w_ub_lo, dec_i.rows, ld_lo_q[s*RowBits +: RowBits],
                                  ld_hi_q[s*RowBits +: RowBits])))) ||
           (ld_buf_q[s*2 +: 2] == mxu_isa_pkg::BufAcc &&
            ((dec_i.r_acc && meets(dec_i.r_acc_lo, dec_i.rows,
                                   ld_lo_q[s*RowBits +: RowBits],
                                   ld_hi_q[s*RowBits +: RowBits])) ||
             (dec_i.w_acc && meets(dec_i.w_acc_lo, dec_i.rows,
                                   ld_lo_q[s*RowBits +: RowBits],
                                   ld_hi_q[s*RowBits +: RowBits])) ||
             // An ACTIVATE's bias and quantization rows are read too.
             (dec_i.r_bias && holds_row(dec_i.bias_row, ld_lo_q[s*RowBits +: RowBits],
                                        ld_hi_q[s*RowBits +: RowBits])) ||
             (dec_i.r_quant && holds_row(dec_i.quant_row, ld_lo_q[s*RowBits +: RowBits],
                                         ld_hi_q[s*RowBits +: RowBits])))));
    end
    // Against the store engine (reads UB or ACC) until it has read every row: its writes to
    // host memory may still be on their way.
    st_hit = st_rows_q &&
             ((st_buf_q == mxu_isa_pkg::BufUb && dec_i.w_ub &&
               meets(dec_i.w_ub_lo, dec_i.rows, st_lo_q, st_hi_q)) ||
              (st_buf_q == mxu_isa_pkg::BufAcc && dec_i.w_acc &&
               meets(dec_i.w_acc_lo, dec_i.rows, st_lo_q, st_hi_q)));
    // Against ACTIVATE (reads ACC, the bias row and the quantization row; writes UB).
    ac_hit = ac_busy_q &&
             ((dec_i.w_acc &&
               (meets(dec_i.w_acc_lo, dec_i.rows, ac_acc_lo_q, ac_acc_hi_q) ||
                (ac_has_bias_q && dec_i.w_acc_lo <= ac_bias_q &&
                 below_end(ac_bias_q, dec_i.w_acc_lo, dec_i.rows)) ||
                (ac_has_quant_q && dec_i.w_acc_lo <= ac_quant_q &&
                 below_end(ac_quant_q, dec_i.w_acc_lo, dec_i.rows)))) ||
              (dec_i.r_ub && meets(dec_i.r_ub_lo, dec_i.rows, ac_ub_lo_q, ac_ub_hi_q)) ||
              (dec_i.w_ub && meets(dec_i.w_ub_lo, dec_i.rows, ac_ub_lo_q, ac_ub_hi_q)));
    // Against MATMULs (read UB, write ACC). MATMULs among themselves run in order; the bias and
    // quantization rows of an ACTIVATE are read rows too.
    for (int unsigned s = 0; s < MmSlots; s++) begin
      mm_hit[s] =
          mm_valid_q[s] &&
          ((!dec_i.is_mm &&
            ((dec_i.w_ub && meets(dec_i.w_ub_lo, dec_i.rows,
                                  mm_ub_lo_q[s*RowBits +: RowBits],
                                  mm_ub_hi_q[s*RowBits +: RowBits])) ||
             (dec_i.r_acc && meets(dec_i.r_acc_lo, dec_i.rows,
                                   mm_acc_lo_q[s*RowBits +: RowBits],
                                   mm_acc_hi_q[s*RowBits +: RowBits])) ||
             (dec_i.w_acc && meets(dec_i.w_acc_lo, dec_i.rows,
                                   mm_acc_lo_q[s*RowBits +: RowBits],
                                   mm_acc_hi_q[s*RowBits +: RowBits])))) ||
           (dec_i.r_bias && holds_row(dec_i.bias_row, mm_acc_lo_q[s*RowBits +: RowBits],
                                      mm_acc_hi_q[s*RowBits +: RowBits])) ||
           (dec_i.r_quant && holds_row(dec_i.quant_row, mm_acc_lo_q[s*RowBits +: RowBits],
                                       mm_acc_hi_q[s*RowBits +: RowBits])));
    end
    conflict_o = (ld_hit != '0) || st_hit || ac_hit || (mm_hit != '0);
  end

  // ----- Bookkeeping of work in flight.
  always_comb begin
    disp_ld    = dispatch_i && dec_i.is_load && !dec_i.is_wload;
    disp_wld   = dispatch_i && dec_i.is_wload;
    disp_st    = dispatch_i && dec_i.is_store;
    disp_mm    = dispatch_i && dec_i.is_mm;
    disp_ac    = dispatch_i && dec_i.is_ac;
    st_cnt_d   = st_cnt_q + 2'(disp_st) - 2'(st_done_i);
    st_rows_d  = (st_rows_q && !st_release_i) || disp_st;
    ac_busy_d  = (ac_busy_q && !ac_done_i) || disp_ac;
    // LOAD queues: completed at the head (in order), dispatched at the tail.
    ld_valid_d = ld_valid_q; ld_buf_d = ld_buf_q; ld_lo_d = ld_lo_q; ld_hi_d = ld_hi_q;
    ld_pc_d = ld_pc_q; ld_head_d = ld_head_q; ld_tail_d = ld_tail_q;
    wld_valid_d = wld_valid_q; wld_pc_d = wld_pc_q; wld_head_d = wld_head_q;
    wld_tail_d = wld_tail_q;
    if (ld_done_i) begin
      ld_valid_d[ld_head_q] = 1'b0;
      ld_head_d = ld_head_q + 1'b1;
    end
    if (disp_ld) begin
      ld_valid_d[ld_tail_q]        = 1'b1;
      ld_buf_d[ld_tail_q*2 +: 2]   = dec_i.buf_sel;
      ld_lo_d[ld_tail_q*RowBits +: RowBits]  = dec_i.buf_lo;
      ld_hi_d[ld_tail_q*RowBits +: RowBits]  = dec_i.buf_hi;
      ld_pc_d[ld_tail_q*32 +: 32]  = pc_i;
      ld_tail_d = ld_tail_q + 1'b1;
    end
    if (wld_done_i) begin
      wld_valid_d[wld_head_q] = 1'b0;
      wld_head_d = wld_head_q + 1'b1;
    end
    if (disp_wld) begin
      wld_valid_d[wld_tail_q]       = 1'b1;
      wld_pc_d[wld_tail_q*32 +: 32] = pc_i;
      wld_tail_d = wld_tail_q + 1'b1;
    end
    st_buf_d = st_buf_q; st_lo_d = st_lo_q; st_hi_d = st_hi_q; st_pc_d = st_pc_q;
    ac_acc_lo_d = ac_acc_lo_q; ac_acc_hi_d = ac_acc_hi_q; ac_bias_d = ac_bias_q;
    ac_has_bias_d = ac_has_bias_q; ac_ub_lo_d = ac_ub_lo_q; ac_ub_hi_d = ac_ub_hi_q;
    ac_quant_d = ac_quant_q; ac_has_quant_d = ac_has_quant_q;
    // The store engine completes its STOREs in order: the older first.
    st_old_pc_d = (st_done_i || st_cnt_q == 2'd0) ? st_pc_q : st_old_pc_q;
    if (disp_st) begin
      st_buf_d = dec_i.buf_sel; st_lo_d = dec_i.buf_lo; st_hi_d = dec_i.buf_hi; st_pc_d = pc_i;
      if (st_cnt_q == 2'd1 && !st_done_i) st_old_pc_d = st_pc_q;
    end
    if (disp_ac) begin
      ac_acc_lo_d = dec_i.r_acc_lo; ac_acc_hi_d = dec_i.r_acc_hi; ac_bias_d = dec_i.bias_row;
      ac_has_bias_d = dec_i.r_bias; ac_ub_lo_d = dec_i.w_ub_lo; ac_ub_hi_d = dec_i.w_ub_hi;
      ac_quant_d = dec_i.quant_row; ac_has_quant_d = dec_i.r_quant;
    end
    mm_valid_d  = mm_valid_q;
    mm_ub_lo_d  = mm_ub_lo_q;
    mm_ub_hi_d  = mm_ub_hi_q;
    mm_acc_lo_d = mm_acc_lo_q;
    mm_acc_hi_d = mm_acc_hi_q;
    mm_head_d   = mm_head_q;
    mm_tail_d   = mm_tail_q;
    if (mm_done_i) begin
      mm_valid_d[mm_head_q] = 1'b0;
      mm_head_d = mm_head_q + 1'b1;
    end
    if (disp_mm) begin
      mm_valid_d[mm_tail_q]           = 1'b1;
      mm_ub_lo_d[mm_tail_q*RowBits +: RowBits]  = dec_i.r_ub_lo;
      mm_ub_hi_d[mm_tail_q*RowBits +: RowBits]  = dec_i.r_ub_hi;
      mm_acc_lo_d[mm_tail_q*RowBits +: RowBits] = dec_i.w_acc_lo;
      mm_acc_hi_d[mm_tail_q*RowBits +: RowBits] = dec_i.w_acc_hi;
      mm_tail_d = mm_tail_q + 1'b1;
    end
    // The count after the instruction, selected by dispatch_i (late) rather than added after it.
    tiles_d   = dispatch_i ? tiles_q + 3'(dec_i.is_wload) - 3'(dec_i.new_weights) : tiles_q;
    retired_o = 3'(ld_done_i) + 3'(wld_done_i) + 3'(st_done_i) + 3'(mm_done_i) +
                3'(ac_done_i) + 3'(dispatch_i && (dec_i.is_sync || dec_i.is_halt));
  end

  // The loads', weight loads' and stores' slots.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ld_valid_q    <= '0;
      ld_buf_q      <= '0;
      ld_lo_q       <= '0;
      ld_hi_q       <= '0;
      ld_pc_q       <= '0;
      ld_head_q     <= '0;
      ld_tail_q     <= '0;
      wld_valid_q   <= '0;
      wld_pc_q      <= '0;
      wld_head_q    <= '0;
      wld_tail_q    <= '0;
      st_cnt_q      <= '0;
      st_old_pc_q   <= '0;
      st_rows_q     <= 1'b0;
      st_buf_q      <= '0;
      st_lo_q       <= '0;
      st_hi_q       <= '0;
      st_pc_q       <= '0;
    end else if (restart_i) begin
      ld_valid_q    <= '0;
      ld_head_q     <= '0;
      ld_tail_q     <= '0;
      wld_valid_q   <= '0;
      wld_head_q    <= '0;
      wld_tail_q    <= '0;
      st_cnt_q      <= '0;
      st_rows_q     <= 1'b0;
    end else begin
      ld_valid_q    <= ld_valid_d;
      ld_buf_q      <= ld_buf_d;
      ld_lo_q       <= ld_lo_d;
      ld_hi_q       <= ld_hi_d;
      ld_pc_q       <= ld_pc_d;
      ld_head_q     <= ld_head_d;
      ld_tail_q     <= ld_tail_d;
      wld_valid_q   <= wld_valid_d;
      wld_pc_q      <= wld_pc_d;
      wld_head_q    <= wld_head_d;
      wld_tail_q    <= wld_tail_d;
      st_cnt_q      <= st_cnt_d;
      st_old_pc_q   <= st_old_pc_d;
      st_rows_q     <= st_rows_d;
      st_buf_q      <= st_buf_d;
      st_lo_q       <= st_lo_d;
      st_hi_q       <= st_hi_d;
      st_pc_q       <= st_pc_d;
    end
  end

  // The ACTIVATE's and MATMULs' slots, and the loaded weight tiles.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ac_busy_q     <= 1'b0;
      ac_acc_lo_q   <= '0;
      ac_acc_hi_q   <= '0;
      ac_bias_q     <= '0;
      ac_has_bias_q <= 1'b0;
      ac_quant_q    <= '0;
      ac_has_quant_q <= 1'b0;
      ac_ub_lo_q    <= '0;
      ac_ub_hi_q    <= '0;
      mm_valid_q    <= '0;
      mm_ub_lo_q    <= '0;
      mm_ub_hi_q    <= '0;
      mm_acc_lo_q   <= '0;
      mm_acc_hi_q   <= '0;
      mm_head_q     <= '0;
      mm_tail_q     <= '0;
      tiles_q       <= '0;
    end else if (restart_i) begin
      ac_busy_q     <= 1'b0;
      mm_valid_q    <= '0;
      mm_head_q     <= '0;
      mm_tail_q     <= '0;
      tiles_q       <= '0;
    end else begin
      ac_busy_q     <= ac_busy_d;
      ac_acc_lo_q   <= ac_acc_lo_d;
      ac_acc_hi_q   <= ac_acc_hi_d;
      ac_bias_q     <= ac_bias_d;
      ac_has_bias_q <= ac_has_bias_d;
      ac_quant_q    <= ac_quant_d;
      ac_has_quant_q <= ac_has_quant_d;
      ac_ub_lo_q    <= ac_ub_lo_d;
      ac_ub_hi_q    <= ac_ub_hi_d;
      mm_valid_q    <= mm_valid_d;
      mm_ub_lo_q    <= mm_ub_lo_d;
      mm_ub_hi_q    <= mm_ub_hi_d;
      mm_acc_lo_q   <= mm_acc_lo_d;
      mm_acc_hi_q   <= mm_acc_hi_d;
      mm_head_q     <= mm_head_d;
      mm_tail_q     <= mm_tail_d;
      tiles_q       <= tiles_d;
    end
  end

  assign ld_err_slot  = ld_head_q + LdWidth'(ld_skip_i);
  assign wld_err_slot = wld_head_q + LdWidth'(wld_skip_i);
  assign ld_full_o   = ld_valid_q[ld_tail_q];
  assign wld_full_o  = wld_valid_q[wld_tail_q];
  assign st_full_o   = st_cnt_q == 2'd2;
  assign ac_busy_o   = ac_busy_q;
  assign mm_full_o   = mm_valid_q[mm_tail_q];
  assign in_flight_o = (ld_valid_q != '0) || (wld_valid_q != '0) || (st_cnt_q != '0) || ac_busy_q ||
                       (mm_valid_q != '0);
  assign tiles_o     = tiles_q;
  assign ld_pc_o     = ld_pc_q[ld_err_slot*32 +: 32];
  assign wld_pc_o    = wld_pc_q[wld_err_slot*32 +: 32];
  assign st_pc_o     = (st_cnt_q == 2'd2) ? st_old_pc_q : st_pc_q;  // the oldest: its responses come first

  // The MATMUL queue's head and tail wrap by themselves only at a power of two.
  `MXU_ASSERT_STATIC(gen_mm_slots_pow2, MmSlots >= 2 && (MmSlots & (MmSlots - 1)) == 0,
                     "mxu_ctrl_scoreboard: MmSlots must be a power of two, at least 2")
  // Queue overflow and underflow; completions only of work in flight; at most three tiles.
  `MXU_ASSERT_NEVER(MmOverflow, dispatch_i && dec_i.is_mm && mm_valid_q[mm_tail_q], clk_i,
                    rst_ni)
  `MXU_ASSERT_NEVER(MmUnderflow, mm_done_i && !mm_valid_q[mm_head_q], clk_i, rst_ni)
  `MXU_ASSERT_STATIC(gen_ld_slots_pow2, LdSlots >= 2 && LdSlots <= 4 &&
                     (LdSlots & (LdSlots - 1)) == 0,
                     "mxu_ctrl_scoreboard: LdSlots must be 2 or 4")
  `MXU_ASSERT_NEVER(LdOverflow, disp_ld && ld_valid_q[ld_tail_q], clk_i, rst_ni)
  `MXU_ASSERT_NEVER(WldOverflow, disp_wld && wld_valid_q[wld_tail_q], clk_i, rst_ni)
  `MXU_ASSERT_NEVER(LdDoneIdle, ld_done_i && !ld_valid_q[ld_head_q], clk_i, rst_ni)
  `MXU_ASSERT_NEVER(WldDoneIdle, wld_done_i && !wld_valid_q[wld_head_q], clk_i, rst_ni)
  `MXU_ASSERT_NEVER(StDoneIdle, st_done_i && st_cnt_q == '0, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(StOverflow, disp_st && st_cnt_q == 2'd2, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(StReleaseIdle, st_release_i && !st_rows_q, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(AcDoneIdle, ac_done_i && !ac_busy_q, clk_i, rst_ni)
  `MXU_ASSERT(TilesInRange, tiles_q <= 3'd3, clk_i, rst_ni)

  logic unused_signals;
  assign unused_signals = ^{dec_i};  // the scoreboard reads the rows and the class only

endmodule
