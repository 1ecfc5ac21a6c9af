// Control and status registers behind the register port (docs/isa.md): identification and
// configuration readout, control (doorbell, soft reset, interrupt enable), status and error
// reporting, the command-buffer registers and the 64-bit performance counters. A request is
// answered in the next cycle; unknown addresses and writes to read-only registers answer with an
// error response.
module csr #(
  parameter int unsigned Rows            = mxu_pkg::ArrayRows,
  parameter int unsigned Cols            = mxu_pkg::ArrayCols,
  parameter int unsigned UbDepth         = mxu_pkg::UbDepth,
  parameter int unsigned AccDepth        = mxu_pkg::AccDepth,
  parameter int unsigned WeightFifoDepth = mxu_pkg::WeightFifoDepth,
  parameter int unsigned UbLanes         = (Rows > Cols) ? Rows : Cols,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
  localparam int unsigned NumCounters    = mxu_isa_pkg::NumCounters,
  localparam int unsigned AddrWidth      = mxu_pkg::MemAddrWidth
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  // Register port.
  input  logic                        reg_req_valid_i,
  output logic                        reg_req_ready_o,
  input  logic                        reg_req_write_i,
  input  logic [11:0]                 reg_req_addr_i,
  input  logic [31:0]                 reg_req_wdata_i,
  output logic                        reg_rsp_valid_o,
  output logic [31:0]                 reg_rsp_rdata_o,
  output logic                        reg_rsp_error_o,
  // Control.
  output logic                        start_o,       // pulse: run the command buffer
  output logic                        soft_reset_o,  // pulse
  output logic [AddrWidth-1:0]        cmd_addr_o,
  output logic [31:0]                 cmd_count_o,
  output logic                        irq_o,
  // Status from the controller.
  input  logic                        busy_i,
  input  logic                        done_i,        // pulse: HALT retired
  input  logic                        error_i,       // pulse: the first error
  input  logic [3:0]                  error_code_i,
  input  logic [31:0]                 error_pc_i,
  input  logic [AddrWidth-1:0]        error_addr_i,
  input  logic [31:0]                 pc_i,
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
  logic                  rsp_valid_d, rsp_valid_q, rsp_error_d, rsp_error_q;
  logic [31:0]           rsp_rdata_d, rsp_rdata_q;
  logic                  rd, wr, start, soft_reset;
  logic [31:0]           rdata;
  logic                  known, writable;

  always_comb begin
    rd = reg_req_valid_i && !reg_req_write_i;
    wr = reg_req_valid_i && reg_req_write_i;

    // Read mux and the address map.
    rdata    = '0;
    known    = 1'b1;
    writable = 1'b0;
    unique case (reg_req_addr_i)
      12'h000: rdata = mxu_isa_pkg::DeviceId;
      12'h004: rdata = mxu_isa_pkg::DeviceVersion;
      12'h008: rdata = {16'(Cols), 16'(Rows)};
      12'h00C: rdata = 32'(UbDepth);
      12'h010: rdata = 32'(AccDepth);
      12'h014: rdata = 32'(WeightFifoDepth);
      12'h018: rdata = {8'(mxu_pkg::MemMaxInFlight), 8'(UbLanes), 7'd0, FlushSubnormals,
                        8'(mxu_pkg::MemBusBytes)};
      12'h020: begin rdata = {29'd0, irq_en_q, 2'b00}; writable = 1'b1; end
      12'h024: rdata = {28'd0, irq_pending_q, error_q, done_q, busy_i};
      12'h028: begin rdata = '0; writable = 1'b1; end
      12'h02C: rdata = {28'd0, error_code_q};
      12'h030: rdata = error_pc_q;
      12'h034: rdata = error_addr_q[31:0];
      12'h038: rdata = 32'(error_addr_q[AddrWidth-1:32]);
      12'h040: begin rdata = cmd_addr_q[31:0]; writable = 1'b1; end
      12'h044: begin rdata = 32'(cmd_addr_q[AddrWidth-1:32]); writable = 1'b1; end
      12'h048: begin rdata = cmd_count_q; writable = 1'b1; end
      12'h04C: rdata = pc_i;
      default: begin
        known = 1'b0;
        for (int unsigned i = 0; i < NumCounters; i++) begin
          if (reg_req_addr_i == 12'(32'h080 + 8 * i)) begin
            rdata = counters_q[i*64 +: 32];
            known = 1'b1;
          end
          if (reg_req_addr_i == 12'(32'h084 + 8 * i)) begin
            rdata = counters_q[i*64+32 +: 32];
            known = 1'b1;
          end
        end
      end
    endcase

    rsp_valid_d = reg_req_valid_i;
    rsp_error_d = reg_req_valid_i && (!known || (wr && !writable));
    rsp_rdata_d = rd ? rdata : '0;

    // Writes.
    start      = wr && writable && reg_req_addr_i == 12'h020 && reg_req_wdata_i[0] && !busy_i;
    soft_reset = wr && writable && reg_req_addr_i == 12'h020 && reg_req_wdata_i[1];
    irq_en_d   = (wr && reg_req_addr_i == 12'h020) ? reg_req_wdata_i[2] : irq_en_q;
    cmd_addr_d = cmd_addr_q;
    cmd_count_d = cmd_count_q;
    if (wr && reg_req_addr_i == 12'h040) cmd_addr_d[31:0] = reg_req_wdata_i;
    if (wr && reg_req_addr_i == 12'h044) cmd_addr_d[AddrWidth-1:32] = reg_req_wdata_i[AddrWidth-33:0];
    if (wr && reg_req_addr_i == 12'h048) cmd_count_d = reg_req_wdata_i;

    // Status, errors and the interrupt.
    done_d        = (done_q || done_i) && !start && !soft_reset;
    error_d       = (error_q || error_i) && !start && !soft_reset;
    error_code_d  = error_code_q;
    error_pc_d    = error_pc_q;
    error_addr_d  = error_addr_q;
    if (error_i && !error_q) begin
      error_code_d = error_code_i;
      error_pc_d   = error_pc_i;
      error_addr_d = error_addr_i;
    end
    if (start || soft_reset) begin
      error_code_d = mxu_isa_pkg::ErrNone;
      error_pc_d   = '0;
      error_addr_d = '0;
    end
    irq_pending_d = irq_pending_q;
    if (done_i || (error_i && !error_q)) irq_pending_d = 1'b1;
    if ((wr && reg_req_addr_i == 12'h028 && reg_req_wdata_i[0]) || soft_reset) begin
      irq_pending_d = 1'b0;
    end

    // Counters: cleared by start, counting while the device runs.
    for (int unsigned i = 0; i < NumCounters; i++) begin
      counters_d[i*64 +: 64] = counters_q[i*64 +: 64] + 64'(counter_inc_i[i*16 +: 16]);
    end
    if (start || soft_reset) counters_d = '0;
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
      rsp_valid_q   <= rsp_valid_d;
      rsp_error_q   <= rsp_error_d;
      rsp_rdata_q   <= rsp_rdata_d;
    end
  end

  assign reg_req_ready_o = 1'b1;
  assign reg_rsp_valid_o = rsp_valid_q;
  assign reg_rsp_rdata_o = rsp_rdata_q;
  assign reg_rsp_error_o = rsp_error_q;
  assign start_o         = start;
  assign soft_reset_o    = soft_reset;
  assign cmd_addr_o      = cmd_addr_q;
  assign cmd_count_o     = cmd_count_q;
  assign irq_o           = irq_pending_q && irq_en_q;

endmodule
