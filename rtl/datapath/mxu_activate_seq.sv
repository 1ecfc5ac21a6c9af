// The datapath's ACTIVATE sequencer (mxu_datapath): reads the bias row first (if any), then the
// quantization row (int8), then one accumulator row per grant of the accumulators' read port, and
// hands each row to the activation unit the cycle after its read (s1_*), with the bias and
// quantization rows and the command's settings; the activation unit writes the unified buffer.
// A new ACTIVATE is taken only once the previous one has left the activation unit.
module mxu_activate_seq #(
  localparam int unsigned Cols       = mxu_pkg::ArrayCols,
  localparam int unsigned UbAw       = mxu_pkg::UbAddrWidth,
  localparam int unsigned AccAw      = mxu_pkg::AccAddrWidth,
  localparam int unsigned CountWidth = 16
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // ACTIVATE.
  input  logic                  ac_valid_i,
  output logic                  ac_ready_o,
  input  mxu_pkg::activate_cmd_t ac_cmd_i,      // the low bits of its addresses
  // The accumulators' read port (shared: a grant counts only while rd_en_o), data the cycle
  // after the grant.
  output logic                  rd_en_o,
  output logic [AccAw-1:0]      rd_addr_o,
  input  logic                  rd_gnt_i,
  input  logic [Cols*32-1:0]    rd_data_i,
  // The activation unit.
  output logic                  au_valid_o,
  output logic                  au_last_o,      // the command's last row
  output logic [UbAw-1:0]       au_ub_addr_o,
  output logic                  au_relu_o,
  output logic                  au_bias_en_o,
  output logic [Cols*32-1:0]    au_bias_o,
  output logic                  au_int8_o,
  output logic [Cols*32-1:0]    au_quant_o,
  output logic [7:0]            au_zero_point_o,
  input  logic                  au_busy_i
);

  logic                  ac_active_d, ac_active_q;
  logic                  ac_bias_phase_d, ac_bias_phase_q;
  logic                  ac_quant_phase_d, ac_quant_phase_q;
  logic                  ac_int8_d, ac_int8_q;
  logic [AccAw-1:0]      ac_quant_addr_d, ac_quant_addr_q;
  logic [7:0]            ac_zp_d, ac_zp_q;
  logic [AccAw-1:0]      ac_acc_d, ac_acc_q, ac_bias_addr_d, ac_bias_addr_q;
  logic [UbAw-1:0]       ac_ub_d, ac_ub_q;
  logic [CountWidth-1:0] ac_left_d, ac_left_q;
  logic                  ac_relu_d, ac_relu_q, ac_bias_en_d, ac_bias_en_q;
  logic                  ac_rd_gnt;
  logic                  s1_valid_d, s1_valid_q, s1_bias_d, s1_bias_q, s1_quant_d, s1_quant_q;
  logic                  s1_last_d, s1_last_q;
  logic [UbAw-1:0]       s1_ub_d, s1_ub_q;
  logic [Cols*32-1:0]    bias_d, bias_q, quant_d, quant_q;

  assign ac_ready_o = !ac_active_q && !s1_valid_q && !s1_bias_q && !s1_quant_q && !au_busy_i;
  assign rd_en_o    = ac_active_q;
  assign rd_addr_o  = ac_bias_phase_q ? ac_bias_addr_q : ac_quant_phase_q ? ac_quant_addr_q
                                                                           : ac_acc_q;
  assign ac_rd_gnt  = ac_active_q && rd_gnt_i;

  always_comb begin
    ac_active_d      = ac_active_q;
    ac_bias_phase_d  = ac_bias_phase_q;
    ac_quant_phase_d = ac_quant_phase_q;
    ac_int8_d        = ac_int8_q;
    ac_quant_addr_d  = ac_quant_addr_q;
    ac_zp_d          = ac_zp_q;
    ac_acc_d         = ac_acc_q;
    ac_ub_d          = ac_ub_q;
    ac_left_d        = ac_left_q;
    ac_relu_d        = ac_relu_q;
    ac_bias_en_d     = ac_bias_en_q;
    ac_bias_addr_d   = ac_bias_addr_q;
    if (ac_rd_gnt) begin
      if (ac_bias_phase_q) begin
        ac_bias_phase_d = 1'b0;
      end else if (ac_quant_phase_q) begin
        ac_quant_phase_d = 1'b0;
      end else begin
        ac_acc_d    = ac_acc_q + 1'b1;
        ac_ub_d     = ac_ub_q + 1'b1;
        ac_left_d   = ac_left_q - 1'b1;
        ac_active_d = (ac_left_q != CountWidth'(1));
      end
    end
    if (ac_valid_i && ac_ready_o) begin
      ac_active_d      = 1'b1;
      ac_bias_phase_d  = ac_cmd_i.bias_en;
      ac_acc_d         = ac_cmd_i.acc_addr[AccAw-1:0];
      ac_ub_d          = ac_cmd_i.ub_addr[UbAw-1:0];
      ac_left_d        = ac_cmd_i.rows;
      ac_relu_d        = ac_cmd_i.relu;
      ac_bias_en_d     = ac_cmd_i.bias_en;
      ac_bias_addr_d   = ac_cmd_i.bias_addr[AccAw-1:0];
      ac_quant_phase_d = ac_cmd_i.int8;
      ac_int8_d        = ac_cmd_i.int8;
      ac_quant_addr_d  = ac_cmd_i.quant_addr[AccAw-1:0];
      ac_zp_d          = ac_cmd_i.zero_point;
    end
    // What the read granted now brings the cycle after.
    s1_valid_d = ac_rd_gnt && !ac_bias_phase_q && !ac_quant_phase_q;
    s1_bias_d  = ac_rd_gnt && ac_bias_phase_q;
    s1_quant_d = ac_rd_gnt && !ac_bias_phase_q && ac_quant_phase_q;
    s1_last_d  = ac_rd_gnt && !ac_bias_phase_q && !ac_quant_phase_q &&
                 (ac_left_q == CountWidth'(1));
    s1_ub_d    = ac_ub_q;
    bias_d     = s1_bias_q ? rd_data_i : bias_q;
    quant_d    = s1_quant_q ? rd_data_i : quant_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ac_active_q      <= 1'b0;
      ac_bias_phase_q  <= 1'b0;
      ac_quant_phase_q <= 1'b0;
      ac_int8_q        <= 1'b0;
      ac_quant_addr_q  <= '0;
      ac_zp_q          <= '0;
      ac_acc_q         <= '0;
      ac_ub_q          <= '0;
      ac_left_q        <= '0;
      ac_relu_q        <= 1'b0;
      ac_bias_en_q     <= 1'b0;
      ac_bias_addr_q   <= '0;
      s1_valid_q       <= 1'b0;
      s1_bias_q        <= 1'b0;
      s1_quant_q       <= 1'b0;
      s1_last_q        <= 1'b0;
      s1_ub_q          <= '0;
      bias_q           <= '0;
      quant_q          <= '0;
    end else begin
      ac_active_q      <= ac_active_d;
      ac_bias_phase_q  <= ac_bias_phase_d;
      ac_quant_phase_q <= ac_quant_phase_d;
      ac_int8_q        <= ac_int8_d;
      ac_quant_addr_q  <= ac_quant_addr_d;
      ac_zp_q          <= ac_zp_d;
      ac_acc_q         <= ac_acc_d;
      ac_ub_q          <= ac_ub_d;
      ac_left_q        <= ac_left_d;
      ac_relu_q        <= ac_relu_d;
      ac_bias_en_q     <= ac_bias_en_d;
      ac_bias_addr_q   <= ac_bias_addr_d;
      s1_valid_q       <= s1_valid_d;
      s1_bias_q        <= s1_bias_d;
      s1_quant_q       <= s1_quant_d;
      s1_last_q        <= s1_last_d;
      s1_ub_q          <= s1_ub_d;
      bias_q           <= bias_d;
      quant_q          <= quant_d;
    end
  end

  assign au_valid_o      = s1_valid_q;
  assign au_last_o       = s1_last_q;
  assign au_ub_addr_o    = s1_ub_q;
  assign au_relu_o       = ac_relu_q;
  assign au_bias_en_o    = ac_bias_en_q;
  assign au_bias_o       = bias_q;
  assign au_int8_o       = ac_int8_q;
  assign au_quant_o      = quant_q;
  assign au_zero_point_o = ac_zp_q;

  // The command's addresses are 16 bits wide (the instruction's); this device's are narrower, and
  // the decoder has checked the rest.
  logic unused_cmd;
  assign unused_cmd = ^{ac_cmd_i.acc_addr >> AccAw, ac_cmd_i.ub_addr >> UbAw,
                        ac_cmd_i.bias_addr >> AccAw, ac_cmd_i.quant_addr >> AccAw};

endmodule
