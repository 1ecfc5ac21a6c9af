// The device: CSRs, controller, DMA and datapath behind a register port and a host-memory port,
// with a done/error interrupt (docs/isa.md, docs/architecture.md).
module mxu_top #(
  parameter int unsigned Rows            = mxu_pkg::ArrayRows,
  parameter int unsigned Cols            = mxu_pkg::ArrayCols,
  parameter int unsigned UbDepth         = mxu_pkg::UbDepth,
  parameter int unsigned AccDepth        = mxu_pkg::AccDepth,
  parameter int unsigned WeightFifoDepth = 2 * Rows,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
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

  localparam int unsigned UbLanes = (Rows > Cols) ? Rows : Cols;
  localparam int unsigned UbAw    = (UbDepth > 1) ? $clog2(UbDepth) : 1;
  localparam int unsigned AccAw   = (AccDepth > 1) ? $clog2(AccDepth) : 1;
  localparam int unsigned KWidth  = $clog2(Rows + 1);
  localparam int unsigned NumCnt  = mxu_isa_pkg::NumCounters;

  // CSRs <-> controller.
  logic                 start, soft_reset, ctrl_busy, done, error, clear, running;
  logic [AddrWidth-1:0] cmd_addr, error_addr;
  logic [31:0]          cmd_count, error_pc, pc;
  logic [3:0]           error_code;
  logic [2:0]           retired;
  logic                 stall_dep, stall_fetch, stall_mem, wait_weights, array_row;
  logic [7:0]           wr_bytes;
  logic [NumCnt*16-1:0] counter_inc;
  // Controller <-> DMA.
  logic                 fetch_ar_valid, fetch_ar_ready, fetch_r_valid, fetch_r_ready;
  logic [AddrWidth-1:0] fetch_ar_addr;
  logic [7:0]           fetch_ar_len;
  logic                 ld_valid, ld_ready, ld_transpose, ld_done, ld_error;
  logic                 wld_valid, wld_ready, wld_done, wld_error;
  logic [AddrWidth-1:0] wld_error_addr;
  logic [1:0]           ld_target;
  logic [15:0]          ld_rows, ld_lanes, ld_buf_addr, ld_stride;
  logic [AddrWidth-1:0] ld_host_addr, ld_error_addr;
  logic                 st_valid, st_ready, st_done, st_error, st_relu;
  logic [1:0]           st_source;
  logic [15:0]          st_rows, st_lanes, st_buf_addr, st_stride;
  logic [AddrWidth-1:0] st_host_addr, st_error_addr;
  // Controller <-> datapath.
  logic                 wl_valid, wl_ready, mm_valid, mm_ready, mm_accumulate, mm_new_weights;
  logic                 mm_done, ac_valid, ac_ready, ac_relu, ac_bias_en, ac_done;
  logic [KWidth-1:0]    wl_k_rows, mm_k_rows;
  logic [UbAw-1:0]      mm_ub_addr, ac_ub_addr;
  logic [AccAw-1:0]     mm_acc_addr, ac_acc_addr, ac_bias_addr;
  logic [15:0]          mm_rows, ac_rows;
  // DMA <-> datapath.
  logic                 ub_wr_en, ub_wr_gnt, ub_rd_en, ub_rd_gnt, acc_wr_en, acc_wr_gnt;
  logic                 acc_rd_en, acc_rd_gnt, wf_push, wf_full;
  logic [UbAw-1:0]      ub_wr_addr, ub_rd_addr;
  logic [AccAw-1:0]     acc_wr_addr, acc_rd_addr;
  logic [UbLanes*16-1:0] ub_wr_data, ub_rd_data;
  logic [Cols*32-1:0]   acc_wr_data, acc_rd_data;
  logic [Cols*16-1:0]   wf_data;
  logic                 wl_busy, mm_busy, ac_busy;
  // The engines' memory port, before the drain logic.
  logic                 dma_r_ready, dma_b_ready, dma_w_valid, dma_w_last;
  logic [BusBits-1:0]   dma_w_data;
  logic [BusBytes-1:0]  dma_w_strb;
  // Engines are reset between programs and after errors (a flop of the controller drives it).
  logic                 engines_rst_n;
  // Memory transactions outstanding: the device is idle only once every response is back.
  logic [7:0]           reads_out_d, reads_out_q, writes_out_d, writes_out_q;
  logic [8:0]           w_owed_d, w_owed_q;
  logic                 mem_idle;

  assign engines_rst_n = rst_ni && !clear;

  csr #(
    .Rows(Rows), .Cols(Cols), .UbDepth(UbDepth), .AccDepth(AccDepth),
    .WeightFifoDepth(WeightFifoDepth), .FlushSubnormals(FlushSubnormals)
  ) u_csr (
    .clk_i,
    .rst_ni,
    .reg_req_valid_i,
    .reg_req_ready_o,
    .reg_req_write_i,
    .reg_req_addr_i,
    .reg_req_wdata_i,
    .reg_rsp_valid_o,
    .reg_rsp_rdata_o,
    .reg_rsp_error_o,
    .start_o      (start),
    .soft_reset_o (soft_reset),
    .cmd_addr_o   (cmd_addr),
    .cmd_count_o  (cmd_count),
    .irq_o,
    .busy_i       (ctrl_busy),
    .done_i       (done),
    .error_i      (error),
    .error_code_i (error_code),
    .error_pc_i   (error_pc),
    .error_addr_i (error_addr),
    .pc_i         (pc),
    .counter_inc_i(counter_inc)
  );

  always_comb begin
    counter_inc = '0;
    counter_inc[mxu_isa_pkg::CntCycles*16 +: 16]        = 16'(ctrl_busy);
    counter_inc[mxu_isa_pkg::CntArrayBusy*16 +: 16]     = 16'(array_row);
    counter_inc[mxu_isa_pkg::CntMacs*16 +: 16]          = array_row ? 16'(Rows * Cols) : 16'd0;
    counter_inc[mxu_isa_pkg::CntDmaReadBytes*16 +: 16]  =
        (running && mem_r_valid_i && mem_r_ready_o) ? 16'(BusBytes) : 16'd0;
    counter_inc[mxu_isa_pkg::CntDmaWriteBytes*16 +: 16] = 16'(wr_bytes);
    counter_inc[mxu_isa_pkg::CntInstructions*16 +: 16]  = 16'(retired);
    counter_inc[mxu_isa_pkg::CntStallDep*16 +: 16]      = 16'(stall_dep);
    counter_inc[mxu_isa_pkg::CntStallWeights*16 +: 16]  = 16'(wait_weights);
    counter_inc[mxu_isa_pkg::CntStallFetch*16 +: 16]    = 16'(stall_fetch);
    counter_inc[mxu_isa_pkg::CntStallMemory*16 +: 16]   = 16'(stall_mem);
  end

  controller #(.Rows(Rows), .Cols(Cols), .UbDepth(UbDepth), .AccDepth(AccDepth)) u_controller (
    .clk_i,
    .rst_ni,
    .start_i         (start),
    .abort_i         (soft_reset),
    .cmd_addr_i      (cmd_addr),
    .cmd_count_i     (cmd_count),
    .mem_idle_i      (mem_idle),
    .busy_o          (ctrl_busy),
    .done_o          (done),
    .error_o         (error),
    .error_code_o    (error_code),
    .error_pc_o      (error_pc),
    .error_addr_o    (error_addr),
    .pc_o            (pc),
    .clear_o         (clear),
    .running_o       (running),
    .retired_o       (retired),
    .stall_dep_o     (stall_dep),
    .stall_fetch_o   (stall_fetch),
    .dbg_dispatch_o  (dbg_dispatch_o),
    .dbg_ins_o       (dbg_dispatch_ins_o),
    .fetch_ar_valid_o(fetch_ar_valid),
    .fetch_ar_ready_i(fetch_ar_ready),
    .fetch_ar_addr_o (fetch_ar_addr),
    .fetch_ar_len_o  (fetch_ar_len),
    .fetch_r_valid_i (fetch_r_valid),
    .fetch_r_ready_o (fetch_r_ready),
    .fetch_r_data_i  (mem_r_data_i),
    .fetch_r_last_i  (mem_r_last_i),
    .fetch_r_resp_i  (mem_r_resp_i),
    .ld_valid_o      (ld_valid),
    .ld_ready_i      (ld_ready),
    .wld_valid_o     (wld_valid),
    .wld_ready_i     (wld_ready),
    .wld_done_i      (wld_done),
    .wld_error_i     (wld_error),
    .wld_error_addr_i(wld_error_addr),
    .ld_target_o     (ld_target),
    .ld_transpose_o  (ld_transpose),
    .ld_rows_o       (ld_rows),
    .ld_lanes_o      (ld_lanes),
    .ld_buf_addr_o   (ld_buf_addr),
    .ld_host_addr_o  (ld_host_addr),
    .ld_stride_o     (ld_stride),
    .ld_done_i       (ld_done),
    .ld_error_i      (ld_error),
    .ld_error_addr_i (ld_error_addr),
    .st_valid_o      (st_valid),
    .st_ready_i      (st_ready),
    .st_source_o     (st_source),
    .st_relu_o       (st_relu),
    .st_rows_o       (st_rows),
    .st_lanes_o      (st_lanes),
    .st_buf_addr_o   (st_buf_addr),
    .st_host_addr_o  (st_host_addr),
    .st_stride_o     (st_stride),
    .st_done_i       (st_done),
    .st_error_i      (st_error),
    .st_error_addr_i (st_error_addr),
    .wl_valid_o      (wl_valid),
    .wl_ready_i      (wl_ready),
    .wl_k_rows_o     (wl_k_rows),
    .mm_valid_o      (mm_valid),
    .mm_ready_i      (mm_ready),
    .mm_ub_addr_o    (mm_ub_addr),
    .mm_acc_addr_o   (mm_acc_addr),
    .mm_rows_o       (mm_rows),
    .mm_k_rows_o     (mm_k_rows),
    .mm_accumulate_o (mm_accumulate),
    .mm_new_weights_o(mm_new_weights),
    .mm_done_i       (mm_done),
    .ac_valid_o      (ac_valid),
    .ac_ready_i      (ac_ready),
    .ac_acc_addr_o   (ac_acc_addr),
    .ac_ub_addr_o    (ac_ub_addr),
    .ac_rows_o       (ac_rows),
    .ac_relu_o       (ac_relu),
    .ac_bias_en_o    (ac_bias_en),
    .ac_bias_addr_o  (ac_bias_addr),
    .ac_done_i       (ac_done)
  );

  dma #(.UbLanes(UbLanes), .Cols(Cols), .UbDepth(UbDepth), .AccDepth(AccDepth)) u_dma (
    .clk_i,
    .rst_ni          (engines_rst_n),
    .fetch_ar_valid_i(fetch_ar_valid),
    .fetch_ar_ready_o(fetch_ar_ready),
    .fetch_ar_addr_i (fetch_ar_addr),
    .fetch_ar_len_i  (fetch_ar_len),
    .fetch_r_valid_o (fetch_r_valid),
    .fetch_r_ready_i (fetch_r_ready),
    .ld_valid_i      (ld_valid),
    .ld_ready_o      (ld_ready),
    .wld_valid_i     (wld_valid),
    .wld_ready_o     (wld_ready),
    .wld_done_o      (wld_done),
    .wld_error_o     (wld_error),
    .wld_error_addr_o(wld_error_addr),
    .ld_target_i     (ld_target),
    .ld_transpose_i  (ld_transpose),
    .ld_rows_i       (ld_rows),
    .ld_lanes_i      (ld_lanes),
    .ld_buf_addr_i   (ld_buf_addr),
    .ld_host_addr_i  (ld_host_addr),
    .ld_stride_i     (ld_stride),
    .ld_done_o       (ld_done),
    .ld_error_o      (ld_error),
    .ld_error_addr_o (ld_error_addr),
    .st_valid_i      (st_valid),
    .st_ready_o      (st_ready),
    .st_source_i     (st_source),
    .st_relu_i       (st_relu),
    .st_rows_i       (st_rows),
    .st_lanes_i      (st_lanes),
    .st_buf_addr_i   (st_buf_addr),
    .st_host_addr_i  (st_host_addr),
    .st_stride_i     (st_stride),
    .st_done_o       (st_done),
    .st_error_o      (st_error),
    .st_error_addr_o (st_error_addr),
    .ub_wr_en_o      (ub_wr_en),
    .ub_wr_addr_o    (ub_wr_addr),
    .ub_wr_data_o    (ub_wr_data),
    .ub_wr_gnt_i     (ub_wr_gnt),
    .ub_rd_en_o      (ub_rd_en),
    .ub_rd_addr_o    (ub_rd_addr),
    .ub_rd_gnt_i     (ub_rd_gnt),
    .ub_rd_data_i    (ub_rd_data),
    .acc_wr_en_o     (acc_wr_en),
    .acc_wr_addr_o   (acc_wr_addr),
    .acc_wr_data_o   (acc_wr_data),
    .acc_wr_gnt_i    (acc_wr_gnt),
    .acc_rd_en_o     (acc_rd_en),
    .acc_rd_addr_o   (acc_rd_addr),
    .acc_rd_gnt_i    (acc_rd_gnt),
    .acc_rd_data_i   (acc_rd_data),
    .wf_push_o       (wf_push),
    .wf_data_o       (wf_data),
    .wf_full_i       (wf_full),
    .mem_ar_valid_o,
    .mem_ar_ready_i,
    .mem_ar_addr_o,
    .mem_ar_len_o,
    .mem_ar_id_o,
    .mem_r_valid_i,
    .mem_r_ready_o   (dma_r_ready),
    .mem_r_data_i,
    .mem_r_id_i,
    .mem_r_last_i,
    .mem_r_resp_i,
    .mem_aw_valid_o,
    .mem_aw_ready_i,
    .mem_aw_addr_o,
    .mem_aw_len_o,
    .mem_w_valid_o   (dma_w_valid),
    .mem_w_ready_i,
    .mem_w_data_o    (dma_w_data),
    .mem_w_strb_o    (dma_w_strb),
    .mem_w_last_o    (dma_w_last),
    .mem_b_valid_i,
    .mem_b_ready_o   (dma_b_ready),
    .mem_b_resp_i,
    .wr_bytes_o      (wr_bytes),
    .stall_o         (stall_mem)
  );

  mxu_datapath #(
    .Rows(Rows), .Cols(Cols), .UbDepth(UbDepth), .AccDepth(AccDepth),
    .WeightFifoDepth(WeightFifoDepth), .FlushSubnormals(FlushSubnormals)
  ) u_datapath (
    .clk_i,
    .rst_ni           (engines_rst_n),
    .wf_push_i        (wf_push),
    .wf_data_i        (wf_data),
    .wf_full_o        (wf_full),
    .wl_valid_i       (wl_valid),
    .wl_ready_o       (wl_ready),
    .wl_k_rows_i      (wl_k_rows),
    .mm_valid_i       (mm_valid),
    .mm_ready_o       (mm_ready),
    .mm_ub_addr_i     (mm_ub_addr),
    .mm_acc_addr_i    (mm_acc_addr),
    .mm_rows_i        (mm_rows),
    .mm_k_rows_i      (mm_k_rows),
    .mm_accumulate_i  (mm_accumulate),
    .mm_new_weights_i (mm_new_weights),
    .mm_done_o        (mm_done),
    .ac_valid_i       (ac_valid),
    .ac_ready_o       (ac_ready),
    .ac_acc_addr_i    (ac_acc_addr),
    .ac_ub_addr_i     (ac_ub_addr),
    .ac_rows_i        (ac_rows),
    .ac_relu_i        (ac_relu),
    .ac_bias_en_i     (ac_bias_en),
    .ac_bias_addr_i   (ac_bias_addr),
    .ac_done_o        (ac_done),
    .ub_wr_en_i       (ub_wr_en),
    .ub_wr_addr_i     (ub_wr_addr),
    .ub_wr_data_i     (ub_wr_data),
    .ub_wr_gnt_o      (ub_wr_gnt),
    .ub_rd_en_i       (ub_rd_en),
    .ub_rd_addr_i     (ub_rd_addr),
    .ub_rd_gnt_o      (ub_rd_gnt),
    .ub_rd_data_o     (ub_rd_data),
    .acc_wr_en_i      (acc_wr_en),
    .acc_wr_addr_i    (acc_wr_addr),
    .acc_wr_data_i    (acc_wr_data),
    .acc_wr_gnt_o     (acc_wr_gnt),
    .acc_rd_en_i      (acc_rd_en),
    .acc_rd_addr_i    (acc_rd_addr),
    .acc_rd_gnt_o     (acc_rd_gnt),
    .acc_rd_data_o    (acc_rd_data),
    .wl_busy_o        (wl_busy),
    .mm_busy_o        (mm_busy),
    .ac_busy_o        (ac_busy),
    .array_row_o      (array_row),
    .mm_wait_weights_o(wait_weights)
  );

  // Drain: outside a program every response is accepted and dropped, and a write burst cut
  // short by an error or an abort is completed with empty strobes, so that the next program
  // starts with nothing outstanding.
  always_comb begin
    mem_r_ready_o = running ? dma_r_ready : 1'b1;
    mem_b_ready_o = running ? dma_b_ready : 1'b1;
    mem_w_valid_o = dma_w_valid;
    mem_w_data_o  = dma_w_data;
    mem_w_strb_o  = dma_w_strb;
    mem_w_last_o  = dma_w_last;
    if (clear && w_owed_q != '0) begin
      mem_w_valid_o = 1'b1;
      mem_w_data_o  = '0;
      mem_w_strb_o  = '0;
      mem_w_last_o  = w_owed_q == 9'd1;
    end
    reads_out_d  = reads_out_q + 8'(mem_ar_valid_o && mem_ar_ready_i)
                               - 8'(mem_r_valid_i && mem_r_ready_o && mem_r_last_i);
    writes_out_d = writes_out_q + 8'(mem_aw_valid_o && mem_aw_ready_i)
                                - 8'(mem_b_valid_i && mem_b_ready_o);
    w_owed_d     = w_owed_q + ((mem_aw_valid_o && mem_aw_ready_i) ? 9'(mem_aw_len_o) + 9'd1 : 9'd0)
                            - 9'(mem_w_valid_o && mem_w_ready_i);
    mem_idle     = reads_out_q == '0 && writes_out_q == '0 && w_owed_q == '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      reads_out_q  <= '0;
      writes_out_q <= '0;
      w_owed_q     <= '0;
    end else begin
      reads_out_q  <= reads_out_d;
      writes_out_q <= writes_out_d;
      w_owed_q     <= w_owed_d;
    end
  end

  assign dbg_busy_o          = ctrl_busy;
  assign dbg_dispatch_pc_o   = pc;
  assign dbg_load_done_o     = ld_done;
  assign dbg_wload_done_o    = wld_done;
  assign dbg_store_done_o    = st_done;
  assign dbg_matmul_done_o   = mm_done;
  assign dbg_activate_done_o = ac_done;
  assign dbg_wshift_start_o  = wl_valid && wl_ready;
  assign dbg_wshift_busy_o   = wl_busy;
  assign dbg_array_row_o     = array_row;

  logic unused_signals;
  assign unused_signals = ^{mm_busy, ac_busy};

endmodule
