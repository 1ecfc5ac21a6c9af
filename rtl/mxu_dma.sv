// DMA: the device's host-memory master. Holds two load engines (host -> unified buffer or
// accumulators; host -> weight FIFO, as the TPU fetches weights on a path of their own, so that
// weight tiles never queue behind activation loads), plain or transposed, and the store engine
// (unified buffer or accumulators -> host). The read channels are shared by instruction fetch
// (ID 0, first), loads (ID 1) and weights (ID 2), the last two taking turns; read data is routed
// back by ID.
module mxu_dma #(
  parameter int unsigned UbLanes  = mxu_pkg::ArrayRows,
  parameter int unsigned Cols     = mxu_pkg::ArrayCols,
  parameter int unsigned UbDepth  = mxu_pkg::UbDepth,
  parameter int unsigned AccDepth = mxu_pkg::AccDepth,
  localparam int unsigned AddrWidth = mxu_pkg::MemAddrWidth,
  localparam int unsigned BusBytes  = mxu_pkg::MemBusBytes,
  localparam int unsigned BusBits   = BusBytes * 8,
  localparam int unsigned UbAw      = (UbDepth > 1) ? $clog2(UbDepth) : 1,
  localparam int unsigned AccAw     = (AccDepth > 1) ? $clog2(AccDepth) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // Instruction fetch from the controller.
  input  logic                  fetch_ar_valid_i,
  output logic                  fetch_ar_ready_o,
  input  logic [AddrWidth-1:0]  fetch_ar_addr_i,
  input  logic [7:0]            fetch_ar_len_i,
  output logic                  fetch_r_valid_o,
  input  logic                  fetch_r_ready_i,
  // Load and store commands.
  input  logic                  ld_valid_i,
  output logic                  ld_ready_o,
  input  logic                  wld_valid_i,
  output logic                  wld_ready_o,
  output logic                  wld_done_o,
  output logic                  wld_error_o,
  output logic [AddrWidth-1:0]  wld_error_addr_o,
  input  logic [1:0]            ld_target_i,
  input  logic                  ld_transpose_i,
  input  logic [15:0]           ld_rows_i,
  input  logic [15:0]           ld_lanes_i,
  input  logic [15:0]           ld_buf_addr_i,
  input  logic [AddrWidth-1:0]  ld_host_addr_i,
  input  logic [15:0]           ld_stride_i,
  output logic                  ld_done_o,
  output logic                  ld_error_o,
  output logic [AddrWidth-1:0]  ld_error_addr_o,
  input  logic                  st_valid_i,
  output logic                  st_ready_o,
  input  logic [1:0]            st_source_i,
  input  logic                  st_relu_i,
  input  logic [15:0]           st_rows_i,
  input  logic [15:0]           st_lanes_i,
  input  logic [15:0]           st_buf_addr_i,
  input  logic [AddrWidth-1:0]  st_host_addr_i,
  input  logic [15:0]           st_stride_i,
  output logic                  st_done_o,
  output logic                  st_error_o,
  output logic [AddrWidth-1:0]  st_error_addr_o,
  // Buffer ports of the datapath.
  output logic                  ub_wr_en_o,
  output logic [UbAw-1:0]       ub_wr_addr_o,
  output logic [UbLanes*16-1:0] ub_wr_data_o,
  input  logic                  ub_wr_gnt_i,
  output logic                  ub_rd_en_o,
  output logic [UbAw-1:0]       ub_rd_addr_o,
  input  logic                  ub_rd_gnt_i,
  input  logic [UbLanes*16-1:0] ub_rd_data_i,
  output logic                  acc_wr_en_o,
  output logic [AccAw-1:0]      acc_wr_addr_o,
  output logic [Cols*32-1:0]    acc_wr_data_o,
  input  logic                  acc_wr_gnt_i,
  output logic                  acc_rd_en_o,
  output logic [AccAw-1:0]      acc_rd_addr_o,
  input  logic                  acc_rd_gnt_i,
  input  logic [Cols*32-1:0]    acc_rd_data_i,
  output logic                  wf_push_o,
  output logic [Cols*16-1:0]    wf_data_o,
  input  logic                  wf_full_i,
  // Memory port.
  output logic                  mem_ar_valid_o,
  input  logic                  mem_ar_ready_i,
  output logic [AddrWidth-1:0]  mem_ar_addr_o,
  output logic [7:0]            mem_ar_len_o,
  output logic [1:0]            mem_ar_id_o,
  input  logic                  mem_r_valid_i,
  output logic                  mem_r_ready_o,
  input  logic [BusBits-1:0]    mem_r_data_i,
  input  logic [1:0]            mem_r_id_i,
  input  logic                  mem_r_last_i,
  input  logic [1:0]            mem_r_resp_i,
  output logic                  mem_aw_valid_o,
  input  logic                  mem_aw_ready_i,
  output logic [AddrWidth-1:0]  mem_aw_addr_o,
  output logic [7:0]            mem_aw_len_o,
  output logic                  mem_w_valid_o,
  input  logic                  mem_w_ready_i,
  output logic [BusBits-1:0]    mem_w_data_o,
  output logic [BusBytes-1:0]   mem_w_strb_o,
  output logic                  mem_w_last_o,
  input  logic                  mem_b_valid_i,
  output logic                  mem_b_ready_o,
  input  logic [1:0]            mem_b_resp_i,
  // Statistics.
  output logic [7:0]            wr_bytes_o,
  output logic                  stall_o
);

  localparam logic [1:0] IdFetch   = 2'd0;
  localparam logic [1:0] IdLoad    = 2'd1;
  localparam logic [1:0] IdWeights = 2'd2;

  logic                 ld_ar_valid, ld_ar_ready, ld_r_valid, ld_r_ready, ld_busy, ld_stall;
  logic [AddrWidth-1:0] ld_ar_addr;
  logic [7:0]           ld_ar_len;
  logic                 wld_ar_valid, wld_ar_ready, wld_r_valid, wld_r_ready, wld_busy, wld_stall;
  logic [AddrWidth-1:0] wld_ar_addr;
  logic [7:0]           wld_ar_len;
  logic                 st_busy, st_stall;
  logic                 weights_turn_d, weights_turn_q;  // who goes first when both ask
  logic                 pick_weights;

  // Read address: instruction fetch first, then loads and weights in turn.
  always_comb begin
    pick_weights     = wld_ar_valid && (!ld_ar_valid || weights_turn_q);
    mem_ar_valid_o   = fetch_ar_valid_i || ld_ar_valid || wld_ar_valid;
    mem_ar_addr_o    = fetch_ar_valid_i ? fetch_ar_addr_i : (pick_weights ? wld_ar_addr : ld_ar_addr);
    mem_ar_len_o     = fetch_ar_valid_i ? fetch_ar_len_i : (pick_weights ? wld_ar_len : ld_ar_len);
    mem_ar_id_o      = fetch_ar_valid_i ? IdFetch : (pick_weights ? IdWeights : IdLoad);
    fetch_ar_ready_o = mem_ar_ready_i && fetch_ar_valid_i;
    ld_ar_ready      = mem_ar_ready_i && !fetch_ar_valid_i && !pick_weights;
    wld_ar_ready     = mem_ar_ready_i && !fetch_ar_valid_i && pick_weights;
  end

  always_comb begin
    weights_turn_d   = weights_turn_q;
    if (ld_ar_valid && ld_ar_ready) weights_turn_d = 1'b1;
    if (wld_ar_valid && wld_ar_ready) weights_turn_d = 1'b0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      weights_turn_q <= 1'b0;
    end else begin
      weights_turn_q <= weights_turn_d;
    end
  end

  // Read data, routed by ID.
  assign fetch_r_valid_o  = mem_r_valid_i && mem_r_id_i == IdFetch;
  assign ld_r_valid       = mem_r_valid_i && mem_r_id_i == IdLoad;
  assign wld_r_valid      = mem_r_valid_i && mem_r_id_i == IdWeights;
  assign mem_r_ready_o    = (mem_r_id_i == IdFetch) ? fetch_r_ready_i :
                            (mem_r_id_i == IdWeights) ? wld_r_ready : ld_r_ready;

  // Unified buffer and accumulator loads (the controller sends weight loads to u_weights).
  logic                  unused_ld_wf_push;
  logic [Cols*16-1:0]    unused_ld_wf_data;

  mxu_dma_load #(.UbLanes(UbLanes), .Cols(Cols), .UbDepth(UbDepth), .AccDepth(AccDepth)) u_load (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (ld_valid_i),
    .cmd_ready_o    (ld_ready_o),
    .cmd_target_i   (ld_target_i),
    .cmd_transpose_i(ld_transpose_i),
    .cmd_rows_i     (ld_rows_i),
    .cmd_lanes_i    (ld_lanes_i),
    .cmd_buf_addr_i (ld_buf_addr_i),
    .cmd_host_addr_i(ld_host_addr_i),
    .cmd_stride_i   (ld_stride_i),
    .done_o         (ld_done_o),
    .busy_o         (ld_busy),
    .stall_o        (ld_stall),
    .error_o        (ld_error_o),
    .error_addr_o   (ld_error_addr_o),
    .ar_valid_o     (ld_ar_valid),
    .ar_ready_i     (ld_ar_ready),
    .ar_addr_o      (ld_ar_addr),
    .ar_len_o       (ld_ar_len),
    .r_valid_i      (ld_r_valid),
    .r_ready_o      (ld_r_ready),
    .r_data_i       (mem_r_data_i),
    .r_last_i       (mem_r_last_i),
    .r_resp_i       (mem_r_resp_i),
    .ub_wr_en_o,
    .ub_wr_addr_o,
    .ub_wr_data_o,
    .ub_wr_gnt_i,
    .acc_wr_en_o,
    .acc_wr_addr_o,
    .acc_wr_data_o,
    .acc_wr_gnt_i,
    .wf_push_o      (unused_ld_wf_push),
    .wf_data_o      (unused_ld_wf_data),
    .wf_full_i      (1'b1)
  );

  // The weight fetcher: the same engine, wired to the weight FIFO only.
  logic                  unused_wld_ub_en, unused_wld_acc_en;
  logic [UbAw-1:0]       unused_wld_ub_addr;
  logic [AccAw-1:0]      unused_wld_acc_addr;
  logic [UbLanes*16-1:0] unused_wld_ub_data;
  logic [Cols*32-1:0]    unused_wld_acc_data;

  mxu_dma_load #(.UbLanes(UbLanes), .Cols(Cols), .UbDepth(UbDepth), .AccDepth(AccDepth)) u_weights (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (wld_valid_i),
    .cmd_ready_o    (wld_ready_o),
    .cmd_target_i   (ld_target_i),
    .cmd_transpose_i(ld_transpose_i),
    .cmd_rows_i     (ld_rows_i),
    .cmd_lanes_i    (ld_lanes_i),
    .cmd_buf_addr_i (ld_buf_addr_i),
    .cmd_host_addr_i(ld_host_addr_i),
    .cmd_stride_i   (ld_stride_i),
    .done_o         (wld_done_o),
    .busy_o         (wld_busy),
    .stall_o        (wld_stall),
    .error_o        (wld_error_o),
    .error_addr_o   (wld_error_addr_o),
    .ar_valid_o     (wld_ar_valid),
    .ar_ready_i     (wld_ar_ready),
    .ar_addr_o      (wld_ar_addr),
    .ar_len_o       (wld_ar_len),
    .r_valid_i      (wld_r_valid),
    .r_ready_o      (wld_r_ready),
    .r_data_i       (mem_r_data_i),
    .r_last_i       (mem_r_last_i),
    .r_resp_i       (mem_r_resp_i),
    .ub_wr_en_o     (unused_wld_ub_en),
    .ub_wr_addr_o   (unused_wld_ub_addr),
    .ub_wr_data_o   (unused_wld_ub_data),
    .ub_wr_gnt_i    (1'b0),
    .acc_wr_en_o    (unused_wld_acc_en),
    .acc_wr_addr_o  (unused_wld_acc_addr),
    .acc_wr_data_o  (unused_wld_acc_data),
    .acc_wr_gnt_i   (1'b0),
    .wf_push_o,
    .wf_data_o,
    .wf_full_i
  );

  mxu_dma_store #(.UbLanes(UbLanes), .Cols(Cols), .UbDepth(UbDepth), .AccDepth(AccDepth)) u_store (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (st_valid_i),
    .cmd_ready_o    (st_ready_o),
    .cmd_source_i   (st_source_i),
    .cmd_relu_i     (st_relu_i),
    .cmd_rows_i     (st_rows_i),
    .cmd_lanes_i    (st_lanes_i),
    .cmd_buf_addr_i (st_buf_addr_i),
    .cmd_host_addr_i(st_host_addr_i),
    .cmd_stride_i   (st_stride_i),
    .done_o         (st_done_o),
    .busy_o         (st_busy),
    .stall_o        (st_stall),
    .error_o        (st_error_o),
    .error_addr_o   (st_error_addr_o),
    .wr_bytes_o,
    .ub_rd_en_o,
    .ub_rd_addr_o,
    .ub_rd_gnt_i,
    .ub_rd_data_i,
    .acc_rd_en_o,
    .acc_rd_addr_o,
    .acc_rd_gnt_i,
    .acc_rd_data_i,
    .aw_valid_o     (mem_aw_valid_o),
    .aw_ready_i     (mem_aw_ready_i),
    .aw_addr_o      (mem_aw_addr_o),
    .aw_len_o       (mem_aw_len_o),
    .w_valid_o      (mem_w_valid_o),
    .w_ready_i      (mem_w_ready_i),
    .w_data_o       (mem_w_data_o),
    .w_strb_o       (mem_w_strb_o),
    .w_last_o       (mem_w_last_o),
    .b_valid_i      (mem_b_valid_i),
    .b_ready_o      (mem_b_ready_o),
    .b_resp_i       (mem_b_resp_i)
  );

  assign stall_o = ld_stall || wld_stall || st_stall;

  logic unused_signals;
  assign unused_signals = ^{ld_busy, wld_busy, st_busy};

endmodule
