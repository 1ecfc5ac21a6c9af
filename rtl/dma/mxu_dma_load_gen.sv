// The DMA load engine's address generator (mxu_dma_load): takes a LOAD, cuts it into segments,
// each a contiguous run of elements in host memory: one buffer row (plain), or one host row's
// run of up to TransposeRows elements, a column of a block of TransposeRows buffer rows
// (transposed), and requests each as INCR bursts of whole bus beats (split at 4 KiB boundaries
// and at 16 beats), while the burst and segment queues have room (mxu_dma_load's u_bursts,
// u_segments: at most MemMaxInFlight of each). It takes the next command as soon as it has
// requested every burst of the current one and fewer than QueueDepth commands are in flight
// (accepted, not yet done_i); each command it takes goes to the command queue as the consumer
// sees it (q_o, mxu_pkg::dma_load_q_t).
//
// Linear mode: when the rows are packed back to back in host memory (stride = row length), of
// any length from any address, the transfer is one stream of bursts of up to 16 beats, from the
// beat holding its first byte to the beat holding its last, that ignore row boundaries, with no
// segments (the consumer cuts the rows out of the beats). Broadcast: a plain LOAD with stride 0 (every row the same host row, e.g. a bias)
// reads that row once.
`include "mxu_assert.svh"

module mxu_dma_load_gen #(
  parameter int unsigned TransposeRows = mxu_pkg::TransposeRows,  // buffer rows of a block
  parameter int unsigned QueueDepth    = mxu_pkg::DmaQueueDepth,  // commands in flight
  parameter logic [mxu_pkg::MemIdWidth-1:0] ArId = '0,  // read ID of every burst
  localparam int unsigned UbLanes    = mxu_pkg::UbLanes,
  localparam int unsigned Cols       = mxu_pkg::ArrayCols,
  localparam int unsigned AddrWidth  = mxu_pkg::MemAddrWidth,
  localparam int unsigned BusBytes   = mxu_pkg::MemBusBytes,
  localparam int unsigned BeatShift  = $clog2(BusBytes),     // byte offset bits in a beat
  localparam int unsigned BeatsPer4k = 4096 / BusBytes,
  localparam int unsigned ShortRows  = mxu_pkg::dma_short_rows(TransposeRows),
  localparam int unsigned BeatsWidth = mxu_pkg::dma_beats_width(UbLanes, Cols, TransposeRows),
  localparam int unsigned QCntW      = $clog2(QueueDepth + 1),
  // A legal row's bytes (the controller checks lanes against the buffer's width): the width of
  // the rows x bytes product's narrow operand.
  localparam int unsigned RowBytesMax = mxu_pkg::dma_seg_bytes_max(UbLanes, Cols),
  localparam int unsigned RowBytesW   = $clog2(RowBytesMax + 1)
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // The free clock, for the assertions alone: clk_i may be gated off through the engines'
  // reset, which would leave an attempt of ArStable straddling it (unused in synthesis).
  input  logic                          clk_check_i,
  // Command.
  input  logic                          cmd_valid_i,
  output logic                          cmd_ready_o,
  input  mxu_pkg::load_cmd_t            cmd_i,
  input  logic                          done_i,   // a command is done (mxu_dma_load's status)
  output logic                          busy_o,   // commands in flight
  // The command queue's input: the consumer's view of each command taken.
  output logic                          q_push_o,
  output mxu_pkg::dma_load_q_t          q_o,
  // Read address channel, and where each burst's address and segment are kept.
  output logic                          ar_valid_o,
  output mxu_pkg::mem_ar_t              ar_o,
  input  logic                          ar_ready_i,
  output logic                          ar_fire_o,
  input  logic                          burst_full_i,
  output logic                          seg_push_o,
  output logic [BeatShift+BeatsWidth-1:0] seg_o,  // {byte offset in the first beat, beats}
  input  logic                          seg_full_i
);

  // The current command.
  logic                  transpose_d, transpose_q;
  logic [15:0]           lanes_d, lanes_q;
  logic [19:0]           stride_bytes_d, stride_bytes_q;
  logic                  wide_d, wide_q;    // fp32 elements (ACC)
  logic                  bytes_d, bytes_q;  // int8 elements (UB, WEIGHTS)
  logic                  cmd_bytes;
  logic [15:0]           trows_d, trows_q;  // transposed: rows of a block
  logic [15:0]           cmd_trows;
  // rows_left_q > trows_q, kept in a flop: the next block is a whole one.
  logic                  block_full_d, block_full_q, block_full_step, full_after_row, full_after_block;
  logic [AddrWidth-13:0] page_after;
  logic [12:0]           page_low;
  logic [AddrWidth-1:0]  burst_end;
  logic                  cmd_short;
  logic [QCntW-1:0]      inflight_d, inflight_q;  // accepted, not yet done

  // Where the generator is.
  logic                  gen_active_d, gen_active_q;
  // Rows not yet started: from the current row (plain) or block (transposed) on. Counted down,
  // not kept as an index: a subtract fewer in the burst's path.
  logic [15:0]           rows_left_d, rows_left_q;
  logic [15:0]           gen_j_d, gen_j_q;          // column within the block (transposed)
  logic [AddrWidth-1:0]  seg_addr_d, seg_addr_q;    // first byte of the current segment
  logic [AddrWidth-1:0]  block_addr_d, block_addr_q;
  logic                  seg_started_d, seg_started_q;
  logic [AddrWidth-1:0]  burst_addr_q;
  logic [BeatsWidth-1:0] beats_left_d, beats_left_q;
  logic [17:0]           seg_bytes;
  logic [15:0]           block_rows_gen;
  logic [BeatsWidth-1:0] seg_beats, beats_left;
  logic [7:0]            burst_beats, beats_want;
  logic                  want_le_16, want_le_4k, to_4k_le_16;
  logic [AddrWidth-1:0]  next_burst_addr;
  logic [12:0]           beats_to_4k;
  logic                  ar_fire, seg_last_burst, accept;
  logic                  linear_d, linear_q;
  logic                  bcast_d, bcast_q;  // stride 0: one segment for every row
  logic [19:0]           lin_left_d, lin_left_q, lin_left_step;  // beats still to request
  logic [AddrWidth-1:0]  burst_addr_step, burst_addr_sel;
  logic [17:0]           cmd_row_bytes;
  logic [RowBytesW-1:0]  cmd_row_len;       // a linear row's bytes, at a legal row's width
  logic [RowBytesW+16:0] cmd_lin_bytes;     // a linear transfer's bytes from its first beat
  logic [19:0]           cmd_stride_bytes;
  logic                  cmd_linear, cmd_bcast;
  // Generator state as it would advance without a new command.
  logic                  gen_active_step, seg_started_step;
  logic [15:0]           rows_left_step, gen_j_step;
  logic [AddrWidth-1:0]  seg_addr_step, block_addr_step;

  assign cmd_ready_o = !gen_active_q && inflight_q != QCntW'(QueueDepth);
  assign accept      = cmd_valid_i && cmd_ready_o;

  // ----- The bursts of the current segment, then the next segment.
  always_comb begin
    block_rows_gen = block_full_q ? trows_q : rows_left_q;
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
    // The least of the beats wanted, the beats to the 4 KiB boundary and 16, the three compares
    // side by side rather than one after the other.
    beats_want     = linear_q ? ((lin_left_q > 20'd16) ? 8'd16 : 8'(lin_left_q))
                              : 8'(beats_left);
    want_le_16     = beats_want <= 8'd16;
    want_le_4k     = 13'(beats_want) <= beats_to_4k;
    to_4k_le_16    = beats_to_4k <= 13'd16;
    burst_beats    = (want_le_4k && want_le_16) ? beats_want :
                     (!want_le_4k && to_4k_le_16) ? 8'(beats_to_4k) : 8'd16;

    ar_valid_o     = gen_active_q && !burst_full_i && (linear_q || seg_started_q || !seg_full_i);
  end

  always_comb begin
    ar_fire        = ar_valid_o && ar_ready_i;
    seg_last_burst = (burst_beats == 8'(beats_left));
    // The address after the burst: a burst never crosses 4 KiB, so the add is 13 bits wide and the
    // upper bits take +1 (computed beside it) only when it ends on the boundary.
    page_after      = next_burst_addr[AddrWidth-1:12] + 1'b1;
    page_low       = 13'(next_burst_addr[11:0]) + (13'(burst_beats) << BeatShift);
    burst_end      = {page_low[12] ? page_after : next_burst_addr[AddrWidth-1:12], page_low[11:0]};
    // Whether the next block is a full one, for each way the rows left can change (the compare
    // off the burst's path: block_full_q).
    full_after_row   = rows_left_q - 1'b1 > trows_q;
    full_after_block = rows_left_q - trows_q > trows_q;
    block_full_step     = block_full_q;

    gen_active_step  = gen_active_q;
    rows_left_step   = rows_left_q;
    gen_j_step       = gen_j_q;
    seg_addr_step    = seg_addr_q;
    block_addr_step  = block_addr_q;
    seg_started_step = seg_started_q;
    burst_addr_step  = burst_addr_q;
    beats_left_d  = beats_left_q;
    lin_left_step    = lin_left_q;
    if (ar_fire && linear_q) begin
      burst_addr_step = burst_end;
      lin_left_step   = lin_left_q - 20'(burst_beats);
      if (lin_left_q == 20'(burst_beats)) gen_active_step = 1'b0;
    end else if (ar_fire) begin
      if (!seg_last_burst) begin
        seg_started_step = 1'b1;
        burst_addr_step  = burst_end;
        beats_left_d  = beats_left - BeatsWidth'(burst_beats);
      end else begin
        seg_started_step = 1'b0;
        if (!transpose_q) begin
          seg_addr_step = seg_addr_q + AddrWidth'(stride_bytes_q);
          rows_left_step = rows_left_q - 1'b1;
          block_full_step = full_after_row;
          if (rows_left_q == 16'd1 || bcast_q) gen_active_step = 1'b0;
        end else if (gen_j_q + 1'b1 != lanes_q) begin
          gen_j_step    = gen_j_q + 1'b1;
          seg_addr_step = seg_addr_q + AddrWidth'(stride_bytes_q);
        end else begin
          gen_j_step      = '0;
          rows_left_step  = rows_left_q - trows_q;
          block_full_step = full_after_block;
          block_addr_step = block_addr_q + AddrWidth'({trows_q, 1'b0});
          seg_addr_step   = block_addr_q + AddrWidth'({trows_q, 1'b0});
          if (block_rows_gen != trows_q || rows_left_q == trows_q) begin
            gen_active_step = 1'b0;
          end
        end
      end
    end
  end

  // ----- Command accept: the generator takes it, the queue keeps what the consumer needs.
  always_comb begin
    transpose_d    = accept ? cmd_i.transpose : transpose_q;
    lanes_d        = accept ? cmd_i.lanes : lanes_q;
    cmd_bytes      = cmd_i.int8 && cmd_i.target != mxu_isa_pkg::BufAcc;
    wide_d         = accept ? cmd_i.target == mxu_isa_pkg::BufAcc : wide_q;
    bytes_d        = accept ? cmd_bytes : bytes_q;
    // The command's own values, whether or not it is taken this cycle: accept (late, from the
    // controller's dispatch) only selects them.
    cmd_stride_bytes = (cmd_i.target == mxu_isa_pkg::BufAcc) ? {2'b00, cmd_i.stride, 2'b00} :
                       cmd_bytes ? {4'b0000, cmd_i.stride} : {3'b000, cmd_i.stride, 1'b0};
    stride_bytes_d = accept ? cmd_stride_bytes : stride_bytes_q;
    // Linear mode: plain rows packed back to back, any length, from any address.
    cmd_row_bytes   = (cmd_i.target == mxu_isa_pkg::BufAcc) ? {cmd_i.lanes, 2'b00} :
                      cmd_bytes ? {2'b00, cmd_i.lanes} : {1'b0, cmd_i.lanes, 1'b0};
    cmd_linear      = !cmd_i.transpose && cmd_i.stride != '0 &&
                      20'(cmd_row_bytes) == cmd_stride_bytes;
    linear_d        = accept ? cmd_linear : linear_q;
    // Transposed: host rows not all bus aligned take blocks of ShortRows.
    cmd_short       = cmd_i.host_addr[BeatShift-1:0] != '0 ||
                      cmd_stride_bytes[BeatShift-1:0] != '0;
    cmd_trows       = cmd_short ? 16'(ShortRows) : 16'(TransposeRows);
    trows_d         = accept ? cmd_trows : trows_q;
    block_full_d    = accept ? cmd_i.rows > cmd_trows : block_full_step;
    cmd_bcast       = !cmd_i.transpose && cmd_i.stride == '0;
    bcast_d         = accept ? cmd_bcast : bcast_q;
    // The product's bytes operand at the width a legal row needs (7 bits on the default device,
    // not the field's 18): the multiply sits at the end of the decoder's path across blocks
    // (issue 55 measured 52 gate levels with a 13-bit operand).
    cmd_row_len     = RowBytesW'(cmd_row_bytes);
    cmd_lin_bytes   = (RowBytesW+17)'(cmd_i.rows) * (RowBytesW+17)'(cmd_row_len) +
                      (RowBytesW+17)'(cmd_i.host_addr[BeatShift-1:0]) + (RowBytesW+17)'(BusBytes - 1);
    lin_left_d      = accept ? 20'(cmd_lin_bytes >> BeatShift) : lin_left_step;
    // A linear transfer's bursts start at the beat holding its first row.
    burst_addr_sel  = accept ? {cmd_i.host_addr[AddrWidth-1:BeatShift], BeatShift'(0)}
                             : burst_addr_step;
    gen_active_d   = accept ? 1'b1 : gen_active_step;
    rows_left_d    = accept ? cmd_i.rows : rows_left_step;
    gen_j_d        = accept ? '0 : gen_j_step;
    seg_addr_d     = accept ? cmd_i.host_addr : seg_addr_step;
    block_addr_d   = accept ? cmd_i.host_addr : block_addr_step;
    seg_started_d  = accept ? 1'b0 : seg_started_step;
    inflight_d     = inflight_q + QCntW'(accept) - QCntW'(done_i);

    q_o.target     = cmd_i.target;
    q_o.transpose  = cmd_i.transpose;
    q_o.int8       = cmd_bytes;
    q_o.linear     = cmd_linear;
    q_o.short_blk  = cmd_short;
    q_o.broadcast  = cmd_bcast;
    q_o.row_bytes  = cmd_row_bytes;
    q_o.first_off  = 10'(cmd_i.host_addr[BeatShift-1:0]);
    q_o.rows       = cmd_i.rows;
    q_o.lanes      = cmd_i.lanes;
    q_o.buf_addr   = cmd_i.buf_addr;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      transpose_q    <= 1'b0;
      lanes_q        <= '0;
      stride_bytes_q <= '0;
      wide_q         <= 1'b0;
      bytes_q        <= 1'b0;
      trows_q        <= '0;
      block_full_q   <= 1'b0;
      gen_active_q   <= 1'b0;
      rows_left_q    <= '0;
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
    end else begin
      transpose_q    <= transpose_d;
      lanes_q        <= lanes_d;
      stride_bytes_q <= stride_bytes_d;
      wide_q         <= wide_d;
      bytes_q        <= bytes_d;
      trows_q        <= trows_d;
      block_full_q   <= block_full_d;
      gen_active_q   <= gen_active_d;
      rows_left_q    <= rows_left_d;
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
    end
  end

`ifndef SYNTHESIS
  // Whether a register would take a new value at the next edge (the gated engine's assertion).
  logic would_change;
  assign would_change =
      {transpose_d, lanes_d, stride_bytes_d, wide_d, bytes_d, trows_d, block_full_d, gen_active_d,
       rows_left_d, gen_j_d, seg_addr_d, block_addr_d, seg_started_d, burst_addr_sel, linear_d,
       bcast_d, lin_left_d, beats_left_d, inflight_d} !=
      {transpose_q, lanes_q, stride_bytes_q, wide_q, bytes_q, trows_q, block_full_q, gen_active_q,
       rows_left_q, gen_j_q, seg_addr_q, block_addr_q, seg_started_q, burst_addr_q, linear_q,
       bcast_q, lin_left_q, beats_left_q, inflight_q};
