// The device: CSRs, controller, DMA and datapath behind a register port and a host-memory port,
// with a done/error interrupt (docs/isa.md, docs/architecture.md).
// Every size comes from the device descriptor in mxu_pkg (the build's defines).
module mxu_top #(
  localparam int unsigned Rows      = mxu_pkg::ArrayRows,
  localparam int unsigned Cols      = mxu_pkg::ArrayCols,
  localparam int unsigned AddrWidth = mxu_pkg::MemAddrWidth,
  localparam int unsigned BusBits   = mxu_pkg::MemBusBytes * 8,
  localparam int unsigned BusBytes  = mxu_pkg::MemBusBytes
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  output logic                 irq_o,
  // Register port.
  input  logic                 reg_req_valid_i,
  output logic                 reg_req_ready_o,
  input  logic                 reg_req_write_i,
  input  logic [11:0]          reg_req_addr_i,
  input  logic [31:0]          reg_req_wdata_i,
  output logic                 reg_rsp_valid_o,
  output logic [31:0]          reg_rsp_rdata_o,
  output logic                 reg_rsp_error_o,
  // Memory port: read address, read data, write address, write data, write response.
  output logic                 mem_ar_valid_o,
  input  logic                 mem_ar_ready_i,
  output logic [AddrWidth-1:0] mem_ar_addr_o,
  output logic [7:0]           mem_ar_len_o,
  output logic [1:0]           mem_ar_id_o,
  input  logic                 mem_r_valid_i,
  output logic                 mem_r_ready_o,
  input  logic [BusBits-1:0]   mem_r_data_i,
  input  logic [1:0]           mem_r_id_i,
  input  logic                 mem_r_last_i,
  input  logic [1:0]           mem_r_resp_i,
  output logic                 mem_aw_valid_o,
  input  logic                 mem_aw_ready_i,
  output logic [AddrWidth-1:0] mem_aw_addr_o,
  output logic [7:0]           mem_aw_len_o,
  output logic                 mem_w_valid_o,
  input  logic                 mem_w_ready_i,
  output logic [BusBits-1:0]   mem_w_data_o,
  output logic [BusBytes-1:0]  mem_w_strb_o,
  output logic                 mem_w_last_o,
  input  logic                 mem_b_valid_i,
  output logic                 mem_b_ready_o,
  input  logic [1:0]           mem_b_resp_i,
  // Observation ports (waveforms, the platform's instruction timeline): wires from existing
  // signals, no state. dbg_dispatch_o: an instruction leaves the controller for its engine this
  // cycle; dbg_dispatch_pc_o is its index in the program and dbg_dispatch_ins_o its encoding.
  // The *_done_o pulses end an engine's instruction (in dispatch order per engine);
  // dbg_array_row_o is the signal counter ARRAY_BUSY counts.
  output logic                 dbg_busy_o,
  output logic                 dbg_dispatch_o,
  output logic [31:0]          dbg_dispatch_pc_o,
  output logic [127:0]         dbg_dispatch_ins_o,
  output logic                 dbg_load_done_o,
  output logic                 dbg_wload_done_o,
  output logic                 dbg_store_done_o,
  output logic                 dbg_matmul_done_o,
  output logic                 dbg_activate_done_o,
  output logic                 dbg_wshift_start_o,
  output logic                 dbg_wshift_busy_o,
  output logic                 dbg_array_row_o
);

  localparam int unsigned NumCnt = mxu_isa_pkg::NumCounters;

  // CSRs <-> controller.
  mxu_pkg::reg_req_t    reg_req;
  mxu_pkg::reg_rsp_t    reg_rsp;
  mxu_pkg::csr_ctrl_t   csr_ctrl;
  mxu_pkg::ctrl_csr_t   ctrl_csr;
  logic                 clear, running;
  logic [2:0]           retired;
  logic                 stall_dep, stall_fetch, stall_mem, wait_weights, array_row;
  logic [15:0]          wr_bytes;
  logic [2:0]           dma_clock_on;  // each DMA engine's clock runs (mxu_dma's clock_on_o)
  logic [NumCnt*16-1:0] counter_inc;
  // The datapath's gated clocks that run (docs/architecture.md "Clock gating").
  mxu_pkg::datapath_clocks_t dp_clocks;
  // Controller <-> DMA.
  mxu_pkg::mem_rd_req_t fetch_req;
  mxu_pkg::mem_rd_rsp_t fetch_rsp;
  logic                 ld_valid, ld_ready, wld_valid, wld_ready, st_valid, st_ready;
  mxu_pkg::load_cmd_t   ld_cmd;
  mxu_pkg::store_cmd_t  st_cmd;
  mxu_pkg::dma_status_t ld_status, wld_status, st_status;
  // Controller <-> datapath.
  logic                 wl_valid, wl_ready, mm_valid, mm_ready, mm_done, ac_valid, ac_ready;
  logic                 ac_done;
  logic [mxu_pkg::KWidth-1:0] wl_k_rows;
  logic [mxu_pkg::NWidth-1:0] wl_n_cols;
  mxu_pkg::matmul_cmd_t   mm_cmd;
  mxu_pkg::activate_cmd_t ac_cmd;
  // DMA <-> datapath: the buffers' DMA side.
  mxu_pkg::buf_wr_req_t buf_wr_req;
  mxu_pkg::buf_wr_rsp_t buf_wr_rsp;
  mxu_pkg::buf_rd_req_t buf_rd_req;
  mxu_pkg::buf_rd_rsp_t buf_rd_rsp;
  logic                 wl_busy, mm_busy, ac_busy;
  // The memory port: the engines' requests before the drain, the port's after it.
  mxu_pkg::mem_req_t    dma_mem_req, mem_req;
  mxu_pkg::mem_rsp_t    mem_rsp;
  // Engines are reset between programs and after errors (a flop of the controller drives it).
  logic                 engines_rst_n;
  logic                 mem_idle;

  assign engines_rst_n = rst_ni && !clear;

  // The ports, flat for the platform, as the typed interfaces inside.
  assign reg_req.valid   = reg_req_valid_i;
  assign reg_req.write   = reg_req_write_i;
  assign reg_req.addr    = reg_req_addr_i;
  assign reg_req.wdata   = reg_req_wdata_i;
  assign reg_req_ready_o = reg_rsp.ready;
  assign reg_rsp_valid_o = reg_rsp.valid;
  assign reg_rsp_rdata_o = reg_rsp.rdata;
  assign reg_rsp_error_o = reg_rsp.error;

  assign mem_rsp.rd.ar_ready = mem_ar_ready_i;
  assign mem_rsp.rd.r_valid  = mem_r_valid_i;
  assign mem_rsp.rd.r.data   = mem_r_data_i;
  assign mem_rsp.rd.r.id     = mem_r_id_i;
  assign mem_rsp.rd.r.last   = mem_r_last_i;
  assign mem_rsp.rd.r.resp   = mem_r_resp_i;
  assign mem_rsp.wr.aw_ready = mem_aw_ready_i;
  assign mem_rsp.wr.w_ready  = mem_w_ready_i;
  assign mem_rsp.wr.b_valid  = mem_b_valid_i;
  assign mem_rsp.wr.b.resp   = mem_b_resp_i;
  assign mem_ar_valid_o = mem_req.rd.ar_valid;
  assign mem_ar_addr_o  = mem_req.rd.ar.addr;
  assign mem_ar_len_o   = mem_req.rd.ar.len;
  assign mem_ar_id_o    = mem_req.rd.ar.id;
  assign mem_r_ready_o  = mem_req.rd.r_ready;
  assign mem_aw_valid_o = mem_req.wr.aw_valid;
  assign mem_aw_addr_o  = mem_req.wr.aw.addr;
  assign mem_aw_len_o   = mem_req.wr.aw.len;
  assign mem_w_valid_o  = mem_req.wr.w_valid;
  assign mem_w_data_o   = mem_req.wr.w.data;
  assign mem_w_strb_o   = mem_req.wr.w.strb;
  assign mem_w_last_o   = mem_req.wr.w.last;
  assign mem_b_ready_o  = mem_req.wr.b_ready;

  mxu_csr u_csr (
    .clk_i,
    .rst_ni,
    .reg_req_i    (reg_req),
    .reg_rsp_o    (reg_rsp),
    .ctrl_o       (csr_ctrl),
    .ctrl_i       (ctrl_csr),
    .irq_o,
    .counter_inc_i(counter_inc)
  );

  always_comb begin
    counter_inc = '0;
    counter_inc[mxu_isa_pkg::CntCycles*16 +: 16]        = 16'(ctrl_csr.busy);
    counter_inc[mxu_isa_pkg::CntArrayBusy*16 +: 16]     = 16'(array_row);
    counter_inc[mxu_isa_pkg::CntMacs*16 +: 16]          = array_row ? 16'(Rows * Cols) : 16'd0;
    counter_inc[mxu_isa_pkg::CntDmaReadBytes*16 +: 16]  =
        (running && mem_r_valid_i && mem_r_ready_o) ? 16'(BusBytes) : 16'd0;
    counter_inc[mxu_isa_pkg::CntDmaWriteBytes*16 +: 16] = wr_bytes;
    counter_inc[mxu_isa_pkg::CntInstructions*16 +: 16]  = 16'(retired);
    counter_inc[mxu_isa_pkg::CntStallDep*16 +: 16]      = 16'(stall_dep);
    counter_inc[mxu_isa_pkg::CntStallWeights*16 +: 16]  = 16'(wait_weights);
    counter_inc[mxu_isa_pkg::CntStallFetch*16 +: 16]    = 16'(stall_fetch);
    counter_inc[mxu_isa_pkg::CntStallMemory*16 +: 16]   = 16'(stall_mem);
    // The clock counters: the cycles each gated clock runs while a program does.
    if (ctrl_csr.busy) begin
      counter_inc[mxu_isa_pkg::CntColumnClocks*16 +: 16]   = 16'(dp_clocks.columns);
      counter_inc[mxu_isa_pkg::CntAccClocks*16 +: 16]      = 16'(dp_clocks.acc);
      counter_inc[mxu_isa_pkg::CntActivateClocks*16 +: 16] = 16'(dp_clocks.activate);
      counter_inc[mxu_isa_pkg::CntDmaClocks*16 +: 16]      =
          16'(dma_clock_on[0]) + 16'(dma_clock_on[1]) + 16'(dma_clock_on[2]);
    end
  end

  mxu_controller u_controller (
    .clk_i,
    .rst_ni,
    .csr_i         (csr_ctrl),
    .csr_o         (ctrl_csr),
    .mem_idle_i    (mem_idle),
    .clear_o       (clear),
    .running_o     (running),
    .retired_o     (retired),
    .stall_dep_o   (stall_dep),
    .stall_fetch_o (stall_fetch),
    .dbg_dispatch_o(dbg_dispatch_o),
    .dbg_ins_o     (dbg_dispatch_ins_o),
    .fetch_req_o   (fetch_req),
    .fetch_rsp_i   (fetch_rsp),
    .ld_valid_o    (ld_valid),
    .ld_ready_i    (ld_ready),
    .wld_valid_o   (wld_valid),
    .wld_ready_i   (wld_ready),
    .ld_cmd_o      (ld_cmd),
    .ld_status_i   (ld_status),
    .wld_status_i  (wld_status),
    .st_valid_o    (st_valid),
    .st_ready_i    (st_ready),
    .st_cmd_o      (st_cmd),
    .st_status_i   (st_status),
    .wl_valid_o    (wl_valid),
    .wl_ready_i    (wl_ready),
    .wl_k_rows_o   (wl_k_rows),
    .wl_n_cols_o   (wl_n_cols),
    .mm_valid_o    (mm_valid),
    .mm_ready_i    (mm_ready),
    .mm_cmd_o      (mm_cmd),
    .mm_done_i     (mm_done),
    .ac_valid_o    (ac_valid),
    .ac_ready_i    (ac_ready),
    .ac_cmd_o      (ac_cmd),
    .ac_done_i     (ac_done)
  );

  mxu_dma u_dma (
    .clk_i,
    .rst_ni       (engines_rst_n),
    .fetch_req_i  (fetch_req),
    .fetch_rsp_o  (fetch_rsp),
    .ld_valid_i   (ld_valid),
    .ld_ready_o   (ld_ready),
    .wld_valid_i  (wld_valid),
    .wld_ready_o  (wld_ready),
    .ld_cmd_i     (ld_cmd),
    .ld_status_o  (ld_status),
    .wld_status_o (wld_status),
    .st_valid_i   (st_valid),
    .st_ready_o   (st_ready),
    .st_cmd_i     (st_cmd),
    .st_status_o  (st_status),
    .buf_wr_req_o (buf_wr_req),
    .buf_wr_rsp_i (buf_wr_rsp),
    .buf_rd_req_o (buf_rd_req),
    .buf_rd_rsp_i (buf_rd_rsp),
    .mem_req_o    (dma_mem_req),
    .mem_rsp_i    (mem_rsp),
    .wr_bytes_o   (wr_bytes),
    .stall_o      (stall_mem),
    .clock_on_o   (dma_clock_on)
  );

  mxu_datapath u_datapath (
    .clk_i,
    .rst_ni           (engines_rst_n),
    .wl_valid_i       (wl_valid),
    .wl_ready_o       (wl_ready),
    .wl_k_rows_i      (wl_k_rows),
    .wl_n_cols_i      (wl_n_cols),
    .mm_valid_i       (mm_valid),
    .mm_ready_o       (mm_ready),
    .mm_cmd_i         (mm_cmd),
    .mm_done_o        (mm_done),
    .ac_valid_i       (ac_valid),
    .ac_ready_o       (ac_ready),
    .ac_cmd_i         (ac_cmd),
    .ac_done_o        (ac_done),
    .buf_wr_req_i     (buf_wr_req),
    .buf_wr_rsp_o     (buf_wr_rsp),
    .buf_rd_req_i     (buf_rd_req),
    .buf_rd_rsp_o     (buf_rd_rsp),
    .wl_busy_o        (wl_busy),
    .mm_busy_o        (mm_busy),
    .ac_busy_o        (ac_busy),
    .array_row_o      (array_row),
    .mm_wait_weights_o(wait_weights),
    .clocks_o         (dp_clocks)
  );

  // Drain: outside a program every response is accepted and dropped, and a write burst cut short
  // by an error or an abort is completed with empty strobes.
  mxu_mem_drain u_drain (
    .clk_i,
    .rst_ni,
    .running_i (running),
    .clear_i   (clear),
    .eng_req_i (dma_mem_req),
    .mem_rsp_i (mem_rsp),
    .mem_req_o (mem_req),
    .mem_idle_o(mem_idle)
  );

  assign dbg_busy_o          = ctrl_csr.busy;
  assign dbg_dispatch_pc_o   = ctrl_csr.pc;
  assign dbg_load_done_o     = ld_status.done;
  assign dbg_wload_done_o    = wld_status.done;
  assign dbg_store_done_o    = st_status.done;
  assign dbg_matmul_done_o   = mm_done;
  assign dbg_activate_done_o = ac_done;
  assign dbg_wshift_start_o  = wl_valid && wl_ready;
  assign dbg_wshift_busy_o   = wl_busy;
  assign dbg_array_row_o     = array_row;

  logic unused_signals;
  assign unused_signals = ^{mm_busy, ac_busy};

endmodule
