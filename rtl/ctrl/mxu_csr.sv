// Control and status registers behind the register port (docs/isa.md): identification and
// configuration readout (array, memories, PE pipeline, features), control (doorbell, soft reset, interrupt enable), status and error
// reporting, the command-buffer registers and the 64-bit performance counters. A request is
// answered in the next cycle; unknown addresses and writes to read-only registers answer with an
// error response.
// The configuration it reports is the device descriptor's (mxu_pkg).
module mxu_csr #(
  localparam int unsigned NumCounters = mxu_isa_pkg::NumCounters,
  localparam int unsigned AddrWidth   = mxu_pkg::MemAddrWidth
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  // Register port.
  input  mxu_pkg::reg_req_t           reg_req_i,
  output mxu_pkg::reg_rsp_t           reg_rsp_o,
  // Control of and status from the controller.
  output mxu_pkg::csr_ctrl_t          ctrl_o,
  input  mxu_pkg::ctrl_csr_t          ctrl_i,
  output logic                        irq_o,
  // Counter increments, 16 bits per counter.
  input  logic [NumCounters*16-1:0]   counter_inc_i
);

  logic                  done_d, done_q, error_d, error_q, irq_en_d, irq_en_q;
  logic                  irq_pending_d, irq_pending_q;
  logic [3:0]            error_code_d, error_code_q;
  logic [31:0]           error_pc_d, error_pc_q;
  logic [AddrWidth-1:0]  error_addr_d, error_addr_q;
  logic [AddrWidth-1:0]  cmd_addr_d, cmd_addr_q;
  logic [31:0]           cmd_count_d, cmd_count_q;
  logic [NumCounters*64-1:0] counters_d, counters_q;
  // Each cycle's increments, registered before the 64-bit adds: they come late (the controller's
  // dispatch decision). A counter reads one cycle behind while a program runs, never at its end:
  // a HALT's increment lands in the cycle DONE is set.
  logic [NumCounters*16-1:0] counter_inc_d, counter_inc_q;
  logic                  rsp_valid_d, rsp_valid_q, rsp_error_d, rsp_error_q;
  logic [31:0]           rsp_rdata_d, rsp_rdata_q;
  logic                  rd, wr, ctrl_wr, start, soft_reset;
  logic [31:0]           rdata;
  logic                  known, writable;

  assign rd = reg_req_i.valid && !reg_req_i.write;
  assign wr = reg_req_i.valid && reg_req_i.write;

  // Read mux and the address map.
  always_comb begin
    rdata    = '0;
    known    = 1'b1;
    writable = 1'b0;
    unique case (reg_req_i.addr)
      mxu_isa_pkg::CsrId:      rdata = mxu_isa_pkg::DeviceId;
      mxu_isa_pkg::CsrVersion: rdata = mxu_isa_pkg::DeviceVersion;
      mxu_isa_pkg::CsrArray: begin
        rdata[mxu_isa_pkg::CsrArrayRowsLsb +: mxu_isa_pkg::CsrArrayRowsWidth] =
            16'(mxu_pkg::ArrayRows);
        rdata[mxu_isa_pkg::CsrArrayColsLsb +: mxu_isa_pkg::CsrArrayColsWidth] =
            16'(mxu_pkg::ArrayCols);
      end
      mxu_isa_pkg::CsrUbDepth:    rdata = 32'(mxu_pkg::UbDepth);
      mxu_isa_pkg::CsrAccDepth:   rdata = 32'(mxu_pkg::AccDepth);
      mxu_isa_pkg::CsrWfifoDepth: rdata = 32'(mxu_pkg::WeightFifoDepth);
      mxu_isa_pkg::CsrFeatures: begin
        rdata[mxu_isa_pkg::CsrFeaturesBusLog2Lsb +: mxu_isa_pkg::CsrFeaturesBusLog2Width] =
            8'($clog2(mxu_pkg::MemBusBytes));
        rdata[mxu_isa_pkg::CsrFeaturesFlushSubnormalsLsb] = mxu_pkg::FlushSubnormals;
        rdata[mxu_isa_pkg::CsrFeaturesInt8Lsb] = 1'b1;  // the int8 mode
        rdata[mxu_isa_pkg::CsrFeaturesClockGatingLsb] = mxu_pkg::ClockGating;
        rdata[mxu_isa_pkg::CsrFeaturesUbLanesLsb +: mxu_isa_pkg::CsrFeaturesUbLanesWidth] =
            8'(mxu_pkg::UbLanes);
        rdata[mxu_isa_pkg::CsrFeaturesMaxInFlightLsb +: mxu_isa_pkg::CsrFeaturesMaxInFlightWidth] =
            8'(mxu_pkg::MemMaxInFlight);
      end
      mxu_isa_pkg::CsrPipeline: begin
        rdata[mxu_isa_pkg::CsrPipelinePeStagesLsb +: mxu_isa_pkg::CsrPipelinePeStagesWidth] =
            8'(mxu_pkg::PeStages);
        rdata[mxu_isa_pkg::CsrPipelineMulCyclesLsb +: mxu_isa_pkg::CsrPipelineMulCyclesWidth] =
            8'(mxu_pkg::pe_mul_cycles(mxu_pkg::PeStages));
        rdata[mxu_isa_pkg::CsrPipelineAddCyclesLsb +: mxu_isa_pkg::CsrPipelineAddCyclesWidth] =
            8'(mxu_pkg::pe_add_cycles(mxu_pkg::PeStages));
      end
      mxu_isa_pkg::CsrCtrl: begin
        rdata[mxu_isa_pkg::CsrCtrlIrqEnableLsb] = irq_en_q;
        writable = 1'b1;
      end
      mxu_isa_pkg::CsrStatus: begin
        rdata[mxu_isa_pkg::CsrStatusBusyLsb]       = ctrl_i.busy;
        rdata[mxu_isa_pkg::CsrStatusDoneLsb]       = done_q;
        rdata[mxu_isa_pkg::CsrStatusErrorLsb]      = error_q;
        rdata[mxu_isa_pkg::CsrStatusIrqPendingLsb] = irq_pending_q;
      end
      mxu_isa_pkg::CsrIrqClear:    writable = 1'b1;
      mxu_isa_pkg::CsrErrorCode:   rdata = 32'(error_code_q);
      mxu_isa_pkg::CsrErrorPc:     rdata = error_pc_q;
      mxu_isa_pkg::CsrErrorAddrLo: rdata = error_addr_q[31:0];
      mxu_isa_pkg::CsrErrorAddrHi: rdata = 32'(error_addr_q[AddrWidth-1:32]);
      mxu_isa_pkg::CsrCmdAddrLo: begin rdata = cmd_addr_q[31:0]; writable = 1'b1; end
      mxu_isa_pkg::CsrCmdAddrHi: begin rdata = 32'(cmd_addr_q[AddrWidth-1:32]); writable = 1'b1; end
      mxu_isa_pkg::CsrCmdCount:  begin rdata = cmd_count_q; writable = 1'b1; end
      mxu_isa_pkg::CsrPc:        rdata = ctrl_i.pc;
      default: begin
        known = 1'b0;
        for (int unsigned i = 0; i < NumCounters; i++) begin
          if (reg_req_i.addr == 12'(32'(mxu_isa_pkg::CsrCounterBase) + mxu_isa_pkg::CsrCounterStride * i)) begin
            rdata = counters_q[i*64 +: 32];
            known = 1'b1;
          end
          if (reg_req_i.addr ==
              12'(32'(mxu_isa_pkg::CsrCounterBase) + mxu_isa_pkg::CsrCounterStride * i + 4)) begin
            rdata = counters_q[i*64+32 +: 32];
            known = 1'b1;
          end
        end
      end
    endcase
  end

  // The response, and the writes.
  always_comb begin
    rsp_valid_d = reg_req_i.valid;
    rsp_error_d = reg_req_i.valid && (!known || (wr && !writable));
    rsp_rdata_d = rd ? rdata : '0;
    ctrl_wr    = wr && reg_req_i.addr == mxu_isa_pkg::CsrCtrl;
    start      = ctrl_wr && reg_req_i.wdata[mxu_isa_pkg::CsrCtrlStartLsb] && !ctrl_i.busy;
    soft_reset = ctrl_wr && reg_req_i.wdata[mxu_isa_pkg::CsrCtrlSoftResetLsb];
    irq_en_d   = ctrl_wr ? reg_req_i.wdata[mxu_isa_pkg::CsrCtrlIrqEnableLsb] : irq_en_q;
    cmd_addr_d = cmd_addr_q;
    cmd_count_d = cmd_count_q;
    if (wr && reg_req_i.addr == mxu_isa_pkg::CsrCmdAddrLo) cmd_addr_d[31:0] = reg_req_i.wdata;
    if (wr && reg_req_i.addr == mxu_isa_pkg::CsrCmdAddrHi) cmd_addr_d[AddrWidth-1:32] = reg_req_i.wdata[AddrWidth-33:0];
    if (wr && reg_req_i.addr == mxu_isa_pkg::CsrCmdCount) cmd_count_d = reg_req_i.wdata;
  end

  // Status, errors and the interrupt.
  always_comb begin
    done_d        = (done_q || ctrl_i.done) && !start && !soft_reset;
    error_d       = (error_q || ctrl_i.error) && !start && !soft_reset;
    error_code_d  = error_code_q;
    error_pc_d    = error_pc_q;
    error_addr_d  = error_addr_q;
    if (ctrl_i.error && !error_q) begin
      error_code_d = ctrl_i.error_code;
      error_pc_d   = ctrl_i.error_pc;
      error_addr_d = ctrl_i.error_addr;
    end
    if (start || soft_reset) begin
      error_code_d = mxu_isa_pkg::ErrNone;
      error_pc_d   = '0;
      error_addr_d = '0;
    end
    irq_pending_d = irq_pending_q;
    if (ctrl_i.done || (ctrl_i.error && !error_q)) irq_pending_d = 1'b1;
    if ((wr && reg_req_i.addr == mxu_isa_pkg::CsrIrqClear &&
         reg_req_i.wdata[mxu_isa_pkg::CsrIrqClearPendingLsb]) || soft_reset) begin
      irq_pending_d = 1'b0;
    end
  end

  // Counters: cleared by start, counting while the device runs.
  always_comb begin
    for (int unsigned i = 0; i < NumCounters; i++) begin
      counters_d[i*64 +: 64] = counters_q[i*64 +: 64] + 64'(counter_inc_q[i*16 +: 16]);
    end
    counter_inc_d = counter_inc_i;
    if (start || soft_reset) begin
      counters_d    = '0;
      counter_inc_d = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      done_q        <= 1'b0;
      error_q       <= 1'b0;
      irq_en_q      <= 1'b0;
      irq_pending_q <= 1'b0;
      error_code_q  <= '0;
      error_pc_q    <= '0;
      error_addr_q  <= '0;
      cmd_addr_q    <= '0;
      cmd_count_q   <= '0;
      counters_q    <= '0;
      counter_inc_q <= '0;
      rsp_valid_q   <= 1'b0;
      rsp_error_q   <= 1'b0;
      rsp_rdata_q   <= '0;
    end else begin
      done_q        <= done_d;
      error_q       <= error_d;
      irq_en_q      <= irq_en_d;
      irq_pending_q <= irq_pending_d;
      error_code_q  <= error_code_d;
      error_pc_q    <= error_pc_d;
      error_addr_q  <= error_addr_d;
      cmd_addr_q    <= cmd_addr_d;
      cmd_count_q   <= cmd_count_d;
      counters_q    <= counters_d;
      counter_inc_q <= counter_inc_d;
      rsp_valid_q   <= rsp_valid_d;
      rsp_error_q   <= rsp_error_d;
      rsp_rdata_q   <= rsp_rdata_d;
    end
  end

  assign reg_rsp_o.ready  = 1'b1;
  assign reg_rsp_o.valid  = rsp_valid_q;
  assign reg_rsp_o.rdata  = rsp_rdata_q;
  assign reg_rsp_o.error  = rsp_error_q;
  assign ctrl_o.start     = start;
  assign ctrl_o.soft_reset = soft_reset;
  assign ctrl_o.cmd_addr  = cmd_addr_q;
  assign ctrl_o.cmd_count = cmd_count_q;
  assign irq_o           = irq_pending_q && irq_en_q;

endmodule
