// Memory-port drain: sits between the DMA and the device's memory port. While a program runs it
// passes the engines' requests through. Outside a program (after an error, an abort or HALT)
// every read and write response is accepted and dropped, and a write burst cut short by holding
// the engines in reset is completed with empty strobes, so that the next program starts with
// nothing outstanding; mem_idle_o says when nothing is.
//
// It also checks the memory protocol of the whole port (assertions, simulation only).
`include "mxu_assert.svh"

module mxu_mem_drain #(
  localparam int unsigned BusBytes  = mxu_pkg::MemBusBytes,
  localparam int unsigned BeatShift = $clog2(BusBytes)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               running_i,   // a program runs: responses go to the engines
  input  logic               clear_i,     // the engines are held in reset
  input  mxu_pkg::mem_req_t  eng_req_i,   // the engines' requests
  input  mxu_pkg::mem_rsp_t  mem_rsp_i,
  output mxu_pkg::mem_req_t  mem_req_o,   // the port
  output logic               mem_idle_o   // no memory transaction outstanding
);

  // Outstanding: read bursts, write bursts without a response, write beats owed to AW bursts.
  logic [7:0] reads_out_d, reads_out_q, writes_out_d, writes_out_q;
  logic [8:0] w_owed_d, w_owed_q;
  logic       ar_fire, r_last_fire, aw_fire, w_fire, b_fire;
  // A read burst is counted the cycle after its address is taken: the AR valid comes late (the
  // fetch's slot, the DMA's arbitration: 42 gate levels), and adding it into the counter made
  // the device's longest path (53 levels, issue 66). Its response cannot come before that cycle
  // (AXI: R follows the AR handshake), and the port is not idle while it is pending.
  logic       ar_fired_d, ar_fired_q;

  always_comb begin
    mem_req_o            = eng_req_i;
    mem_req_o.rd.r_ready = running_i ? eng_req_i.rd.r_ready : 1'b1;
    mem_req_o.wr.b_ready = running_i ? eng_req_i.wr.b_ready : 1'b1;
    if (clear_i && w_owed_q != '0) begin
      mem_req_o.wr.w_valid = 1'b1;
      mem_req_o.wr.w.data  = '0;
      mem_req_o.wr.w.strb  = '0;
      mem_req_o.wr.w.last  = w_owed_q == 9'd1;
    end
    ar_fire      = mem_req_o.rd.ar_valid && mem_rsp_i.rd.ar_ready;
    r_last_fire  = mem_rsp_i.rd.r_valid && mem_req_o.rd.r_ready && mem_rsp_i.rd.r.last;
    aw_fire      = mem_req_o.wr.aw_valid && mem_rsp_i.wr.aw_ready;
    w_fire       = mem_req_o.wr.w_valid && mem_rsp_i.wr.w_ready;
    b_fire       = mem_rsp_i.wr.b_valid && mem_req_o.wr.b_ready;
    ar_fired_d   = ar_fire;
    reads_out_d  = reads_out_q + 8'(ar_fired_q) - 8'(r_last_fire);
    writes_out_d = writes_out_q + 8'(aw_fire) - 8'(b_fire);
    w_owed_d     = w_owed_q + (aw_fire ? 9'(mem_req_o.wr.aw.len) + 9'd1 : 9'd0) - 9'(w_fire);
    mem_idle_o   = reads_out_q == '0 && !ar_fired_q && writes_out_q == '0 && w_owed_q == '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ar_fired_q   <= 1'b0;
      reads_out_q  <= '0;
      writes_out_q <= '0;
      w_owed_q     <= '0;
    end else begin
      ar_fired_q   <= ar_fired_d;
      reads_out_q  <= reads_out_d;
      writes_out_q <= writes_out_d;
      w_owed_q     <= w_owed_d;
    end
  end

  // ---------------------------------------------------------------------------- assertions
  `MXU_ASSERT_STATIC(gen_bus_bytes_pow2, BusBytes >= 2 && BusBytes <= 1024 &&
                     (BusBytes & (BusBytes - 1)) == 0,
                     "mxu_mem_drain: MemBusBytes must be a power of two from 2 to 1024")

