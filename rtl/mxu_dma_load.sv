// DMA load engine: host memory -> unified buffer, accumulators or weight FIFO (LOAD, docs/isa.md).
//
// Two halves joined by an in-order command queue of QueueDepth LOADs:
// - the address generator takes a command, cuts it into segments, each a contiguous run of
//   elements in host memory: one buffer row (plain), or one host row's run of up to TransposeRows
//   elements, a column of a block of TransposeRows buffer rows (transposed), and requests each as
//   INCR bursts of whole bus beats (split at 4 KiB boundaries and at 16 beats), with up to
//   MemMaxInFlight bursts outstanding. It takes the next command as soon as it has requested
//   every burst of the current one (and fewer than QueueDepth commands are in flight);
// - the consumer works through the queue in order. Plain: the beats of a segment are collected,
//   shifted by the segment's byte offset in its first beat and written as a buffer row.
//   Transposed: each beat is written as it comes into the transpose buffer, one SRAM per lane
//   (host row) holding a segment's beats; when every lane of a block is in, the block goes to the
//   emitter, which reads one buffer row per cycle (one element of every lane, at the lane's own
//   offset: host rows need not be aligned alike), while the consumer fills the other half of the
//   double buffer with the next block, of this command or the next.
// Lanes beyond `lanes` are written as zero. status_o.done pulses once per command, in order. The
// command must be legal (the controller checks it).
//
// Linear mode: when the rows are packed back to back in host memory (stride = row length) and are
// either whole beats from a bus-aligned address or a power-of-two part of one from any row
// boundary (the first beat then holds fewer rows: an int8 tile often starts mid-beat), the
// transfer is one stream of bursts of up to 16 beats that ignore row boundaries, so short rows
// still move at full bandwidth. A beat of several rows is held while its rows go to the row
// register one per cycle (the buffer's write port takes one row a cycle).
//
// The int8 mode (UB and WEIGHTS, plain only: the controller refuses int8 with transpose): one host
// byte per element; the row register holds the bytes and each leaves sign-extended into its
// 16-bit lane. Every rule above holds with rows of `lanes` bytes.
//
// Broadcast: a plain LOAD with stride 0 (every row the same host row, e.g. a bias) reads that row
// once and writes it `rows` times.
`include "mxu_assert.svh"

module mxu_dma_load #(
  parameter int unsigned UbLanes       = mxu_pkg::ArrayRows,
  parameter int unsigned Cols          = mxu_pkg::ArrayCols,
  parameter int unsigned UbDepth       = mxu_pkg::UbDepth,
  parameter int unsigned AccDepth      = mxu_pkg::AccDepth,
  parameter int unsigned TransposeRows = mxu_pkg::TransposeRows,  // buffer rows of a block
  parameter int unsigned QueueDepth    = mxu_pkg::DmaQueueDepth,  // commands in flight
  parameter logic [mxu_pkg::MemIdWidth-1:0] ArId = '0,  // read ID of every burst
  localparam int unsigned AddrWidth   = mxu_pkg::MemAddrWidth,
  localparam int unsigned BusBytes    = mxu_pkg::MemBusBytes,
  localparam int unsigned BusBits     = BusBytes * 8,
  localparam int unsigned BeatShift   = $clog2(BusBytes),     // byte offset bits in a beat
  localparam int unsigned BeatsPer4k  = 4096 / BusBytes,
  localparam int unsigned MaxInFlight = mxu_pkg::MemMaxInFlight,
  localparam int unsigned UbAw        = (UbDepth > 1) ? $clog2(UbDepth) : 1,
  localparam int unsigned AccAw       = (AccDepth > 1) ? $clog2(AccDepth) : 1,
  // Plain segments: one row.
  localparam int unsigned SegBytesMax = (UbLanes * 2 > Cols * 4) ? UbLanes * 2 : Cols * 4,
  localparam int unsigned SegBeatsMax = (SegBytesMax + 2 * BusBytes - 2) / BusBytes,
  localparam int unsigned SegBits     = SegBytesMax * 8,
  // Transposed segments: TransposeRows elements of bus-aligned host rows, or ShortRows at any
  // even byte offset (one beat's elements fewer, so that a segment needs no more beats).
  localparam int unsigned ElemsPerBeat = BusBytes / 2,
  localparam int unsigned ElemW       = $clog2(ElemsPerBeat),
  localparam int unsigned ShortRows   = (TransposeRows > 2 * ElemsPerBeat) ?
                                        TransposeRows - ElemsPerBeat : TransposeRows,
  localparam int unsigned AlignedWords   = (2 * TransposeRows + BusBytes - 1) / BusBytes,
  localparam int unsigned UnalignedWords = (2 * ShortRows + 2 * BusBytes - 3) / BusBytes,
  localparam int unsigned TSegWords   = (AlignedWords > UnalignedWords) ? AlignedWords
                                                                        : UnalignedWords,
  localparam int unsigned TDepth      = 2 * TSegWords,        // two halves
  localparam int unsigned TAw         = $clog2(TDepth),
  localparam int unsigned PosW        = $clog2(TSegWords * ElemsPerBeat),
  localparam int unsigned BeatsMax    = (SegBeatsMax > TSegWords) ? SegBeatsMax : TSegWords,
  localparam int unsigned BeatsWidth  = $clog2(BeatsMax + 1),
  localparam int unsigned QCntW       = $clog2(QueueDepth + 1),
  // Bits of mxu_pkg::dma_load_q_t (Yosys 0.23 takes no $bits of a type; checked below).
  localparam int unsigned QW          = 77
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // Command.
  input  logic                   cmd_valid_i,
  output logic                   cmd_ready_o,
  input  mxu_pkg::load_cmd_t     cmd_i,
  output mxu_pkg::dma_status_t   status_o,
  output logic                   busy_o,
  output logic                   stall_o,
  // Read address and (routed) read data channels.
  output mxu_pkg::mem_rd_req_t   rd_req_o,
  input  mxu_pkg::mem_rd_rsp_t   rd_rsp_i,
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

  // ---------------------------------------------------------------- generator's command
  logic                 transpose_d, transpose_q;
  logic [15:0]          rows_d, rows_q, lanes_d, lanes_q;
  logic [19:0]          stride_bytes_d, stride_bytes_q;
  logic                 wide_d, wide_q;  // fp32 elements (ACC)
  logic                 bytes_d, bytes_q;  // int8 elements (UB, WEIGHTS)
  logic                 cmd_bytes;
  logic [15:0]          trows_d, trows_q;  // transposed: rows of a block
  logic                 cmd_short;

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
  logic [12:0]          beats_to_4k;
  logic                 ar_fire, seg_last_burst;
  logic                 linear_d, linear_q;
  logic                 bcast_d, bcast_q;  // stride 0: one segment for every row
  logic [19:0]          lin_left_d, lin_left_q, lin_left_n;  // beats still to request
  logic [AddrWidth-1:0] burst_addr_n, burst_addr_sel;
  logic [17:0]          cmd_row_bytes;
  logic                 cmd_packs;                 // rows a power-of-two part of a beat
  logic [3:0]           cmd_pack_log2;
  logic [9:0]           cmd_first;                 // packed: the first row's place in its beat
  logic                 cmd_on_row;                // packed: the address is on a row boundary
  logic [9:0]           first_sub;                 // the place of the row taken from a new beat

  // Metadata of bursts (address, for errors) and segments (offset, beats) in flight.
  logic                 burst_full, burst_empty;
  logic [AddrWidth-1:0] burst_head;
  logic                 seg_full, seg_empty;
  logic [BeatShift+BeatsWidth-1:0] seg_head;
  logic [BeatShift-1:0] head_off;
  logic [BeatsWidth-1:0] head_beats;
  logic [$clog2(MaxInFlight+1)-1:0] bursts_in_flight, segs_in_flight;

  // ---------------------------------------------------------------------- command queue
  mxu_pkg::dma_load_q_t q_in, head;
  logic                 q_full, q_empty, q_pop;
  logic [QCntW-1:0]     q_count;
  logic [QCntW-1:0]     inflight_d, inflight_q;     // accepted, not yet done

  // ------------------------------------------------------------------------------- consumer
  logic [SegBeatsMax*BusBits-1:0] seg_buf_d, seg_buf_q;
  logic [BeatsWidth-1:0] beat_d, beat_q;
  logic                 r_fire, seg_done;
  logic [SegBits-1:0]   seg_data;
  logic                 pending_d, pending_q;     // a plain row waiting to be written
  logic [SegBits-1:0]   pending_data_d, pending_data_q;
  logic [15:0]          written_d, written_q;      // plain: rows of the head command written
  logic [15:0]          rcvd_d, rcvd_q;            // plain: rows of the head command received
  logic [15:0]          con_j_d, con_j_q;          // transposed: lane being filled
  logic [15:0]          con_i_d, con_i_q;          // transposed: block start
  logic [15:0]          block_rows_con, head_trows;
  logic                 plain_done, row_fire_plain;
  logic                 error_d, error_q;
  logic [15:0]          pk_left_d, pk_left_q;      // packed: rows of the held beat still to move
  logic [15:0]          pk_sub_d, pk_sub_q;        // packed: the next of them
  logic [15:0]          beat_rows;                 // packed: rows of the beat arriving
  logic                 can_move;                  // the row register is free this cycle

  // Transpose buffer: one SRAM per lane, two halves; per half the block's metadata.
  logic                 fb_d, fb_q;                // half being filled
  logic [1:0]           full_d, full_q;            // half holds a complete block
  logic [2*UbLanes*ElemW-1:0] off_d, off_q;        // per half and lane: element offset
  logic [31:0]          blk_addr_d, blk_addr_q;    // per half: first buffer row
  logic [31:0]          blk_rows_d, blk_rows_q;
  logic [31:0]          blk_lanes_d, blk_lanes_q;
  logic [3:0]           blk_target_d, blk_target_q;
  logic [1:0]           blk_last_d, blk_last_q;    // the command's last block
  logic [UbLanes-1:0]   t_wr_en;
  logic [TAw-1:0]       t_wr_addr;
  logic [UbLanes*TAw-1:0] t_rd_addr;
  logic [UbLanes*16-1:0] t_elem;                  // each lane's element of the row read
  logic                 t_rd_en;
  logic [UbLanes*PosW-1:0] pos;

  // Emitter: issue a row read (stage 0), present the row (stage 1).
  logic                 ib_d, ib_q;                // half being read
  logic [15:0]          ir_d, ir_q;                // row being read
  logic                 s1_v_d, s1_v_q, s1_fire, issue;
  logic [15:0]          s1_addr_d, s1_addr_q;
  logic [15:0]          s1_lanes_d, s1_lanes_q;
  logic [1:0]           s1_target_d, s1_target_q;
  logic [UbLanes*ElemW-1:0] s1_elem_d, s1_elem_q;
  logic                 s1_blk_end_d, s1_blk_end_q, s1_cmd_end_d, s1_cmd_end_q;
  logic                 s1_buf_d, s1_buf_q;
  logic                 tdone_d, tdone_q;          // a transposed command's last row written
  logic [1:0]           emit_cmds_d, emit_cmds_q;  // commands handed to the emitter, not done
  logic                 emit_idle;

  // Output row.
  logic                 row_valid, row_fire, target_ready;
  logic [1:0]           out_target;
  logic [15:0]          out_addr;
  logic [SegBits-1:0]   row_bytes;

  logic                 accept, done, ar_valid, r_ready;
  // Generator state as it would advance without a new command.
  logic                 gen_active_n, seg_started_n;
  logic [15:0]          gen_i_n, gen_j_n;
  logic [AddrWidth-1:0] seg_addr_n, block_addr_n;

  assign cmd_ready_o = !gen_active_q && inflight_q != QCntW'(QueueDepth);
  assign accept      = cmd_valid_i && cmd_ready_o;

  // ----- Address generator: the bursts of the current segment, then the next segment.
  always_comb begin
    block_rows_gen = (rows_q - gen_i_q > trows_q) ? trows_q : rows_q - gen_i_q;
    seg_bytes      = transpose_q ? {1'b0, block_rows_gen, 1'b0}
                                 : (wide_q  ? {lanes_q, 2'b00} :
                                    bytes_q ? {2'b00, lanes_q} : {1'b0, lanes_q, 1'b0});
    seg_beats      = BeatsWidth'((18'(seg_addr_q[BeatShift-1:0]) + seg_bytes + 18'(BusBytes - 1)) >>
                                 BeatShift);
    next_burst_addr = (seg_started_q || linear_q) ? burst_addr_q
                                                  : {seg_addr_q[AddrWidth-1:BeatShift],
                                                     BeatShift'(0)};
    beats_left     = seg_started_q ? beats_left_q : seg_beats;
    beats_to_4k    = 13'(BeatsPer4k) - 13'(next_burst_addr[11:BeatShift]);
    burst_beats    = linear_q ? ((lin_left_q > 20'd16) ? 8'd16 : 8'(lin_left_q))
                              : 8'(beats_left);
    if (13'(burst_beats) > beats_to_4k) burst_beats = 8'(beats_to_4k);
    if (burst_beats > 8'd16) burst_beats = 8'd16;

    ar_valid       = gen_active_q && !burst_full && (linear_q || seg_started_q || !seg_full);
  end

  always_comb begin
    ar_fire        = ar_valid && rd_rsp_i.ar_ready;
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
      burst_addr_n = next_burst_addr + (AddrWidth'(burst_beats) << BeatShift);
      lin_left_n   = lin_left_q - 20'(burst_beats);
      if (lin_left_q == 20'(burst_beats)) gen_active_n = 1'b0;
    end else if (ar_fire) begin
      if (!seg_last_burst) begin
        seg_started_n = 1'b1;
        burst_addr_n  = next_burst_addr + (AddrWidth'(burst_beats) << BeatShift);
        beats_left_d  = beats_left - BeatsWidth'(burst_beats);
      end else begin
        seg_started_n = 1'b0;
        if (!transpose_q) begin
          seg_addr_n = seg_addr_q + AddrWidth'(stride_bytes_q);
          gen_i_n    = gen_i_q + 1'b1;
          if (gen_i_q + 1'b1 == rows_q || bcast_q) gen_active_n = 1'b0;
        end else if (gen_j_q + 1'b1 != lanes_q) begin
          gen_j_n    = gen_j_q + 1'b1;
          seg_addr_n = seg_addr_q + AddrWidth'(stride_bytes_q);
        end else begin
          gen_j_n      = '0;
          gen_i_n      = gen_i_q + trows_q;
          block_addr_n = block_addr_q + AddrWidth'({trows_q, 1'b0});
          seg_addr_n   = block_addr_q + AddrWidth'({trows_q, 1'b0});
          if (block_rows_gen != trows_q || gen_i_q + trows_q == rows_q) begin
            gen_active_n = 1'b0;
          end
        end
      end
    end
  end

  // ----- Command accept: the generator takes it, the queue keeps what the consumer needs.
  always_comb begin
    transpose_d    = accept ? cmd_i.transpose : transpose_q;
    rows_d         = accept ? cmd_i.rows : rows_q;
    lanes_d        = accept ? cmd_i.lanes : lanes_q;
    cmd_bytes      = cmd_i.int8 && cmd_i.target != mxu_isa_pkg::BufAcc;
    wide_d         = accept ? cmd_i.target == mxu_isa_pkg::BufAcc : wide_q;
    bytes_d        = accept ? cmd_bytes : bytes_q;
    stride_bytes_d = stride_bytes_q;
    if (accept) begin
      stride_bytes_d = (cmd_i.target == mxu_isa_pkg::BufAcc) ? {2'b00, cmd_i.stride, 2'b00} :
                       cmd_bytes ? {4'b0000, cmd_i.stride} : {3'b000, cmd_i.stride, 1'b0};
    end
    // Linear mode: plain rows of whole aligned beats, packed back to back.
    cmd_row_bytes   = (cmd_i.target == mxu_isa_pkg::BufAcc) ? {cmd_i.lanes, 2'b00} :
                      cmd_bytes ? {2'b00, cmd_i.lanes} : {1'b0, cmd_i.lanes, 1'b0};
    cmd_pack_log2   = '0;
    for (int unsigned s = 1; s <= BeatShift; s++) begin
      if (cmd_row_bytes == 18'(BusBytes >> s)) cmd_pack_log2 = 4'(s);
    end
    cmd_packs       = cmd_pack_log2 != '0;
    cmd_first       = 10'(cmd_i.host_addr[BeatShift-1:0]) >> (4'(BeatShift) - cmd_pack_log2);
    cmd_on_row      = (cmd_i.host_addr[BeatShift-1:0] &
                       BeatShift'((BusBytes >> cmd_pack_log2) - 1)) == '0;
    linear_d        = accept ? (!cmd_i.transpose &&
                                ((cmd_i.host_addr[BeatShift-1:0] == '0 &&
                                  cmd_row_bytes[BeatShift-1:0] == '0) ||
                                 (cmd_packs && cmd_on_row)) &&
                                20'(cmd_row_bytes) == 20'(stride_bytes_d)) : linear_q;
    // Transposed: host rows not all bus aligned take blocks of ShortRows.
    cmd_short       = cmd_i.host_addr[BeatShift-1:0] != '0 ||
                      stride_bytes_d[BeatShift-1:0] != '0;
    trows_d         = accept ? (cmd_short ? 16'(ShortRows) : 16'(TransposeRows)) : trows_q;
    bcast_d         = accept ? (!cmd_i.transpose && cmd_i.stride == '0) : bcast_q;
    if (!accept)        lin_left_d = lin_left_n;
    else if (cmd_packs) lin_left_d = (20'(cmd_i.rows) + 20'(cmd_first) +
                                      (20'd1 << cmd_pack_log2) - 20'd1) >> cmd_pack_log2;
    else                lin_left_d = 20'(cmd_i.rows) * 20'(cmd_row_bytes[17:BeatShift]);
    // A linear transfer's bursts start at the beat holding its first row.
    burst_addr_sel  = accept ? {cmd_i.host_addr[AddrWidth-1:BeatShift], BeatShift'(0)}
                             : burst_addr_n;
    gen_active_d   = accept ? 1'b1 : gen_active_n;
    gen_i_d        = accept ? '0 : gen_i_n;
    gen_j_d        = accept ? '0 : gen_j_n;
    seg_addr_d     = accept ? cmd_i.host_addr : seg_addr_n;
    block_addr_d   = accept ? cmd_i.host_addr : block_addr_n;
    seg_started_d  = accept ? 1'b0 : seg_started_n;

    q_in.target    = cmd_i.target;
    q_in.transpose = cmd_i.transpose;
    q_in.int8      = cmd_bytes;
    q_in.linear    = linear_d;
    q_in.short_blk = cmd_short;
    q_in.broadcast = bcast_d;
    q_in.row_beats = cmd_packs ? 8'd1 : 8'(cmd_row_bytes[17:BeatShift]);
    q_in.pack_log2 = (linear_d && cmd_packs) ? cmd_pack_log2 : '0;  // one row a beat otherwise
    q_in.pack_first = (linear_d && cmd_packs) ? cmd_first : '0;
    q_in.rows      = cmd_i.rows;
    q_in.lanes     = cmd_i.lanes;
    q_in.buf_addr  = cmd_i.buf_addr;
  end

  // ----- The row to write: the emitter's transposed row first; a plain row only once the
  // emitter is idle (its blocks belong to earlier commands).
  always_comb begin
    emit_idle = full_q == 2'b00 && !s1_v_q;
    row_valid = s1_v_q || (pending_q && emit_idle);
    row_bytes = '0;
    if (s1_v_q) begin
      for (int unsigned j = 0; j < UbLanes; j++) begin
        if (16'(j) < s1_lanes_q) row_bytes[j*16 +: 16] = t_elem[j*16 +: 16];
      end
      out_target = s1_target_q;
      out_addr   = s1_addr_q;
    end else begin
      row_bytes = pending_data_q;
      // int8: each byte sign-extended into its lane.
      if (head.int8) begin
        for (int unsigned l = 0; l < UbLanes; l++) begin
          row_bytes[l*16 +: 16] = {{8{pending_data_q[l*8+7]}}, pending_data_q[l*8 +: 8]};
        end
      end
      // Lanes at or beyond `lanes` are zero.
      for (int unsigned l = 0; l < SegBytesMax / 2; l++) begin
        if (16'((head.target == mxu_isa_pkg::BufAcc) ? l / 2 : l) >= head.lanes) begin
          row_bytes[l*16 +: 16] = '0;
        end
      end
      out_target = head.target;
      out_addr   = head.buf_addr + written_q;
    end
    ub_wr_en_o    = row_valid && out_target == mxu_isa_pkg::BufUb;
    ub_wr_addr_o  = UbAw'(out_addr);
    ub_wr_data_o  = row_bytes[UbLanes*16-1:0];
    acc_wr_en_o   = row_valid && out_target == mxu_isa_pkg::BufAcc;
    acc_wr_addr_o = AccAw'(out_addr);
    acc_wr_data_o = row_bytes[Cols*32-1:0];
    wf_push_o     = row_valid && out_target == mxu_isa_pkg::BufWeights && !wf_full_i;
    wf_data_o     = row_bytes[Cols*16-1:0];
  end

  always_comb begin
    unique case (out_target)
      mxu_isa_pkg::BufAcc:     target_ready = acc_wr_gnt_i;
      mxu_isa_pkg::BufWeights: target_ready = !wf_full_i;
      default:             target_ready = ub_wr_gnt_i;
    endcase
    row_fire       = row_valid && target_ready;
    s1_fire        = s1_v_q && target_ready;
    row_fire_plain = row_fire && !s1_v_q;
    can_move       = !pending_q || row_fire_plain;
    // Its own block, reading no response: the request struct must not depend on the response.
    // The head command takes only its own beats: a plain one until all its rows are in, a
    // transposed one while the half being filled is free.
    if (q_empty) begin
      r_ready = 1'b0;
    end else if (head.transpose) begin
      r_ready = !seg_empty && !full_q[fb_q];
    end else begin
      r_ready = (head.linear || !seg_empty) && rcvd_q != head.rows && pk_left_q == '0 &&
                can_move;
    end
  end

  // ----- Consumer: collect the beats of the segment at the head.
  always_comb begin
    // Packed rows: the first straight from the beat, the others from the held beat.
    // The command's first beat may begin with rows of the beat before its first row.
    first_sub = (rcvd_q == '0) ? head.pack_first : '0;
    if (!head.linear)          head_off = seg_head[BeatsWidth +: BeatShift];
    else if (pk_left_q == '0)  head_off = BeatShift'(first_sub << (4'(BeatShift) - head.pack_log2));
    else                       head_off = BeatShift'(pk_sub_q << (4'(BeatShift) - head.pack_log2));
    head_beats     = head.linear ? BeatsWidth'(head.row_beats) : seg_head[BeatsWidth-1:0];
    head_trows     = head.short_blk ? 16'(ShortRows) : 16'(TransposeRows);
    block_rows_con = (head.rows - con_i_q > head_trows) ? head_trows : head.rows - con_i_q;
    r_fire         = rd_rsp_i.r_valid && r_ready;
    seg_done       = r_fire && (beat_q + 1'b1 == head_beats);
    seg_buf_d      = seg_buf_q;
    beat_d         = beat_q;
    for (int unsigned b = 0; b < SegBeatsMax; b++) begin
      if (r_fire && !head.transpose && beat_q == BeatsWidth'(b)) begin
        seg_buf_d[b*BusBits +: BusBits] = rd_rsp_i.r.data;
      end
    end
    if (r_fire) beat_d = seg_done ? '0 : beat_q + 1'b1;
    seg_data = SegBits'(seg_buf_d >> {head_off, 3'b000});
    error_d  = error_q || (r_fire && rd_rsp_i.r.resp != 2'b00);
    // Transposed: the beat goes straight into lane con_j_q's SRAM.
    t_wr_addr = TAw'(fb_q ? TSegWords : 0) + TAw'(beat_q);
    for (int unsigned j = 0; j < UbLanes; j++) begin
      t_wr_en[j] = r_fire && head.transpose && con_j_q == 16'(j);
    end

    // A broadcast row stays pending until it has been written as every row of the command.
    pending_d      = pending_q && !(row_fire_plain &&
                                    (!head.broadcast || written_q + 1'b1 == head.rows));
    pending_data_d = pending_data_q;
    written_d      = written_q;
    rcvd_d         = rcvd_q;
    con_j_d        = con_j_q;
    con_i_d        = con_i_q;
    fb_d           = fb_q;
    full_d         = full_q;
    off_d          = off_q;
    blk_addr_d     = blk_addr_q;
    blk_rows_d     = blk_rows_q;
    blk_lanes_d    = blk_lanes_q;
    blk_target_d   = blk_target_q;
    blk_last_d     = blk_last_q;
    q_pop          = 1'b0;
    plain_done     = !q_empty && !head.transpose && written_q == head.rows;
    if (row_fire_plain) written_d = written_q + 1'b1;
    pk_left_d      = pk_left_q;
    pk_sub_d       = pk_sub_q;
    beat_rows      = head.rows - rcvd_q;
    if (beat_rows > (16'd1 << head.pack_log2) - 16'(first_sub)) begin
      beat_rows = (16'd1 << head.pack_log2) - 16'(first_sub);
    end
    if (seg_done && !head.transpose) begin
      pending_d      = 1'b1;
      pending_data_d = seg_data;
      rcvd_d         = head.broadcast ? head.rows : rcvd_q + 1'b1;
      pk_left_d      = beat_rows - 16'd1;
      pk_sub_d       = 16'(first_sub) + 16'd1;
    end else if (pk_left_q != '0 && can_move) begin
      pending_d      = 1'b1;
      pending_data_d = seg_data;
      rcvd_d         = rcvd_q + 1'b1;
      pk_left_d      = pk_left_q - 16'd1;
      pk_sub_d       = pk_sub_q + 16'd1;
    end
    if (plain_done) begin
      q_pop     = 1'b1;
      written_d = '0;
      rcvd_d    = '0;
    end
    // The emitter frees a half with the last row of its block.
    if (s1_fire && s1_blk_end_q) full_d[s1_buf_q] = 1'b0;
    if (seg_done && head.transpose) begin
      off_d[(32'(fb_q) * UbLanes + 32'(con_j_q)) * ElemW +: ElemW] = ElemW'(head_off >> 1);
      if (con_j_q + 1'b1 == head.lanes) begin
        // The block is complete: hand it to the emitter, fill the other half.
        full_d[fb_q]                   = 1'b1;
        blk_addr_d[32'(fb_q)*16 +: 16] = head.buf_addr + con_i_q;
        blk_rows_d[32'(fb_q)*16 +: 16] = block_rows_con;
        blk_lanes_d[32'(fb_q)*16 +: 16] = head.lanes;
        blk_target_d[32'(fb_q)*2 +: 2] = head.target;
        blk_last_d[fb_q]               = head.rows - con_i_q <= head_trows;
        fb_d    = !fb_q;
        con_j_d = '0;
        con_i_d = con_i_q + head_trows;
        if (head.rows - con_i_q <= head_trows) begin
          q_pop   = 1'b1;  // the command's last block: the next command may fill
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
    emit_cmds_d = emit_cmds_q + 2'(q_pop && head.transpose) - 2'(tdone_q);
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
      .wr_data_i(rd_rsp_i.r.data)
    );
    assign t_elem[j*16 +: 16] = rd_word[16*s1_elem_q[j*ElemW +: ElemW] +: 16];
  end

  // ----- Completion: plain commands when their last row is written, transposed ones when the
  // emitter has written their last row; never both in one cycle (plain rows wait for the
  // emitter to be idle).
  always_comb begin
    done       = plain_done || tdone_q;
    inflight_d = inflight_q + QCntW'(accept) - QCntW'(done);
  end

  mxu_sync_fifo #(.Width(QW), .Depth(QueueDepth)) u_queue (
    .clk_i,
    .rst_ni,
    .push_i (accept),
    .wdata_i(q_in),
    .full_o (q_full),
    .pop_i  (q_pop),
    .rdata_o(head),
    .empty_o(q_empty),
    .count_o(q_count)
  );

  mxu_sync_fifo #(.Width(AddrWidth), .Depth(MaxInFlight)) u_bursts (
    .clk_i,
    .rst_ni,
    .push_i (ar_fire),
    .wdata_i(next_burst_addr),
    .full_o (burst_full),
    .pop_i  (r_fire && rd_rsp_i.r.last),
    .rdata_o(burst_head),
    .empty_o(burst_empty),
    .count_o(bursts_in_flight)
  );

  mxu_sync_fifo #(.Width(BeatShift + BeatsWidth), .Depth(MaxInFlight)) u_segments (
    .clk_i,
    .rst_ni,
    .push_i (ar_fire && !seg_started_q && !linear_q),  // linear mode needs no segments
    .wdata_i({seg_addr_q[BeatShift-1:0], seg_beats}),
    .full_o (seg_full),
    .pop_i  (seg_done && !head.linear),
    .rdata_o(seg_head),
    .empty_o(seg_empty),
    .count_o(segs_in_flight)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      transpose_q    <= 1'b0;
      rows_q         <= '0;
      lanes_q        <= '0;
      stride_bytes_q <= '0;
      wide_q         <= 1'b0;
      bytes_q        <= 1'b0;
      trows_q        <= '0;
      gen_active_q   <= 1'b0;
      gen_i_q        <= '0;
      gen_j_q        <= '0;
      seg_addr_q     <= '0;
      block_addr_q   <= '0;
      seg_started_q  <= 1'b0;
      burst_addr_q   <= '0;
      linear_q       <= 1'b0;
      bcast_q        <= 1'b0;
      lin_left_q     <= '0;
      beats_left_q   <= '0;
      inflight_q     <= '0;
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
      con_j_q        <= '0;
      con_i_q        <= '0;
      fb_q           <= 1'b0;
      full_q         <= '0;
      off_q          <= '0;
      blk_addr_q     <= '0;
      blk_rows_q     <= '0;
      blk_lanes_q    <= '0;
      blk_target_q   <= '0;
      blk_last_q     <= '0;
      ib_q           <= 1'b0;
      ir_q           <= '0;
      s1_v_q         <= 1'b0;
      s1_addr_q      <= '0;
      s1_lanes_q     <= '0;
      s1_target_q    <= '0;
      s1_elem_q      <= '0;
      s1_blk_end_q   <= 1'b0;
      s1_cmd_end_q   <= 1'b0;
      s1_buf_q       <= 1'b0;
      tdone_q        <= 1'b0;
      emit_cmds_q    <= '0;
      error_q        <= 1'b0;
      pk_left_q      <= '0;
      pk_sub_q       <= '0;
    end else begin
      transpose_q    <= transpose_d;
      rows_q         <= rows_d;
      lanes_q        <= lanes_d;
      stride_bytes_q <= stride_bytes_d;
      wide_q         <= wide_d;
      bytes_q        <= bytes_d;
      trows_q        <= trows_d;
      gen_active_q   <= gen_active_d;
      gen_i_q        <= gen_i_d;
      gen_j_q        <= gen_j_d;
      seg_addr_q     <= seg_addr_d;
      block_addr_q   <= block_addr_d;
      seg_started_q  <= seg_started_d;
      burst_addr_q   <= burst_addr_sel;
      linear_q       <= linear_d;
      bcast_q        <= bcast_d;
      lin_left_q     <= lin_left_d;
      beats_left_q   <= beats_left_d;
      inflight_q     <= inflight_d;
      seg_buf_q      <= seg_buf_d;
      beat_q         <= beat_d;
      pending_q      <= pending_d;
      pending_data_q <= pending_data_d;
      written_q      <= written_d;
      rcvd_q         <= rcvd_d;
      con_j_q        <= con_j_d;
      con_i_q        <= con_i_d;
      fb_q           <= fb_d;
      full_q         <= full_d;
      off_q          <= off_d;
      blk_addr_q     <= blk_addr_d;
      blk_rows_q     <= blk_rows_d;
      blk_lanes_q    <= blk_lanes_d;
      blk_target_q   <= blk_target_d;
      blk_last_q     <= blk_last_d;
      ib_q           <= ib_d;
      ir_q           <= ir_d;
      s1_v_q         <= s1_v_d;
      s1_addr_q      <= s1_addr_d;
      s1_lanes_q     <= s1_lanes_d;
      s1_target_q    <= s1_target_d;
      s1_elem_q      <= s1_elem_d;
      s1_blk_end_q   <= s1_blk_end_d;
      s1_cmd_end_q   <= s1_cmd_end_d;
      s1_buf_q       <= s1_buf_d;
      tdone_q        <= tdone_d;
      emit_cmds_q    <= emit_cmds_d;
      error_q        <= error_d;
      pk_left_q      <= pk_left_d;
      pk_sub_q       <= pk_sub_d;
    end
  end

  // The first error response stops the device; the burst it belongs to names the address, and
  // the commands still in the emitter ahead of the one receiving it name its instruction.
  assign rd_req_o.ar_valid   = ar_valid;
  assign rd_req_o.ar.addr    = next_burst_addr;
  assign rd_req_o.ar.len     = burst_beats - 8'd1;
  assign rd_req_o.ar.id      = ArId;
  assign rd_req_o.r_ready    = r_ready;
  assign status_o.done       = done;
  assign status_o.error      = r_fire && rd_rsp_i.r.resp != 2'b00 && !error_q;
  assign status_o.error_addr = burst_head;
  assign status_o.error_skip = emit_cmds_q;
  assign status_o.released   = 1'b0;
  assign busy_o       = inflight_q != '0;
  // Waiting on memory: busy, nothing requested and no data arriving this cycle.
  assign stall_o      = busy_o && !ar_fire && !r_fire && !row_valid;

  `MXU_ASSERT_STATIC(gen_bus_bytes_pow2, BusBytes >= 4 && BusBytes <= 1024 &&
                     (BusBytes & (BusBytes - 1)) == 0,
                     "mxu_dma_load: MemBusBytes must be a power of two from 4 to 1024")
  `MXU_ASSERT_STATIC(gen_queue_depth, QueueDepth >= 1 && QueueDepth <= 4,
                     "mxu_dma_load: QueueDepth must be 1 to 4 (status_o.error_skip is 2 bits)")
`ifndef SYNTHESIS
  `MXU_ASSERT_STATIC(gen_queue_width, QW == $bits(mxu_pkg::dma_load_q_t),
                     "mxu_dma_load: QW must be the width of mxu_pkg::dma_load_q_t")
`endif
  `MXU_ASSERT_STATIC(gen_transpose_rows, TransposeRows >= 1 && TransposeRows <= 2048,
                     "mxu_dma_load: TransposeRows must be 1 to 2048 (segments of 16-bit counts)")
  // A command only when ready; a read address held until accepted, unchanged; whole aligned
  // beats, at most 16 of them, never across a 4 KiB boundary; data only for bursts asked for.
  `MXU_ASSERT_NEVER(CmdWhileBusy, cmd_valid_i && !cmd_ready_o, clk_i, rst_ni)
  `MXU_ASSERT_STABLE(ArStable, ar_valid, rd_rsp_i.ar_ready, {next_burst_addr, burst_beats},
                     clk_i, rst_ni)
  `MXU_ASSERT(ArAligned, ar_valid |-> next_burst_addr[BeatShift-1:0] == '0, clk_i, rst_ni)
  `MXU_ASSERT(ArBeats, ar_valid |-> burst_beats >= 8'd1 && burst_beats <= 8'd16, clk_i, rst_ni)
  `MXU_ASSERT(Ar4k, ar_valid |-> 32'(next_burst_addr[11:0]) + (32'(burst_beats) << BeatShift)
              <= 32'd4096, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(DataWithoutBurst, r_fire && burst_empty, clk_i, rst_ni)
  // The queue holds every command not yet handed on; a transposed beat only into a free half.
  `MXU_ASSERT_NEVER(QueueOverflow, accept && q_full, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(FillFullHalf, r_fire && head.transpose && full_q[fb_q], clk_i, rst_ni)
  `MXU_ASSERT_NEVER(DoneTwice, plain_done && tdone_q, clk_i, rst_ni)
  `MXU_ASSERT(EmitCmdsRange, emit_cmds_q <= 2'd2, clk_i, rst_ni)

  logic unused_signals;
  assign unused_signals = ^{burst_empty, bursts_in_flight, segs_in_flight, rd_rsp_i.r.id,
                            q_count, q_full, out_addr};

endmodule
