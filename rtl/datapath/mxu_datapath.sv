// The matrix unit's datapath: unified buffer -> systolic array -> accumulators -> activation unit
// -> unified buffer, with the weight FIFO feeding the array's shadow chain. Three engines run
// concurrently, each taking commands over a valid/ready handshake:
//   WLOAD    shifts the next weight tile into the shadow chain: k_rows rows popped from the
//            weight FIFO for PE rows 0 .. k_rows-1 (k_rows cycles);
//   MATMUL   streams `rows` unified-buffer rows through the array, one per cycle, into
//            consecutive accumulator rows (overwrite or accumulate); a row sums its first
//            min(k_rows, the tile's rows) lanes' products, the lanes past them pass the partial
//            sum through. With new_weights it first commits the shadow into the free weight
//            bank;
//   ACTIVATE reads accumulator rows, applies bias / ReLU, rounds to bf16 (or, int8, requantizes
//            with the quantization row: docs/numerics.md) and writes them to the unified buffer.
// A MATMUL's int8 flag travels with its rows through the array (int8 products, int32 sums) and
// to the accumulators (an int32 add where it accumulates).
// Weight double-buffering: a WLOAD may start (and shift its first row) in the cycle its
// predecessor is committed, and a commit needs the shadow loaded and the bank it overwrites
// drained: each row on that bank must have passed the last PE row it uses, k-1, which it reaches
// (k-1) x Add cycles after entering the array (Add: the PE's partial-sum step,
// mxu_pkg::pe_add_cycles). So MATMULs of M >= max(K, (K-1) x Add + 1) rows on tiles of K rows
// run back to back with no bubble, switching weights between them; at Add = 1 the shadow's
// refill (K cycles) always covers the drain.
// Each engine is a sequencer of its own (mxu_wload_seq, mxu_matmul_seq, mxu_activate_seq); this
// module wires them to the buffers, the array and the activation unit.
// Commands must be legal (rows >= 1, 1 <= k_rows <= Rows, addresses in
// range): the controller checks them.
// Its sizes are the device descriptor's (mxu_pkg); the blocks it holds are passed them.
module mxu_datapath #(
  localparam int unsigned Rows     = mxu_pkg::ArrayRows,
  localparam int unsigned Cols     = mxu_pkg::ArrayCols,
  localparam int unsigned PeStages = mxu_pkg::PeStages,
  localparam int unsigned AccAw    = mxu_pkg::AccAddrWidth,
  // The array's latency from an activation row to its result row.
  localparam int unsigned Latency  = Rows * mxu_pkg::pe_add_cycles(PeStages) +
                                     mxu_pkg::pe_mul_cycles(PeStages) + Cols - 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  // WLOAD.
  input  logic                  wl_valid_i,
  output logic                  wl_ready_o,
  input  logic [mxu_pkg::KWidth-1:0] wl_k_rows_i,
  input  logic [mxu_pkg::NWidth-1:0] wl_n_cols_i,

  // MATMUL.
  input  logic                  mm_valid_i,
  output logic                  mm_ready_o,
  input  mxu_pkg::matmul_cmd_t  mm_cmd_i,
  output logic                  mm_done_o,

  // ACTIVATE.
  input  logic                  ac_valid_i,
  output logic                  ac_ready_o,
  input  mxu_pkg::activate_cmd_t ac_cmd_i,
  output logic                  ac_done_o,

  // The buffers' DMA side: unified-buffer and accumulator ports (lowest priority; data the cycle
  // after a read grant) and the weight FIFO's fill.
  input  mxu_pkg::buf_wr_req_t  buf_wr_req_i,
  output mxu_pkg::buf_wr_rsp_t  buf_wr_rsp_o,
  input  mxu_pkg::buf_rd_req_t  buf_rd_req_i,
  output mxu_pkg::buf_rd_rsp_t  buf_rd_rsp_o,

  // Status.
  output logic                  wl_busy_o,
  output logic                  mm_busy_o,
  output logic                  ac_busy_o,
  output logic                  array_row_o,      // an activation row enters the array now
  output logic                  mm_wait_weights_o,  // a MATMUL waits for its weight tile
  // Which gated clocks run this cycle (the clock counters; docs/architecture.md "Clock gating").
  output mxu_pkg::datapath_clocks_t clocks_o
);

  // WLOAD, MATMUL and ACTIVATE: a sequencer each (mxu_wload_seq, mxu_matmul_seq,
  // mxu_activate_seq).
  logic                  wf_empty, wf_full, wf_pop, w_shift, shadow_ready, commit, commit_bank;
  logic [mxu_pkg::KWidth-1:0] w_k, shadow_k;
  logic [mxu_pkg::NWidth-1:0] w_cols, shadow_cols, in_cols, res_cols;
  logic [Rows-1:0]       in_pass;
  logic [Cols*16-1:0]    wf_pop_data, w_row;
  logic [$clog2(mxu_pkg::WeightFifoDepth+1)-1:0] wf_count;
  logic                  mm_rd_en;
  logic [mxu_pkg::UbAddrWidth-1:0] mm_rd_addr;
  logic                  in_valid, in_bank, in_accum, in_last, in_int8;
  logic [AccAw-1:0]      in_acc;
  logic [Rows*16-1:0]    in_act;
  logic [mxu_pkg::UbLanes*16-1:0] ub_rd_data, ub_store_data;
  logic [Cols*32-1:0]    array_out;
  logic                  res_valid, res_accum, res_last, res_int8;
  logic [AccAw-1:0]      res_addr;
  logic                  ac_rd_en;
  logic [AccAw-1:0]      ac_rd_addr;
  logic                  s1_valid, s1_last, s1_relu, s1_bias_en, s1_int8;
  logic [mxu_pkg::UbAddrWidth-1:0] s1_ub;
  logic [Cols*32-1:0]    s1_bias, s1_quant;
  logic [7:0]            s1_zp;
  logic                  au_valid, au_busy, au_last;
  logic [mxu_pkg::UbAddrWidth-1:0] au_ub;
  logic [Cols*32-1:0]    au_fp32;
  logic [Cols*16-1:0]    au_lanes;
  logic [mxu_pkg::UbLanes*16-1:0] au_row;
  logic                  acc_rd_en, acc_rd_gnt;
  logic [Cols*32-1:0]    acc_rd_data;

  // Accumulator read port: the activation engine first, then the DMA.
  assign acc_rd_en            = ac_rd_en || buf_rd_req_i.acc_en;
  assign buf_rd_rsp_o.acc_gnt = !ac_rd_en && acc_rd_gnt;

  always_comb begin
    au_row = '0;
    au_row[Cols*16-1:0] = au_lanes;
  end

  mxu_wload_seq u_wload (
    .clk_i,
    .rst_ni,
    .wl_valid_i,
    .wl_ready_o,
    .wl_k_rows_i,
    .wl_n_cols_i,
    .wf_empty_i    (wf_empty),
    .wf_pop_o      (wf_pop),
    .wf_data_i     (wf_pop_data),
    .w_shift_o     (w_shift),
    .w_k_o         (w_k),
    .w_cols_o         (w_cols),
    .w_o           (w_row),
    .shadow_ready_o(shadow_ready),
    .shadow_k_o    (shadow_k),
    .shadow_cols_o    (shadow_cols),
    .commit_i      (commit),
    .busy_o        (wl_busy_o)
  );

  mxu_matmul_seq u_matmul (
    .clk_i,
    .rst_ni,
    .mm_valid_i,
    .mm_ready_o,
    .mm_cmd_i,
    .mm_done_i     (mm_done_o),
    .shadow_ready_i(shadow_ready),
    .shadow_k_i    (shadow_k),
    .shadow_cols_i    (shadow_cols),
    .commit_o      (commit),
    .commit_bank_o (commit_bank),
    .ub_rd_en_o    (mm_rd_en),
    .ub_rd_addr_o  (mm_rd_addr),
    .ub_rd_data_i  (ub_rd_data[Rows*16-1:0]),
    .act_valid_o   (in_valid),
    .act_o         (in_act),
    .act_bank_o    (in_bank),
    .act_int8_o    (in_int8),
    .act_pass_o    (in_pass),
    .act_cols_o       (in_cols),
    .res_accum_o   (in_accum),
    .res_last_o    (in_last),
    .res_addr_o    (in_acc),
    .busy_o        (mm_busy_o),
    .wait_weights_o(mm_wait_weights_o)
  );

  mxu_activate_seq u_activate (
    .clk_i,
    .rst_ni,
    .ac_valid_i,
    .ac_ready_o,
    .ac_cmd_i,
    .rd_en_o        (ac_rd_en),
    .rd_addr_o      (ac_rd_addr),
    .rd_gnt_i       (acc_rd_gnt),
    .rd_data_i      (acc_rd_data),
    .au_valid_o     (s1_valid),
    .au_last_o      (s1_last),
    .au_ub_addr_o   (s1_ub),
    .au_relu_o      (s1_relu),
    .au_bias_en_o   (s1_bias_en),
    .au_bias_o      (s1_bias),
    .au_int8_o      (s1_int8),
    .au_quant_o     (s1_quant),
    .au_zero_point_o(s1_zp),
    .au_busy_i      (au_busy)
  );

  mxu_weight_fifo #(.Lanes(Cols), .Depth(mxu_pkg::WeightFifoDepth)) u_weight_fifo (
    .clk_i,
    .rst_ni,
    .push_i     (buf_wr_req_i.wf_valid && !wf_full),
    .push_data_i(buf_wr_req_i.wf_data),
    .full_o     (wf_full),
    .pop_i      (wf_pop),
    .pop_data_o (wf_pop_data),
    .empty_o    (wf_empty),
    .count_o    (wf_count)
  );

  // The array reads lanes 0 .. Rows-1 of its rows; the lanes past them (Cols > Rows) are a
  // result row's, which only the store path reads.
  if (mxu_pkg::UbLanes > Rows) begin : g_ub_rd_lanes_unused
    logic unused_ub_rd_lanes;
    assign unused_ub_rd_lanes = ^ub_rd_data[mxu_pkg::UbLanes*16-1:Rows*16];
  end

  mxu_unified_buffer #(.Lanes(mxu_pkg::UbLanes), .Depth(mxu_pkg::UbDepth)) u_unified_buffer (
    .clk_i,
    .rst_ni,
    .rd_a_en_i  (mm_rd_en),
    .rd_a_addr_i(mm_rd_addr),
    .rd_a_data_o(ub_rd_data),
    .rd_b_en_i  (buf_rd_req_i.ub_en),
    .rd_b_addr_i(buf_rd_req_i.ub_addr),
    .rd_b_gnt_o (buf_rd_rsp_o.ub_gnt),
    .rd_b_data_o(ub_store_data),
    .wr_a_en_i  (au_valid),
    .wr_a_addr_i(au_ub),
    .wr_a_data_i(au_row),
    .wr_b_en_i  (buf_wr_req_i.ub_en),
    .wr_b_addr_i(buf_wr_req_i.ub_addr),
    .wr_b_data_i(buf_wr_req_i.ub_data),
    .wr_b_gnt_o (buf_wr_rsp_o.ub_gnt)
  );

  mxu_systolic_array #(
    .Rows           (Rows),
    .Cols           (Cols),
    .Stages         (PeStages),
    .FlushSubnormals(mxu_pkg::FlushSubnormals)
  ) u_array (
    .clk_i,
    .rst_ni,
    .act_valid_i    (in_valid),
    .act_i          (in_act),
    .act_bank_i     (in_bank),
    .act_int8_i     (in_int8),
    .act_pass_i     (in_pass),
    .act_cols_i        (in_cols),
    .w_shift_i      (w_shift),
    .w_k_i          (w_k),
    .w_cols_i          (w_cols),
    .w_i            (w_row),
    .w_commit_i     (commit),
    .w_commit_bank_i(commit_bank),
    .res_cols_i        (res_cols),
    .psum_o         (array_out),
    .col_clocks_o   (clocks_o.columns)
  );

  // Where each result row goes travels beside the array, arriving with the row.
  mxu_delay_line #(.Width(AccAw + mxu_pkg::NWidth + 4), .Depth(Latency), .ResetBits(1))
      u_result_meta (
    .clk_i,
    .rst_ni,
    .d_i({in_valid, in_accum, in_last, in_int8, in_cols, in_acc}),
    .q_o({res_valid, res_accum, res_last, res_int8, res_cols, res_addr})
  );

  mxu_accumulators #(
    .Lanes(Cols), .Depth(mxu_pkg::AccDepth), .FlushSubnormals(mxu_pkg::FlushSubnormals)
  ) u_acc (
    .clk_i,
    .rst_ni,
    .res_valid_i     (res_valid),
    .res_addr_i      (res_addr),
    .res_accumulate_i(res_accum),
    .res_int8_i      (res_int8),
    .res_last_i      (res_last),
    .res_data_i      (array_out),
    .res_done_o      (mm_done_o),
    .rd_en_i         (acc_rd_en),
    .rd_addr_i       (ac_rd_en ? ac_rd_addr : buf_rd_req_i.acc_addr),
    .rd_gnt_o        (acc_rd_gnt),
    .rd_data_o       (acc_rd_data),
    .wr_en_i         (buf_wr_req_i.acc_en),
    .wr_addr_i       (buf_wr_req_i.acc_addr),
    .wr_data_i       (buf_wr_req_i.acc_data),
    .wr_gnt_o        (buf_wr_rsp_o.acc_gnt),
    .clock_on_o      (clocks_o.acc)
  );

  mxu_activation_unit #(
    .Lanes          (Cols),
    .FlushSubnormals(mxu_pkg::FlushSubnormals),
    .TagWidth       (mxu_pkg::UbAddrWidth + 1)
  ) u_activation (
    .clk_i,
    .rst_ni,
    .valid_i     (s1_valid),
    .tag_i       ({s1_last, s1_ub}),
    .data_i      (acc_rd_data),
    .bias_en_i   (s1_bias_en),
    .bias_i      (s1_bias),
    .relu_i      (s1_relu),
    .int8_i      (s1_int8),
    .quant_i     (s1_quant),
    .zero_point_i(s1_zp),
    .valid_o     (au_valid),
    .tag_o       ({au_last, au_ub}),
    .fp32_o      (au_fp32),
    .row_o       (au_lanes),
    .busy_o      (au_busy),
    .clock_on_o  (clocks_o.activate)
  );

  assign buf_wr_rsp_o.wf_full  = wf_full;
  assign buf_rd_rsp_o.ub_data  = ub_store_data;
  assign buf_rd_rsp_o.acc_data = acc_rd_data;
  assign ac_done_o             = au_valid && au_last;
  assign ac_busy_o             = !ac_ready_o;
  assign array_row_o           = in_valid;

  // The fp32 output of the activation unit feeds the store path of the device (mxu_top).
  logic unused_signals;
  assign unused_signals = ^{au_fp32, wf_count};

endmodule
