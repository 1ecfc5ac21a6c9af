// DMA store engine: unified buffer or accumulators -> host memory (STORE, docs/isa.md).
//
// Buffer rows are read one at a time (two in the pipeline: the row being written out and the
// next one), shifted to their host byte offset and written as INCR bursts of whole bus beats with
// byte strobes (split at 4 KiB boundaries and at 16 beats). A burst's address and first data beat
// may go out in the same cycle; up to MemMaxInFlight bursts wait for their write responses. The
// command must be legal (the controller checks it).
//
// The int8 mode: from the unified buffer, each lane's low byte (one byte per element); from the
// accumulators, int32 words, whose ReLU zeroes negatives with no NaN rule.
//
// Linear mode: rows packed back to back in host memory (stride = row length, any length, any
// alignment) go out as bursts of up to 16 beats that run across row boundaries. A beat that holds
// the end of one row and the start of the next goes out once: a row whose end is not on a beat
// boundary keeps its last beat (the carry) and the next row's first beat takes it in, data and
// strobes; a row inside one such beat sends no beat of its own.
//
// Clock gating (ClockGating, docs/architecture.md "Clock gating"): the engine runs on a gated
// clock in the cycles a command is offered, active or waiting for its last write responses
// (busy_o); between commands every register holds (the read's host address is taken only with a
// granted read), which an assertion checks. cmd_ready_o and status_o are combinational from held
// registers, right while the clock is off.
`include "mxu_assert.svh"

module mxu_dma_store #(
  parameter bit          ClockGating = mxu_pkg::ClockGating,
  localparam int unsigned UbLanes     = mxu_pkg::UbLanes,
  localparam int unsigned Cols        = mxu_pkg::ArrayCols,
  localparam int unsigned UbAw        = mxu_pkg::UbAddrWidth,
  localparam int unsigned AccAw       = mxu_pkg::AccAddrWidth,
  localparam int unsigned AddrWidth   = mxu_pkg::MemAddrWidth,
  localparam int unsigned BusBytes    = mxu_pkg::MemBusBytes,
  localparam int unsigned BusBits     = BusBytes * 8,
  localparam int unsigned BeatShift   = $clog2(BusBytes),     // byte offset bits in a beat
  localparam int unsigned BeatsPer4k  = 4096 / BusBytes,
  localparam int unsigned MaxInFlight = mxu_pkg::MemMaxInFlight,
  localparam int unsigned RowBytesMax = mxu_pkg::dma_seg_bytes_max(UbLanes, Cols),
  localparam int unsigned RowBeatsMax = (RowBytesMax + 2 * BusBytes - 2) / BusBytes,
  localparam int unsigned WinBytes    = RowBeatsMax * BusBytes,
  localparam int unsigned BeatsWidth  = $clog2(RowBeatsMax + 1),
  localparam int unsigned LinWidth    = 34 - BeatShift + 1  // beats of a linear command
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // Command.
  input  logic                  cmd_valid_i,
  output logic                  cmd_ready_o,
  input  mxu_pkg::store_cmd_t   cmd_i,
  output mxu_pkg::dma_status_t  status_o,
  output logic                  busy_o,
  output logic                  stall_o,
  output logic [15:0]           wr_bytes_o,  // bytes written this cycle (enabled strobes)
  output logic                  clock_on_o,  // the engine's clock runs this cycle
  // Buffer read ports (data the cycle after a grant).
  output mxu_pkg::buf_rd_req_t  buf_req_o,
  input  mxu_pkg::buf_rd_rsp_t  buf_rsp_i,
  // Write address, write data and write response channels.
  output mxu_pkg::mem_wr_req_t  wr_req_o,
  input  mxu_pkg::mem_wr_rsp_t  wr_rsp_i
);

  logic                 active_d, active_q, from_acc_d, from_acc_q, relu_d, relu_q;
  logic                 int8_d, int8_q;  // int8 lanes (UB) or int32 words (ACC)
  logic                 cmd_bytes;
  logic [15:0]          rows_d, rows_q, lanes_d, lanes_q;
  logic [19:0]          stride_bytes_d, stride_bytes_q;
  // Reader.
  logic [15:0]          rd_row_d, rd_row_q;        // rows requested so far
  logic [15:0]          rd_addr_d, rd_addr_q;      // next buffer row
  logic [AddrWidth-1:0] rd_host_d, rd_host_q;      // host address of the next row
  logic                 rd_pending_d, rd_pending_q;
  logic [AddrWidth-1:0] pending_host_d, pending_host_q;
  logic                 rd_en, rd_gnt;
  // Rows ready to go out: current and next.
  logic                 cur_valid_d, cur_valid_q, nxt_valid_d, nxt_valid_q;
  logic [WinBytes*8-1:0] cur_data_d, cur_data_q, nxt_data_d, nxt_data_q, win_data;
  logic [WinBytes-1:0]  cur_strb_d, cur_strb_q, nxt_strb_d, nxt_strb_q, win_strb;
  logic [AddrWidth-1:0] cur_base_d, cur_base_q, nxt_base_d, nxt_base_q;  // bus-aligned
  logic [BeatsWidth-1:0] win_beats;
  // Linear mode: the beats a row sends (its window's, less a kept last beat), and whether it
  // keeps its last beat for the next row (the carry).
  logic [BeatsWidth-1:0] cur_emit_d, cur_emit_q, nxt_emit_d, nxt_emit_q, win_emit;
  logic                 cur_keep_d, cur_keep_q, nxt_keep_d, nxt_keep_q, win_keep;
  logic [BeatsWidth-1:0] kept_beat;
  logic [BusBits-1:0]   carry_data_d, carry_data_q, beat_data, kept_data;
  logic [BusBytes-1:0]  carry_strb_d, carry_strb_q, beat_strb, kept_strb;
  logic [BeatShift-1:0] row_end;  // a row's end, in its last beat
  logic [RowBytesMax*8-1:0] row_bytes;
  logic [17:0]          row_len;
  // Emission of the current row.
  logic [BeatsWidth-1:0] beat_d, beat_q;
  logic [4:0]           burst_left_d, burst_left_q;  // beats left in the open burst; 0: none
  logic [4:0]           burst_beats;
  logic [AddrWidth-1:0] burst_addr;
  logic [12:0]          beats_to_4k;
  logic                 aw_fire, w_fire, b_fire, row_done, done;
  // The last command's write responses, waited for while the next command starts (the tail).
  localparam int unsigned OwedW = $clog2(MaxInFlight + 1);
  logic [OwedW-1:0]     front_owed_d, front_owed_q, tail_owed_d, tail_owed_q;
  logic                 tail_d, tail_q, front_written, front_done, to_tail, tail_done;
  logic [15:0]          rows_done_d, rows_done_q;
  // Bursts waiting for their write response.
  logic                 bq_full, bq_empty;
  logic [AddrWidth-1:0] bq_head;
  logic [$clog2(MaxInFlight+1)-1:0] bq_count;
  logic                 error_d, error_q;
  logic                 linear_d, linear_q;
  logic [AddrWidth-1:0] lin_addr_d, lin_addr_q;
  logic [LinWidth-1:0] lin_left_d, lin_left_q;  // beats without a burst yet
  logic [17:0]          cmd_row_len;
  logic [35:0]          lin_bytes;
  logic                 clk_eng;  // the engine's clock, gated under ClockGating

  // Emission: open a burst at the current beat, then send its beats.
  always_comb begin
    burst_addr  = linear_q ? lin_addr_q : cur_base_q + (AddrWidth'(beat_q) << BeatShift);
    beats_to_4k = 13'(BeatsPer4k) - 13'(burst_addr[11:BeatShift]);
    burst_beats = linear_q ? ((lin_left_q > LinWidth'(16)) ? 5'd16 : 5'(lin_left_q))
                           : 5'(cur_emit_q) - 5'(beat_q);
    if (13'(burst_beats) > beats_to_4k) burst_beats = 5'(beats_to_4k);
    if (burst_beats > 5'd16) burst_beats = 5'd16;
    wr_req_o.aw_valid = cur_valid_q && cur_emit_q != '0 && burst_left_q == '0 && !bq_full;
    wr_req_o.aw.addr  = burst_addr;
    wr_req_o.aw.len   = 8'(burst_beats) - 8'd1;
    aw_fire    = wr_req_o.aw_valid && wr_rsp_i.aw_ready;
    // A row's first beat takes in the carry (empty unless the last row kept a beat).
    beat_data = cur_data_q[32'(beat_q)*BusBits +: BusBits];
    beat_strb = cur_strb_q[32'(beat_q)*BusBytes +: BusBytes];
    if (beat_q == '0) begin  // byte by byte: the row's unstrobed bytes hold other lanes' data
      for (int unsigned i = 0; i < BusBytes; i++) begin
        if (carry_strb_q[i]) beat_data[i*8 +: 8] = carry_data_q[i*8 +: 8];
      end
      beat_strb = beat_strb | carry_strb_q;
    end
    wr_req_o.w_valid  = cur_valid_q && cur_emit_q != '0 && (burst_left_q != '0 || aw_fire);
    wr_req_o.w.data   = beat_data;
    wr_req_o.w.strb   = beat_strb;
    wr_req_o.w.last   = (burst_left_q == 5'd1) || (burst_left_q == '0 && burst_beats == 5'd1);
    w_fire     = wr_req_o.w_valid && wr_rsp_i.w_ready;
    row_done   = cur_valid_q && (cur_emit_q == '0 || (w_fire && beat_q + 1'b1 == cur_emit_q));
    wr_bytes_o = '0;
    for (int unsigned i = 0; i < BusBytes; i++) wr_bytes_o += 16'(w_fire && wr_req_o.w.strb[i]);

    burst_left_d = burst_left_q;
    if (aw_fire) burst_left_d = burst_beats;
    if (w_fire) burst_left_d = burst_left_d - 1'b1;
    beat_d = row_done ? '0 : (w_fire ? beat_q + 1'b1 : beat_q);

    // The carry: taken in by a row's first beat; a row that keeps its last beat leaves it there
    // (with the carry it took in, when that beat is also its first).
    kept_beat = cur_keep_q ? cur_emit_q : '0;  // in the window only when kept
    kept_data = cur_data_q[32'(kept_beat)*BusBits +: BusBits];
    kept_strb = cur_strb_q[32'(kept_beat)*BusBytes +: BusBytes];
    if (cur_emit_q == '0) begin
      for (int unsigned i = 0; i < BusBytes; i++) begin
        if (carry_strb_q[i]) kept_data[i*8 +: 8] = carry_data_q[i*8 +: 8];
      end
      kept_strb = kept_strb | carry_strb_q;
    end
    carry_data_d = carry_data_q;
    carry_strb_d = carry_strb_q;
    if (w_fire && beat_q == '0) begin
      carry_data_d = '0;
      carry_strb_d = '0;
    end
    if (row_done && cur_keep_q) begin
      carry_data_d = kept_data;
      carry_strb_d = kept_strb;
    end
  end

  // ----- Reader: one buffer row a cycle, never more than the two row registers can take: a
  // read beside a row arriving needs the current row register free or leaving for certain (a
  // row that emits no beat of its own), so that the next cycle's row finds the other free.
  always_comb begin
    rd_en         = active_q && rd_row_q != rows_q && !nxt_valid_q &&
                    (!rd_pending_q || !cur_valid_q || cur_emit_q == '0);
    buf_req_o.ub_en    = rd_en && !from_acc_q;
    buf_req_o.ub_addr  = UbAw'(rd_addr_q);
    buf_req_o.acc_en   = rd_en && from_acc_q;
    buf_req_o.acc_addr = AccAw'(rd_addr_q);
  end

  assign cmd_ready_o = !active_q;

  // The reader's pointers: a row further with each granted read, from a command's first row.
  always_comb begin
    rd_gnt       = from_acc_q ? buf_rsp_i.acc_gnt : buf_rsp_i.ub_gnt;
    rd_pending_d = rd_en && rd_gnt;
    // The read's host address, taken only with the read (operand isolation): it is used only
    // with rd_pending_q.
    pending_host_d = (rd_en && rd_gnt) ? rd_host_q : pending_host_q;
    rd_row_d     = rd_row_q;
    rd_addr_d    = rd_addr_q;
    rd_host_d    = rd_host_q;
    if (rd_en && rd_gnt) begin
      rd_row_d  = rd_row_q + 1'b1;
      rd_addr_d = rd_addr_q + 1'b1;
      rd_host_d = rd_host_q + AddrWidth'(stride_bytes_q);
    end
    if (cmd_valid_i && cmd_ready_o) begin
      rd_row_d  = '0;
      rd_addr_d = cmd_i.buf_addr;
      rd_host_d = cmd_i.host_addr;
    end
  end

  // The row arriving this cycle, placed at its byte offset in a window of whole beats.
  always_comb begin
    row_bytes = '0;
    if (from_acc_q) begin
      row_bytes[Cols*32-1:0] = buf_rsp_i.acc_data;
    end else if (int8_q) begin
      for (int unsigned l = 0; l < UbLanes; l++) begin
        row_bytes[l*8 +: 8] = buf_rsp_i.ub_data[l*16 +: 8];
      end
    end else begin
      row_bytes[UbLanes*16-1:0] = buf_rsp_i.ub_data;
    end
    if (from_acc_q && relu_q) begin
      for (int unsigned l = 0; l < Cols; l++) begin
        if (!int8_q && row_bytes[l*32+23 +: 8] == 8'hFF && row_bytes[l*32 +: 23] != '0) begin
          row_bytes[l*32 +: 32] = mxu_pkg::Fp32CanonicalNan;
        end else if (row_bytes[l*32+31]) begin
          row_bytes[l*32 +: 32] = 32'h0;  // negative numbers and -0
        end
      end
    end
    row_len   = from_acc_q ? {lanes_q, 2'b00} : int8_q ? {2'b00, lanes_q} : {1'b0, lanes_q, 1'b0};
    win_data  = (WinBytes*8)'(row_bytes) << {pending_host_q[BeatShift-1:0], 3'b000};
    win_strb  = '0;
    for (int unsigned i = 0; i < WinBytes; i++) begin
      win_strb[i] = (18'(i) >= 18'(pending_host_q[BeatShift-1:0])) &&
                    (18'(i) < 18'(pending_host_q[BeatShift-1:0]) + row_len);
    end
    win_beats = BeatsWidth'((18'(pending_host_q[BeatShift-1:0]) + row_len + 18'(BusBytes - 1)) >>
                            BeatShift);
    // Linear mode: a row that ends inside a beat, and is not the command's last (rd_row_q has
    // counted it), keeps that beat for the next row.
    row_end   = pending_host_q[BeatShift-1:0] + row_len[BeatShift-1:0];
    win_keep  = linear_q && row_end != '0 && rd_row_q != rows_q;
    win_emit  = win_beats - BeatsWidth'(win_keep);
  end

  // The two row registers: the current row's beats go out while the next row waits.
  always_comb begin
    cur_valid_d = cur_valid_q && !row_done;
    cur_data_d  = cur_data_q;
    cur_strb_d  = cur_strb_q;
    cur_base_d  = cur_base_q;
    cur_emit_d  = cur_emit_q;
    cur_keep_d  = cur_keep_q;
    nxt_emit_d  = nxt_emit_q;
    nxt_keep_d  = nxt_keep_q;
    nxt_valid_d = nxt_valid_q;
    nxt_data_d  = nxt_data_q;
    nxt_strb_d  = nxt_strb_q;
    nxt_base_d  = nxt_base_q;
    if (!cur_valid_d && nxt_valid_q) begin
      cur_valid_d = 1'b1;
      cur_data_d  = nxt_data_q;
      cur_strb_d  = nxt_strb_q;
      cur_base_d  = nxt_base_q;
      cur_emit_d  = nxt_emit_q;
      cur_keep_d  = nxt_keep_q;
      nxt_valid_d = 1'b0;
    end
    if (rd_pending_q) begin
      if (!cur_valid_d) begin
        cur_valid_d = 1'b1;
        cur_data_d  = win_data;
        cur_strb_d  = win_strb;
        cur_base_d  = {pending_host_q[AddrWidth-1:BeatShift], BeatShift'(0)};
        cur_emit_d  = win_emit;
        cur_keep_d  = win_keep;
      end else begin
        nxt_valid_d = 1'b1;
        nxt_data_d  = win_data;
        nxt_strb_d  = win_strb;
        nxt_base_d  = {pending_host_q[AddrWidth-1:BeatShift], BeatShift'(0)};
        nxt_emit_d  = win_emit;
        nxt_keep_d  = win_keep;
      end
    end
  end

  // Write responses and completion.
  always_comb begin
    wr_req_o.b_ready = 1'b1;
    b_fire      = wr_rsp_i.b_valid;
    error_d     = error_q || (b_fire && wr_rsp_i.b.resp != 2'b00);
    rows_done_d = row_done ? rows_done_q + 1'b1 : rows_done_q;
    if (cmd_valid_i && cmd_ready_o) rows_done_d = '0;
    // Responses come in order: the tail's first. A command whose beats are all out but whose
    // responses are not all back becomes the tail, and the next command may start.
    front_written = active_q && rows_done_q == rows_q;
    front_done    = front_written && !tail_q && front_owed_q == '0;
    to_tail       = front_written && !tail_q && front_owed_q != '0 &&
                    !(b_fire && front_owed_q == OwedW'(1));
    tail_done     = tail_q && b_fire && tail_owed_q == OwedW'(1);
    done          = front_done || tail_done;
    front_owed_d  = front_owed_q + OwedW'(aw_fire) - OwedW'(b_fire && !tail_q);
    tail_owed_d   = tail_q ? tail_owed_q - OwedW'(b_fire) : tail_owed_q;
    tail_d        = tail_q ? !tail_done : to_tail;
    if (to_tail) begin
      tail_owed_d  = front_owed_q - OwedW'(b_fire);
      front_owed_d = '0;
    end
  end

  // Command accept; and the linear mode's bursts, the beats a burst took off what is left.
  always_comb begin
    cmd_bytes   = cmd_i.int8 && cmd_i.source != mxu_isa_pkg::BufAcc;
    active_d    = active_q && !front_done && !to_tail;
    from_acc_d  = from_acc_q;
    relu_d      = relu_q;
    int8_d      = int8_q;
    rows_d      = rows_q;
    lanes_d     = lanes_q;
    stride_bytes_d = stride_bytes_q;
    if (cmd_valid_i && cmd_ready_o) begin
      active_d       = 1'b1;
      from_acc_d     = cmd_i.source == mxu_isa_pkg::BufAcc;
      relu_d         = cmd_i.relu;
      int8_d         = cmd_i.int8;
      rows_d         = cmd_i.rows;
      lanes_d        = cmd_i.lanes;
      stride_bytes_d = (cmd_i.source == mxu_isa_pkg::BufAcc) ? {2'b00, cmd_i.stride, 2'b00} :
                       cmd_bytes ? {4'b0000, cmd_i.stride} : {3'b000, cmd_i.stride, 1'b0};
    end
    // Linear mode: rows packed back to back, from the beat that holds the first byte to the
    // beat that holds the last.
    cmd_row_len = (cmd_i.source == mxu_isa_pkg::BufAcc) ? {cmd_i.lanes, 2'b00} :
                  cmd_bytes ? {2'b00, cmd_i.lanes} : {1'b0, cmd_i.lanes, 1'b0};
    lin_bytes   = 36'(cmd_i.host_addr[BeatShift-1:0]) + 36'(cmd_i.rows) * 36'(cmd_row_len) +
                  36'(BusBytes) - 36'd1;
    linear_d    = linear_q;
    lin_addr_d  = aw_fire ? lin_addr_q + (AddrWidth'(burst_beats) << BeatShift) : lin_addr_q;
    lin_left_d  = aw_fire ? lin_left_q - LinWidth'(burst_beats) : lin_left_q;
    if (cmd_valid_i && cmd_ready_o) begin
      linear_d   = 20'(cmd_row_len) == 20'(stride_bytes_d);
      lin_addr_d = {cmd_i.host_addr[AddrWidth-1:BeatShift], BeatShift'(0)};
      lin_left_d = LinWidth'(lin_bytes >> BeatShift);
    end
  end

  mxu_sync_fifo #(.Width(AddrWidth), .Depth(MaxInFlight)) u_responses (
    .clk_i  (clk_eng),
    .rst_ni,
    .push_i (aw_fire),
    .wdata_i(burst_addr),
    .full_o (bq_full),
    .pop_i  (b_fire),
    .rdata_o(bq_head),
    .empty_o(bq_empty),
    .count_o(bq_count)
  );

  // The command, the reader and the row registers.
  always_ff @(posedge clk_eng or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q       <= 1'b0;
      from_acc_q     <= 1'b0;
      relu_q         <= 1'b0;
      int8_q         <= 1'b0;
      rows_q         <= '0;
      lanes_q        <= '0;
      stride_bytes_q <= '0;
      rd_row_q       <= '0;
      rd_addr_q      <= '0;
      rd_host_q      <= '0;
      rd_pending_q   <= 1'b0;
      pending_host_q <= '0;
      cur_valid_q    <= 1'b0;
      for (int unsigned i = 0; i < WinBytes; i++) begin  // bytewise: no '0 over 8k bits
        cur_data_q[i*8 +: 8] <= '0;
      end
      cur_strb_q     <= '0;
      cur_base_q     <= '0;
      nxt_valid_q    <= 1'b0;
      for (int unsigned i = 0; i < WinBytes; i++) begin  // bytewise: no '0 over 8k bits
        nxt_data_q[i*8 +: 8] <= '0;
      end
      nxt_strb_q     <= '0;
      nxt_base_q     <= '0;
      cur_emit_q     <= '0;
      cur_keep_q     <= 1'b0;
      nxt_emit_q     <= '0;
      nxt_keep_q     <= 1'b0;
    end else begin
      active_q       <= active_d;
      from_acc_q     <= from_acc_d;
      relu_q         <= relu_d;
      int8_q         <= int8_d;
      rows_q         <= rows_d;
      lanes_q        <= lanes_d;
      stride_bytes_q <= stride_bytes_d;
      rd_row_q       <= rd_row_d;
      rd_addr_q      <= rd_addr_d;
      rd_host_q      <= rd_host_d;
      rd_pending_q   <= rd_pending_d;
      pending_host_q <= pending_host_d;
      cur_valid_q    <= cur_valid_d;
      cur_data_q     <= cur_data_d;
      cur_strb_q     <= cur_strb_d;
      cur_base_q     <= cur_base_d;
      nxt_valid_q    <= nxt_valid_d;
      nxt_data_q     <= nxt_data_d;
      nxt_strb_q     <= nxt_strb_d;
      nxt_base_q     <= nxt_base_d;
      cur_emit_q     <= cur_emit_d;
      cur_keep_q     <= cur_keep_d;
      nxt_emit_q     <= nxt_emit_d;
      nxt_keep_q     <= nxt_keep_d;
    end
  end

  // The carry, the emitter and the responses.
  always_ff @(posedge clk_eng or negedge rst_ni) begin
    if (!rst_ni) begin
      carry_data_q   <= '0;
      carry_strb_q   <= '0;
      beat_q         <= '0;
      burst_left_q   <= '0;
      rows_done_q    <= '0;
      front_owed_q   <= '0;
      tail_owed_q    <= '0;
      tail_q         <= 1'b0;
      error_q        <= 1'b0;
      linear_q       <= 1'b0;
      lin_addr_q     <= '0;
      lin_left_q     <= '0;
    end else begin
      carry_data_q   <= carry_data_d;
      carry_strb_q   <= carry_strb_d;
      beat_q         <= beat_d;
      burst_left_q   <= burst_left_d;
      rows_done_q    <= rows_done_d;
      front_owed_q   <= front_owed_d;
      tail_owed_q    <= tail_owed_d;
      tail_q         <= tail_d;
      error_q        <= error_d;
      linear_q       <= linear_d;
      lin_addr_q     <= lin_addr_d;
      lin_left_q     <= lin_left_d;
    end
  end

  assign status_o.done       = done;
  assign status_o.error      = b_fire && wr_rsp_i.b.resp != 2'b00 && !error_q;
  assign status_o.error_addr = bq_head;
  assign status_o.error_skip = 2'd0;  // a response belongs to the oldest command in flight
  // The last buffer row is read in the cycle its read is granted (the SRAM samples the address).
  assign status_o.released   = rd_en && rd_gnt && rd_row_q + 1'b1 == rows_q;
  assign busy_o       = active_q || tail_q;
  // (A row that sends no beat of its own moves on: not a stall.)
  assign stall_o      = (active_q && !w_fire && !rd_pending_q &&
                         !(cur_valid_q && cur_emit_q == '0) && (cur_valid_q || !bq_empty)) ||
                        (tail_q && !active_q);

  // The clock: on while a command is offered, active or waiting for its write responses.
  mxu_clock_domain #(.ClockGating(ClockGating)) u_clock (
    .clk_i,
    .rst_ni,
    .active_i  (cmd_valid_i || active_q || tail_q),
    .clk_o     (clk_eng),
    .clock_on_o
  );
  `MXU_ASSERT_STILL_WHILE_GATED(store_still_while_gated, ClockGating, clock_on_o,
      (cur_data_d != cur_data_q) || (nxt_data_d != nxt_data_q) ||
      (cur_strb_d != cur_strb_q) || (nxt_strb_d != nxt_strb_q) ||
      {active_d, from_acc_d, relu_d, int8_d, rows_d, lanes_d, stride_bytes_d, rd_row_d,
       rd_addr_d, rd_host_d, rd_pending_d, pending_host_d, cur_valid_d, cur_base_d,
       nxt_valid_d, nxt_base_d, beat_d, burst_left_d, rows_done_d, front_owed_d,
       tail_owed_d, tail_d, error_d, linear_d, lin_addr_d, lin_left_d, cur_emit_d, cur_keep_d,
       nxt_emit_d, nxt_keep_d, carry_data_d, carry_strb_d} !=
      {active_q, from_acc_q, relu_q, int8_q, rows_q, lanes_q, stride_bytes_q, rd_row_q,
       rd_addr_q, rd_host_q, rd_pending_q, pending_host_q, cur_valid_q, cur_base_q,
       nxt_valid_q, nxt_base_q, beat_q, burst_left_q, rows_done_q, front_owed_q,
       tail_owed_q, tail_q, error_q, linear_q, lin_addr_q, lin_left_q, cur_emit_q, cur_keep_q,
       nxt_emit_q, nxt_keep_q, carry_data_q, carry_strb_q} ||
      u_responses.would_change, clk_i, rst_ni)

  `MXU_ASSERT_STATIC(gen_bus_bytes, BusBytes >= 2 && BusBytes <= 1024 &&
                     (BusBytes & (BusBytes - 1)) == 0,
                     "mxu_dma_store: MemBusBytes must be a power of two from 2 to 1024")
  // A command only when idle; a write address held until accepted, unchanged, and the same for
  // write data; whole aligned beats, at most 16, never across 4 KiB; responses only for bursts
  // sent.
  `MXU_ASSERT_NEVER(CmdWhileBusy, cmd_valid_i && !cmd_ready_o, clk_i, rst_ni)
  `MXU_ASSERT_STABLE(AwStable, wr_req_o.aw_valid, wr_rsp_i.aw_ready, wr_req_o.aw, clk_i, rst_ni)
`ifndef SYNTHESIS
  // The W payload in narrow public copies of up to 256 bits, each sampled on its own: Verilator
  // 5.006 cannot sample a variable of more than 32 words (mxu_mem_drain says more).
  localparam int unsigned ChunkBits  = (BusBits < 256) ? BusBits : 256;
  localparam int unsigned StrbBits   = (BusBytes < 256) ? BusBytes : 256;
  logic w_last_a;
  assign w_last_a = wr_req_o.w.last;
  `MXU_ASSERT_STABLE(WStable, wr_req_o.w_valid, wr_rsp_i.w_ready, w_last_a, clk_i, rst_ni)
  for (genvar i = 0; i < BusBits / ChunkBits; i++) begin : g_w_chunk
    logic [ChunkBits-1:0] w_data_a /* verilator public_flat_rd */;
    assign w_data_a = wr_req_o.w.data[i*ChunkBits +: ChunkBits];
    `MXU_ASSERT_STABLE(WDataStable, wr_req_o.w_valid, wr_rsp_i.w_ready, w_data_a, clk_i, rst_ni)
  end
  for (genvar i = 0; i < BusBytes / StrbBits; i++) begin : g_w_strb_chunk
    logic [StrbBits-1:0] w_strb_a /* verilator public_flat_rd */;
    assign w_strb_a = wr_req_o.w.strb[i*StrbBits +: StrbBits];
    `MXU_ASSERT_STABLE(WStrbStable, wr_req_o.w_valid, wr_rsp_i.w_ready, w_strb_a, clk_i, rst_ni)
  end
`endif
  `MXU_ASSERT(AwAligned, wr_req_o.aw_valid |-> wr_req_o.aw.addr[BeatShift-1:0] == '0, clk_i,
              rst_ni)
  `MXU_ASSERT(AwBeats, wr_req_o.aw_valid |-> burst_beats >= 5'd1 && burst_beats <= 5'd16, clk_i,
              rst_ni)
  `MXU_ASSERT(Aw4k, wr_req_o.aw_valid |-> 32'(wr_req_o.aw.addr[11:0]) +
              (32'(burst_beats) << BeatShift) <= 32'd4096, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(ResponseWithoutBurst, b_fire && bq_empty, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(TailWithoutResponses, tail_q && tail_owed_q == '0, clk_i, rst_ni)
  // A command's last row keeps no beat: the carry is empty between commands, and every beat a
  // linear command opens bursts for is sent.
  `MXU_ASSERT(CarryEmptyAtCommand, cmd_valid_i && cmd_ready_o |-> carry_strb_q == '0, clk_i,
              rst_ni)
  `MXU_ASSERT(LinearBeatsSent, front_written && linear_q |-> lin_left_q == '0 &&
              burst_left_q == '0, clk_i, rst_ni)

  logic unused_signals;
  assign unused_signals = ^{bq_count};

endmodule
