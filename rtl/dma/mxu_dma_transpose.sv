// The DMA load engine's transpose buffer (mxu_dma_load): a transposed LOAD's segments arrive one
// host row (lane) at a time, each a run of up to TransposeRows elements, a column of a block of
// TransposeRows buffer rows. Each beat is written as it comes, one SRAM per lane holding a
// segment's beats; when every lane of a block is in, the block goes to the emitter, which reads
// one buffer row per cycle (one element of every lane, at the lane's own offset: host rows need
// not be aligned alike) and presents it for writing, while the other half of the double buffer
// fills with the next block, of this command or the next. Lanes beyond `lanes` are zero.
`include "mxu_assert.svh"

module mxu_dma_transpose #(
  parameter int unsigned TransposeRows = mxu_pkg::TransposeRows,  // buffer rows of a block
  localparam int unsigned UbLanes      = mxu_pkg::UbLanes,
  localparam int unsigned Cols         = mxu_pkg::ArrayCols,
  localparam int unsigned BusBytes     = mxu_pkg::MemBusBytes,
  localparam int unsigned BusBits      = BusBytes * 8,
  localparam int unsigned BeatShift    = $clog2(BusBytes),
  localparam int unsigned ElemsPerBeat = BusBytes / 2,
  localparam int unsigned ElemW        = $clog2(ElemsPerBeat),
  localparam int unsigned ShortRows    = mxu_pkg::dma_short_rows(TransposeRows),
  localparam int unsigned TSegWords    = mxu_pkg::dma_tseg_words(TransposeRows),
  localparam int unsigned TDepth       = 2 * TSegWords,        // two halves
  localparam int unsigned TAw          = $clog2(TDepth),
  localparam int unsigned PosW         = $clog2(TSegWords * ElemsPerBeat),
  localparam int unsigned BeatsWidth   = mxu_pkg::dma_beats_width(UbLanes, Cols, TransposeRows)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // The command at the head of the queue; its beats (taken only while fill_ready_o).
  input  mxu_pkg::dma_load_q_t  head_i,
  output logic                  fill_ready_o,   // the half being filled is free
  input  logic                  r_fire_i,       // a beat of the head command arrives
  input  logic [BusBits-1:0]    r_data_i,
  input  logic                  seg_done_i,     // ... the last of its segment
  input  logic [BeatsWidth-1:0] beat_i,         // ... its index in the segment
  input  logic [BeatShift-1:0]  off_i,          // the segment's byte offset in its first beat
  output logic                  pop_o,          // the command's last block is in
  // Rows out, one a cycle.
  output logic                  row_valid_o,
  output logic [1:0]            row_target_o,
  output logic [15:0]           row_addr_o,
  output logic [UbLanes*16-1:0] row_data_o,
  input  logic                  row_ready_i,
  output logic                  idle_o,         // no block held, no row presented
  output logic                  done_o,         // a command's last row written (pulse)
  output logic [1:0]            cmds_o          // commands handed on, not yet done
);

  // Fill side.
  logic                     wr;
  logic [15:0]              con_j_d, con_j_q;          // lane being filled
  logic [15:0]              con_i_d, con_i_q;          // block start
  logic [15:0]              block_rows_con, head_trows;
  logic                     fb_d, fb_q;                // half being filled
  logic [1:0]               full_d, full_q;            // half holds a complete block
  // Per half: each lane's element offset, and the block's metadata.
  logic [2*UbLanes*ElemW-1:0] off_d, off_q;
  logic [31:0]              blk_addr_d, blk_addr_q;    // first buffer row
  logic [31:0]              blk_rows_d, blk_rows_q;
  logic [31:0]              blk_lanes_d, blk_lanes_q;
  logic [3:0]               blk_target_d, blk_target_q;
  logic [1:0]               blk_last_d, blk_last_q;    // the command's last block
  logic [UbLanes-1:0]       t_wr_en;
  logic [TAw-1:0]           t_wr_addr;
  logic [UbLanes*TAw-1:0]   t_rd_addr;
  logic [UbLanes*16-1:0]    t_elem;                    // each lane's element of the row read
  logic                     t_rd_en;
  logic [UbLanes*PosW-1:0]  pos;

  // Emitter: issue a row read (stage 0), present the row (stage 1).
  logic                     ib_d, ib_q;                // half being read
  logic [15:0]              ir_d, ir_q;                // row being read
  logic                     s1_v_d, s1_v_q, s1_fire, issue;
  logic [15:0]              s1_addr_d, s1_addr_q;
  logic [15:0]              s1_lanes_d, s1_lanes_q;
  logic [1:0]               s1_target_d, s1_target_q;
  logic [UbLanes*ElemW-1:0] s1_elem_d, s1_elem_q;
  logic                     s1_blk_end_d, s1_blk_end_q, s1_cmd_end_d, s1_cmd_end_q;
  logic                     s1_buf_d, s1_buf_q;
  logic                     tdone_d, tdone_q;          // a command's last row written
  logic [1:0]               emit_cmds_d, emit_cmds_q;  // commands handed on, not done

  // ----- Fill: each beat into lane con_j_q's SRAM; a complete block to the emitter.
  always_comb begin
    wr             = r_fire_i && head_i.transpose;
    head_trows     = head_i.short_blk ? 16'(ShortRows) : 16'(TransposeRows);
    block_rows_con = (head_i.rows - con_i_q > head_trows) ? head_trows : head_i.rows - con_i_q;
    t_wr_addr      = TAw'(fb_q ? TSegWords : 0) + TAw'(beat_i);
    for (int unsigned j = 0; j < UbLanes; j++) begin
      t_wr_en[j] = wr && con_j_q == 16'(j);
    end
    con_j_d      = con_j_q;
    con_i_d      = con_i_q;
    fb_d         = fb_q;
    full_d       = full_q;
    off_d        = off_q;
    blk_addr_d   = blk_addr_q;
    blk_rows_d   = blk_rows_q;
    blk_lanes_d  = blk_lanes_q;
    blk_target_d = blk_target_q;
    blk_last_d   = blk_last_q;
    pop_o        = 1'b0;
    // The emitter frees a half with the last row of its block.
    if (s1_fire && s1_blk_end_q) full_d[s1_buf_q] = 1'b0;
    if (seg_done_i && head_i.transpose) begin
      off_d[(32'(fb_q) * UbLanes + 32'(con_j_q)) * ElemW +: ElemW] = ElemW'(off_i >> 1);
      if (con_j_q + 1'b1 == head_i.lanes) begin
        // The block is complete: hand it to the emitter, fill the other half.
        full_d[fb_q]                    = 1'b1;
        blk_addr_d[32'(fb_q)*16 +: 16]  = head_i.buf_addr + con_i_q;
        blk_rows_d[32'(fb_q)*16 +: 16]  = block_rows_con;
        blk_lanes_d[32'(fb_q)*16 +: 16] = head_i.lanes;
        blk_target_d[32'(fb_q)*2 +: 2]  = head_i.target;
        blk_last_d[fb_q]                = head_i.rows - con_i_q <= head_trows;
        fb_d    = !fb_q;
        con_j_d = '0;
        con_i_d = con_i_q + head_trows;
        if (head_i.rows - con_i_q <= head_trows) begin
          pop_o   = 1'b1;  // the command's last block: the next command may fill
          con_i_d = '0;
        end
      end else begin
        con_j_d = con_j_q + 1'b1;
      end
    end
  end

  // ----- Emitter: one row of a complete block per cycle, read from every lane's SRAM at the
  // lane's own offset, then presented to the target.
  always_comb begin
    s1_fire = s1_v_q && row_ready_i;
    issue   = full_q[ib_q] && (!s1_v_q || s1_fire);
    t_rd_en = issue;
    for (int unsigned j = 0; j < UbLanes; j++) begin
      // Lane j's element of row ir_q: position offset + ir_q in its segment.
      pos[j*PosW +: PosW]         = PosW'(off_q[(32'(ib_q) * UbLanes + j) * ElemW +: ElemW]) +
                                    PosW'(ir_q);
      t_rd_addr[j*TAw +: TAw]     = TAw'(ib_q ? TSegWords : 0) +
                                    TAw'(pos[j*PosW + ElemW +: PosW - ElemW]);
      s1_elem_d[j*ElemW +: ElemW] = issue ? pos[j*PosW +: ElemW] : s1_elem_q[j*ElemW +: ElemW];
    end
    s1_v_d       = issue || (s1_v_q && !s1_fire);
    s1_addr_d    = s1_addr_q;
    s1_lanes_d   = s1_lanes_q;
    s1_target_d  = s1_target_q;
    s1_blk_end_d = s1_blk_end_q;
    s1_cmd_end_d = s1_cmd_end_q;
    s1_buf_d     = s1_buf_q;
    ib_d         = ib_q;
    ir_d         = ir_q;
    if (issue) begin
      s1_addr_d    = blk_addr_q[32'(ib_q)*16 +: 16] + ir_q;
      s1_lanes_d   = blk_lanes_q[32'(ib_q)*16 +: 16];
      s1_target_d  = blk_target_q[32'(ib_q)*2 +: 2];
      s1_blk_end_d = ir_q + 1'b1 == blk_rows_q[32'(ib_q)*16 +: 16];
      s1_cmd_end_d = s1_blk_end_d && blk_last_q[ib_q];
      s1_buf_d     = ib_q;
      ir_d         = s1_blk_end_d ? '0 : ir_q + 1'b1;
      ib_d         = s1_blk_end_d ? !ib_q : ib_q;
    end
    tdone_d     = s1_fire && s1_cmd_end_q;
    emit_cmds_d = emit_cmds_q + 2'(pop_o) - 2'(tdone_q);
    row_data_o  = '0;
    for (int unsigned j = 0; j < UbLanes; j++) begin
      if (16'(j) < s1_lanes_q) row_data_o[j*16 +: 16] = t_elem[j*16 +: 16];
    end
  end

  // Each lane picks its element out of the beat it read, next to its SRAM (no 4096-bit vector of
  // all the beats: cheaper to simulate, and what the hardware would do).
  for (genvar j = 0; j < UbLanes; j++) begin : gen_tbuf
    logic [BusBits-1:0] rd_word;
    mxu_sram_1r1w #(.Width(BusBits), .Depth(TDepth)) u_lane (
      .clk_i,
      .rd_en_i  (t_rd_en),
      .rd_addr_i(t_rd_addr[j*TAw +: TAw]),
      .rd_data_o(rd_word),
      .wr_en_i  (t_wr_en[j]),
      .wr_addr_i(t_wr_addr),
      .wr_data_i(r_data_i)
    );
    assign t_elem[j*16 +: 16] = rd_word[16*s1_elem_q[j*ElemW +: ElemW] +: 16];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      con_j_q      <= '0;
      con_i_q      <= '0;
      fb_q         <= 1'b0;
      full_q       <= '0;
      off_q        <= '0;
      blk_addr_q   <= '0;
      blk_rows_q   <= '0;
      blk_lanes_q  <= '0;
      blk_target_q <= '0;
      blk_last_q   <= '0;
      ib_q         <= 1'b0;
      ir_q         <= '0;
      s1_v_q       <= 1'b0;
      s1_addr_q    <= '0;
      s1_lanes_q   <= '0;
      s1_target_q  <= '0;
      s1_elem_q    <= '0;
      s1_blk_end_q <= 1'b0;
      s1_cmd_end_q <= 1'b0;
      s1_buf_q     <= 1'b0;
      tdone_q      <= 1'b0;
      emit_cmds_q  <= '0;
    end else begin
      con_j_q      <= con_j_d;
      con_i_q      <= con_i_d;
      fb_q         <= fb_d;
      full_q       <= full_d;
      off_q        <= off_d;
      blk_addr_q   <= blk_addr_d;
      blk_rows_q   <= blk_rows_d;
      blk_lanes_q  <= blk_lanes_d;
      blk_target_q <= blk_target_d;
      blk_last_q   <= blk_last_d;
      ib_q         <= ib_d;
      ir_q         <= ir_d;
      s1_v_q       <= s1_v_d;
      s1_addr_q    <= s1_addr_d;
      s1_lanes_q   <= s1_lanes_d;
      s1_target_q  <= s1_target_d;
      s1_elem_q    <= s1_elem_d;
      s1_blk_end_q <= s1_blk_end_d;
      s1_cmd_end_q <= s1_cmd_end_d;
      s1_buf_q     <= s1_buf_d;
      tdone_q      <= tdone_d;
      emit_cmds_q  <= emit_cmds_d;
    end
  end

`ifndef SYNTHESIS
  // Whether a register or a lane's SRAM would change at the next edge (the gated engine's
  // assertion).
  logic             would_change;
  logic [UbLanes-1:0] lane_changes;
  for (genvar j = 0; j < UbLanes; j++) begin : g_lane_changes
    assign lane_changes[j] = gen_tbuf[j].u_lane.would_change;
  end
  assign would_change =
      lane_changes != '0 || (off_d != off_q) || (s1_elem_d != s1_elem_q) ||
      {con_j_d, con_i_d, fb_d, full_d, blk_addr_d, blk_rows_d, blk_lanes_d, blk_target_d,
       blk_last_d, ib_d, ir_d, s1_v_d, s1_addr_d, s1_lanes_d, s1_target_d, s1_blk_end_d,
       s1_cmd_end_d, s1_buf_d, tdone_d, emit_cmds_d} !=
      {con_j_q, con_i_q, fb_q, full_q, blk_addr_q, blk_rows_q, blk_lanes_q, blk_target_q,
       blk_last_q, ib_q, ir_q, s1_v_q, s1_addr_q, s1_lanes_q, s1_target_q, s1_blk_end_q,
       s1_cmd_end_q, s1_buf_q, tdone_q, emit_cmds_q};
`endif

  assign fill_ready_o = !full_q[fb_q];
  assign row_valid_o  = s1_v_q;
  assign row_target_o = s1_target_q;
  assign row_addr_o   = s1_addr_q;
  assign idle_o       = full_q == 2'b00 && !s1_v_q;
  assign done_o       = tdone_q;
  assign cmds_o       = emit_cmds_q;

  `MXU_ASSERT_STATIC(gen_transpose_rows, TransposeRows >= 1 && TransposeRows <= 2048,
                     "mxu_dma_transpose: TransposeRows must be 1 to 2048 (16-bit counts)")
  // A beat only into a free half; at most two commands handed on (one a half).
  `MXU_ASSERT_NEVER(FillFullHalf, wr && full_q[fb_q], clk_i, rst_ni)
  `MXU_ASSERT(EmitCmdsRange, emit_cmds_q <= 2'd2, clk_i, rst_ni)

  // The beat index's top bit is unused where plain segments are longer than transposed ones.
  logic unused_signals;
  assign unused_signals = ^{beat_i, head_i.int8, head_i.linear, head_i.broadcast, head_i.row_bytes,
                            head_i.first_off};

endmodule
