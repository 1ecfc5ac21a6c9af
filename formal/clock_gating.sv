`ifdef FORMAL
// Proof harness: clock gating changes nothing (docs/formal.md). Two copies of the systolic array
// take the same inputs, one built with ClockGating (each column and the skews on gated clocks,
// mxu_icg) and one without; their result rows must agree in every cycle from reset. The clock is
// modelled (clk2fflogic): every step of the solver is half a clock cycle, so the gates' latches,
// transparent while the clock is low, are modelled as they are. Inputs change only while the clock
// is low, as a register's output after the rising edge would; any sequence of rows (with any lanes
// passing), weight shifts of any tile rows and commits is allowed, legal for the datapath or not.
// The arithmetic units are replaced by stand-ins below with the same ports and pipeline registers
// (mxu_pipe_reg at the same cuts) but cheap functions: the gating never looks at a value, only at
// valids, shifts and commits, and the stand-ins keep every operand bit in their result, so a value
// taken a cycle early or late, or not at all, still shows; the real units would make each solver
// step take minutes.
// Method: a bounded check from reset (the equivalence holds by construction of the enables, but
// an induction over two arrays' pipelines would need their states related register by register).
module clock_gating #(
  parameter int unsigned Rows   = 2,
  parameter int unsigned Cols   = 2,
  parameter int unsigned Stages = 1,
  localparam int unsigned KWidth = $clog2(Rows + 1),
  localparam int unsigned NWidth = $clog2(Cols + 1),
  localparam int unsigned Latency = Rows * mxu_pkg::pe_add_cycles(Stages) +
                                    mxu_pkg::pe_mul_cycles(Stages) + Cols - 1
) (
  input logic               clk_i,
  input logic               rst_ni,
  input logic               act_valid_i,
  input logic [Rows*16-1:0] act_i,
  input logic               act_bank_i,
  input logic               act_int8_i,
  input logic [Rows-1:0]    act_pass_i,
  input logic [NWidth-1:0]  act_cols_i,
  input logic               w_shift_i,
  input logic [KWidth-1:0]  w_k_i,
  input logic [NWidth-1:0]  w_cols_i,
  input logic [Cols*16-1:0] w_i,
  input logic               w_commit_i,
  input logic               w_commit_bank_i
);
  logic [Cols*32-1:0] psum_gated, psum_plain;
  // The columns of the row whose result leaves (none in a cycle without one): the lanes the
  // datapath takes, which the array zeroes past them. The gated array rests the columns past a
  // row's tile, where the plain one computes what no result takes.
  logic [NWidth-1:0]         res_cols;
  logic [Latency*NWidth-1:0] res_n_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) res_n_q <= '0;
    else res_n_q <= {res_n_q[(Latency-1)*NWidth-1:0], act_valid_i ? act_cols_i : NWidth'(0)};
  end
  assign res_cols = res_n_q[(Latency-1)*NWidth +: NWidth];

  mxu_systolic_array #(
    .Rows(Rows), .Cols(Cols), .Stages(Stages), .FlushSubnormals(1'b0), .ClockGating(1'b1)
  ) u_gated (
    .clk_i, .rst_ni, .act_valid_i, .act_i, .act_bank_i, .act_int8_i, .act_pass_i, .act_cols_i,
    .w_shift_i, .w_k_i, .w_cols_i, .w_i, .w_commit_i, .w_commit_bank_i, .res_cols_i(res_cols),
    .psum_o(psum_gated), .col_clocks_o()
  );

  mxu_systolic_array #(
    .Rows(Rows), .Cols(Cols), .Stages(Stages), .FlushSubnormals(1'b0), .ClockGating(1'b0)
  ) u_plain (
    .clk_i, .rst_ni, .act_valid_i, .act_i, .act_bank_i, .act_int8_i, .act_pass_i, .act_cols_i,
    .w_shift_i, .w_k_i, .w_cols_i, .w_i, .w_commit_i, .w_commit_bank_i, .res_cols_i(res_cols),
    .psum_o(psum_plain), .col_clocks_o()
  );

  // The datapath's discipline (mxu_matmul_seq), which the gates rely on: rows go on the current
  // bank; a commit switches to the other bank, comes with the new tile's first row, and waits
  // until every row on that bank has been multiplied in the last PE row it uses (its k lanes not
  // passing: (k-1) x Add + 2 cycles after it entered), and, if it narrows the bank's tile, until
  // every lane on the bank has entered the array's PEs ((Rows-1) x Add + 2).
  localparam int unsigned Add = mxu_pkg::pe_add_cycles(Stages);
  localparam int unsigned GapW = 8;
  logic            cur_bank_q;
  logic [2*GapW-1:0] drain_q, full_q;
  logic [GapW-1:0] row_drain;
  always_comb begin
    row_drain = GapW'(Add * (Rows - 1) + 1);
    for (int r = Rows - 1; r >= 1; r--) if (act_pass_i[r]) row_drain = GapW'(Add * (r - 1) + 1);
  end
  for (genvar b = 0; b < 2; b++) begin : g_bank_drain
    logic [GapW-1:0] drain_dec, full_dec;
    logic            row_on_bank;
    assign drain_dec   = drain_q[b*GapW +: GapW] == '0 ? '0 : drain_q[b*GapW +: GapW] - 1'b1;
    assign full_dec    = full_q[b*GapW +: GapW] == '0 ? '0 : full_q[b*GapW +: GapW] - 1'b1;
    assign row_on_bank = act_valid_i && act_bank_i == 1'(b);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        drain_q[b*GapW +: GapW] <= '0;
        full_q[b*GapW +: GapW]  <= '0;
      end else begin
        drain_q[b*GapW +: GapW] <= (row_on_bank && row_drain > drain_dec) ? row_drain : drain_dec;
        full_q[b*GapW +: GapW]  <= row_on_bank ? GapW'(Add * (Rows - 1) + 1) : full_dec;
      end
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cur_bank_q <= 1'b0;
    else if (w_commit_i) cur_bank_q <= w_commit_bank_i;
  end

  // The columns of each bank's tile, as mxu_matmul_seq keeps them: set by each commit.
  logic [NWidth-1:0] bank0_n_q, bank1_n_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bank0_n_q <= NWidth'(Cols);
      bank1_n_q <= NWidth'(Cols);
    end else if (w_commit_i && !w_commit_bank_i) begin
      bank0_n_q <= w_cols_i;
    end else if (w_commit_i) begin
      bank1_n_q <= w_cols_i;
    end
  end

  // The solver's steps: the clock toggles every step; the first two steps are a reset; inputs and
  // the reset change only in steps with the clock low.
  localparam int unsigned InW = Rows * 17 + Cols * 16 + KWidth + 2 * NWidth + 6;
  logic [InW-1:0] inputs, inputs_q;
  logic           clk_q, rst_q;
  logic [1:0]     step_q = 2'd0;
  assign inputs = {act_valid_i, act_i, act_bank_i, act_int8_i, act_pass_i, act_cols_i, w_shift_i,
                   w_k_i, w_cols_i, w_i, w_commit_i, w_commit_bank_i};

  always @($global_clock) begin
    clk_q    <= clk_i;
    rst_q    <= rst_ni;
    inputs_q <= inputs;
    if (step_q != 2'd3) step_q <= step_q + 2'd1;
  end

  always_comb begin
    if (step_q < 2'd2) assume (!rst_ni);
    // Two free bits a lane (values 0 to 3, their products and sums) are enough to tell a
    // value taken in the wrong cycle, and keep the solver's work small.
    for (int unsigned r = 0; r < Rows; r++) assume (act_i[r*16+2 +: 14] == '0);
    for (int unsigned c = 0; c < Cols; c++) assume (w_i[c*16+2 +: 14] == '0);
    // A tile has 1 .. Cols columns (the decoder refuses others). As the datapath makes them: a
    // commit comes with the new tile's first row, and a row names its bank's tile's columns.
    assume (w_cols_i >= NWidth'(1) && w_cols_i <= NWidth'(Cols));
    if (w_commit_i) begin
      assume (act_valid_i && act_bank_i == w_commit_bank_i && act_cols_i == w_cols_i);
      assume (w_commit_bank_i != cur_bank_q);
      assume (drain_q[32'(w_commit_bank_i)*GapW +: GapW] == '0);
      assume (w_cols_i >= (w_commit_bank_i ? bank1_n_q : bank0_n_q) ||
              full_q[32'(w_commit_bank_i)*GapW +: GapW] == '0);
    end else begin
      assume (act_cols_i == (act_bank_i ? bank1_n_q : bank0_n_q));
      if (act_valid_i) assume (act_bank_i == cur_bank_q);
    end
    // The passing lanes are the row's last: lanes k .. Rows-1 for some k >= 1.
    assume (!act_pass_i[0]);
    for (int unsigned r = 0; r + 1 < Rows; r++) if (act_pass_i[r]) assume (act_pass_i[r+1]);
    if (step_q != 2'd0) begin
      assume (clk_i != clk_q);
      if (clk_i) assume (inputs == inputs_q && rst_ni == rst_q);
    end
    assert (psum_gated == psum_plain);
  end
endmodule

// Stand-in for rtl/arith/mxu_bf16_mul.sv: the same cuts, the product replaced by the operands side by side.
module mxu_bf16_mul #(
  parameter bit         FlushSubnormals = 1'b0,
  parameter logic [1:0] Cuts            = 2'b00
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        valid_i,
  input  logic [15:0] a_i,
  input  logic [15:0] b_i,
  output logic        valid_o,
  output logic [31:0] product_o
);
  logic        mid_valid;
  logic [31:0] mid;
  mxu_pipe_reg #(.Width(32), .Enable(Cuts[0])) u_cut_product (
    .clk_i, .rst_ni, .valid_i, .data_i({a_i, b_i}), .valid_o(mid_valid), .data_o(mid)
  );
  mxu_pipe_reg #(.Width(32), .Enable(Cuts[1])) u_cut_normalize (
    .clk_i, .rst_ni, .valid_i(mid_valid), .data_i(mid), .valid_o, .data_o(product_o)
  );
  logic unused_flush;
  assign unused_flush = FlushSubnormals;
endmodule

// Stand-in for rtl/arith/mxu_fp32_add.sv: the same cuts, the sum an integer add.
module mxu_fp32_add #(
  parameter bit         FlushSubnormals = 1'b0,
  parameter logic [2:0] Cuts            = 3'b000
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        valid_i,
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic        valid_o,
  output logic [31:0] sum_o
);
  logic        v1, v2;
  logic [31:0] s1, s2;
  mxu_pipe_reg #(.Width(32), .Enable(Cuts[0])) u_cut_align (
    .clk_i, .rst_ni, .valid_i, .data_i(a_i + b_i), .valid_o(v1), .data_o(s1)
  );
  mxu_pipe_reg #(.Width(32), .Enable(Cuts[1])) u_cut_sum (
    .clk_i, .rst_ni, .valid_i(v1), .data_i(s1), .valid_o(v2), .data_o(s2)
  );
  mxu_pipe_reg #(.Width(32), .Enable(Cuts[2])) u_cut_normalize (
    .clk_i, .rst_ni, .valid_i(v2), .data_i(s2), .valid_o, .data_o(sum_o)
  );
  logic unused_flush;
  assign unused_flush = FlushSubnormals;
endmodule
`endif  // FORMAL
