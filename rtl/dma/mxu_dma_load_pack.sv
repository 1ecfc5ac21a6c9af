// The DMA load engine's consumer (mxu_dma_load): takes the read data of the command at the head of
// the queue, in order, and writes buffer rows.
// - Plain: the beats of a segment are collected, shifted by the segment's byte offset in its
//   first beat and held in the row register as a buffer row.
// - Linear (rows back to back, any length, any alignment): the beats collect in the segment
//   buffer; a row is cut out (at its byte offset in the buffer's first beat) as soon as the beats
//   that hold it are in, and the beats wholly before the next row leave the buffer. A beat of
//   several rows is held while its rows go to the row register one per cycle (the buffer's write
//   port takes one row a cycle), and a beat that ends one row and starts the next serves both.
// - Transposed: the beats go to mxu_dma_transpose (t_*: the beat's index in its segment, the
//   segment's element offset), which hands back whole rows; this block writes them first, and a
//   plain row only once the transpose buffer is idle (its blocks belong to earlier commands).
// int8 (UB and WEIGHTS, plain only): the row register holds one byte per element, each leaving
// sign-extended into its 16-bit lane. Lanes beyond `lanes` are written as zero. A broadcast row
// (stride 0) is held until it has been written as every row of the command.
module mxu_dma_load_pack #(
  parameter int unsigned TransposeRows = mxu_pkg::TransposeRows,
  localparam int unsigned UbLanes     = mxu_pkg::UbLanes,
  localparam int unsigned Cols        = mxu_pkg::ArrayCols,
  localparam int unsigned UbAw        = mxu_pkg::UbAddrWidth,
  localparam int unsigned AccAw       = mxu_pkg::AccAddrWidth,
  localparam int unsigned BusBytes    = mxu_pkg::MemBusBytes,
  localparam int unsigned BusBits     = BusBytes * 8,
  localparam int unsigned BeatShift   = $clog2(BusBytes),
  localparam int unsigned SegBytesMax = mxu_pkg::dma_seg_bytes_max(UbLanes, Cols),
  localparam int unsigned SegBeatsMax = mxu_pkg::dma_seg_beats_max(UbLanes, Cols),
  localparam int unsigned SegBits     = SegBytesMax * 8,
  localparam int unsigned BeatsWidth  = mxu_pkg::dma_beats_width(UbLanes, Cols, TransposeRows)
) (
  input  logic                            clk_i,
  input  logic                            rst_ni,
  // The command at the head of the queue, and the segment at the head of the segment queue.
  input  mxu_pkg::dma_load_q_t            head_i,
  input  logic                            q_empty_i,
  output logic                            plain_done_o,  // the plain head command is done
  input  logic [BeatShift+BeatsWidth-1:0] seg_i,         // {byte offset in the first beat, beats}
  input  logic                            seg_empty_i,
  output logic                            seg_pop_o,
  // Read data.
  input  mxu_pkg::mem_rd_rsp_t            rd_rsp_i,
  output logic                            r_ready_o,
  output logic                            r_fire_o,
  output logic                            error_o,       // the first error response (pulse)
  // The transpose buffer: beats in, rows out.
  input  logic                            t_fill_ready_i,  // the half being filled is free
  output logic                            t_seg_done_o,    // a segment's last beat arrives
  output logic [BeatsWidth-1:0]           t_beat_o,        // the beat's index in its segment
  output logic [BeatShift-1:0]            t_off_o,         // the segment's byte offset
  input  logic                            t_idle_i,
  input  logic                            t_row_valid_i,
  input  logic [1:0]                      t_row_target_i,
  input  logic [15:0]                     t_row_addr_i,
  input  logic [UbLanes*16-1:0]           t_row_data_i,
  output logic                            t_row_ready_o,
  // Buffer write ports.
  output logic                            row_valid_o,
  output mxu_pkg::buf_wr_req_t            buf_req_o,
  input  mxu_pkg::buf_wr_rsp_t            buf_rsp_i
);

  logic [SegBeatsMax*BusBits-1:0] seg_buf_d, seg_buf_q;
  logic [BeatsWidth-1:0] beat_d, beat_q;
  logic                  r_fire, seg_done;
  logic [SegBits-1:0]    seg_data;
  logic                  pending_d, pending_q;     // a plain row waiting to be written
  logic [SegBits-1:0]    pending_data_d, pending_data_q;
  logic [15:0]           written_d, written_q;     // plain: rows of the head command written
  logic [15:0]           rcvd_d, rcvd_q;           // plain: rows of the head command received
  logic                  plain_done, row_fire_plain;
  logic                  error_d, error_q;
  // Linear: the next row's byte offset in the buffer's first beat (beat_q counts the beats in the
  // buffer), the beats that hold it, whether they are all in, and what cutting it out leaves.
  logic [BeatShift-1:0]  lin_off_d, lin_off_q, lin_off;
  logic [18:0]           lin_end;                  // the row's end, in bytes from the first beat
  logic [BeatsWidth-1:0] lin_need, lin_have, lin_used;
  logic                  lin_row_in;              // a whole row waits in the buffer
  logic                  lin_cut;                  // a row is cut out this cycle
  logic [SegBeatsMax*BusBits-1:0] seg_buf_in;      // the buffer with this cycle's beat
  logic                  can_move;                 // the row register is free this cycle
  logic [BeatShift-1:0]  head_off;
  logic [BeatsWidth-1:0] head_beats;
  logic                  r_ready, row_valid, row_fire, target_ready;
  logic [1:0]            out_target;
  logic [15:0]           out_addr;
  logic [SegBits-1:0]    row_bytes;

  // ----- The row to write: the transpose buffer's row first; a plain row only once the
  // transpose buffer is idle.
  always_comb begin
    row_valid = t_row_valid_i || (pending_q && t_idle_i);
    if (t_row_valid_i) begin
      row_bytes  = SegBits'(t_row_data_i);
      out_target = t_row_target_i;
      out_addr   = t_row_addr_i;
    end else begin
      row_bytes = pending_data_q;
      // int8: each byte sign-extended into its lane.
      if (head_i.int8) begin
        for (int unsigned l = 0; l < UbLanes; l++) begin
          row_bytes[l*16 +: 16] = {{8{pending_data_q[l*8+7]}}, pending_data_q[l*8 +: 8]};
        end
      end
      // Lanes at or beyond `lanes` are zero.
      for (int unsigned l = 0; l < SegBytesMax / 2; l++) begin
        if (16'((head_i.target == mxu_isa_pkg::BufAcc) ? l / 2 : l) >= head_i.lanes) begin
          row_bytes[l*16 +: 16] = '0;
        end
      end
      out_target = head_i.target;
      out_addr   = head_i.buf_addr + written_q;
    end
    buf_req_o.ub_en    = row_valid && out_target == mxu_isa_pkg::BufUb;
    buf_req_o.ub_addr  = UbAw'(out_addr);
    buf_req_o.ub_data  = row_bytes[UbLanes*16-1:0];
    buf_req_o.acc_en   = row_valid && out_target == mxu_isa_pkg::BufAcc;
    buf_req_o.acc_addr = AccAw'(out_addr);
    buf_req_o.acc_data = row_bytes[Cols*32-1:0];
    buf_req_o.wf_valid = row_valid && out_target == mxu_isa_pkg::BufWeights;
    buf_req_o.wf_data  = row_bytes[Cols*16-1:0];
  end

  always_comb begin
    unique case (out_target)
      mxu_isa_pkg::BufAcc:     target_ready = buf_rsp_i.acc_gnt;
      mxu_isa_pkg::BufWeights: target_ready = !buf_rsp_i.wf_full;
      default:                 target_ready = buf_rsp_i.ub_gnt;
    endcase
    row_fire       = row_valid && target_ready;
    row_fire_plain = row_fire && !t_row_valid_i;
    can_move       = !pending_q || row_fire_plain;
    // Its own block, reading no response: the request struct must not depend on the response.
    // The head command takes only its own beats: a plain one until all its rows are in, a
    // transposed one while the half being filled is free.
    if (q_empty_i) begin
      r_ready = 1'b0;
    end else if (head_i.transpose) begin
      r_ready = !seg_empty_i && t_fill_ready_i;
    end else begin
      r_ready = (head_i.linear || !seg_empty_i) && rcvd_q != head_i.rows && !lin_row_in &&
                can_move;
    end
  end

  // ----- Linear: where the next row lies in the buffer (its first row at the command's offset).
  always_comb begin
    lin_off     = (rcvd_q == '0) ? BeatShift'(head_i.first_off) : lin_off_q;
    lin_end     = 19'(lin_off) + 19'(head_i.row_bytes);
    lin_need    = BeatsWidth'((lin_end + 19'(BusBytes - 1)) >> BeatShift);
    lin_used    = BeatsWidth'(lin_end >> BeatShift);  // beats wholly before the next row
    lin_row_in = head_i.linear && !q_empty_i && rcvd_q != head_i.rows && beat_q >= lin_need;
  end

  // ----- Collect the beats of the segment at the head.
  always_comb begin
    if (!head_i.linear) begin
      head_off = seg_i[BeatsWidth +: BeatShift];
    end else begin
      head_off = lin_off;
    end
    head_beats = seg_i[BeatsWidth-1:0];
    r_fire     = rd_rsp_i.r_valid && r_ready;
    seg_done   = r_fire && !head_i.linear && (beat_q + 1'b1 == head_beats);
    seg_buf_in = seg_buf_q;
    for (int unsigned b = 0; b < SegBeatsMax; b++) begin
      if (r_fire && !head_i.transpose && beat_q == BeatsWidth'(b)) begin
        seg_buf_in[b*BusBits +: BusBits] = rd_rsp_i.r.data;
      end
    end
    seg_data = SegBits'(seg_buf_in >> {head_off, 3'b000});
    error_d  = error_q || (r_fire && rd_rsp_i.r.resp != 2'b00);
    // Linear: a row is cut out once its beats are in and the row register is free; the beats
    // wholly before the next row leave the buffer.
    lin_have = beat_q + BeatsWidth'(r_fire);
    lin_cut  = head_i.linear && !q_empty_i && rcvd_q != head_i.rows && can_move &&
               lin_have >= lin_need;
    seg_buf_d = seg_buf_in;
    if (lin_cut) begin
      for (int unsigned b = 0; b < SegBeatsMax; b++) begin
        seg_buf_d[b*BusBits +: BusBits] = '0;
        for (int unsigned u = 0; u < SegBeatsMax - b; u++) begin
          if (lin_used == BeatsWidth'(u)) seg_buf_d[b*BusBits +: BusBits] =
              seg_buf_in[(b+u)*BusBits +: BusBits];
        end
      end
    end
    if (head_i.linear) begin
      beat_d    = lin_cut ? lin_have - lin_used : lin_have;
      lin_off_d = lin_cut ? BeatShift'(lin_end) : lin_off_q;  // read only once a row is cut
    end else begin
      beat_d    = r_fire ? (seg_done ? '0 : beat_q + 1'b1) : beat_q;
      lin_off_d = lin_off_q;
    end

    // A broadcast row stays pending until it has been written as every row of the command.
    pending_d      = pending_q && !(row_fire_plain &&
                                    (!head_i.broadcast || written_q + 1'b1 == head_i.rows));
    pending_data_d = pending_data_q;
    written_d      = written_q;
    rcvd_d         = rcvd_q;
    plain_done     = !q_empty_i && !head_i.transpose && written_q == head_i.rows;
    if (row_fire_plain) written_d = written_q + 1'b1;
    if ((seg_done && !head_i.transpose) || lin_cut) begin
      pending_d      = 1'b1;
      pending_data_d = seg_data;
      rcvd_d         = head_i.broadcast ? head_i.rows : rcvd_q + 1'b1;
    end
    if (plain_done) begin
      written_d = '0;
      rcvd_d    = '0;
      beat_d    = '0;  // a linear command's last beat may end past its last row
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      // Beat by beat: one '0 of the whole buffer is a replication of over 8k bits on arrays with
      // 256 or more lanes (Verilator's WIDTHCONCAT).
      for (int unsigned b = 0; b < SegBeatsMax; b++) begin
        seg_buf_q[b*BusBits +: BusBits] <= '0;
      end
      beat_q         <= '0;
      pending_q      <= 1'b0;
      pending_data_q <= '0;
      written_q      <= '0;
      rcvd_q         <= '0;
      error_q        <= 1'b0;
      lin_off_q      <= '0;
    end else begin
      seg_buf_q      <= seg_buf_d;
      beat_q         <= beat_d;
      pending_q      <= pending_d;
      pending_data_q <= pending_data_d;
      written_q      <= written_d;
      rcvd_q         <= rcvd_d;
      error_q        <= error_d;
      lin_off_q      <= lin_off_d;
    end
  end

`ifndef SYNTHESIS
  // Whether a register would take a new value at the next edge (the gated engine's assertion).
  logic would_change;
  assign would_change = (seg_buf_d != seg_buf_q) || (pending_data_d != pending_data_q) ||
                        {beat_d, pending_d, written_d, rcvd_d, error_d, lin_off_d} !=
                        {beat_q, pending_q, written_q, rcvd_q, error_q, lin_off_q};
`endif

  assign plain_done_o  = plain_done;
  assign seg_pop_o     = seg_done && !head_i.linear;
  assign r_ready_o     = r_ready;
  assign r_fire_o      = r_fire;
  assign error_o       = r_fire && rd_rsp_i.r.resp != 2'b00 && !error_q;
  assign t_seg_done_o  = seg_done;
  assign t_beat_o      = beat_q;
  assign t_off_o       = head_off;
  assign t_row_ready_o = target_ready;
  assign row_valid_o   = row_valid;

  logic unused_signals;
  assign unused_signals = ^{head_i.short_blk, rd_rsp_i.ar_ready, rd_rsp_i.r.id, rd_rsp_i.r.last,
                            out_addr};

endmodule