`endif

  assign busy_o     = inflight_q != '0;
  assign q_push_o   = accept;
  assign ar_o.addr  = next_burst_addr;
  assign ar_o.len   = burst_beats - 8'd1;
  assign ar_o.id    = ArId;
  assign ar_fire_o  = ar_fire;
  // Linear mode needs no segments.
  assign seg_push_o = ar_fire && !seg_started_q && !linear_q;
  assign seg_o      = {seg_addr_q[BeatShift-1:0], seg_beats};

  `MXU_ASSERT_STATIC(gen_bus_bytes_pow2, BusBytes >= 4 && BusBytes <= 1024 &&
                     (BusBytes & (BusBytes - 1)) == 0,
                     "mxu_dma_load_gen: MemBusBytes must be a power of two from 4 to 1024")
  // A command only when ready; a read address held until accepted, unchanged; whole aligned
  // beats, at most 16 of them, never across a 4 KiB boundary.
  `MXU_ASSERT_NEVER(CmdWhileBusy, cmd_valid_i && !cmd_ready_o, clk_check_i, rst_ni)
  `MXU_ASSERT_STABLE(ArStable, ar_valid_o, ar_ready_i, {next_burst_addr, burst_beats},
                     clk_check_i, rst_ni)
  `MXU_ASSERT(BlockFull, block_full_q == (rows_left_q > trows_q), clk_check_i, rst_ni)
  // A command's row fits the device's widest buffer row (cmd_row_len's width).
  `MXU_ASSERT(RowBytesLegal, accept |-> 32'(cmd_row_bytes) <= RowBytesMax, clk_check_i, rst_ni)
  `MXU_ASSERT(ArAligned, ar_valid_o |-> next_burst_addr[BeatShift-1:0] == '0, clk_check_i, rst_ni)
  `MXU_ASSERT(ArBeats, ar_valid_o |-> burst_beats >= 8'd1 && burst_beats <= 8'd16,
              clk_check_i, rst_ni)
  `MXU_ASSERT(Ar4k, ar_valid_o |-> 32'(next_burst_addr[11:0]) + (32'(burst_beats) << BeatShift)
              <= 32'd4096, clk_check_i, rst_ni)

endmodule
