// DMA: the device's host-memory master. Holds two load engines (host -> unified buffer or
// accumulators; host -> weight FIFO, as the TPU fetches weights on a path of their own, so that
// weight tiles never queue behind activation loads), plain or transposed, and the store engine
// (unified buffer or accumulators -> host). The read channels are shared by instruction fetch
// (ID 0, first), loads (ID 1) and weights (ID 2), the last two taking turns; read data is routed
// back by ID.
module mxu_dma #(
  parameter bit ClockGating = mxu_pkg::ClockGating
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // Instruction fetch from the controller (its AR ID is set here).
  input  mxu_pkg::mem_rd_req_t  fetch_req_i,
  output mxu_pkg::mem_rd_rsp_t  fetch_rsp_o,
  // Load and store commands. One load command bus feeds both load engines; the valids pick.
  input  logic                  ld_valid_i,
  output logic                  ld_ready_o,
  input  logic                  wld_valid_i,
  output logic                  wld_ready_o,
  input  mxu_pkg::load_cmd_t    ld_cmd_i,
  output mxu_pkg::dma_status_t  ld_status_o,
  output mxu_pkg::dma_status_t  wld_status_o,
  input  logic                  st_valid_i,
  output logic                  st_ready_o,
  input  mxu_pkg::store_cmd_t   st_cmd_i,
  output mxu_pkg::dma_status_t  st_status_o,
  // Buffer ports of the datapath: the load engines' writes, the store engine's reads.
  output mxu_pkg::buf_wr_req_t  buf_wr_req_o,
  input  mxu_pkg::buf_wr_rsp_t  buf_wr_rsp_i,
  output mxu_pkg::buf_rd_req_t  buf_rd_req_o,
  input  mxu_pkg::buf_rd_rsp_t  buf_rd_rsp_i,
  // Memory port.
  output mxu_pkg::mem_req_t     mem_req_o,
  input  mxu_pkg::mem_rsp_t     mem_rsp_i,
  // Statistics.
  output logic [15:0]           wr_bytes_o,
  output logic                  stall_o,
  // Clock gating: each engine's gate enable this cycle (activation loads, weights, store; all
  // ones without ClockGating).
  output logic [2:0]            clock_on_o
);

  localparam logic [mxu_pkg::MemIdWidth-1:0] IdFetch   = 2'd0;
  localparam logic [mxu_pkg::MemIdWidth-1:0] IdLoad    = 2'd1;
  localparam logic [mxu_pkg::MemIdWidth-1:0] IdWeights = 2'd2;

  mxu_pkg::mem_rd_req_t ld_rd_req, wld_rd_req;
  mxu_pkg::mem_rd_rsp_t ld_rd_rsp, wld_rd_rsp;
  logic                 ld_busy, ld_stall, wld_busy, wld_stall, st_busy, st_stall;
  logic                 weights_turn_d, weights_turn_q;  // who goes first when both ask
  logic                 pick_weights;
  mxu_pkg::mem_r_t      r;

  // Read address: instruction fetch first, then loads and weights in turn.
  always_comb begin
    pick_weights            = wld_rd_req.ar_valid && (!ld_rd_req.ar_valid || weights_turn_q);
    mem_req_o.rd.ar_valid   = fetch_req_i.ar_valid || ld_rd_req.ar_valid || wld_rd_req.ar_valid;
    mem_req_o.rd.ar         = fetch_req_i.ar_valid ? fetch_req_i.ar :
                              (pick_weights ? wld_rd_req.ar : ld_rd_req.ar);
    if (fetch_req_i.ar_valid) mem_req_o.rd.ar.id = IdFetch;
    fetch_rsp_o.ar_ready    = mem_rsp_i.rd.ar_ready && fetch_req_i.ar_valid;
    ld_rd_rsp.ar_ready      = mem_rsp_i.rd.ar_ready && !fetch_req_i.ar_valid && !pick_weights;
    wld_rd_rsp.ar_ready     = mem_rsp_i.rd.ar_ready && !fetch_req_i.ar_valid && pick_weights;
    // Read data, routed by ID.
    r                       = mem_rsp_i.rd.r;
    fetch_rsp_o.r           = r;
    ld_rd_rsp.r             = r;
    wld_rd_rsp.r            = r;
    fetch_rsp_o.r_valid     = mem_rsp_i.rd.r_valid && r.id == IdFetch;
    ld_rd_rsp.r_valid       = mem_rsp_i.rd.r_valid && r.id == IdLoad;
    wld_rd_rsp.r_valid      = mem_rsp_i.rd.r_valid && r.id == IdWeights;
    mem_req_o.rd.r_ready    = (r.id == IdFetch) ? fetch_req_i.r_ready :
                              (r.id == IdWeights) ? wld_rd_req.r_ready : ld_rd_req.r_ready;
  end

  always_comb begin
    weights_turn_d   = weights_turn_q;
    if (ld_rd_req.ar_valid && ld_rd_rsp.ar_ready) weights_turn_d = 1'b1;
    if (wld_rd_req.ar_valid && wld_rd_rsp.ar_ready) weights_turn_d = 1'b0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      weights_turn_q <= 1'b0;
    end else begin
      weights_turn_q <= weights_turn_d;
    end
  end

  // The load engines' buffer writes: u_load's to the unified buffer and the accumulators (the
  // controller sends weight loads to u_weights), u_weights' to the weight FIFO.
  mxu_pkg::buf_wr_req_t ld_buf_req, wld_buf_req;
  mxu_pkg::buf_wr_rsp_t ld_buf_rsp, wld_buf_rsp;

  always_comb begin
    buf_wr_req_o         = ld_buf_req;
    buf_wr_req_o.wf_valid = wld_buf_req.wf_valid;
    buf_wr_req_o.wf_data  = wld_buf_req.wf_data;
    ld_buf_rsp            = buf_wr_rsp_i;
    ld_buf_rsp.wf_full    = 1'b1;
    wld_buf_rsp           = buf_wr_rsp_i;
    wld_buf_rsp.ub_gnt    = 1'b0;
    wld_buf_rsp.acc_gnt   = 1'b0;
  end

  mxu_dma_load #(.ArId(IdLoad), .ClockGating(ClockGating)) u_load (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (ld_valid_i),
    .cmd_ready_o    (ld_ready_o),
    .cmd_i          (ld_cmd_i),
    .status_o       (ld_status_o),
    .busy_o         (ld_busy),
    .stall_o        (ld_stall),
    .clock_on_o     (clock_on_o[0]),
    .rd_req_o       (ld_rd_req),
    .rd_rsp_i       (ld_rd_rsp),
    .buf_req_o      (ld_buf_req),
    .buf_rsp_i      (ld_buf_rsp)
  );

  // The weight fetcher: the same engine, wired to the weight FIFO only. A weight tile has at
  // most UbLanes rows: transposed blocks that tall do.
  mxu_dma_load #(
    .TransposeRows(mxu_pkg::UbLanes), .ArId(IdWeights), .ClockGating(ClockGating)
  ) u_weights (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (wld_valid_i),
    .cmd_ready_o    (wld_ready_o),
    .cmd_i          (ld_cmd_i),
    .status_o       (wld_status_o),
    .busy_o         (wld_busy),
    .stall_o        (wld_stall),
    .clock_on_o     (clock_on_o[1]),
    .rd_req_o       (wld_rd_req),
    .rd_rsp_i       (wld_rd_rsp),
    .buf_req_o      (wld_buf_req),
    .buf_rsp_i      (wld_buf_rsp)
  );

  mxu_dma_store #(.ClockGating(ClockGating)) u_store (
    .clk_i,
    .rst_ni,
    .cmd_valid_i    (st_valid_i),
    .cmd_ready_o    (st_ready_o),
    .cmd_i          (st_cmd_i),
    .status_o       (st_status_o),
    .busy_o         (st_busy),
    .stall_o        (st_stall),
    .clock_on_o     (clock_on_o[2]),
    .wr_bytes_o,
    .buf_req_o      (buf_rd_req_o),
    .buf_rsp_i      (buf_rd_rsp_i),
    .wr_req_o       (mem_req_o.wr),
    .wr_rsp_i       (mem_rsp_i.wr)
  );

  assign stall_o = ld_stall || wld_stall || st_stall;

  logic unused_signals;
  assign unused_signals = ^{ld_busy, wld_busy, st_busy, wld_buf_req.ub_en, wld_buf_req.ub_addr,
                            wld_buf_req.ub_data, wld_buf_req.acc_en, wld_buf_req.acc_addr,
                            wld_buf_req.acc_data};

endmodule