`ifndef SYNTHESIS
  // Beats of the open write burst so far and its length (the store engine opens a burst only
  // once the previous one has sent its last beat, so at most one is open).
  logic [8:0] chk_w_beats_q, chk_w_len_q, chk_w_len;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      chk_w_beats_q <= '0;
      chk_w_len_q   <= '0;
    end else begin
      if (aw_fire) chk_w_len_q <= 9'(mem_req_o.wr.aw.len);
      if (w_fire) chk_w_beats_q <= mem_req_o.wr.w.last ? '0 : chk_w_beats_q + 9'd1;
    end
  end
  assign chk_w_len = (aw_fire && chk_w_beats_q == '0) ? 9'(mem_req_o.wr.aw.len) : chk_w_len_q;
`endif

  // Every counter stays in range: no response without a request (a read's, in an earlier cycle).
  `MXU_ASSERT_NEVER(ReadsUnderflow, r_last_fire && !ar_fired_q && reads_out_q == '0, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(WritesUnderflow, b_fire && !aw_fire && writes_out_q == '0, clk_i, rst_ni)
  // A write beat belongs to an address already sent (or sent in the same cycle).
  `MXU_ASSERT_NEVER(WBeatWithoutAw, w_fire && !aw_fire && w_owed_q == '0, clk_i, rst_ni)
`ifndef SYNTHESIS
  // The assertions sample narrow copies of the port, never the whole request: Verilator 5.006
  // emits uncompilable code for the sampled copy of a variable of more than 32 words (1,024
  // bits; the request's W data alone is 32 words at bus=128, 256 at bus=1024), so the W payload
  // is checked in chunks of up to 256 bits, each a variable of its own (a part-select of one
  // wide copy would still sample the whole copy), and the strobes likewise. The copies are
  // public so that Verilator keeps them rather than reading the request in their place.
  localparam int unsigned ChunkBits  = (8 * BusBytes < 256) ? 8 * BusBytes : 256;
  localparam int unsigned Chunks     = 8 * BusBytes / ChunkBits;
  localparam int unsigned StrbBits   = (BusBytes < 256) ? BusBytes : 256;
  localparam int unsigned StrbChunks = BusBytes / StrbBits;
  logic                    ar_valid_a, aw_valid_a, w_valid_a, w_last_a;
  logic                    ar_ready_a, aw_ready_a, w_ready_a;
  mxu_pkg::mem_ar_t        ar_a /* verilator public_flat_rd */;
  mxu_pkg::mem_aw_t        aw_a /* verilator public_flat_rd */;
  assign ar_valid_a = mem_req_o.rd.ar_valid;
  assign aw_valid_a = mem_req_o.wr.aw_valid;
  assign w_valid_a  = mem_req_o.wr.w_valid;
  assign w_last_a   = mem_req_o.wr.w.last;
  assign ar_a       = mem_req_o.rd.ar;
  assign aw_a       = mem_req_o.wr.aw;
  assign ar_ready_a = mem_rsp_i.rd.ar_ready;
  assign aw_ready_a = mem_rsp_i.wr.aw_ready;
  assign w_ready_a  = mem_rsp_i.wr.w_ready;

  // W beats of a burst = AW len + 1: WLAST exactly on the last one.
  `MXU_ASSERT(WLastAtLen, w_fire |-> (w_last_a == (chk_w_beats_q == chk_w_len)), clk_i, rst_ni)
  // Bursts: whole aligned beats, at most 16 beats, never across a 4 KiB boundary.
  `MXU_ASSERT(ArAligned, ar_valid_a |-> ar_a.addr[BeatShift-1:0] == '0, clk_i, rst_ni)
  `MXU_ASSERT(AwAligned, aw_valid_a |-> aw_a.addr[BeatShift-1:0] == '0, clk_i, rst_ni)
  `MXU_ASSERT(ArMax16, ar_valid_a |-> ar_a.len < 8'd16, clk_i, rst_ni)
  `MXU_ASSERT(AwMax16, aw_valid_a |-> aw_a.len < 8'd16, clk_i, rst_ni)
  `MXU_ASSERT(Ar4k, ar_valid_a |->
              32'(ar_a.addr[11:0]) + ((32'(ar_a.len) + 1) << BeatShift) <= 32'd4096,
              clk_i, rst_ni)
  `MXU_ASSERT(Aw4k, aw_valid_a |->
              32'(aw_a.addr[11:0]) + ((32'(aw_a.len) + 1) << BeatShift) <= 32'd4096,
              clk_i, rst_ni)
  // Valid held until ready with a stable payload, while the engines run (holding them in reset
  // withdraws their requests; the drain then completes what the port owes).
  `MXU_ASSERT_STABLE(ArStable, ar_valid_a, ar_ready_a, ar_a, clk_i, rst_ni && !clear_i)
  `MXU_ASSERT_STABLE(AwStable, aw_valid_a, aw_ready_a, aw_a, clk_i, rst_ni && !clear_i)
  `MXU_ASSERT_STABLE(WStable, w_valid_a, w_ready_a, w_last_a, clk_i, rst_ni && !clear_i)
  for (genvar i = 0; i < Chunks; i++) begin : g_w_chunk
    logic [ChunkBits-1:0] w_data_a /* verilator public_flat_rd */;
    assign w_data_a = mem_req_o.wr.w.data[i*ChunkBits +: ChunkBits];
    `MXU_ASSERT_STABLE(WDataStable, w_valid_a, w_ready_a, w_data_a, clk_i, rst_ni && !clear_i)
  end
  for (genvar i = 0; i < StrbChunks; i++) begin : g_w_strb_chunk
    logic [StrbBits-1:0] w_strb_a /* verilator public_flat_rd */;
    assign w_strb_a = mem_req_o.wr.w.strb[i*StrbBits +: StrbBits];
    `MXU_ASSERT_STABLE(WStrbStable, w_valid_a, w_ready_a, w_strb_a, clk_i, rst_ni && !clear_i)
  end
`endif

endmodule
