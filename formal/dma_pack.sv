`ifdef FORMAL
`include "harness.svh"

// Proof harness: the DMA load engine's consumer (mxu_dma_load_pack, the block between the memory
// read responses and the buffer write port) loses, duplicates and reorders no beat of a plain
// LOAD into the unified buffer. The command at the head of the queue and the segment queue (one
// segment a buffer row: one beat at offset 0, or two beats at a byte offset) are modelled by the
// harness, and held until the block pops them; responses and write grants come freely. The
// harness collects each segment's beats as the block takes them (r_valid && r_ready) and cuts the
// row from the segment's offset on; a row chosen freely (track_i) must be written unchanged at
// buf_addr + its index, by the write after exactly the rows before it. Every write is at
// buf_addr + (rows written so far) and of a row already received, no beat is taken beyond the
// command's rows, and the command is done exactly when all its rows are written.
// Method: k-induction, with invariants over the block's counts and row registers. The device
// (mxu_pkg's defines, run.sh): bus 16 bytes, 8 x 4 array (8 UB lanes: one buffer row a beat),
// 64-row buffers.
module dma_pack (
  input logic         clk_i,
  input logic         rst_ni,
  input logic         new_cmd_i,   // a LOAD reaches the head of the queue
  input logic [1:0]   new_rows_i,
  input logic [15:0]  new_addr_i,
  input logic         new_seg_i,   // a segment reaches the head of the segment queue
  input logic [3:0]   new_off_i,
  input logic         r_valid_i,
  input logic [127:0] r_data_i,
  input logic [2:0]   r_misc_i,    // id, last: not read by the block
  input logic         ub_gnt_i,
  input logic         acc_gnt_i,
  input logic         wf_full_i,
  input logic         t_fill_ready_i,
  input logic         track_i
);
  localparam int unsigned BusBits = mxu_pkg::MemBusBits;
  localparam int unsigned UbLanes = mxu_pkg::UbLanes;
  localparam int unsigned UbAw    = mxu_pkg::UbAddrWidth;

  `MXU_FORMAL_RESET_FIRST(clk_i, rst_ni)

  // The head command: a plain LOAD of 1 .. 3 rows into the UB, every lane.
  logic        cmd_valid_q;
  logic [1:0]  rows_q;
  logic [15:0] addr_q;
  // The head segment: {byte offset, beats}.
  logic        seg_valid_q;
  logic [3:0]  off_q;
  logic [1:0]  beats_q;

  mxu_pkg::dma_load_q_t head;
  mxu_pkg::mem_rd_rsp_t rsp;
  assign head = {mxu_isa_pkg::BufUb, 1'b0, 1'b0, 1'b0, 1'b0, 1'b0, 18'd0, 10'd0,
                 16'(rows_q), 16'(UbLanes), addr_q};
  assign rsp  = {1'b0, r_valid_i, r_data_i, r_misc_i, 2'b00};

  logic                plain_done, seg_pop, r_ready, r_fire, error, t_seg_done, row_valid;
  logic [1:0]          t_beat;
  logic [3:0]          t_off;
  logic                t_row_ready;
  mxu_pkg::buf_wr_req_t wr;
  mxu_pkg::buf_wr_rsp_t wr_rsp;
  assign wr_rsp = {ub_gnt_i, acc_gnt_i, wf_full_i};

  mxu_dma_load_pack #(.TransposeRows(16)) dut (
    .clk_i, .rst_ni, .head_i(head), .q_empty_i(!cmd_valid_q), .plain_done_o(plain_done),
    .seg_i({off_q, beats_q}), .seg_empty_i(!seg_valid_q), .seg_pop_o(seg_pop), .rd_rsp_i(rsp),
    .r_ready_o(r_ready), .r_fire_o(r_fire), .error_o(error), .t_fill_ready_i,
    .t_seg_done_o(t_seg_done), .t_beat_o(t_beat), .t_off_o(t_off), .t_idle_i(1'b1),
    .t_row_valid_i(1'b0), .t_row_target_i(2'd0), .t_row_addr_i(16'd0), .t_row_data_i('0),
    .t_row_ready_o(t_row_ready), .row_valid_o(row_valid), .buf_req_o(wr), .buf_rsp_i(wr_rsp)
  );

  // Connected by run.sh (connect -set) to the block's registers, for the induction's invariants.
  logic [1:0]           probe_beat;
  logic [15:0]          probe_written, probe_rcvd;
  logic [3:0]           probe_lin_off;  // the linear path's offset: untouched by plain commands
  logic                 probe_pending;
  logic [BusBits-1:0]   probe_pending_data;
  logic [2*BusBits-1:0] probe_seg_buf;

  logic unused;
  assign unused = ^{error, t_seg_done, t_beat, t_off, t_row_ready, row_valid, wr.acc_addr,
                    wr.acc_data, wr.wf_data};

  // The harness's view: beats of the head segment, rows received and written.
  logic [1:0]           beat_q, rcvd_q, written_q;
  logic [2*BusBits-1:0] buf_q, buf_d;
  logic [BusBits-1:0]   row;
  logic                 seg_end, wr_fire;
  // The tracked row: its index in the command and its contents.
  logic                 held_q;
  logic [1:0]           idx_q;
  logic [BusBits-1:0]   value_q;

  always_comb begin
    buf_d = buf_q;
    buf_d[beat_q*BusBits +: BusBits] = r_data_i;
    row     = BusBits'(buf_d >> {off_q, 3'b000});
    seg_end = r_fire && beat_q + 1'b1 == beats_q;
    wr_fire = wr.ub_en && ub_gnt_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cmd_valid_q <= 1'b0; rows_q <= '0; addr_q <= '0;
      seg_valid_q <= 1'b0; off_q <= '0; beats_q <= '0;
      beat_q <= '0; rcvd_q <= '0; written_q <= '0; buf_q <= '0;
      held_q <= 1'b0; idx_q <= '0; value_q <= '0;
    end else begin
      if (!cmd_valid_q && new_cmd_i) begin
        cmd_valid_q <= 1'b1; rows_q <= new_rows_i; addr_q <= new_addr_i;
      end
      if (plain_done) cmd_valid_q <= 1'b0;
      // The next segment may follow at once.
      if ((!seg_valid_q || seg_pop) && new_seg_i) begin
        seg_valid_q <= 1'b1; off_q <= new_off_i; beats_q <= (new_off_i == '0) ? 2'd1 : 2'd2;
      end else if (seg_pop) begin
        seg_valid_q <= 1'b0;
      end
      if (r_fire) begin
        buf_q  <= buf_d;
        beat_q <= seg_end ? '0 : beat_q + 1'b1;
      end
      if (seg_end) begin
        rcvd_q <= rcvd_q + 1'b1;
        if (track_i && !held_q) begin
          held_q <= 1'b1; idx_q <= rcvd_q; value_q <= row;
        end
      end
      if (wr_fire) begin
        written_q <= written_q + 1'b1;
        if (held_q && written_q == idx_q) held_q <= 1'b0;
      end
      if (plain_done) begin
        rcvd_q <= '0; written_q <= '0;
      end
    end
  end

  always_comb begin
    assume (new_rows_i != '0);
    if (rst_ni) begin
      assert (!wr.acc_en && !wr.wf_valid);
      if (r_fire) assert (cmd_valid_q && rcvd_q < rows_q);  // no beat beyond the rows
      assert (seg_pop == seg_end);                          // a segment per row
      if (wr_fire) begin
        assert (written_q < rcvd_q);                        // only rows received, once each
        assert (wr.ub_addr == UbAw'(addr_q + 16'(written_q)));  // in order
        if (held_q && written_q == idx_q) assert (wr.ub_data == value_q);  // unchanged
      end
      if (plain_done) assert (written_q == rows_q && !held_q);  // every row written
      // Invariants: the block's counts are the harness's; one row at most waits in the row
      // register (the tracked one, if held); the segment's first beat is kept while the second
      // is awaited.
      assert (probe_beat == beat_q && probe_written == 16'(written_q) &&
              probe_rcvd == 16'(rcvd_q) && probe_lin_off == '0);
      if (seg_valid_q) assert (beat_q < beats_q && beats_q == ((off_q == '0) ? 2'd1 : 2'd2));
      else assert (beat_q == '0);
      assert (written_q <= rcvd_q && rcvd_q <= rows_q && rcvd_q - written_q <= 2'd1);
      if (!cmd_valid_q) assert (rcvd_q == '0 && beat_q == '0);
      if (cmd_valid_q) assert (rows_q != '0);
      assert (probe_pending == (rcvd_q != written_q));
      if (beat_q != '0) assert (cmd_valid_q && rcvd_q < rows_q &&
                                probe_seg_buf[BusBits-1:0] == buf_q[BusBits-1:0]);
      if (held_q) assert (idx_q == written_q && probe_pending && probe_pending_data == value_q);
    end
  end
endmodule
`endif  // FORMAL
