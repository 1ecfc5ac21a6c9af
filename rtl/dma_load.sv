// DMA load engine: host memory -> unified buffer, accumulators or weight FIFO (LOAD, docs/isa.md).
//
// A command is cut into segments, each a contiguous run of elements in host memory: one buffer
// row (plain), or one column of a block of up to BlockRows buffer rows (transposed). A segment is
// requested as INCR bursts of whole bus beats (split at 4 KiB boundaries and at 16 beats), with
// up to MemMaxInFlight bursts outstanding. Responses arrive in order; the beats of a segment are
// collected, shifted by the segment's byte offset in its first beat, and either written as a
// buffer row or, transposed, into one column of the transpose buffer, whose rows are written out
// once the block is complete. Lanes beyond `lanes` are written as zero. The command must be legal
// (the controller checks it).
//
// Linear mode: when the rows are whole, bus-aligned beats packed back to back in host memory
// (stride = row length), the transfer is one stream of bursts of up to 16 beats that ignore row
// boundaries, so short rows still move at full bandwidth.
module dma_load #(
  parameter int unsigned UbLanes  = mxu_pkg::ArrayRows,
  parameter int unsigned Cols     = mxu_pkg::ArrayCols,
  parameter int unsigned UbDepth  = mxu_pkg::UbDepth,
  parameter int unsigned AccDepth = mxu_pkg::AccDepth,
  localparam int unsigned AddrWidth   = mxu_pkg::MemAddrWidth,
  localparam int unsigned BusBytes    = mxu_pkg::MemBusBytes,
  localparam int unsigned BusBits     = BusBytes * 8,
  localparam int unsigned MaxInFlight = mxu_pkg::MemMaxInFlight,
  localparam int unsigned UbAw        = (UbDepth > 1) ? $clog2(UbDepth) : 1,
  localparam int unsigned AccAw       = (AccDepth > 1) ? $clog2(AccDepth) : 1,
  localparam int unsigned BlockRows   = UbLanes,
  localparam int unsigned SegBytesMax = (UbLanes * 2 > Cols * 4) ? UbLanes * 2 : Cols * 4,
  localparam int unsigned SegBeatsMax = (SegBytesMax + 2 * BusBytes - 2) / BusBytes,
  localparam int unsigned BeatsWidth  = $clog2(SegBeatsMax + 1),
  localparam int unsigned SegBits     = SegBytesMax * 8
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // Command.
  input  logic                   cmd_valid_i,
  output logic                   cmd_ready_o,
  input  logic [1:0]             cmd_target_i,
  input  logic                   cmd_transpose_i,
  input  logic [15:0]            cmd_rows_i,
  input  logic [15:0]            cmd_lanes_i,
  input  logic [15:0]            cmd_buf_addr_i,
  input  logic [AddrWidth-1:0]   cmd_host_addr_i,
  input  logic [15:0]            cmd_stride_i,
  output logic                   done_o,
  output logic                   busy_o,
  output logic                   stall_o,
  output logic                   error_o,
  output logic [AddrWidth-1:0]   error_addr_o,
  // Read address and (routed) read data channels.
  output logic                   ar_valid_o,
  input  logic                   ar_ready_i,
  output logic [AddrWidth-1:0]   ar_addr_o,
  output logic [7:0]             ar_len_o,
  input  logic                   r_valid_i,
  output logic                   r_ready_o,
  input  logic [BusBits-1:0]     r_data_i,
  input  logic                   r_last_i,
  input  logic [1:0]             r_resp_i,
  // Buffer write ports.
  output logic                   ub_wr_en_o,
  output logic [UbAw-1:0]        ub_wr_addr_o,
  output logic [UbLanes*16-1:0]  ub_wr_data_o,
  input  logic                   ub_wr_gnt_i,
  output logic                   acc_wr_en_o,
  output logic [AccAw-1:0]       acc_wr_addr_o,
  output logic [Cols*32-1:0]     acc_wr_data_o,
  input  logic                   acc_wr_gnt_i,
  output logic                   wf_push_o,
  output logic [Cols*16-1:0]     wf_data_o,
  input  logic                   wf_full_i
);

  // ---------------------------------------------------------------------------------- command
  logic                 active_d, active_q;
  logic [1:0]           target_d, target_q;
  logic                 transpose_d, transpose_q;
  logic [15:0]          rows_d, rows_q, lanes_d, lanes_q;
  logic [19:0]          stride_bytes_d, stride_bytes_q;
  logic                 wide_d, wide_q;  // fp32 elements (ACC)

  // -------------------------------------------------------------------- address generator
  logic                 gen_active_d, gen_active_q;
  logic [15:0]          gen_i_d, gen_i_q;          // row (plain) or block start (transposed)
  logic [15:0]          gen_j_d, gen_j_q;          // column within the block (transposed)
  logic [AddrWidth-1:0] seg_addr_d, seg_addr_q;    // first byte of the current segment
  logic [AddrWidth-1:0] block_addr_d, block_addr_q;
  logic                 seg_started_d, seg_started_q;
  logic [AddrWidth-1:0] burst_addr_q;
  logic [BeatsWidth-1:0] beats_left_d, beats_left_q;
  logic [17:0]          seg_bytes;
  logic [15:0]          block_rows_gen;
  logic [BeatsWidth-1:0] seg_beats, beats_left;
  logic [7:0]           burst_beats;
  logic [AddrWidth-1:0] next_burst_addr;
  logic [7:0]           beats_to_4k;
  logic                 ar_fire, seg_last_burst;
  logic                 linear_d, linear_q;
  logic [19:0]          lin_left_d, lin_left_q, lin_left_n;  // beats still to request
  logic [AddrWidth-1:0] burst_addr_n, burst_addr_sel;
  logic [BeatsWidth-1:0] lin_row_beats_d, lin_row_beats_q;
  logic [17:0]          cmd_row_bytes;

  // Metadata of bursts (address, for errors) and segments (offset, beats) in flight.
  logic                 burst_full, burst_empty;
  logic [AddrWidth-1:0] burst_head;
  logic                 seg_full, seg_empty;
  logic [5+BeatsWidth-1:0] seg_head;
  logic [4:0]           head_off;
  logic [BeatsWidth-1:0] head_beats;
  logic [$clog2(MaxInFlight+1)-1:0] bursts_in_flight, segs_in_flight;

  // ------------------------------------------------------------------------------- consumer
  logic [SegBeatsMax*BusBits-1:0] seg_buf_d, seg_buf_q;
  logic [BeatsWidth-1:0] beat_d, beat_q;
  logic                 r_fire, seg_done;
  logic [SegBytesMax*8-1:0] seg_data;
  logic                 pending_d, pending_q;     // a plain row waiting to be written
  logic [SegBytesMax*8-1:0] pending_data_d, pending_data_q;
  logic [15:0]          written_d, written_q;      // buffer rows written
  logic [15:0]          buf_addr_d, buf_addr_q;
  logic [15:0]          con_j_d, con_j_q;          // transposed: column being filled
  logic [15:0]          con_i_d, con_i_q;          // transposed: block start
  logic                 emitting_d, emitting_q;
  logic [15:0]          emit_r_d, emit_r_q;
  logic [15:0]          block_rows_con;
  logic [BlockRows*UbLanes*16-1:0] tbuf_d, tbuf_q;
  logic                 row_valid, row_fire, target_ready;
  logic [SegBytesMax*8-1:0] row_bytes;
  logic                 error_d, error_q;

  logic                 accept;
  // Generator and consumer state as they would advance without a new command.
  logic                 gen_active_n, seg_started_n;
  logic [15:0]          gen_i_n, gen_j_n, written_n, buf_addr_n, con_i_n, con_j_n;
  logic [AddrWidth-1:0] seg_addr_n, block_addr_n;

  assign cmd_ready_o = !active_q;
  assign accept      = cmd_valid_i && cmd_ready_o;

  // ----- Address generator: the bursts of the current segment, then the next segment.
  always_comb begin
    block_rows_gen = (rows_q - gen_i_q > 16'(BlockRows)) ? 16'(BlockRows) : rows_q - gen_i_q;
    seg_bytes      = transpose_q ? {1'b0, block_rows_gen, 1'b0}
                                 : (wide_q ? {lanes_q, 2'b00} : {1'b0, lanes_q, 1'b0});
    seg_beats      = BeatsWidth'((18'(seg_addr_q[4:0]) + seg_bytes + 18'(BusBytes - 1)) >> 5);
    next_burst_addr = (seg_started_q || linear_q) ? burst_addr_q
                                                  : {seg_addr_q[AddrWidth-1:5], 5'd0};
    beats_left     = seg_started_q ? beats_left_q : seg_beats;
    beats_to_4k    = 8'd128 - 8'(next_burst_addr[11:5]);  // 128 beats per 4 KiB
    burst_beats    = linear_q ? ((lin_left_q > 20'd16) ? 8'd16 : 8'(lin_left_q))
                              : 8'(beats_left);
    if (burst_beats > beats_to_4k) burst_beats = beats_to_4k;
    if (burst_beats > 8'd16) burst_beats = 8'd16;

    ar_valid_o     = gen_active_q && !burst_full && (linear_q || seg_started_q || !seg_full);
    ar_addr_o      = next_burst_addr;
    ar_len_o       = burst_beats - 8'd1;
  end

  always_comb begin
    ar_fire        = ar_valid_o && ar_ready_i;
    seg_last_burst = (burst_beats == 8'(beats_left));

    gen_active_n  = gen_active_q;
    gen_i_n       = gen_i_q;
    gen_j_n       = gen_j_q;
    seg_addr_n    = seg_addr_q;
    block_addr_n  = block_addr_q;
    seg_started_n = seg_started_q;
    burst_addr_n  = burst_addr_q;
    beats_left_d  = beats_left_q;
    lin_left_n    = lin_left_q;
    if (ar_fire && linear_q) begin
      burst_addr_n = next_burst_addr + AddrWidth'({burst_beats, 5'd0});
      lin_left_n   = lin_left_q - 20'(burst_beats);
      if (lin_left_q == 20'(burst_beats)) gen_active_n = 1'b0;
    end else if (ar_fire) begin
      if (!seg_last_burst) begin
        seg_started_n = 1'b1;
        burst_addr_n  = next_burst_addr + AddrWidth'({burst_beats, 5'd0});
        beats_left_d  = beats_left - BeatsWidth'(burst_beats);
      end else begin
        seg_started_n = 1'b0;
        if (!transpose_q) begin
          seg_addr_n = seg_addr_q + AddrWidth'(stride_bytes_q);
          gen_i_n    = gen_i_q + 1'b1;
          if (gen_i_q + 1'b1 == rows_q) gen_active_n = 1'b0;
        end else if (gen_j_q + 1'b1 != lanes_q) begin
          gen_j_n    = gen_j_q + 1'b1;
          seg_addr_n = seg_addr_q + AddrWidth'(stride_bytes_q);
        end else begin
          gen_j_n      = '0;
          gen_i_n      = gen_i_q + 16'(BlockRows);
          block_addr_n = block_addr_q + AddrWidth'(2 * BlockRows);
          seg_addr_n   = block_addr_q + AddrWidth'(2 * BlockRows);
          if (block_rows_gen != 16'(BlockRows) || gen_i_q + 16'(BlockRows) == rows_q) begin
            gen_active_n = 1'b0;
          end
        end
      end
    end
  end

  // ----- The row to write: a plain row waiting, or the transposed row being emitted.
  always_comb begin
    row_valid = pending_q || emitting_q;
    row_bytes = '0;
    if (emitting_q) begin
      // Row emit_r_q of the transpose buffer (a decoded select: constant indices only).
      for (int unsigned r = 0; r < BlockRows; r++) begin
        if (emit_r_q == 16'(r)) row_bytes[UbLanes*16-1:0] = tbuf_q[r*UbLanes*16 +: UbLanes*16];
      end
    end else begin
      row_bytes = pending_data_q;
    end
    // Lanes at or beyond `lanes` are zero.
    for (int unsigned l = 0; l < SegBytesMax / 2; l++) begin
      if (16'(wide_q ? l / 2 : l) >= lanes_q) row_bytes[l*16 +: 16] = '0;
    end
    ub_wr_en_o    = row_valid && target_q == mxu_isa_pkg::BufUb;
    ub_wr_addr_o  = UbAw'(buf_addr_q);
    ub_wr_data_o  = row_bytes[UbLanes*16-1:0];
    acc_wr_en_o   = row_valid && target_q == mxu_isa_pkg::BufAcc;
    acc_wr_addr_o = AccAw'(buf_addr_q);
    acc_wr_data_o = row_bytes[Cols*32-1:0];
    wf_push_o     = row_valid && target_q == mxu_isa_pkg::BufWeights && !wf_full_i;
    wf_data_o     = row_bytes[Cols*16-1:0];
  end

  always_comb begin
    unique case (target_q)
      mxu_isa_pkg::BufAcc:     target_ready = acc_wr_gnt_i;
      mxu_isa_pkg::BufWeights: target_ready = !wf_full_i;
      default:             target_ready = ub_wr_gnt_i;
    endcase
    row_fire = row_valid && target_ready;
  end

  // ----- Consumer: collect the beats of the segment at the head, hand over complete segments.
  always_comb begin
    head_off       = linear_q ? 5'd0 : seg_head[BeatsWidth +: 5];
    head_beats     = linear_q ? lin_row_beats_q : seg_head[BeatsWidth-1:0];
    block_rows_con = (rows_q - con_i_q > 16'(BlockRows)) ? 16'(BlockRows) : rows_q - con_i_q;
    r_ready_o      = active_q && (linear_q || !seg_empty) && !emitting_q &&
                     (!pending_q || row_fire);
    r_fire         = r_valid_i && r_ready_o;
    seg_done       = r_fire && (beat_q + 1'b1 == head_beats);
    seg_buf_d      = seg_buf_q;
    beat_d         = beat_q;
    for (int unsigned b = 0; b < SegBeatsMax; b++) begin
      if (r_fire && beat_q == BeatsWidth'(b)) seg_buf_d[b*BusBits +: BusBits] = r_data_i;
    end
    if (r_fire) beat_d = seg_done ? '0 : beat_q + 1'b1;
    seg_data = SegBits'(seg_buf_d >> {head_off, 3'b000});
    error_d  = error_q || (r_fire && r_resp_i != 2'b00);

    pending_d      = pending_q && !row_fire;
    pending_data_d = pending_data_q;
    written_n      = written_q;
    buf_addr_n     = buf_addr_q;
    con_j_n        = con_j_q;
    con_i_n        = con_i_q;
    emitting_d     = emitting_q;
    emit_r_d       = emit_r_q;
    tbuf_d         = tbuf_q;
    if (row_fire) begin
      written_n  = written_q + 1'b1;
      buf_addr_n = buf_addr_q + 1'b1;
      if (emitting_q) begin
        emit_r_d = emit_r_q + 1'b1;
        if (emit_r_q + 1'b1 == block_rows_con) begin
          emitting_d = 1'b0;
          emit_r_d   = '0;
          con_i_n    = con_i_q + 16'(BlockRows);
        end
      end
    end
    if (seg_done) begin
      if (!transpose_q) begin
        pending_d      = 1'b1;
        pending_data_d = seg_data;
      end else begin
        // Column con_j_q of the transpose buffer (decoded, constant indices).
        for (int unsigned r = 0; r < BlockRows; r++) begin
          for (int unsigned j = 0; j < UbLanes; j++) begin
            if (con_j_q == 16'(j)) tbuf_d[(r*UbLanes + j)*16 +: 16] = seg_data[r*16 +: 16];
          end
        end
        if (con_j_q + 1'b1 == lanes_q) begin
          con_j_n    = '0;
          emitting_d = 1'b1;
        end else begin
          con_j_n = con_j_q + 1'b1;
        end
      end
    end
  end

  // ----- Command accept and completion.
  always_comb begin
    done_o         = active_q && written_q == rows_q && !gen_active_q;
    active_d       = (active_q && !done_o) || accept;
    target_d       = accept ? cmd_target_i : target_q;
    transpose_d    = accept ? cmd_transpose_i : transpose_q;
    rows_d         = accept ? cmd_rows_i : rows_q;
    lanes_d        = accept ? cmd_lanes_i : lanes_q;
    wide_d         = accept ? cmd_target_i == mxu_isa_pkg::BufAcc : wide_q;
    stride_bytes_d = stride_bytes_q;
    if (accept) begin
      stride_bytes_d = (cmd_target_i == mxu_isa_pkg::BufAcc) ? {2'b00, cmd_stride_i, 2'b00}
                                                         : {3'b000, cmd_stride_i, 1'b0};
    end
    // Linear mode: plain rows of whole aligned beats, packed back to back.
    cmd_row_bytes   = (cmd_target_i == mxu_isa_pkg::BufAcc) ? {cmd_lanes_i, 2'b00}
                                                        : {1'b0, cmd_lanes_i, 1'b0};
    linear_d        = accept ? (!cmd_transpose_i && cmd_host_addr_i[4:0] == '0 &&
                                cmd_row_bytes[4:0] == '0 &&
                                20'(cmd_row_bytes) == 20'(stride_bytes_d)) : linear_q;
    lin_row_beats_d = accept ? BeatsWidth'(cmd_row_bytes[17:5]) : lin_row_beats_q;
    lin_left_d      = accept ? 20'(cmd_rows_i) * 20'(cmd_row_bytes[17:5]) : lin_left_n;
    burst_addr_sel  = accept ? cmd_host_addr_i : burst_addr_n;
    gen_active_d   = accept ? 1'b1 : gen_active_n;
    gen_i_d        = accept ? '0 : gen_i_n;
    gen_j_d        = accept ? '0 : gen_j_n;
    seg_addr_d     = accept ? cmd_host_addr_i : seg_addr_n;
    block_addr_d   = accept ? cmd_host_addr_i : block_addr_n;
    seg_started_d  = accept ? 1'b0 : seg_started_n;
    written_d      = accept ? '0 : written_n;
    buf_addr_d     = accept ? cmd_buf_addr_i : buf_addr_n;
    con_i_d        = accept ? '0 : con_i_n;
    con_j_d        = accept ? '0 : con_j_n;
  end

  sync_fifo #(.Width(AddrWidth), .Depth(MaxInFlight)) u_bursts (
    .clk_i,
    .rst_ni,
    .push_i (ar_fire),
    .wdata_i(next_burst_addr),
    .full_o (burst_full),
    .pop_i  (r_fire && r_last_i),
    .rdata_o(burst_head),
    .empty_o(burst_empty),
    .count_o(bursts_in_flight)
  );

  sync_fifo #(.Width(5 + BeatsWidth), .Depth(MaxInFlight)) u_segments (
    .clk_i,
    .rst_ni,
    .push_i (ar_fire && !seg_started_q),
    .wdata_i({seg_addr_q[4:0], seg_beats}),
    .full_o (seg_full),
    .pop_i  (seg_done),
    .rdata_o(seg_head),
    .empty_o(seg_empty),
    .count_o(segs_in_flight)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q       <= 1'b0;
      target_q       <= '0;
      transpose_q    <= 1'b0;
      rows_q         <= '0;
      lanes_q        <= '0;
      stride_bytes_q <= '0;
      wide_q         <= 1'b0;
      gen_active_q   <= 1'b0;
      gen_i_q        <= '0;
      gen_j_q        <= '0;
      seg_addr_q     <= '0;
      block_addr_q   <= '0;
      seg_started_q  <= 1'b0;
      burst_addr_q   <= '0;
      linear_q       <= 1'b0;
      lin_left_q     <= '0;
      lin_row_beats_q <= '0;
      beats_left_q   <= '0;
      seg_buf_q      <= '0;
      beat_q         <= '0;
      pending_q      <= 1'b0;
      pending_data_q <= '0;
      written_q      <= '0;
      buf_addr_q     <= '0;
      con_j_q        <= '0;
      con_i_q        <= '0;
      emitting_q     <= 1'b0;
      emit_r_q       <= '0;
      tbuf_q         <= '0;
      error_q        <= 1'b0;
    end else begin
      active_q       <= active_d;
      target_q       <= target_d;
      transpose_q    <= transpose_d;
      rows_q         <= rows_d;
      lanes_q        <= lanes_d;
      stride_bytes_q <= stride_bytes_d;
      wide_q         <= wide_d;
      gen_active_q   <= gen_active_d;
      gen_i_q        <= gen_i_d;
      gen_j_q        <= gen_j_d;
      seg_addr_q     <= seg_addr_d;
      block_addr_q   <= block_addr_d;
      seg_started_q  <= seg_started_d;
      burst_addr_q   <= burst_addr_sel;
      linear_q       <= linear_d;
      lin_left_q     <= lin_left_d;
      lin_row_beats_q <= lin_row_beats_d;
      beats_left_q   <= beats_left_d;
      seg_buf_q      <= seg_buf_d;
      beat_q         <= beat_d;
      pending_q      <= pending_d;
      pending_data_q <= pending_data_d;
      written_q      <= written_d;
      buf_addr_q     <= buf_addr_d;
      con_j_q        <= con_j_d;
      con_i_q        <= con_i_d;
      emitting_q     <= emitting_d;
      emit_r_q       <= emit_r_d;
      tbuf_q         <= tbuf_d;
      error_q        <= error_d;
    end
  end

  // The first error response stops the device; the burst it belongs to names the address.
  assign error_o      = r_fire && r_resp_i != 2'b00 && !error_q;
  assign error_addr_o = burst_head;
  assign busy_o       = active_q;
  // Waiting on memory: busy, nothing requested and no data arriving this cycle.
  assign stall_o      = active_q && !ar_fire && !r_fire && !row_valid;

  logic unused_signals;
  assign unused_signals = ^{burst_empty, bursts_in_flight, segs_in_flight};

endmodule
