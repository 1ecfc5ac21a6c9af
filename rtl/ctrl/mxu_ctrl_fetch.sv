// Controller, fetch: reads the program from host memory in bursts of up to FetchBurstBeats (4)
// beats (SlotsPerBeat 16-byte instructions per beat: 2 on a 32-byte bus) into a buffer of IbufBeats
// beats, and presents the instruction at its head, skipping slots outside the program (the first
// and last beat may hold some). The head advances when the dispatcher takes the instruction. A read
// error stops further requests; fetch_failed_o rises once everything requested before it has
// arrived and been consumed.
`include "mxu_assert.svh"

module mxu_ctrl_fetch #(
  // Fetched beats buffered: 16 instructions (8 beats on a 32-byte bus), at least one burst (4):
  // common/device.toml's fetch_ibuf_beats.
  parameter int unsigned IbufBeats = mxu_pkg::fetch_ibuf_beats(mxu_pkg::MemBusBytes),
  localparam int unsigned AddrWidth    = mxu_pkg::MemAddrWidth,
  localparam int unsigned BusBytes     = mxu_pkg::MemBusBytes,
  localparam int unsigned BusBits      = BusBytes * 8,
  localparam int unsigned InsBits      = 128,                  // one instruction
  localparam int unsigned SlotShift    = $clog2(InsBits / 8),  // instruction slot = addr >> 4
  localparam int unsigned BeatShift    = $clog2(BusBytes),
  localparam int unsigned SlotsPerBeat = BusBytes * 8 / InsBits,
  localparam int unsigned SlotsShift   = $clog2(SlotsPerBeat),   // slot index bits in a beat
  localparam int unsigned SlotIdxWidth = (SlotsShift > 0) ? SlotsShift : 1,
  localparam int unsigned SlotMask     = SlotsPerBeat - 1,
  localparam int unsigned SlotWidth    = AddrWidth - SlotShift,
  localparam int unsigned PageBeatBits = 12 - BeatShift        // beat index within 4 KiB
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 clear_i,     // engines held in reset: empty the buffer
  input  logic                 restart_i,   // start a program at cmd_addr_i (synchronous)
  input  logic                 run_i,       // a program runs: request, accept, advance
  input  logic [AddrWidth-1:0] cmd_addr_i,
  input  logic [31:0]          count_i,     // instructions in the program
  input  logic                 dispatch_i,  // the head instruction leaves this cycle
  output mxu_pkg::mem_rd_req_t fetch_req_o,
  input  mxu_pkg::mem_rd_rsp_t fetch_rsp_i,
  output logic [InsBits-1:0]   ins_o,
  output logic                 ins_valid_o, // an instruction of the program is at the head
  output logic                 failed_o,    // a read error, and nothing else left to decode
  output logic [AddrWidth-1:0] fail_addr_o
);

  // Slots are 16-byte instruction positions in memory (address / 16).
  logic [SlotWidth-1:0]  fetch_slot_d, fetch_slot_q;  // next slot to request
  logic [SlotWidth-1:0]  rsp_slot_d, rsp_slot_q;      // lower slot of the next beat to arrive
  // The program's first slot and the slot after its last, registered at the restart (cmd_addr_i
  // and count_i hold still while it runs): the 28-bit add stays out of every request's path.
  logic [SlotWidth-1:0]  first_slot_d, first_slot_q, end_slot_d, end_slot_q;
  logic [SlotWidth-1:0]  fetch_beat_slot;
  localparam int unsigned OutWidth = $clog2(IbufBeats + 1);
  logic [OutWidth-1:0]   beats_out_d, beats_out_q;    // beats requested, not yet arrived
  logic                  fetch_err_d, fetch_err_q;
  logic [AddrWidth-1:0]  fetch_err_addr_d, fetch_err_addr_q;
  logic [SlotIdxWidth-1:0] idx_d, idx_q;             // the head beat's slot at the head
  logic                  ibuf_push, ibuf_pop, ibuf_full, ibuf_empty;
  // {each slot's valid bit, highest first, the beat}
  logic [BusBits+SlotsPerBeat-1:0] ibuf_wdata, ibuf_head;
  logic [SlotsPerBeat-1:0] head_valid, later_valid;
  logic [PageBeatBits-1:0] page_beat;                 // fetch_slot_q's beat within 4 KiB
  logic [$clog2(IbufBeats+1)-1:0] ibuf_count;
  logic [3:0]            burst_beats;
  logic                  fetch_r_fire;

  always_comb begin
    first_slot_d    = cmd_addr_i[AddrWidth-1:SlotShift];
    end_slot_d      = first_slot_d + SlotWidth'(count_i);
    fetch_beat_slot = fetch_slot_q & ~SlotWidth'(SlotMask);
    page_beat       = PageBeatBits'(fetch_slot_q >> SlotsShift);
    // Bursts of up to FetchBurstBeats (4) beats, never more than the buffer has room for.
    burst_beats = 4'(mxu_pkg::FetchBurstBeats);
    if (fetch_beat_slot + SlotWidth'(mxu_pkg::FetchBurstBeats * SlotsPerBeat) > end_slot_q) begin
      burst_beats = 4'((end_slot_q - fetch_beat_slot + SlotWidth'(SlotMask)) >> SlotsShift);
    end
    if (32'(page_beat) + 32'(burst_beats) > 32'(4096 / BusBytes)) begin
      burst_beats = 4'(32'(4096 / BusBytes) - 32'(page_beat));  // stop at 4 KiB
    end
    fetch_req_o.ar_valid = run_i && fetch_slot_q < end_slot_q && !fetch_err_q &&
                           32'(ibuf_count) + 32'(beats_out_q) + 32'(burst_beats) <= IbufBeats;
    fetch_req_o.ar.addr  = {fetch_beat_slot, SlotShift'(0)};
    fetch_req_o.ar.len   = 8'(burst_beats) - 8'd1;
    fetch_req_o.ar.id    = '0;     // the DMA sets the fetch ID
    fetch_req_o.r_ready  = 1'b1;   // the buffer always has room for what was requested
  end

  always_comb begin
    fetch_r_fire     = fetch_rsp_i.r_valid && run_i;
    ibuf_push        = fetch_r_fire && fetch_rsp_i.r.resp == 2'b00;
    for (int unsigned i = 0; i < SlotsPerBeat; i++) begin
      ibuf_wdata[BusBits + i] = rsp_slot_q + SlotWidth'(i) >= first_slot_q &&
                                rsp_slot_q + SlotWidth'(i) < end_slot_q;
    end
    ibuf_wdata[BusBits-1:0] = fetch_rsp_i.r.data;
    fetch_slot_d     = fetch_slot_q;
    beats_out_d      = beats_out_q;
    if (fetch_req_o.ar_valid && fetch_rsp_i.ar_ready) begin
      fetch_slot_d = fetch_beat_slot + (SlotWidth'(burst_beats) << SlotsShift);
      beats_out_d  = beats_out_q + OutWidth'(burst_beats);
    end
    if (fetch_r_fire) beats_out_d = beats_out_d - 1'b1;
    rsp_slot_d       = fetch_r_fire ? rsp_slot_q + SlotWidth'(SlotsPerBeat) : rsp_slot_q;
    fetch_err_d      = fetch_err_q || (fetch_r_fire && fetch_rsp_i.r.resp != 2'b00);
    fetch_err_addr_d = fetch_err_addr_q;
    if (fetch_r_fire && fetch_rsp_i.r.resp != 2'b00 && !fetch_err_q) begin
      fetch_err_addr_d = {rsp_slot_q, SlotShift'(0)};
    end
  end

  always_comb begin
    // The instruction at the head of the buffer (invalid slots are skipped).
    head_valid  = ibuf_head[BusBits +: SlotsPerBeat];
    ins_o       = ibuf_head[32'(idx_q) * InsBits +: InsBits];
    ins_valid_o = !ibuf_empty && head_valid[idx_q];
    // Slots after the head's that hold an instruction (those outside the program come before or
    // after it, never between).
    for (int unsigned i = 0; i < SlotsPerBeat; i++) begin
      later_valid[i] = head_valid[i] && i > 32'(idx_q);
    end
  end

  // A block of its own: the dispatcher's decision depends on ins_valid_o.
  always_comb begin
    // Advance past the dispatched instruction, or past a slot outside the program.
    ibuf_pop = 1'b0;
    idx_d    = idx_q;
    if (run_i && !ibuf_empty && (!ins_valid_o || dispatch_i)) begin
      if (later_valid != '0) begin
        idx_d = idx_q + 1'b1;
      end else begin
        ibuf_pop = 1'b1;
        idx_d    = '0;
      end
    end
  end

  mxu_sync_fifo #(.Width(BusBits + SlotsPerBeat), .Depth(IbufBeats)) u_ibuf (
    .clk_i,
    .rst_ni (rst_ni && !clear_i),
    .push_i (ibuf_push),
    .wdata_i(ibuf_wdata),
    .full_o (ibuf_full),
    .pop_i  (ibuf_pop),
    .rdata_o(ibuf_head),
    .empty_o(ibuf_empty),
    .count_o(ibuf_count)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      first_slot_q     <= '0;
      end_slot_q       <= '0;
      fetch_slot_q     <= '0;
      rsp_slot_q       <= '0;
      beats_out_q      <= '0;
      fetch_err_q      <= 1'b0;
      fetch_err_addr_q <= '0;
      idx_q            <= '0;
    end else if (restart_i) begin
      first_slot_q     <= first_slot_d;
      end_slot_q       <= end_slot_d;
      fetch_slot_q     <= cmd_addr_i[AddrWidth-1:SlotShift];
      rsp_slot_q       <= cmd_addr_i[AddrWidth-1:SlotShift] & ~SlotWidth'(SlotMask);
      beats_out_q      <= '0;
      fetch_err_q      <= 1'b0;
      fetch_err_addr_q <= '0;
      idx_q            <= '0;
    end else begin
      fetch_slot_q     <= fetch_slot_d;
      rsp_slot_q       <= rsp_slot_d;
      beats_out_q      <= beats_out_d;
      fetch_err_q      <= fetch_err_d;
      fetch_err_addr_q <= fetch_err_addr_d;
      idx_q            <= idx_d;
    end
  end

  assign failed_o    = fetch_err_q && ibuf_empty && beats_out_q == '0;
  assign fail_addr_o = fetch_err_addr_q;

  // The slot arithmetic takes whole instructions per beat, and a burst of FetchBurstBeats beats
  // (4, in burst_beats' 4 bits) within 4 KiB.
  `MXU_ASSERT_STATIC(gen_slots_per_beat, BusBytes >= InsBits / 8 && BusBytes <= 1024 &&
                     (BusBytes & (BusBytes - 1)) == 0,
                     "mxu_ctrl_fetch: MemBusBytes must be a power of two from 16 to 1024")
  `MXU_ASSERT_STATIC(gen_ibuf_holds_a_burst, IbufBeats >= mxu_pkg::FetchBurstBeats &&
                     mxu_pkg::FetchBurstBeats >= 1 && mxu_pkg::FetchBurstBeats <= 15,
                     "mxu_ctrl_fetch: the buffer must hold a burst of 1 to 15 beats")
  // Beats requested never exceed the buffer's room.
  `MXU_ASSERT(IbufRoom, 32'(ibuf_count) + 32'(beats_out_q) <= IbufBeats, clk_i, rst_ni && !clear_i)

  logic unused_signals;
  assign unused_signals = ^{ibuf_full, fetch_rsp_i.r.last, fetch_rsp_i.r.id,
                            cmd_addr_i[SlotShift-1:0]};

endmodule
