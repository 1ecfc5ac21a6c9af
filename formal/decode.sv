`ifdef FORMAL
`include "harness.svh"

// Proof harness: mxu_ctrl_decode against the ISA table. Every expected value comes from
// common/isa.toml through decode_expect.svh (formal/gen_decode_expect.py, run by run.sh): the
// opcodes, each format's field positions and reserved bits, the buffer codes and the error codes.
// For any 128-bit instruction and any count of loaded weight tiles (0 .. 3):
// - an opcode the table does not list gives ILLEGAL_OPCODE and no instruction class;
// - a listed opcode never gives ILLEGAL_OPCODE, and only error codes the table defines;
// - a reserved bit set, an unknown buffer code (LOAD, STORE) or rows = 0 gives ILLEGAL_FIELD;
// - every field reaches its engine's command from the bits the table gives it, and the rows the
//   instruction reads and writes (for the scoreboard) are [address, address + rows) of the
//   buffers docs/isa.md names.
// Method: the decoder is combinational, so one step covers every input (run.sh: induction 1).
module decode (
  input logic [127:0] ins_i,
  input logic [2:0]   tiles_i
);
  `include "decode_expect.svh"

  mxu_pkg::ctrl_dec_t     dec;
  mxu_pkg::load_cmd_t     ld;
  mxu_pkg::store_cmd_t    st;
  mxu_pkg::matmul_cmd_t   mm;
  mxu_pkg::activate_cmd_t ac;

  mxu_ctrl_decode dut (
    .ins_i, .tiles_i, .dec_o(dec), .ld_cmd_o(ld), .st_cmd_o(st), .mm_cmd_o(mm), .ac_cmd_o(ac)
  );

  // The scoreboard never counts more than three loaded tiles.
  always_comb assume (tiles_i <= 3'd3);

  logic known, transfer;
  logic [16:0] lo, hi, mm_ub_hi, mm_acc_hi, ac_acc_hi, ac_ub_hi;
  always_comb begin
    known     = exp_op_known(ins_i);
    transfer  = exp_is_load(ins_i) || exp_is_store(ins_i);
    lo        = 17'(exp_transfer_buffer_addr(ins_i));
    hi        = lo + 17'(exp_transfer_rows(ins_i));
    mm_ub_hi  = 17'(exp_matmul_ub_addr(ins_i)) + 17'(exp_matmul_rows(ins_i));
    mm_acc_hi = 17'(exp_matmul_acc_addr(ins_i)) + 17'(exp_matmul_rows(ins_i));
    ac_acc_hi = 17'(exp_activate_acc_addr(ins_i)) + 17'(exp_activate_rows(ins_i));
    ac_ub_hi  = 17'(exp_activate_ub_addr(ins_i)) + 17'(exp_activate_rows(ins_i));
  end

  // Illegal encodings and their error codes; the instruction's class.
  always_comb begin
    if (!known) begin
      assert (dec.err == ExpErrIllegalOpcode);
      assert (!dec.is_load && !dec.is_store && !dec.is_mm && !dec.is_ac && !dec.is_sync &&
              !dec.is_halt);
    end else begin
      assert (dec.err != ExpErrIllegalOpcode);
      assert (exp_err_defined(dec.err));
    end
    if (known && exp_rsvd_set(ins_i)) assert (dec.err == ExpErrIllegalField);
    if (transfer && !exp_buf_known(exp_transfer_buffer(ins_i))) begin
      assert (dec.err == ExpErrIllegalField);
    end
    if (exp_rows_zero(ins_i)) assert (dec.err == ExpErrIllegalField);

    assert (dec.is_load == exp_is_load(ins_i));
    assert (dec.is_store == exp_is_store(ins_i));
    assert (dec.is_mm == exp_is_matmul(ins_i));
    assert (dec.is_ac == exp_is_activate(ins_i));
    assert (dec.is_sync == exp_is_sync(ins_i));
    assert (dec.is_halt == exp_is_halt(ins_i));
    assert (dec.is_wload == (exp_is_load(ins_i) && exp_transfer_buffer(ins_i) == ExpBufWeights));
    assert (dec.new_weights == (exp_is_matmul(ins_i) && exp_matmul_new_weights(ins_i)));
  end

  // The fields, as the engines receive them.
  always_comb begin
    if (exp_is_load(ins_i)) begin
      assert (ld.target == exp_transfer_buffer(ins_i));
      assert (ld.transpose == exp_transfer_flag(ins_i));
      assert (ld.int8 == exp_transfer_int8(ins_i));
      assert (ld.rows == exp_transfer_rows(ins_i));
      assert (ld.lanes == exp_transfer_lanes(ins_i));
      assert (ld.buf_addr == exp_transfer_buffer_addr(ins_i));
      assert (ld.host_addr == exp_transfer_host_addr(ins_i));
      assert (ld.stride == exp_transfer_stride(ins_i));
    end
    if (exp_is_store(ins_i)) begin
      assert (st.source == exp_transfer_buffer(ins_i));
      assert (st.relu == exp_transfer_flag(ins_i));
      assert (st.int8 == exp_transfer_int8(ins_i));
      assert (st.rows == exp_transfer_rows(ins_i));
      assert (st.lanes == exp_transfer_lanes(ins_i));
      assert (st.buf_addr == exp_transfer_buffer_addr(ins_i));
      assert (st.host_addr == exp_transfer_host_addr(ins_i));
      assert (st.stride == exp_transfer_stride(ins_i));
    end
    if (exp_is_matmul(ins_i)) begin
      assert (mm.ub_addr == exp_matmul_ub_addr(ins_i));
      assert (mm.acc_addr == exp_matmul_acc_addr(ins_i));
      assert (mm.rows == exp_matmul_rows(ins_i));
      assert (mm.k_rows == exp_matmul_k_rows(ins_i));
      assert (mm.accumulate == exp_matmul_accumulate(ins_i));
      assert (mm.new_weights == exp_matmul_new_weights(ins_i));
      assert (mm.int8 == exp_matmul_int8(ins_i));
    end
    if (exp_is_activate(ins_i)) begin
      assert (ac.relu == exp_activate_relu(ins_i));
      assert (ac.bias_en == exp_activate_bias(ins_i));
      assert (ac.int8 == exp_activate_int8(ins_i));
      assert (ac.rows == exp_activate_rows(ins_i));
      assert (ac.acc_addr == exp_activate_acc_addr(ins_i));
      assert (ac.ub_addr == exp_activate_ub_addr(ins_i));
      assert (ac.bias_addr == exp_activate_bias_addr(ins_i));
      assert (ac.quant_addr == exp_activate_quant_addr(ins_i));
      assert (ac.zero_point == exp_activate_zero_point(ins_i));
    end
  end

  // The rows read (r) and written (w): LOAD writes its target, STORE reads its source,
  // MATMUL reads UB and writes ACC, ACTIVATE reads ACC (and its bias, quantization rows) and
  // writes UB; the weight FIFO has no rows.
  always_comb begin
    if (transfer) begin
      assert (dec.buf_sel == exp_transfer_buffer(ins_i));
      assert (dec.buf_lo == lo && dec.buf_hi == hi);
    end
    assert (dec.w_ub == (exp_is_load(ins_i) && exp_transfer_buffer(ins_i) == ExpBufUb ||
                         exp_is_activate(ins_i)));
    assert (dec.w_acc == (exp_is_load(ins_i) && exp_transfer_buffer(ins_i) == ExpBufAcc ||
                          exp_is_matmul(ins_i)));
    assert (dec.r_ub == (exp_is_store(ins_i) && exp_transfer_buffer(ins_i) == ExpBufUb ||
                         exp_is_matmul(ins_i)));
    assert (dec.r_acc == (exp_is_store(ins_i) && exp_transfer_buffer(ins_i) == ExpBufAcc ||
                          exp_is_activate(ins_i)));
    if (transfer && dec.w_ub) assert (dec.w_ub_lo == lo && dec.w_ub_hi == hi);
    if (transfer && dec.w_acc) assert (dec.w_acc_lo == lo && dec.w_acc_hi == hi);
    if (transfer && dec.r_ub) assert (dec.r_ub_lo == lo && dec.r_ub_hi == hi);
    if (transfer && dec.r_acc) assert (dec.r_acc_lo == lo && dec.r_acc_hi == hi);
    if (exp_is_matmul(ins_i)) begin
      assert (dec.r_ub_lo == 17'(exp_matmul_ub_addr(ins_i)) && dec.r_ub_hi == mm_ub_hi);
      assert (dec.w_acc_lo == 17'(exp_matmul_acc_addr(ins_i)) && dec.w_acc_hi == mm_acc_hi);
    end
    if (exp_is_activate(ins_i)) begin
      assert (dec.r_acc_lo == 17'(exp_activate_acc_addr(ins_i)) && dec.r_acc_hi == ac_acc_hi);
      assert (dec.w_ub_lo == 17'(exp_activate_ub_addr(ins_i)) && dec.w_ub_hi == ac_ub_hi);
      assert (dec.bias_row == 17'(exp_activate_bias_addr(ins_i)));
      assert (dec.quant_row == 17'(exp_activate_quant_addr(ins_i)));
    end
    // The length of every range, which the scoreboard compares as lo + rows (the table's rows).
    if (transfer) assert (dec.rows == 16'(exp_transfer_rows(ins_i)));
    if (exp_is_matmul(ins_i)) assert (dec.rows == 16'(exp_matmul_rows(ins_i)));
    if (exp_is_activate(ins_i)) assert (dec.rows == 16'(exp_activate_rows(ins_i)));
    assert (dec.r_bias == (exp_is_activate(ins_i) && exp_activate_bias(ins_i)));
    assert (dec.r_quant == (exp_is_activate(ins_i) && exp_activate_int8(ins_i)));
  end
endmodule
`endif  // FORMAL
