// Accumulators: fp32 rows of Lanes lanes on Banks 1R1W SRAMs (the bank is the top address bits).
// Result rows from the array either overwrite a row or are added into it (fp32_add per lane, or
// a wrapping int32 add for the int8 mode's rows: docs/numerics.md):
//   cycle o     : result row arrives; an accumulating row reads its old value;
//   cycle o+1   : stage 1: the old value (read, or forwarded from a write in cycle o) enters the
//                 fp32 add, cut at each step (mxu_pkg::AccAddCuts);
//   cycle o+A   : old + result (or result alone) is written; res_done_o pulses for a last row
//                 (A = mxu_pkg::AccAddCycles, 4 with every cut).
// A row bound for an accumulator row still being added into waits in the MATMUL sequencer
// (mxu_matmul_seq) until that add's write, A cycles after its own arrival; a row arriving in
// the write's own cycle takes the written value by forwarding. The read port (activation unit, store
// path) is granted unless an accumulating result reads the same bank in that cycle; the write
// port (DMA preload) unless a result is written into the same bank: with the driver's output
// blocks alternating between halves, stores and preloads of one block run at full speed beside
// the array's work on the next.
//
// Clock gating (ClockGating, docs/architecture.md "Clock gating"): the block runs on a gated
// clock in the cycles with a result row, a read or a write at its ports, and for the add's
// AddCycles after a result row; between them its registers hold (a stage takes a new row only
// with its valid, a forwarding register only with its bank's write), which an assertion checks.
`include "mxu_assert.svh"

module mxu_accumulators #(
  parameter int unsigned Lanes           = mxu_pkg::ArrayCols,
  parameter int unsigned Depth           = mxu_pkg::AccDepth,
  parameter int unsigned Banks           = mxu_pkg::AccBanks,
  parameter bit          FlushSubnormals = mxu_pkg::FlushSubnormals,
  parameter bit          ClockGating     = mxu_pkg::ClockGating,
  localparam int unsigned AddrWidth = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned BankBits  = (Banks > 1) ? $clog2(Banks) : 1,
  localparam int unsigned BankDepth = Depth / Banks,
  localparam int unsigned BankAw    = (BankDepth > 1) ? $clog2(BankDepth) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // Result rows from the array.
  input  logic                 res_valid_i,
  input  logic [AddrWidth-1:0] res_addr_i,
  input  logic                 res_accumulate_i,
  input  logic                 res_int8_i,
  input  logic                 res_last_i,
  input  logic [Lanes*32-1:0]  res_data_i,
  output logic                 res_done_o,
  // Read port: data on rd_data_o the cycle after the grant.
  input  logic                 rd_en_i,
  input  logic [AddrWidth-1:0] rd_addr_i,
  output logic                 rd_gnt_o,
  output logic [Lanes*32-1:0]  rd_data_o,
  // Write port.
  input  logic                 wr_en_i,
  input  logic [AddrWidth-1:0] wr_addr_i,
  input  logic [Lanes*32-1:0]  wr_data_i,
  output logic                 wr_gnt_o,
  // The clock runs this cycle (ACC_CLOCKS counts it; always with ClockGating off).
  output logic                 clock_on_o
);

  localparam int unsigned AddCycles = mxu_pkg::AccAddCycles;
  localparam int unsigned CtrlWidth = 4 + AddrWidth;  // valid, accumulate, last, int8, addr

  // Stage 1 (the cycle after arrival): the result row and where it goes, beside its old value.
  logic                 s1_valid_q, s1_accumulate_q, s1_last_q, s1_int8_q;
  logic [AddrWidth-1:0] s1_addr_q;
  logic [Lanes*32-1:0]  s1_data_q;
  // The write stage, AddCycles - 1 cycles later: the same fields, and the row to write unless it
  // is an fp32 sum (the result itself, or the int8 mode's sum, made in stage 1).
  logic                 wb_valid, wb_accumulate, wb_last, wb_int8;
  logic [AddrWidth-1:0] wb_addr;
  logic [Lanes*32-1:0]  s1_plain, wb_plain, wb_data;
  // Each bank's write this cycle, and its data kept for forwarding.
  logic [Banks-1:0]           last_wr_valid_d;
  logic [Banks*AddrWidth-1:0] last_wr_addr_d;
  logic [Banks*Lanes*32-1:0]  last_wr_data_new, last_wr_data_q;
  // The bank whose read data the external port gets next cycle.
  logic [BankBits-1:0]  rd_bank_d, rd_bank_q;

  logic [Banks-1:0]          sram_rd_en, sram_wr_en;
  logic [Banks*BankAw-1:0]   sram_rd_addr, sram_wr_addr;
  logic [Banks*Lanes*32-1:0] sram_rd_data, sram_wr_data;
  logic [Lanes*32-1:0]       old_value, old_read, fp_sum;
  logic                      res_read, s1_fwd_new, s1_fwd_q;
  // Stage 1's fields as registered: a new row's, or the last row's again.
  logic                      s1_valid_d, s1_accumulate_d, s1_last_d, s1_int8_d, s1_fwd_d;
  logic [AddrWidth-1:0]      s1_addr_d;
  logic [Lanes*32-1:0]       s1_data_d;
  logic [Banks*Lanes*32-1:0] last_wr_data_d;
  logic                      clk_acc, unused_plain_valid;  // the control delay's valid serves
  logic [BankBits-1:0]       res_bank, rd_bank, wr_bank, s1_bank, wb_bank;

  function automatic logic [BankBits-1:0] bank_of(logic [AddrWidth-1:0] addr);
    bank_of = (Banks > 1) ? BankBits'(addr >> (AddrWidth - BankBits)) : '0;
  endfunction

  always_comb begin
    res_bank = bank_of(res_addr_i);
    rd_bank  = bank_of(rd_addr_i);
    wr_bank  = bank_of(wr_addr_i);
    wb_bank  = bank_of(wb_addr);
    res_read = res_valid_i && res_accumulate_i;
    rd_gnt_o = rd_en_i && !(res_read && res_bank == rd_bank);
    wr_gnt_o = wr_en_i && !(wb_valid && wb_bank == wr_bank);
    rd_bank_d = rd_gnt_o ? rd_bank : rd_bank_q;
  end

  // The accumulated row's old value, in a block of its own: the sum it feeds is written below.
  // The value read in a cycle misses a write made in that same cycle: forward it. Whether to is
  // decided in the read's cycle (s1_fwd_new), so that no address compare sits before the add.
  // An older write is in the SRAM; a younger one cannot exist, as the MATMUL sequencer keeps
  // rows bound for the same accumulator row AddCycles apart (mxu_matmul_seq).
  always_comb begin
    s1_fwd_new  = last_wr_valid_d[res_bank] &&
                last_wr_addr_d[res_bank*AddrWidth +: AddrWidth] == res_addr_i;
    s1_bank   = bank_of(s1_addr_q);
    old_read  = sram_rd_data[s1_bank*Lanes*32 +: Lanes*32];
    old_value = s1_fwd_q ? last_wr_data_q[s1_bank*Lanes*32 +: Lanes*32] : old_read;
  end

  always_comb begin
    wb_data = (wb_accumulate && !wb_int8) ? fp_sum : wb_plain;
    for (int unsigned b = 0; b < Banks; b++) begin
      sram_rd_en[b] = (res_read && res_bank == BankBits'(b)) ||
                      (rd_en_i && rd_bank == BankBits'(b));
      sram_rd_addr[b*BankAw +: BankAw] = BankAw'((res_read && res_bank == BankBits'(b)) ?
                                                 res_addr_i : rd_addr_i);
      sram_wr_en[b] = (wb_valid && wb_bank == BankBits'(b)) ||
                      (wr_en_i && wr_bank == BankBits'(b));
      sram_wr_addr[b*BankAw +: BankAw] = BankAw'((wb_valid && wb_bank == BankBits'(b)) ?
                                                 wb_addr : wr_addr_i);
      sram_wr_data[b*Lanes*32 +: Lanes*32] = (wb_valid && wb_bank == BankBits'(b)) ? wb_data :
                                                                                    wr_data_i;
      last_wr_valid_d[b] = sram_wr_en[b];
      last_wr_addr_d[b*AddrWidth +: AddrWidth] = (wb_valid && wb_bank == BankBits'(b)) ?
                                                 wb_addr : wr_addr_i;
      last_wr_data_new[b*Lanes*32 +: Lanes*32] = sram_wr_data[b*Lanes*32 +: Lanes*32];
      // Kept until the bank's next write: forwarding reads it only after a write.
      last_wr_data_d[b*Lanes*32 +: Lanes*32] =
          sram_wr_en[b] ? last_wr_data_new[b*Lanes*32 +: Lanes*32] :
                          last_wr_data_q[b*Lanes*32 +: Lanes*32];
    end
  end

  // Stage 1 takes a row's fields only with the row (operand isolation): nothing reads them
  // without s1_valid_q.
  always_comb begin
    s1_valid_d      = res_valid_i;
    s1_last_d       = res_valid_i && res_last_i;
    s1_accumulate_d = res_valid_i ? res_accumulate_i : s1_accumulate_q;
    s1_int8_d       = res_valid_i ? res_int8_i : s1_int8_q;
    s1_addr_d       = res_valid_i ? res_addr_i : s1_addr_q;
    s1_data_d       = res_valid_i ? res_data_i : s1_data_q;
    s1_fwd_d     = res_valid_i ? s1_fwd_new : s1_fwd_q;
  end

  // Per lane: the fp32 add, cut at every step (mxu_pkg::AccAddCuts), and the int8 mode's
  // wrapping int32 add, short enough to be made in stage 1 and carried to the write stage.
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    logic unused_valid;
    mxu_fp32_add #(.FlushSubnormals(FlushSubnormals), .Cuts(mxu_pkg::AccAddCuts)) u_add (
      .clk_i  (clk_acc),
      .rst_ni,
      .valid_i(s1_valid_q && s1_accumulate_q && !s1_int8_q),
      .a_i    (old_value[l*32 +: 32]),
      .b_i    (s1_data_q[l*32 +: 32]),
      .valid_o(unused_valid),
      .sum_o  (fp_sum[l*32 +: 32])
    );
    assign s1_plain[l*32 +: 32] = (s1_accumulate_q && s1_int8_q) ?
                                  old_value[l*32 +: 32] + s1_data_q[l*32 +: 32] :
                                  s1_data_q[l*32 +: 32];
  end

  // Stage 1 to the write stage: the add's cycles, taking each row's fields only with the row.
  mxu_valid_pipe #(.Width(CtrlWidth - 1), .Depth(AddCycles - 1)) u_ctrl_delay (
    .clk_i  (clk_acc),
    .rst_ni,
    .valid_i(s1_valid_q),
    .data_i ({s1_accumulate_q, s1_last_q, s1_int8_q, s1_addr_q}),
    .valid_o(wb_valid),
    .data_o ({wb_accumulate, wb_last, wb_int8, wb_addr})
  );

  mxu_valid_pipe #(.Width(Lanes*32), .Depth(AddCycles - 1)) u_plain_delay (
    .clk_i  (clk_acc),
    .rst_ni,
    .valid_i(s1_valid_q),
    .data_i (s1_plain),
    .valid_o(unused_plain_valid),
    .data_o (wb_plain)
  );

  always_ff @(posedge clk_acc or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q      <= 1'b0;
      s1_accumulate_q <= 1'b0;
      s1_last_q       <= 1'b0;
      s1_int8_q       <= 1'b0;
      s1_addr_q       <= '0;
      s1_data_q       <= '0;
      s1_fwd_q        <= 1'b0;
      for (int unsigned i = 0; i < Banks * Lanes; i++) begin  // by lane: no '0 over 8k bits
        last_wr_data_q[i*32 +: 32] <= '0;
      end
      rd_bank_q       <= '0;
    end else begin
      s1_valid_q      <= s1_valid_d;
      s1_accumulate_q <= s1_accumulate_d;
      s1_last_q       <= s1_last_d;
      s1_int8_q       <= s1_int8_d;
      s1_addr_q       <= s1_addr_d;
      s1_data_q       <= s1_data_d;
      s1_fwd_q        <= s1_fwd_d;
      last_wr_data_q  <= last_wr_data_d;
      rd_bank_q       <= rd_bank_d;
    end
  end

  for (genvar b = 0; b < Banks; b++) begin : g_bank
    mxu_sram_1r1w #(.Width(Lanes*32), .Depth(BankDepth)) u_sram (
      .clk_i    (clk_acc),
      .rd_en_i  (sram_rd_en[b]),
      .rd_addr_i(sram_rd_addr[b*BankAw +: BankAw]),
      .rd_data_o(sram_rd_data[b*Lanes*32 +: Lanes*32]),
      .wr_en_i  (sram_wr_en[b]),
      .wr_addr_i(sram_wr_addr[b*BankAw +: BankAw]),
      .wr_data_i(sram_wr_data[b*Lanes*32 +: Lanes*32])
    );
  end

  assign rd_data_o  = sram_rd_data[rd_bank_q*Lanes*32 +: Lanes*32];
  assign res_done_o = wb_valid && wb_last;

  // The clock: on with a row, a read or a write at the ports, and the add's cycles after a row.
  logic active;
  if (ClockGating) begin : g_span
    localparam int unsigned SpanWidth = $clog2(AddCycles + 1);
    logic [SpanWidth-1:0] span_d, span_q;

    always_comb begin
      active = res_valid_i || rd_en_i || wr_en_i || span_q != '0;
      span_d = res_valid_i ? SpanWidth'(AddCycles) : (span_q != '0) ? span_q - 1'b1 : span_q;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        span_q <= '0;
      end else begin
        span_q <= span_d;
      end
    end
  end else begin : g_no_span
    assign active = 1'b1;
  end

  mxu_clock_domain #(.ClockGating(ClockGating)) u_clock (
    .clk_i,
    .rst_ni,
    .active_i  (active),
    .clk_o     (clk_acc),
    .clock_on_o
  );

`ifndef SYNTHESIS
  logic [Lanes-1:0] add_changes;
  logic [Banks-1:0] sram_changes;
  for (genvar l = 0; l < Lanes; l++) begin : g_add_changes
    assign add_changes[l] = g_lane[l].u_add.would_change;
  end
  for (genvar b = 0; b < Banks; b++) begin : g_sram_changes
    assign sram_changes[b] = g_bank[b].u_sram.would_change;
  end
  `MXU_ASSERT_STILL_WHILE_GATED(acc_still_while_gated, ClockGating, clock_on_o,
      {s1_valid_d, s1_accumulate_d, s1_last_d, s1_int8_d, s1_addr_d, s1_data_d, s1_fwd_d,
       last_wr_data_d, rd_bank_d} !=
      {s1_valid_q, s1_accumulate_q, s1_last_q, s1_int8_q, s1_addr_q, s1_data_q, s1_fwd_q,
       last_wr_data_q, rd_bank_q} ||
      add_changes != '0 || sram_changes != '0 || u_ctrl_delay.would_change ||
      u_plain_delay.would_change, clk_i, rst_ni)
`endif

  `MXU_ASSERT_STATIC(gen_banks_pow2, Banks >= 1 && (Banks & (Banks - 1)) == 0 &&
                     Depth % Banks == 0 && BankDepth >= 1,
                     "mxu_accumulators: Banks must be a power of two dividing Depth")

endmodule
