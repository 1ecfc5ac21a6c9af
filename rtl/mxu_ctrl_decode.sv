// Controller, decode: the instruction at the head of the fetch buffer, taken apart (docs/isa.md).
// Purely combinational. It checks every legality rule of docs/isa.md (Errors), names the buffer
// rows the instruction reads and writes (for the scoreboard) and forms the command each engine
// receives when the instruction is dispatched.
`include "mxu_assert.svh"

module mxu_ctrl_decode #(
  parameter int unsigned Rows     = mxu_pkg::ArrayRows,
  parameter int unsigned Cols     = mxu_pkg::ArrayCols,
  parameter int unsigned UbDepth  = mxu_pkg::UbDepth,
  parameter int unsigned AccDepth = mxu_pkg::AccDepth,
  localparam int unsigned UbLanes = (Rows > Cols) ? Rows : Cols
) (
  input  logic [127:0]           ins_i,
  input  logic [2:0]             tiles_i,   // loaded weight tiles no MATMUL has claimed yet
  output mxu_pkg::ctrl_dec_t     dec_o,
  output mxu_pkg::load_cmd_t     ld_cmd_o,
  output mxu_pkg::store_cmd_t    st_cmd_o,
  output mxu_pkg::matmul_cmd_t   mm_cmd_o,
  output mxu_pkg::activate_cmd_t ac_cmd_o
);

  logic [7:0]                    op;
  logic [7:0]                    flags;
  logic [15:0]                   f_rows, f_b, f_c, f_d;
  logic [mxu_pkg::MemAddrWidth-1:0] f_host;
  logic [15:0]                   f_stride;
  logic                          is_load, is_store, is_mm, is_ac, is_sync, is_halt;
  logic [3:0]                    check_err;
  logic [16:0]                   rows17, buf_hi, ub_hi, acc_hi, ac_ub_hi, ac_acc_hi;

  always_comb begin
    op        = ins_i[7:0];
    flags     = ins_i[15:8];
    f_rows    = ins_i[31:16];
    f_b       = ins_i[47:32];
    f_c       = ins_i[63:48];
    f_d       = ins_i[79:64];
    f_host    = ins_i[111:64];
    f_stride  = ins_i[127:112];
    is_load   = op == mxu_isa_pkg::OpLoad;
    is_store  = op == mxu_isa_pkg::OpStore;
    is_mm     = op == mxu_isa_pkg::OpMatmul;
    is_ac     = op == mxu_isa_pkg::OpActivate;
    is_sync   = op == mxu_isa_pkg::OpSync;
    is_halt   = op == mxu_isa_pkg::OpHalt;
    rows17    = {1'b0, f_rows};
    buf_hi    = {1'b0, f_c} + rows17;   // LOAD / STORE: buffer rows [f_c, buf_hi)
    ub_hi     = {1'b0, f_c} + rows17;   // MATMUL: UB rows [f_c, ub_hi), ACC rows [f_d, acc_hi)
    acc_hi    = {1'b0, f_d} + rows17;
    ac_acc_hi = {1'b0, f_b} + rows17;   // ACTIVATE: ACC rows [f_b, +rows), UB rows [f_c, +rows)
    ac_ub_hi  = {1'b0, f_c} + rows17;

    // ----- Legality (docs/isa.md, Errors).
    check_err = mxu_isa_pkg::ErrNone;
    if (is_load || is_store) begin
      if (flags[7:3] != '0 || (is_store && flags[2] && flags[1:0] != mxu_isa_pkg::BufAcc) ||
          flags[1:0] == 2'd3 ||
          (is_store && flags[1:0] == mxu_isa_pkg::BufWeights) ||
          (is_load && flags[2] && flags[1:0] == mxu_isa_pkg::BufAcc) || f_rows == '0 || f_b == '0 ||
          (flags[1:0] == mxu_isa_pkg::BufUb && 32'(f_b) > UbLanes) ||
          (flags[1:0] != mxu_isa_pkg::BufUb && 32'(f_b) > Cols) ||
          (flags[1:0] == mxu_isa_pkg::BufWeights && (32'(f_rows) > Rows || f_c != '0))) begin
        check_err = mxu_isa_pkg::ErrIllegalField;
      end else if (flags[1:0] == mxu_isa_pkg::BufUb && 32'(buf_hi) > UbDepth) begin
        check_err = mxu_isa_pkg::ErrUbRange;
      end else if (flags[1:0] == mxu_isa_pkg::BufAcc && 32'(buf_hi) > AccDepth) begin
        check_err = mxu_isa_pkg::ErrAccRange;
      end else if (f_host[0] || (flags[1:0] == mxu_isa_pkg::BufAcc && f_host[1])) begin
        check_err = mxu_isa_pkg::ErrMisaligned;
      end else if (is_load && flags[1:0] == mxu_isa_pkg::BufWeights && tiles_i == 3'd3) begin
        check_err = mxu_isa_pkg::ErrWeightsFull;
      end
    end else if (is_mm) begin
      if (flags[7:2] != '0 || ins_i[127:80] != '0 || f_rows == '0 || f_b == '0 ||
          32'(f_b) > Rows) begin
        check_err = mxu_isa_pkg::ErrIllegalField;
      end else if (32'(ub_hi) > UbDepth) begin
        check_err = mxu_isa_pkg::ErrUbRange;
      end else if (32'(acc_hi) > AccDepth) begin
        check_err = mxu_isa_pkg::ErrAccRange;
      end else if (flags[1] && tiles_i == '0) begin
        check_err = mxu_isa_pkg::ErrNoWeights;
      end
    end else if (is_ac) begin
      if (flags[7:2] != '0 || ins_i[127:80] != '0 || f_rows == '0 ||
          (!flags[1] && f_d != '0)) begin
        check_err = mxu_isa_pkg::ErrIllegalField;
      end else if (32'(ac_ub_hi) > UbDepth) begin
        check_err = mxu_isa_pkg::ErrUbRange;
      end else if (32'(ac_acc_hi) > AccDepth || 32'(f_d) >= AccDepth) begin
        check_err = mxu_isa_pkg::ErrAccRange;
      end
    end else if (is_sync || is_halt) begin
      if (ins_i[127:8] != '0) check_err = mxu_isa_pkg::ErrIllegalField;
    end else begin
      check_err = mxu_isa_pkg::ErrIllegalOpcode;
    end

    // ----- Class, legality and the rows read (r) and written (w), per buffer.
    dec_o.is_load     = is_load;
    dec_o.is_wload    = is_load && flags[1:0] == mxu_isa_pkg::BufWeights;
    dec_o.is_store    = is_store;
    dec_o.is_mm       = is_mm;
    dec_o.is_ac       = is_ac;
    dec_o.is_sync     = is_sync;
    dec_o.is_halt     = is_halt;
    dec_o.new_weights = is_mm && flags[1];
    dec_o.err         = check_err;
    dec_o.buf_sel     = flags[1:0];
    dec_o.buf_lo      = {1'b0, f_c};
    dec_o.buf_hi      = buf_hi;
    dec_o.r_ub = 1'b0; dec_o.w_ub = 1'b0; dec_o.r_acc = 1'b0; dec_o.w_acc = 1'b0;
    dec_o.r_ub_lo = '0; dec_o.r_ub_hi = '0; dec_o.w_ub_lo = '0; dec_o.w_ub_hi = '0;
    dec_o.r_acc_lo = '0; dec_o.r_acc_hi = '0; dec_o.w_acc_lo = '0; dec_o.w_acc_hi = '0;
    if (is_load && flags[1:0] == mxu_isa_pkg::BufUb) begin
      dec_o.w_ub = 1'b1; dec_o.w_ub_lo = {1'b0, f_c}; dec_o.w_ub_hi = buf_hi;
    end
    if (is_load && flags[1:0] == mxu_isa_pkg::BufAcc) begin
      dec_o.w_acc = 1'b1; dec_o.w_acc_lo = {1'b0, f_c}; dec_o.w_acc_hi = buf_hi;
    end
    if (is_store && flags[1:0] == mxu_isa_pkg::BufUb) begin
      dec_o.r_ub = 1'b1; dec_o.r_ub_lo = {1'b0, f_c}; dec_o.r_ub_hi = buf_hi;
    end
    if (is_store && flags[1:0] == mxu_isa_pkg::BufAcc) begin
      dec_o.r_acc = 1'b1; dec_o.r_acc_lo = {1'b0, f_c}; dec_o.r_acc_hi = buf_hi;
    end
    if (is_mm) begin
      dec_o.r_ub = 1'b1;  dec_o.r_ub_lo = {1'b0, f_c};  dec_o.r_ub_hi = ub_hi;
      dec_o.w_acc = 1'b1; dec_o.w_acc_lo = {1'b0, f_d}; dec_o.w_acc_hi = acc_hi;
    end
    if (is_ac) begin
      dec_o.r_acc = 1'b1; dec_o.r_acc_lo = {1'b0, f_b}; dec_o.r_acc_hi = ac_acc_hi;
      dec_o.w_ub = 1'b1;  dec_o.w_ub_lo = {1'b0, f_c};  dec_o.w_ub_hi = ac_ub_hi;
    end
    dec_o.r_bias   = is_ac && flags[1];
    dec_o.bias_row = {1'b0, f_d};

    // ----- Engine commands.
    ld_cmd_o.target       = flags[1:0];
    ld_cmd_o.transpose    = flags[2];
    ld_cmd_o.rows         = f_rows;
    ld_cmd_o.lanes        = f_b;
    ld_cmd_o.buf_addr     = f_c;
    ld_cmd_o.host_addr    = f_host;
    ld_cmd_o.stride       = f_stride;
    st_cmd_o.source       = flags[1:0];
    st_cmd_o.relu         = flags[2];
    st_cmd_o.rows         = f_rows;
    st_cmd_o.lanes        = f_b;
    st_cmd_o.buf_addr     = f_c;
    st_cmd_o.host_addr    = f_host;
    st_cmd_o.stride       = f_stride;
    mm_cmd_o.ub_addr      = f_c;
    mm_cmd_o.acc_addr     = f_d;
    mm_cmd_o.rows         = f_rows;
    mm_cmd_o.k_rows       = f_b;
    mm_cmd_o.accumulate   = flags[0];
    mm_cmd_o.new_weights  = flags[1];
    ac_cmd_o.acc_addr     = f_b;
    ac_cmd_o.ub_addr      = f_c;
    ac_cmd_o.rows         = f_rows;
    ac_cmd_o.relu         = flags[0];
    ac_cmd_o.bias_en      = flags[1];
    ac_cmd_o.bias_addr    = f_d;
  end

  // The instruction fields are 16 bits: the buffers they address must fit.
  `MXU_ASSERT_STATIC(gen_depth_check, UbDepth <= 65536 && AccDepth <= 65536 && Rows < 65536,
                     "mxu_ctrl_decode: buffer depths above 65536 rows do not fit the ISA fields")

endmodule
