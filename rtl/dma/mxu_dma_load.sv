// DMA load engine: host memory -> unified buffer, accumulators or weight FIFO (LOAD, docs/isa.md).
//
// Two halves joined by an in-order command queue of QueueDepth LOADs:
// - the address generator (mxu_dma_load_gen) takes a command, cuts it into segments (a buffer
//   row, or a run of a host row for a transposed block) and requests them as bursts, with up to
//   MemMaxInFlight bursts outstanding (u_bursts: their addresses, for errors; u_segments: each
//   segment's offset and beats). It takes the next command as soon as it has requested every
//   burst of the current one (and fewer than QueueDepth commands are in flight);
// - the consumer (mxu_dma_load_pack) works through the queue in order: it packs the beats of
//   plain LOADs into rows, hands those of transposed ones to the transpose buffer
//   (mxu_dma_transpose), and writes the rows of both to the target.
// status_o.done pulses once per command, in order. The command must be legal (the controller
// checks it).
//
// Clock gating (ClockGating, docs/architecture.md "Clock gating"): the whole engine (generator,
// queues, consumer and transpose buffer) runs on a gated clock in the cycles a command is offered
// or in flight (accepted, not yet done: busy_o), and in reset; between commands every register
// holds (no read data, no row, no command can move one), which an assertion checks. cmd_ready_o
// and status_o are combinational from held registers, right while the clock is off.
`include "mxu_assert.svh"

module mxu_dma_load #(
  parameter int unsigned TransposeRows = mxu_pkg::TransposeRows,  // buffer rows of a block
  parameter int unsigned QueueDepth    = mxu_pkg::DmaQueueDepth,  // commands in flight
  parameter logic [mxu_pkg::MemIdWidth-1:0] ArId = '0,  // read ID of every burst
  parameter bit          ClockGating   = mxu_pkg::ClockGating,
  localparam int unsigned UbLanes     = mxu_pkg::UbLanes,
  localparam int unsigned Cols        = mxu_pkg::ArrayCols,
  localparam int unsigned AddrWidth   = mxu_pkg::MemAddrWidth,
  localparam int unsigned BeatShift   = $clog2(mxu_pkg::MemBusBytes),  // byte offset bits
  localparam int unsigned MaxInFlight = mxu_pkg::MemMaxInFlight,
  localparam int unsigned BeatsWidth  = mxu_pkg::dma_beats_width(UbLanes, Cols, TransposeRows),
  localparam int unsigned SegW        = BeatShift + BeatsWidth,  // a segment: {offset, beats}
  localparam int unsigned QCntW       = $clog2(QueueDepth + 1),
  // Bits of mxu_pkg::dma_load_q_t (Yosys 0.23 takes no $bits of a type; checked below).
  localparam int unsigned QW          = 83
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
  output logic                   clock_on_o,  // the engine's clock runs this cycle
  // Read address and (routed) read data channels.
  output mxu_pkg::mem_rd_req_t   rd_req_o,
  input  mxu_pkg::mem_rd_rsp_t   rd_rsp_i,
  // Buffer write ports.
  output mxu_pkg::buf_wr_req_t   buf_req_o,
  input  mxu_pkg::buf_wr_rsp_t   buf_rsp_i
);

  mxu_pkg::dma_load_q_t           q_in, head;
  logic                           accept, q_full, q_empty, q_pop;
  logic [QCntW-1:0]               q_count;
  logic                           done, busy, ar_valid, ar_fire;
  mxu_pkg::mem_ar_t               ar;
  // Bursts (address, for errors) and segments (offset, beats) in flight.
  logic                           burst_full, burst_empty;
  logic [AddrWidth-1:0]           burst_head;
  logic                           seg_push, seg_full, seg_empty, seg_pop;
  logic [SegW-1:0]                seg_in, seg_head;
  logic [$clog2(MaxInFlight+1)-1:0] bursts_in_flight, segs_in_flight;
  // The consumer and the transpose buffer.
  logic                           r_ready, r_fire, error, plain_done, row_valid;
  logic                           t_fill_ready, t_seg_done, t_pop, t_idle, t_done;
  logic [BeatsWidth-1:0]          t_beat;
  logic [BeatShift-1:0]           t_off;
  logic                           t_row_valid, t_row_ready;
  logic [1:0]                     t_row_target, t_cmds;
  logic [15:0]                    t_row_addr;
  logic [UbLanes*16-1:0]          t_row_data;
  logic                           clk_eng;  // the engine's clock, gated under ClockGating

  mxu_dma_load_gen #(
    .TransposeRows(TransposeRows), .QueueDepth(QueueDepth), .ArId(ArId)
  ) u_gen (
    .clk_i  (clk_eng),
    .rst_ni,
    .clk_check_i(clk_i),
    .cmd_valid_i,
    .cmd_ready_o,
    .cmd_i,
    .done_i      (done),
    .busy_o      (busy),
    .q_push_o    (accept),
    .q_o         (q_in),
    .ar_valid_o  (ar_valid),
    .ar_o        (ar),
    .ar_ready_i  (rd_rsp_i.ar_ready),
    .ar_fire_o   (ar_fire),
    .burst_full_i(burst_full),
    .seg_push_o  (seg_push),
    .seg_o       (seg_in),
    .seg_full_i  (seg_full)
  );

  mxu_sync_fifo #(.Width(QW), .Depth(QueueDepth)) u_queue (
    .clk_i  (clk_eng),
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
    .clk_i  (clk_eng),
    .rst_ni,
    .push_i (ar_fire),
    .wdata_i(ar.addr),
    .full_o (burst_full),
    .pop_i  (r_fire && rd_rsp_i.r.last),
    .rdata_o(burst_head),
    .empty_o(burst_empty),
    .count_o(bursts_in_flight)
  );

  mxu_sync_fifo #(.Width(SegW), .Depth(MaxInFlight)) u_segments (
    .clk_i  (clk_eng),
    .rst_ni,
    .push_i (seg_push),
    .wdata_i(seg_in),
    .full_o (seg_full),
    .pop_i  (seg_pop),
    .rdata_o(seg_head),
    .empty_o(seg_empty),
    .count_o(segs_in_flight)
  );

  mxu_dma_load_pack #(.TransposeRows(TransposeRows)) u_pack (
    .clk_i  (clk_eng),
    .rst_ni,
    .head_i        (head),
    .q_empty_i     (q_empty),
    .plain_done_o  (plain_done),
    .seg_i         (seg_head),
    .seg_empty_i   (seg_empty),
    .seg_pop_o     (seg_pop),
    .rd_rsp_i,
    .r_ready_o     (r_ready),
    .r_fire_o      (r_fire),
    .error_o       (error),
    .t_fill_ready_i(t_fill_ready),
    .t_seg_done_o  (t_seg_done),
    .t_beat_o      (t_beat),
    .t_off_o       (t_off),
    .t_idle_i      (t_idle),
    .t_row_valid_i (t_row_valid),
    .t_row_target_i(t_row_target),
    .t_row_addr_i  (t_row_addr),
    .t_row_data_i  (t_row_data),
    .t_row_ready_o (t_row_ready),
    .row_valid_o   (row_valid),
    .buf_req_o,
    .buf_rsp_i
  );

  mxu_dma_transpose #(.TransposeRows(TransposeRows)) u_transpose (
    .clk_i  (clk_eng),
    .rst_ni,
    .head_i      (head),
    .fill_ready_o(t_fill_ready),
    .r_fire_i    (r_fire),
    .r_data_i    (rd_rsp_i.r.data),
    .seg_done_i  (t_seg_done),
    .beat_i      (t_beat),
    .off_i       (t_off),
    .pop_o       (t_pop),
    .row_valid_o (t_row_valid),
    .row_target_o(t_row_target),
    .row_addr_o  (t_row_addr),
    .row_data_o  (t_row_data),
    .row_ready_i (t_row_ready),
    .idle_o      (t_idle),
    .done_o      (t_done),
    .cmds_o      (t_cmds)
  );

  // A plain command leaves the queue when its last row is written, a transposed one when its last
  // block is in the transpose buffer. Completion: plain commands when their last row is written,
  // transposed ones when the transpose buffer has written their last row; never both in one
  // cycle (plain rows wait for the transpose buffer to be idle).
  assign q_pop = plain_done || t_pop;
  assign done  = plain_done || t_done;

  // The first error response stops the device; the burst it belongs to names the address, and
  // the commands still in the transpose buffer ahead of the one receiving it name its instruction.
  assign rd_req_o.ar_valid   = ar_valid;
  assign rd_req_o.ar         = ar;
  assign rd_req_o.r_ready    = r_ready;
  assign status_o.done       = done;
  assign status_o.error      = error;
  assign status_o.error_addr = burst_head;
  assign status_o.error_skip = t_cmds;
  assign status_o.released   = 1'b0;
  assign busy_o       = busy;
  // Waiting on memory: busy, nothing requested and no data arriving this cycle.
  assign stall_o      = busy && !ar_fire && !r_fire && !row_valid;

  // The clock: on while a command is offered or in flight. The registers take their reset values
  // without it (asynchronously); the address generator's assertions sample on the free clock, so
  // that none keeps what it saw before a reset (a soft reset may cut a burst request short). The
  // reset is not in the enable: as data into the gate it would be a timed path through the
  // engines' whole reset tree.
  mxu_clock_domain #(.ClockGating(ClockGating)) u_clock (
    .clk_i,
    .rst_ni,
    .active_i  (cmd_valid_i || busy),
    .clk_o     (clk_eng),
    .clock_on_o
  );
  `MXU_ASSERT_STILL_WHILE_GATED(load_still_while_gated, ClockGating, clock_on_o,
      u_gen.would_change || u_queue.would_change || u_bursts.would_change ||
      u_segments.would_change || u_pack.would_change || u_transpose.would_change, clk_i, rst_ni)

  `MXU_ASSERT_STATIC(gen_queue_depth, QueueDepth >= 1 && QueueDepth <= 4,
                     "mxu_dma_load: QueueDepth must be 1 to 4 (status_o.error_skip is 2 bits)")
`ifndef SYNTHESIS
  `MXU_ASSERT_STATIC(gen_queue_width, QW == $bits(mxu_pkg::dma_load_q_t),
                     "mxu_dma_load: QW must be the width of mxu_pkg::dma_load_q_t")
`endif
  // Data only for bursts asked for; the queue holds every command not yet handed on.
  `MXU_ASSERT_NEVER(DataWithoutBurst, r_fire && burst_empty, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(QueueOverflow, accept && q_full, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(DoneTwice, plain_done && t_done, clk_i, rst_ni)

  logic unused_signals;
  assign unused_signals = ^{burst_empty, bursts_in_flight, segs_in_flight, rd_rsp_i.r.id,
                            q_count, q_full};

endmodule
