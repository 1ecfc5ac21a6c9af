// DMA store engine: unified buffer or accumulators -> host memory (STORE, docs/isa.md).
//
// Buffer rows are read one at a time (two in the pipeline: the row being written out and the
// next one), shifted to their host byte offset and written as INCR bursts of whole bus beats with
// byte strobes (split at 4 KiB boundaries and at 16 beats). A burst's address and first data beat
// may go out in the same cycle; up to MemMaxInFlight bursts wait for their write responses. The
// command must be legal (the controller checks it).
//
// Linear mode: rows of whole, aligned beats packed back to back in host memory (stride = row
// length) go out as bursts of up to 16 beats that run across row boundaries.
module dma_store #(
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
  localparam int unsigned RowBytesMax = (UbLanes * 2 > Cols * 4) ? UbLanes * 2 : Cols * 4,
  localparam int unsigned RowBeatsMax = (RowBytesMax + 2 * BusBytes - 2) / BusBytes,
  localparam int unsigned WinBytes    = RowBeatsMax * BusBytes,
  localparam int unsigned BeatsWidth  = $clog2(RowBeatsMax + 1)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // Command.
  input  logic                  cmd_valid_i,
  output logic                  cmd_ready_o,
  input  logic [1:0]            cmd_source_i,
  input  logic                  cmd_relu_i,   // ACC only: ReLU on every fp32 value
  input  logic [15:0]           cmd_rows_i,
  input  logic [15:0]           cmd_lanes_i,
  input  logic [15:0]           cmd_buf_addr_i,
  input  logic [AddrWidth-1:0]  cmd_host_addr_i,
  input  logic [15:0]           cmd_stride_i,
  output logic                  done_o,
  output logic                  busy_o,
  output logic                  stall_o,
  output logic                  error_o,
  output logic [AddrWidth-1:0]  error_addr_o,
  output logic [7:0]            wr_bytes_o,  // bytes written this cycle (enabled strobes)
  // Buffer read ports (data the cycle after a grant).
  output logic                  ub_rd_en_o,
  output logic [UbAw-1:0]       ub_rd_addr_o,
  input  logic                  ub_rd_gnt_i,
  input  logic [UbLanes*16-1:0] ub_rd_data_i,
  output logic                  acc_rd_en_o,
  output logic [AccAw-1:0]      acc_rd_addr_o,
  input  logic                  acc_rd_gnt_i,
  input  logic [Cols*32-1:0]    acc_rd_data_i,
  // Write address, write data and write response channels.
  output logic                  aw_valid_o,
  input  logic                  aw_ready_i,
  output logic [AddrWidth-1:0]  aw_addr_o,
  output logic [7:0]            aw_len_o,
  output logic                  w_valid_o,
  input  logic                  w_ready_i,
  output logic [BusBits-1:0]    w_data_o,
  output logic [BusBytes-1:0]   w_strb_o,
  output logic                  w_last_o,
  input  logic                  b_valid_i,
  output logic                  b_ready_o,
  input  logic [1:0]            b_resp_i
);

  logic                 active_d, active_q, from_acc_d, from_acc_q, relu_d, relu_q;
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
  logic [BeatsWidth-1:0] cur_beats_d, cur_beats_q, nxt_beats_d, nxt_beats_q, win_beats;
  logic [RowBytesMax*8-1:0] row_bytes;
  logic [17:0]          row_len;
  // Emission of the current row.
  logic [BeatsWidth-1:0] beat_d, beat_q;
  logic [4:0]           burst_left_d, burst_left_q;  // beats left in the open burst; 0: none
  logic [4:0]           burst_beats;
  logic [AddrWidth-1:0] burst_addr;
  logic [7:0]           beats_to_4k;
  logic                 aw_fire, w_fire, b_fire, row_done;
  logic [15:0]          rows_done_d, rows_done_q;
  // Bursts waiting for their write response.
  logic                 bq_full, bq_empty;
  logic [AddrWidth-1:0] bq_head;
  logic [$clog2(MaxInFlight+1)-1:0] bq_count;
  logic                 error_d, error_q;
  logic                 linear_d, linear_q;
  logic [AddrWidth-1:0] lin_addr_d, lin_addr_q, lin_addr_n;
  logic [19:0]          lin_left_d, lin_left_q, lin_left_n;  // beats without a burst yet
  logic [17:0]          cmd_row_len;

  always_comb begin
    // ----- Emission: open a burst at the current beat, then send its beats.
    burst_addr  = linear_q ? lin_addr_q : cur_base_q + AddrWidth'({beat_q, 5'd0});
    beats_to_4k = 8'd128 - 8'(burst_addr[11:5]);  // 128 beats per 4 KiB
    burst_beats = linear_q ? ((lin_left_q > 20'd16) ? 5'd16 : 5'(lin_left_q))
                           : 5'(cur_beats_q) - 5'(beat_q);
    if (8'(burst_beats) > beats_to_4k) burst_beats = 5'(beats_to_4k);
    if (burst_beats > 5'd16) burst_beats = 5'd16;
    aw_valid_o = cur_valid_q && burst_left_q == '0 && !bq_full;
    aw_addr_o  = burst_addr;
    aw_len_o   = 8'(burst_beats) - 8'd1;
    aw_fire    = aw_valid_o && aw_ready_i;
    w_valid_o  = cur_valid_q && (burst_left_q != '0 || aw_fire);
    w_data_o   = cur_data_q[32'(beat_q)*BusBits +: BusBits];
    w_strb_o   = cur_strb_q[32'(beat_q)*BusBytes +: BusBytes];
    w_last_o   = (burst_left_q == 5'd1) || (burst_left_q == '0 && burst_beats == 5'd1);
    w_fire     = w_valid_o && w_ready_i;
    row_done   = w_fire && (beat_q + 1'b1 == cur_beats_q);
    wr_bytes_o = '0;
    for (int unsigned i = 0; i < BusBytes; i++) wr_bytes_o += 8'(w_fire && w_strb_o[i]);

    burst_left_d = burst_left_q;
    if (aw_fire) burst_left_d = burst_beats;
    lin_addr_n = aw_fire ? lin_addr_q + AddrWidth'({burst_beats, 5'd0}) : lin_addr_q;
    lin_left_n = aw_fire ? lin_left_q - 20'(burst_beats) : lin_left_q;
    if (w_fire) burst_left_d = burst_left_d - 1'b1;
    beat_d = row_done ? '0 : (w_fire ? beat_q + 1'b1 : beat_q);
  end

  // ----- Reader: one buffer row at a time, never more than the two row registers can take.
  always_comb begin
    rd_en         = active_q && rd_row_q != rows_q && !rd_pending_q && !nxt_valid_q;
    ub_rd_en_o    = rd_en && !from_acc_q;
    ub_rd_addr_o  = UbAw'(rd_addr_q);
    acc_rd_en_o   = rd_en && from_acc_q;
    acc_rd_addr_o = AccAw'(rd_addr_q);
  end

  assign cmd_ready_o = !active_q;

  always_comb begin
    rd_gnt       = from_acc_q ? acc_rd_gnt_i : ub_rd_gnt_i;
    rd_pending_d = rd_en && rd_gnt;
    pending_host_d = rd_host_q;
    rd_row_d     = rd_row_q;
    rd_addr_d    = rd_addr_q;
    rd_host_d    = rd_host_q;
    if (rd_en && rd_gnt) begin
      rd_row_d  = rd_row_q + 1'b1;
      rd_addr_d = rd_addr_q + 1'b1;
      rd_host_d = rd_host_q + AddrWidth'(stride_bytes_q);
    end

    // The row arriving this cycle, placed at its byte offset in a window of whole beats.
    row_bytes = '0;
    if (from_acc_q) row_bytes[Cols*32-1:0] = acc_rd_data_i;
    else            row_bytes[UbLanes*16-1:0] = ub_rd_data_i;
    if (from_acc_q && relu_q) begin
      for (int unsigned l = 0; l < Cols; l++) begin
        if (row_bytes[l*32+23 +: 8] == 8'hFF && row_bytes[l*32 +: 23] != '0) begin
          row_bytes[l*32 +: 32] = mxu_pkg::Fp32CanonicalNan;
        end else if (row_bytes[l*32+31]) begin
          row_bytes[l*32 +: 32] = 32'h0;  // negative numbers and -0
        end
      end
    end
    row_len   = from_acc_q ? {lanes_q, 2'b00} : {1'b0, lanes_q, 1'b0};
    win_data  = (WinBytes*8)'(row_bytes) << {pending_host_q[4:0], 3'b000};
    win_strb  = '0;
    for (int unsigned i = 0; i < WinBytes; i++) begin
      win_strb[i] = (18'(i) >= 18'(pending_host_q[4:0])) &&
                    (18'(i) < 18'(pending_host_q[4:0]) + row_len);
    end
    win_beats = BeatsWidth'((18'(pending_host_q[4:0]) + row_len + 18'(BusBytes - 1)) >> 5);

    cur_valid_d = cur_valid_q && !row_done;
    cur_data_d  = cur_data_q;
    cur_strb_d  = cur_strb_q;
    cur_base_d  = cur_base_q;
    cur_beats_d = cur_beats_q;
    nxt_valid_d = nxt_valid_q;
    nxt_data_d  = nxt_data_q;
    nxt_strb_d  = nxt_strb_q;
    nxt_base_d  = nxt_base_q;
    nxt_beats_d = nxt_beats_q;
    if (!cur_valid_d && nxt_valid_q) begin
      cur_valid_d = 1'b1;
      cur_data_d  = nxt_data_q;
      cur_strb_d  = nxt_strb_q;
      cur_base_d  = nxt_base_q;
      cur_beats_d = nxt_beats_q;
      nxt_valid_d = 1'b0;
    end
    if (rd_pending_q) begin
      if (!cur_valid_d) begin
        cur_valid_d = 1'b1;
        cur_data_d  = win_data;
        cur_strb_d  = win_strb;
        cur_base_d  = {pending_host_q[AddrWidth-1:5], 5'd0};
        cur_beats_d = win_beats;
      end else begin
        nxt_valid_d = 1'b1;
        nxt_data_d  = win_data;
        nxt_strb_d  = win_strb;
        nxt_base_d  = {pending_host_q[AddrWidth-1:5], 5'd0};
        nxt_beats_d = win_beats;
      end
    end

    // ----- Write responses, completion, command accept.
    b_ready_o   = 1'b1;
    b_fire      = b_valid_i;
    error_d     = error_q || (b_fire && b_resp_i != 2'b00);
    rows_done_d = row_done ? rows_done_q + 1'b1 : rows_done_q;
    done_o      = active_q && rows_done_q == rows_q && bq_empty;
    active_d    = active_q && !done_o;
    from_acc_d  = from_acc_q;
    relu_d      = relu_q;
    rows_d      = rows_q;
    lanes_d     = lanes_q;
    stride_bytes_d = stride_bytes_q;
    if (cmd_valid_i && cmd_ready_o) begin
      active_d       = 1'b1;
      from_acc_d     = cmd_source_i == mxu_isa_pkg::BufAcc;
      relu_d         = cmd_relu_i;
      rows_d         = cmd_rows_i;
      lanes_d        = cmd_lanes_i;
      stride_bytes_d = (cmd_source_i == mxu_isa_pkg::BufAcc) ? {2'b00, cmd_stride_i, 2'b00}
                                                         : {3'b000, cmd_stride_i, 1'b0};
      rd_row_d       = '0;
      rd_addr_d      = cmd_buf_addr_i;
      rd_host_d      = cmd_host_addr_i;
      rows_done_d    = '0;
    end
    // Linear mode: whole aligned beats per row, rows packed back to back.
    cmd_row_len = (cmd_source_i == mxu_isa_pkg::BufAcc) ? {cmd_lanes_i, 2'b00}
                                                    : {1'b0, cmd_lanes_i, 1'b0};
    linear_d    = linear_q;
    lin_addr_d  = lin_addr_n;
    lin_left_d  = lin_left_n;
    if (cmd_valid_i && cmd_ready_o) begin
      linear_d   = cmd_host_addr_i[4:0] == '0 && cmd_row_len[4:0] == '0 &&
                   20'(cmd_row_len) == 20'(stride_bytes_d);
      lin_addr_d = cmd_host_addr_i;
      lin_left_d = 20'(cmd_rows_i) * 20'(cmd_row_len[17:5]);
    end
  end

  sync_fifo #(.Width(AddrWidth), .Depth(MaxInFlight)) u_responses (
    .clk_i,
    .rst_ni,
    .push_i (aw_fire),
    .wdata_i(burst_addr),
    .full_o (bq_full),
    .pop_i  (b_fire),
    .rdata_o(bq_head),
    .empty_o(bq_empty),
    .count_o(bq_count)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q       <= 1'b0;
      from_acc_q     <= 1'b0;
      relu_q         <= 1'b0;
      rows_q         <= '0;
      lanes_q        <= '0;
      stride_bytes_q <= '0;
      rd_row_q       <= '0;
      rd_addr_q      <= '0;
      rd_host_q      <= '0;
      rd_pending_q   <= 1'b0;
      pending_host_q <= '0;
      cur_valid_q    <= 1'b0;
      cur_data_q     <= '0;
      cur_strb_q     <= '0;
      cur_base_q     <= '0;
      cur_beats_q    <= '0;
      nxt_valid_q    <= 1'b0;
      nxt_data_q     <= '0;
      nxt_strb_q     <= '0;
      nxt_base_q     <= '0;
      nxt_beats_q    <= '0;
      beat_q         <= '0;
      burst_left_q   <= '0;
      rows_done_q    <= '0;
      error_q        <= 1'b0;
      linear_q       <= 1'b0;
      lin_addr_q     <= '0;
      lin_left_q     <= '0;
    end else begin
      active_q       <= active_d;
      from_acc_q     <= from_acc_d;
      relu_q         <= relu_d;
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
      cur_beats_q    <= cur_beats_d;
      nxt_valid_q    <= nxt_valid_d;
      nxt_data_q     <= nxt_data_d;
      nxt_strb_q     <= nxt_strb_d;
      nxt_base_q     <= nxt_base_d;
      nxt_beats_q    <= nxt_beats_d;
      beat_q         <= beat_d;
      burst_left_q   <= burst_left_d;
      rows_done_q    <= rows_done_d;
      error_q        <= error_d;
      linear_q       <= linear_d;
      lin_addr_q     <= lin_addr_d;
      lin_left_q     <= lin_left_d;
    end
  end

  assign error_o      = b_fire && b_resp_i != 2'b00 && !error_q;
  assign error_addr_o = bq_head;
  assign busy_o       = active_q;
  assign stall_o      = active_q && !w_fire && !rd_pending_q && (cur_valid_q || !bq_empty);

  logic unused_signals;
  assign unused_signals = ^{bq_count};

endmodule
