// Controller, decode: the instruction at the head of the fetch buffer, taken apart (docs/isa.md).
// Purely combinational. It checks every legality rule of docs/isa.md (Errors), names the buffer
// rows the instruction reads and writes (for the scoreboard) and forms the command each engine
// receives when the instruction is dispatched.
`include "mxu_assert.svh"

module mxu_ctrl_decode #(
  localparam int unsigned Rows     = mxu_pkg::ArrayRows,
  localparam int unsigned Cols     = mxu_pkg::ArrayCols,
  localparam int unsigned UbDepth  = mxu_pkg::UbDepth,
  localparam int unsigned AccDepth = mxu_pkg::AccDepth,
  localparam int unsigned UbLanes = mxu_pkg::UbLanes
) (
  input  logic [127:0]           ins_i,
  input  logic [2:0]             tiles_i,   // loaded weight tiles no MATMUL has claimed yet
  output mxu_pkg::ctrl_dec_t     dec_o,
  output mxu_pkg::load_cmd_t     ld_cmd_o,
  output mxu_pkg::store_cmd_t    st_cmd_o,
  output mxu_pkg::matmul_cmd_t   mm_cmd_o,
  output mxu_pkg::activate_cmd_t ac_cmd_o
);

  // The instruction as each format reads it (mxu_isa_pkg, generated from common/isa.toml).
  mxu_isa_pkg::transfer_ins_t tr;    // LOAD, STORE
  mxu_isa_pkg::matmul_ins_t   mm;    // MATMUL
  mxu_isa_pkg::activate_ins_t ac;    // ACTIVATE
  mxu_isa_pkg::bare_ins_t     bare;  // SYNC, HALT (and the opcode of every format)
  // The opcode as plain bits, not opcode_e: GTKWave applies no translate filter to a signal an
  // FST types as an enum, and waves/overview.gtkw names the opcode through one.
  logic [mxu_isa_pkg::OpcodeWidth-1:0] op;
  mxu_isa_pkg::buf_e          tr_buf;
  logic                       is_load, is_store, is_mm, is_ac, is_sync, is_halt;
  mxu_isa_pkg::err_e          check_err;
  mxu_pkg::row_t              tr_lo, tr_hi, mm_ub_lo, mm_ub_hi, mm_acc_lo, mm_acc_hi;
  mxu_pkg::row_t              ac_acc_lo, ac_acc_hi, ac_ub_lo, ac_ub_hi, ac_bias_row, ac_quant_row;
  logic                       tr_bytes;  // int8 elements of UB / WEIGHTS: no alignment rule
  // The rows field, at the same bits in every format: named for the waveform layouts
  // (waves/overview.gtkw shows the instruction at the head with its rows).
  logic [15:0]                f_rows;
  assign f_rows = tr.rows;

  // Whether a row range [lo, lo + rows) ends past a buffer of `depth` rows: lo + rows > depth,
  // as the carry out of lo + rows + (2^17 - 1 - depth), the constant taken in by one carry-save
  // step, so one carry chain (the carry alone) decides. Adding lo + rows first and comparing the
  // sum after put two carry chains in a row at the head of the controller's dispatch decision,
  // the device's worst path (issue 55).
  function automatic logic ends_past(logic [15:0] lo, logic [15:0] rows, int unsigned depth);
    logic [16:0] k, s, c;
    k         = 17'((1 << 17) - 1 - depth);
    s         = {1'b0, lo} ^ {1'b0, rows} ^ k;
    c         = ({1'b0, lo} & {1'b0, rows}) | ({1'b0, lo} & k) | ({1'b0, rows} & k);
    ends_past = 1'((18'(s) + {c, 1'b0}) >> 17);
  endfunction

  // The fields, the class and each format's buffer rows, [lo, hi).
  always_comb begin
    tr        = ins_i;
    mm        = ins_i;
    ac        = ins_i;
    bare      = ins_i;
    op        = bare.opcode;
    tr_buf    = tr.buffer;
    is_load   = op == mxu_isa_pkg::OpLoad;
    is_store  = op == mxu_isa_pkg::OpStore;
    is_mm     = op == mxu_isa_pkg::OpMatmul;
    is_ac     = op == mxu_isa_pkg::OpActivate;
    is_sync   = op == mxu_isa_pkg::OpSync;
    is_halt   = op == mxu_isa_pkg::OpHalt;
    tr_lo       = mxu_pkg::RowBits'(tr.buffer_addr);
    tr_hi       = tr_lo + mxu_pkg::RowBits'(tr.rows);
    mm_ub_lo    = mxu_pkg::RowBits'(mm.ub_addr);
    mm_ub_hi    = mm_ub_lo + mxu_pkg::RowBits'(mm.rows);
    mm_acc_lo   = mxu_pkg::RowBits'(mm.acc_addr);
    mm_acc_hi   = mm_acc_lo + mxu_pkg::RowBits'(mm.rows);
    ac_acc_lo   = mxu_pkg::RowBits'(ac.acc_addr);
    ac_acc_hi   = ac_acc_lo + mxu_pkg::RowBits'(ac.rows);
    ac_ub_lo    = mxu_pkg::RowBits'(ac.ub_addr);
    ac_ub_hi    = ac_ub_lo + mxu_pkg::RowBits'(ac.rows);
    ac_bias_row = mxu_pkg::RowBits'(ac.bias_addr);
    ac_quant_row = mxu_pkg::RowBits'(ac.quant_addr);
    tr_bytes    = tr.int8 && tr_buf != mxu_isa_pkg::BufAcc;
  end

  // Legality (docs/isa.md, Errors).
  always_comb begin
    check_err = mxu_isa_pkg::ErrNone;
    if (is_load || is_store) begin
      if (tr.rsvd_12 != '0 || !mxu_isa_pkg::BufKnown[tr_buf] ||
          (is_load && tr.flag && tr.int8) ||
          (is_store && tr.flag && tr_buf != mxu_isa_pkg::BufAcc) ||
          (is_store && tr_buf == mxu_isa_pkg::BufWeights) ||
          (is_load && tr.flag && tr_buf == mxu_isa_pkg::BufAcc) || tr.rows == '0 ||
          tr.lanes == '0 || (tr_buf == mxu_isa_pkg::BufUb && 32'(tr.lanes) > UbLanes) ||
          (tr_buf != mxu_isa_pkg::BufUb && 32'(tr.lanes) > Cols) ||
          (tr_buf == mxu_isa_pkg::BufWeights && (32'(tr.rows) > Rows || tr.buffer_addr != '0)))
      begin
        check_err = mxu_isa_pkg::ErrIllegalField;
      end else if (tr_buf == mxu_isa_pkg::BufUb && ends_past(tr.buffer_addr, tr.rows, UbDepth))
      begin
        check_err = mxu_isa_pkg::ErrUbRange;
      end else if (tr_buf == mxu_isa_pkg::BufAcc && ends_past(tr.buffer_addr, tr.rows, AccDepth))
      begin
        check_err = mxu_isa_pkg::ErrAccRange;
      end else if ((tr.host_addr[0] && !tr_bytes) ||
                   (tr_buf == mxu_isa_pkg::BufAcc && tr.host_addr[1])) begin
        check_err = mxu_isa_pkg::ErrMisaligned;
      end else if (is_load && tr_buf == mxu_isa_pkg::BufWeights && tiles_i == 3'd3) begin
        check_err = mxu_isa_pkg::ErrWeightsFull;
      end
    end else if (is_mm) begin
      if (mm.rsvd_11 != '0 || mm.rsvd_80 != '0 || mm.rows == '0 || mm.k_rows == '0 ||
          32'(mm.k_rows) > Rows) begin
        check_err = mxu_isa_pkg::ErrIllegalField;
      end else if (ends_past(mm.ub_addr, mm.rows, UbDepth)) begin
        check_err = mxu_isa_pkg::ErrUbRange;
      end else if (ends_past(mm.acc_addr, mm.rows, AccDepth)) begin
        check_err = mxu_isa_pkg::ErrAccRange;
      end else if (mm.new_weights && tiles_i == '0) begin
        check_err = mxu_isa_pkg::ErrNoWeights;
      end
    end else if (is_ac) begin
      if (ac.rsvd_11 != '0 || ac.rsvd_104 != '0 || ac.rows == '0 ||
          (!ac.bias && ac.bias_addr != '0) ||
          (!ac.int8 && (ac.quant_addr != '0 || ac.zero_point != '0))) begin
        check_err = mxu_isa_pkg::ErrIllegalField;
      end else if (ends_past(ac.ub_addr, ac.rows, UbDepth)) begin
        check_err = mxu_isa_pkg::ErrUbRange;
      end else if (ends_past(ac.acc_addr, ac.rows, AccDepth) || 32'(ac.bias_addr) >= AccDepth ||
                   32'(ac.quant_addr) >= AccDepth) begin
        check_err = mxu_isa_pkg::ErrAccRange;
      end
    end else if (is_sync || is_halt) begin
      if (bare.rsvd_8 != '0) check_err = mxu_isa_pkg::ErrIllegalField;
    end else begin
      check_err = mxu_isa_pkg::ErrIllegalOpcode;
    end
  end

  // Class, legality and the rows read (r) and written (w), per buffer.
  always_comb begin
    dec_o.is_load     = is_load;
    dec_o.is_wload    = is_load && tr_buf == mxu_isa_pkg::BufWeights;
    dec_o.is_store    = is_store;
    dec_o.is_mm       = is_mm;
    dec_o.is_ac       = is_ac;
    dec_o.is_sync     = is_sync;
    dec_o.is_halt     = is_halt;
    dec_o.new_weights = is_mm && mm.new_weights;
    dec_o.err         = check_err;
    dec_o.buf_sel     = tr_buf;
    dec_o.rows        = tr.rows;  // the same bits in every format
    dec_o.buf_lo      = tr_lo;
    dec_o.buf_hi      = tr_hi;
    dec_o.r_ub = 1'b0; dec_o.w_ub = 1'b0; dec_o.r_acc = 1'b0; dec_o.w_acc = 1'b0;
    dec_o.r_ub_lo = '0; dec_o.r_ub_hi = '0; dec_o.w_ub_lo = '0; dec_o.w_ub_hi = '0;
    dec_o.r_acc_lo = '0; dec_o.r_acc_hi = '0; dec_o.w_acc_lo = '0; dec_o.w_acc_hi = '0;
    if (is_load && tr_buf == mxu_isa_pkg::BufUb) begin
      dec_o.w_ub = 1'b1; dec_o.w_ub_lo = tr_lo; dec_o.w_ub_hi = tr_hi;
    end
    if (is_load && tr_buf == mxu_isa_pkg::BufAcc) begin
      dec_o.w_acc = 1'b1; dec_o.w_acc_lo = tr_lo; dec_o.w_acc_hi = tr_hi;
    end
    if (is_store && tr_buf == mxu_isa_pkg::BufUb) begin
      dec_o.r_ub = 1'b1; dec_o.r_ub_lo = tr_lo; dec_o.r_ub_hi = tr_hi;
    end
    if (is_store && tr_buf == mxu_isa_pkg::BufAcc) begin
      dec_o.r_acc = 1'b1; dec_o.r_acc_lo = tr_lo; dec_o.r_acc_hi = tr_hi;
    end
    if (is_mm) begin
      dec_o.r_ub = 1'b1;  dec_o.r_ub_lo = mm_ub_lo;   dec_o.r_ub_hi = mm_ub_hi;
      dec_o.w_acc = 1'b1; dec_o.w_acc_lo = mm_acc_lo; dec_o.w_acc_hi = mm_acc_hi;
    end
    if (is_ac) begin
      dec_o.r_acc = 1'b1; dec_o.r_acc_lo = ac_acc_lo; dec_o.r_acc_hi = ac_acc_hi;
      dec_o.w_ub = 1'b1;  dec_o.w_ub_lo = ac_ub_lo;   dec_o.w_ub_hi = ac_ub_hi;
    end
    dec_o.r_bias   = is_ac && ac.bias;
    dec_o.bias_row = ac_bias_row;
    dec_o.r_quant  = is_ac && ac.int8;
    dec_o.quant_row = ac_quant_row;
  end

  // The command each engine receives when the instruction is dispatched.
  always_comb begin
    ld_cmd_o.target       = tr_buf;
    ld_cmd_o.transpose    = tr.flag;
    ld_cmd_o.int8         = tr.int8;
    ld_cmd_o.rows         = tr.rows;
    ld_cmd_o.lanes        = tr.lanes;
    ld_cmd_o.buf_addr     = tr.buffer_addr;
    ld_cmd_o.host_addr    = tr.host_addr;
    ld_cmd_o.stride       = tr.stride;
    st_cmd_o.source       = tr_buf;
    st_cmd_o.relu         = tr.flag;
    st_cmd_o.int8         = tr.int8;
    st_cmd_o.rows         = tr.rows;
    st_cmd_o.lanes        = tr.lanes;
    st_cmd_o.buf_addr     = tr.buffer_addr;
    st_cmd_o.host_addr    = tr.host_addr;
    st_cmd_o.stride       = tr.stride;
    mm_cmd_o.ub_addr      = mm.ub_addr;
    mm_cmd_o.acc_addr     = mm.acc_addr;
    mm_cmd_o.rows         = mm.rows;
    mm_cmd_o.k_rows       = mm.k_rows;
    mm_cmd_o.accumulate   = mm.accumulate;
    mm_cmd_o.new_weights  = mm.new_weights;
    mm_cmd_o.int8         = mm.int8;
    ac_cmd_o.acc_addr     = ac.acc_addr;
    ac_cmd_o.ub_addr      = ac.ub_addr;
    ac_cmd_o.rows         = ac.rows;
    ac_cmd_o.relu         = ac.relu;
    ac_cmd_o.bias_en      = ac.bias;
    ac_cmd_o.bias_addr    = ac.bias_addr;
    ac_cmd_o.int8         = ac.int8;
    ac_cmd_o.quant_addr   = ac.quant_addr;
    ac_cmd_o.zero_point   = ac.zero_point;
  end

  // Each format's opcode field is the one bare.opcode reads.
  logic unused_signals;
  assign unused_signals = ^{tr.opcode, mm.opcode, ac.opcode};

  // The instruction fields are 16 bits: the buffers they address must fit, and a row range's end
  // (mxu_pkg::row_t) is one bit wider than an address field.
  `MXU_ASSERT_STATIC(gen_depth_check, UbDepth <= 65536 && AccDepth <= 65536 && Rows < 65536,
                     "mxu_ctrl_decode: buffer depths above 65536 rows do not fit the ISA fields")
  `MXU_ASSERT_STATIC(gen_row_check,
                     mxu_pkg::RowBits == mxu_isa_pkg::TransferBufferAddrWidth + 1 &&
                     mxu_pkg::RowBits == mxu_isa_pkg::MatmulAccAddrWidth + 1 &&
                     mxu_pkg::RowBits == mxu_isa_pkg::ActivateAccAddrWidth + 1,
                     "mxu_ctrl_decode: mxu_pkg::RowBits must be the ISA address width + 1")

endmodule
