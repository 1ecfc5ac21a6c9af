// Controller: fetches the program from host memory, decodes and checks every instruction,
// dispatches it in order to the engine that runs it (DMA load, DMA store, MATMUL, ACTIVATE) as
// soon as it conflicts with nothing still in flight, and reports completion and errors
// (docs/isa.md). Loads of the next tile, the current MATMULs and stores of earlier results
// therefore overlap, as in a decoupled load / compute / store machine.
//
// Conflicts are found by comparing buffer row ranges: an instruction waits while an in-flight
// one writes rows it reads or writes, or reads rows it writes. The weight FIFO orders weight
// tiles by itself; the controller only counts loaded tiles that no MATMUL has claimed.
module controller #(
  parameter int unsigned Rows     = mxu_pkg::ArrayRows,
  parameter int unsigned Cols     = mxu_pkg::ArrayCols,
  parameter int unsigned UbDepth  = mxu_pkg::UbDepth,
  parameter int unsigned AccDepth = mxu_pkg::AccDepth,
  localparam int unsigned UbLanes   = (Rows > Cols) ? Rows : Cols,
  localparam int unsigned AddrWidth = mxu_pkg::MemAddrWidth,
  localparam int unsigned BusBits   = mxu_pkg::MemBusBytes * 8,
  localparam int unsigned UbAw      = (UbDepth > 1) ? $clog2(UbDepth) : 1,
  localparam int unsigned AccAw     = (AccDepth > 1) ? $clog2(AccDepth) : 1,
  localparam int unsigned KWidth    = $clog2(Rows + 1),
  localparam int unsigned MmSlots   = 4,  // MATMULs tracked in flight
  localparam int unsigned IbufBeats = 8   // fetched beats (two instructions each) buffered
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // From and to the CSRs.
  input  logic                 start_i,
  input  logic                 abort_i,       // soft reset
  input  logic [AddrWidth-1:0] cmd_addr_i,
  input  logic [31:0]          cmd_count_i,
  input  logic                 mem_idle_i,    // no memory transaction outstanding
  output logic                 busy_o,
  output logic                 done_o,        // pulse
  output logic                 error_o,       // pulse
  output logic [3:0]           error_code_o,
  output logic [31:0]          error_pc_o,
  output logic [AddrWidth-1:0] error_addr_o,
  output logic [31:0]          pc_o,
  output logic                 clear_o,       // hold the engines in reset
  output logic                 running_o,     // executing a program (memory responses wanted)
  output logic [2:0]           retired_o,     // instructions completed this cycle
  output logic                 stall_dep_o,
  output logic                 stall_fetch_o,
  // Observation only (waveforms, timeline): the instruction dispatched this cycle; its index is
  // pc_o.
  output logic                 dbg_dispatch_o,
  output logic [127:0]         dbg_ins_o,
  // Instruction fetch (read ID 0).
  output logic                 fetch_ar_valid_o,
  input  logic                 fetch_ar_ready_i,
  output logic [AddrWidth-1:0] fetch_ar_addr_o,
  output logic [7:0]           fetch_ar_len_o,
  input  logic                 fetch_r_valid_i,
  output logic                 fetch_r_ready_o,
  input  logic [BusBits-1:0]   fetch_r_data_i,
  input  logic                 fetch_r_last_i,
  input  logic [1:0]           fetch_r_resp_i,
  // DMA load engines: unified buffer / accumulators (ld_) and weights (wld_), one command bus.
  output logic                 ld_valid_o,
  input  logic                 ld_ready_i,
  output logic                 wld_valid_o,
  input  logic                 wld_ready_i,
  input  logic                 wld_done_i,
  input  logic                 wld_error_i,
  input  logic [AddrWidth-1:0] wld_error_addr_i,
  output logic [1:0]           ld_target_o,
  output logic                 ld_transpose_o,
  output logic [15:0]          ld_rows_o,
  output logic [15:0]          ld_lanes_o,
  output logic [15:0]          ld_buf_addr_o,
  output logic [AddrWidth-1:0] ld_host_addr_o,
  output logic [15:0]          ld_stride_o,
  input  logic                 ld_done_i,
  input  logic                 ld_error_i,
  input  logic [AddrWidth-1:0] ld_error_addr_i,
  // DMA store engine.
  output logic                 st_valid_o,
  input  logic                 st_ready_i,
  output logic [1:0]           st_source_o,
  output logic                 st_relu_o,
  output logic [15:0]          st_rows_o,
  output logic [15:0]          st_lanes_o,
  output logic [15:0]          st_buf_addr_o,
  output logic [AddrWidth-1:0] st_host_addr_o,
  output logic [15:0]          st_stride_o,
  input  logic                 st_done_i,
  input  logic                 st_error_i,
  input  logic [AddrWidth-1:0] st_error_addr_i,
  // Datapath.
  output logic                 wl_valid_o,
  input  logic                 wl_ready_i,
  output logic [KWidth-1:0]    wl_k_rows_o,
  output logic                 mm_valid_o,
  input  logic                 mm_ready_i,
  output logic [UbAw-1:0]      mm_ub_addr_o,
  output logic [AccAw-1:0]     mm_acc_addr_o,
  output logic [15:0]          mm_rows_o,
  output logic [KWidth-1:0]    mm_k_rows_o,
  output logic                 mm_accumulate_o,
  output logic                 mm_new_weights_o,
  input  logic                 mm_done_i,
  output logic                 ac_valid_o,
  input  logic                 ac_ready_i,
  output logic [AccAw-1:0]     ac_acc_addr_o,
  output logic [UbAw-1:0]      ac_ub_addr_o,
  output logic [15:0]          ac_rows_o,
  output logic                 ac_relu_o,
  output logic                 ac_bias_en_o,
  output logic [AccAw-1:0]     ac_bias_addr_o,
  input  logic                 ac_done_i
);

  typedef enum logic [2:0] {
    StIdle, StClear, StRun, StDrainDone, StDrainError, StDrainAbort
  } state_e;

  // ------------------------------------------------------------------------------------ state
  state_e               state_d, state_q;
  logic                 clear_q;  // a flop, not a decode: it drives the engines' reset
  logic [AddrWidth-1:0] cmd_addr_d, cmd_addr_q;
  logic [31:0]          count_d, count_q;
  logic [31:0]          pc_d, pc_q;                    // instructions dispatched
  logic [3:0]           err_code_d, err_code_q;
  logic [31:0]          err_pc_d, err_pc_q;
  logic [AddrWidth-1:0] err_addr_d, err_addr_q;
  // Fetch: slots are 16-byte instruction positions in memory (address / 16).
  logic [AddrWidth-5:0] fetch_slot_d, fetch_slot_q;    // next slot to request
  logic [AddrWidth-5:0] rsp_slot_d, rsp_slot_q;        // lower slot of the next beat to arrive
  logic [AddrWidth-5:0] first_slot, end_slot;
  logic [3:0]           beats_out_d, beats_out_q;      // beats requested, not yet arrived
  logic                 fetch_err_d, fetch_err_q;
  logic [AddrWidth-1:0] fetch_err_addr_d, fetch_err_addr_q;
  logic                 half_d, half_q;                // decoder at the upper slot of the head beat
  // In flight.
  logic                 ld_busy_d, ld_busy_q, st_busy_d, st_busy_q, ac_busy_d, ac_busy_q;
  logic                 wld_busy_d, wld_busy_q;
  logic [31:0]          wld_pc_d, wld_pc_q;
  logic                 is_wload;
  logic [1:0]           ld_buf_d, ld_buf_q, st_buf_d, st_buf_q;
  logic [16:0]          ld_lo_d, ld_lo_q, ld_hi_d, ld_hi_q, st_lo_d, st_lo_q, st_hi_d, st_hi_q;
  logic [31:0]          ld_pc_d, ld_pc_q, st_pc_d, st_pc_q;
  logic [16:0]          ac_acc_lo_d, ac_acc_lo_q, ac_acc_hi_d, ac_acc_hi_q;
  logic [16:0]          ac_bias_d, ac_bias_q, ac_ub_lo_d, ac_ub_lo_q, ac_ub_hi_d, ac_ub_hi_q;
  logic                 ac_has_bias_d, ac_has_bias_q;
  logic [MmSlots-1:0]   mm_valid_d, mm_valid_q;
  logic [MmSlots*17-1:0] mm_ub_lo_d, mm_ub_lo_q, mm_ub_hi_d, mm_ub_hi_q;
  logic [MmSlots*17-1:0] mm_acc_lo_d, mm_acc_lo_q, mm_acc_hi_d, mm_acc_hi_q;
  logic [1:0]           mm_head_d, mm_head_q, mm_tail_d, mm_tail_q;
  logic [2:0]           tiles_d, tiles_q;               // loaded weight tiles not yet claimed

  // ------------------------------------------------------------------------ fetch buffer
  logic                 ibuf_push, ibuf_pop, ibuf_full, ibuf_empty;
  logic [BusBits+1:0]   ibuf_wdata, ibuf_head;         // {upper slot valid, lower valid, beat}
  logic [$clog2(IbufBeats+1)-1:0] ibuf_count;
  logic [3:0]           burst_beats;
  logic                 fetch_r_fire;

  // ------------------------------------------------------------------------------- decode
  logic [127:0]         ins;
  logic                 ins_valid;                      // an instruction is at the head
  logic [7:0]           op;
  logic [2:0]           flags;                          // bits [10:8]; [15:11] reserved
  logic [15:0]          f_rows, f_b, f_c, f_d;
  logic [AddrWidth-1:0] f_host;
  logic [15:0]          f_stride;
  logic                 is_load, is_store, is_mm, is_ac, is_sync, is_halt;
  logic [3:0]           check_err;                      // ErrNone if the instruction is legal
  logic [16:0]          rows17, buf_hi, ub_hi, acc_hi, ac_ub_hi, ac_acc_hi;
  logic                 overlap_rd_ub, overlap_wr_ub, overlap_rd_acc, overlap_wr_acc;
  logic                 conflict, structural, dispatch, in_flight;
  logic                 wl_push, wl_full, wl_empty;
  logic [KWidth-1:0]    wl_head;
  logic [$clog2(5)-1:0] wl_count;

  // True when [lo1, hi1) and [lo2, hi2) share a row.
  function automatic logic overlaps(logic [16:0] lo1, logic [16:0] hi1, logic [16:0] lo2,
                                    logic [16:0] hi2);
    overlaps = (lo1 < hi2) && (lo2 < hi1);
  endfunction

  always_comb begin
    first_slot  = cmd_addr_q[AddrWidth-1:4];
    end_slot    = first_slot + (AddrWidth-4)'(count_q);
    // ----- Fetch: bursts of up to four beats, never more than the buffer has room for.
    burst_beats = 4'd4;
    if ((AddrWidth-4)'({fetch_slot_q[AddrWidth-5:1], 1'b0}) + (AddrWidth-4)'(8) > end_slot) begin
      burst_beats = 4'((end_slot - (AddrWidth-4)'({fetch_slot_q[AddrWidth-5:1], 1'b0}) + 1) >> 1);
    end
    if (fetch_slot_q[7:1] + 7'(burst_beats) < fetch_slot_q[7:1]) begin
      burst_beats = 4'(7'd0 - fetch_slot_q[7:1]);  // stop at the 4 KiB boundary
    end
    fetch_ar_valid_o = state_q == StRun && fetch_slot_q < end_slot && !fetch_err_q &&
                       32'(ibuf_count) + 32'(beats_out_q) + 32'(burst_beats) <= IbufBeats;
    fetch_ar_addr_o  = {fetch_slot_q[AddrWidth-5:1], 5'd0};
    fetch_ar_len_o   = 8'(burst_beats) - 8'd1;
  end

  always_comb begin
    fetch_r_ready_o  = 1'b1;  // the buffer always has room for what was requested
    fetch_r_fire     = fetch_r_valid_i && state_q == StRun;
    ibuf_push        = fetch_r_fire && fetch_r_resp_i == 2'b00;
    ibuf_wdata       = {rsp_slot_q + 1'b1 >= first_slot && rsp_slot_q + 1'b1 < end_slot,
                        rsp_slot_q >= first_slot && rsp_slot_q < end_slot, fetch_r_data_i};
    fetch_slot_d     = fetch_slot_q;
    beats_out_d      = beats_out_q;
    if (fetch_ar_valid_o && fetch_ar_ready_i) begin
      fetch_slot_d = {fetch_slot_q[AddrWidth-5:1], 1'b0} + (AddrWidth-4)'({burst_beats, 1'b0});
      beats_out_d  = beats_out_q + burst_beats;
    end
    if (fetch_r_fire) beats_out_d = beats_out_d - 1'b1;
    rsp_slot_d       = fetch_r_fire ? rsp_slot_q + (AddrWidth-4)'(2) : rsp_slot_q;
    fetch_err_d      = fetch_err_q || (fetch_r_fire && fetch_r_resp_i != 2'b00);
    fetch_err_addr_d = fetch_err_addr_q;
    if (fetch_r_fire && fetch_r_resp_i != 2'b00 && !fetch_err_q) begin
      fetch_err_addr_d = {rsp_slot_q[AddrWidth-5:1], 5'd0};
    end

  end

  always_comb begin
    // ----- The instruction at the head of the buffer (invalid slots are skipped).
    ins       = half_q ? ibuf_head[255:128] : ibuf_head[127:0];
    ins_valid = !ibuf_empty && (half_q ? ibuf_head[BusBits+1] : ibuf_head[BusBits]);
    op        = ins[7:0];
    flags     = ins[10:8];
    f_rows    = ins[31:16];
    f_b       = ins[47:32];
    f_c       = ins[63:48];
    f_d       = ins[79:64];
    f_host    = ins[111:64];
    f_stride  = ins[127:112];
    is_load   = op == mxu_isa_pkg::OpLoad;
    is_store  = op == mxu_isa_pkg::OpStore;
    is_mm     = op == mxu_isa_pkg::OpMatmul;
    is_ac     = op == mxu_isa_pkg::OpActivate;
    is_sync   = op == mxu_isa_pkg::OpSync;
    is_halt   = op == mxu_isa_pkg::OpHalt;
    is_wload  = is_load && flags[1:0] == mxu_isa_pkg::BufWeights;
    rows17    = {1'b0, f_rows};
    buf_hi    = {1'b0, f_c} + rows17;   // LOAD / STORE: buffer rows [f_c, buf_hi)
    ub_hi     = {1'b0, f_c} + rows17;   // MATMUL: UB rows [f_c, ub_hi), ACC rows [f_d, acc_hi)
    acc_hi    = {1'b0, f_d} + rows17;
    ac_acc_hi = {1'b0, f_b} + rows17;   // ACTIVATE: ACC rows [f_b, +rows), UB rows [f_c, +rows)
    ac_ub_hi  = {1'b0, f_c} + rows17;

    // ----- Legality (docs/isa.md, Errors).
    check_err = mxu_isa_pkg::ErrNone;
    if (is_load || is_store) begin
      if ((ins & (is_load ? mxu_isa_pkg::LoadReservedMask : mxu_isa_pkg::StoreReservedMask)) !=
          '0 ||
          (is_store && flags[2] && flags[1:0] != mxu_isa_pkg::BufAcc) ||
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
      end else if (is_load && flags[1:0] == mxu_isa_pkg::BufWeights && tiles_q == 3'd3) begin
        check_err = mxu_isa_pkg::ErrWeightsFull;
      end
    end else if (is_mm) begin
      if ((ins & mxu_isa_pkg::MatmulReservedMask) != '0 || f_rows == '0 || f_b == '0 ||
          32'(f_b) > Rows) begin
        check_err = mxu_isa_pkg::ErrIllegalField;
      end else if (32'(ub_hi) > UbDepth) begin
        check_err = mxu_isa_pkg::ErrUbRange;
      end else if (32'(acc_hi) > AccDepth) begin
        check_err = mxu_isa_pkg::ErrAccRange;
      end else if (flags[1] && tiles_q == '0) begin
        check_err = mxu_isa_pkg::ErrNoWeights;
      end
    end else if (is_ac) begin
      if ((ins & mxu_isa_pkg::ActivateReservedMask) != '0 || f_rows == '0 ||
          (!flags[1] && f_d != '0)) begin
        check_err = mxu_isa_pkg::ErrIllegalField;
      end else if (32'(ac_ub_hi) > UbDepth) begin
        check_err = mxu_isa_pkg::ErrUbRange;
      end else if (32'(ac_acc_hi) > AccDepth || 32'(f_d) >= AccDepth) begin
        check_err = mxu_isa_pkg::ErrAccRange;
      end
    end else if (is_sync || is_halt) begin
      if ((ins & (is_sync ? mxu_isa_pkg::SyncReservedMask : mxu_isa_pkg::HaltReservedMask)) != '0) begin
        check_err = mxu_isa_pkg::ErrIllegalField;
      end
    end else begin
      check_err = mxu_isa_pkg::ErrIllegalOpcode;
    end

    // ----- Conflicts with instructions in flight: reads and writes of UB and ACC rows.
    overlap_rd_ub  = 1'b0;  // someone in flight reads these UB rows
    overlap_wr_ub  = 1'b0;  // ... writes them
    overlap_rd_acc = 1'b0;
    overlap_wr_acc = 1'b0;
    conflict       = 1'b0;
    begin : g_conflicts
      // The rows this instruction reads (r) and writes (w), per buffer.
      logic        r_ub, w_ub, r_acc, w_acc;
      logic [16:0] r_ub_lo, r_ub_hi, w_ub_lo, w_ub_hi, r_acc_lo, r_acc_hi, w_acc_lo, w_acc_hi;
      r_ub = 1'b0; w_ub = 1'b0; r_acc = 1'b0; w_acc = 1'b0;
      r_ub_lo = '0; r_ub_hi = '0; w_ub_lo = '0; w_ub_hi = '0;
      r_acc_lo = '0; r_acc_hi = '0; w_acc_lo = '0; w_acc_hi = '0;
      if (is_load && flags[1:0] == mxu_isa_pkg::BufUb) begin
        w_ub = 1'b1; w_ub_lo = {1'b0, f_c}; w_ub_hi = buf_hi;
      end
      if (is_load && flags[1:0] == mxu_isa_pkg::BufAcc) begin
        w_acc = 1'b1; w_acc_lo = {1'b0, f_c}; w_acc_hi = buf_hi;
      end
      if (is_store && flags[1:0] == mxu_isa_pkg::BufUb) begin
        r_ub = 1'b1; r_ub_lo = {1'b0, f_c}; r_ub_hi = buf_hi;
      end
      if (is_store && flags[1:0] == mxu_isa_pkg::BufAcc) begin
        r_acc = 1'b1; r_acc_lo = {1'b0, f_c}; r_acc_hi = buf_hi;
      end
      if (is_mm) begin
        r_ub = 1'b1;  r_ub_lo = {1'b0, f_c};  r_ub_hi = ub_hi;
        w_acc = 1'b1; w_acc_lo = {1'b0, f_d}; w_acc_hi = acc_hi;
      end
      if (is_ac) begin
        r_acc = 1'b1; r_acc_lo = {1'b0, f_b}; r_acc_hi = ac_acc_hi;
        w_ub = 1'b1;  w_ub_lo = {1'b0, f_c};  w_ub_hi = ac_ub_hi;
      end
      // Against the load engine (writes UB or ACC).
      if (ld_busy_q && ld_buf_q == mxu_isa_pkg::BufUb &&
          ((r_ub && overlaps(r_ub_lo, r_ub_hi, ld_lo_q, ld_hi_q)) ||
           (w_ub && overlaps(w_ub_lo, w_ub_hi, ld_lo_q, ld_hi_q)))) conflict = 1'b1;
      if (ld_busy_q && ld_buf_q == mxu_isa_pkg::BufAcc &&
          ((r_acc && overlaps(r_acc_lo, r_acc_hi, ld_lo_q, ld_hi_q)) ||
           (w_acc && overlaps(w_acc_lo, w_acc_hi, ld_lo_q, ld_hi_q)))) conflict = 1'b1;
      // Against the store engine (reads UB or ACC).
      if (st_busy_q && st_buf_q == mxu_isa_pkg::BufUb && w_ub &&
          overlaps(w_ub_lo, w_ub_hi, st_lo_q, st_hi_q)) conflict = 1'b1;
      if (st_busy_q && st_buf_q == mxu_isa_pkg::BufAcc && w_acc &&
          overlaps(w_acc_lo, w_acc_hi, st_lo_q, st_hi_q)) conflict = 1'b1;
      // Against ACTIVATE (reads ACC and the bias row, writes UB).
      if (ac_busy_q && w_acc && (overlaps(w_acc_lo, w_acc_hi, ac_acc_lo_q, ac_acc_hi_q) ||
          (ac_has_bias_q && overlaps(w_acc_lo, w_acc_hi, ac_bias_q, ac_bias_q + 1'b1)))) begin
        conflict = 1'b1;
      end
      if (ac_busy_q && ((r_ub && overlaps(r_ub_lo, r_ub_hi, ac_ub_lo_q, ac_ub_hi_q)) ||
                        (w_ub && overlaps(w_ub_lo, w_ub_hi, ac_ub_lo_q, ac_ub_hi_q)))) begin
        conflict = 1'b1;
      end
      // Against MATMULs (read UB, write ACC). MATMULs among themselves run in order.
      for (int unsigned s = 0; s < MmSlots; s++) begin
        if (mm_valid_q[s] && !is_mm) begin
          if (w_ub && overlaps(w_ub_lo, w_ub_hi, mm_ub_lo_q[s*17 +: 17], mm_ub_hi_q[s*17 +: 17])) begin
            conflict = 1'b1;
          end
          if ((r_acc && overlaps(r_acc_lo, r_acc_hi, mm_acc_lo_q[s*17 +: 17],
                                 mm_acc_hi_q[s*17 +: 17])) ||
              (w_acc && overlaps(w_acc_lo, w_acc_hi, mm_acc_lo_q[s*17 +: 17],
                                 mm_acc_hi_q[s*17 +: 17]))) begin
            conflict = 1'b1;
          end
        end
      end
      if (is_ac && flags[1]) begin  // the bias row is read too
        if (ld_busy_q && ld_buf_q == mxu_isa_pkg::BufAcc &&
            overlaps({1'b0, f_d}, {1'b0, f_d} + 1'b1, ld_lo_q, ld_hi_q)) conflict = 1'b1;
        for (int unsigned s = 0; s < MmSlots; s++) begin
          if (mm_valid_q[s] && overlaps({1'b0, f_d}, {1'b0, f_d} + 1'b1, mm_acc_lo_q[s*17 +: 17],
                                        mm_acc_hi_q[s*17 +: 17])) conflict = 1'b1;
        end
      end
      overlap_rd_ub  = r_ub;
      overlap_wr_ub  = w_ub;
      overlap_rd_acc = r_acc;
      overlap_wr_acc = w_acc;
    end

    in_flight  = ld_busy_q || wld_busy_q || st_busy_q || ac_busy_q || (mm_valid_q != '0);
    structural = (is_load && !is_wload && (!ld_ready_i || ld_busy_q)) ||
                 (is_wload && (!wld_ready_i || wld_busy_q || wl_full)) ||
                 (is_store && (!st_ready_i || st_busy_q)) ||
                 (is_mm && (!mm_ready_i || mm_valid_q[mm_tail_q])) ||
                 (is_ac && (!ac_ready_i || ac_busy_q)) ||
                 ((is_sync || is_halt) && in_flight);
    dispatch   = state_q == StRun && ins_valid && check_err == mxu_isa_pkg::ErrNone && !conflict &&
                 !structural;

    // ----- Engine commands (valid only in the dispatch cycle).
    ld_valid_o       = dispatch && is_load && !is_wload;
    wld_valid_o      = dispatch && is_wload;
    ld_target_o      = flags[1:0];
    ld_transpose_o   = flags[2];
    ld_rows_o        = f_rows;
    ld_lanes_o       = f_b;
    ld_buf_addr_o    = f_c;
    ld_host_addr_o   = f_host;
    ld_stride_o      = f_stride;
    st_valid_o       = dispatch && is_store;
    st_source_o      = flags[1:0];
    st_relu_o        = flags[2];
    st_rows_o        = f_rows;
    st_lanes_o       = f_b;
    st_buf_addr_o    = f_c;
    st_host_addr_o   = f_host;
    st_stride_o      = f_stride;
    mm_valid_o       = dispatch && is_mm;
    mm_ub_addr_o     = UbAw'(f_c);
    mm_acc_addr_o    = AccAw'(f_d);
    mm_rows_o        = f_rows;
    mm_k_rows_o      = KWidth'(f_b);
    mm_accumulate_o  = flags[0];
    mm_new_weights_o = flags[1];
    ac_valid_o       = dispatch && is_ac;
    ac_acc_addr_o    = AccAw'(f_b);
    ac_ub_addr_o     = UbAw'(f_c);
    ac_rows_o        = f_rows;
    ac_relu_o        = flags[0];
    ac_bias_en_o     = flags[1];
    ac_bias_addr_o   = AccAw'(f_d);
    wl_push          = dispatch && is_wload;

    // ----- Advance past the dispatched instruction, or past a slot outside the program.
    ibuf_pop = 1'b0;
    half_d   = half_q;
    if (state_q == StRun && !ibuf_empty && (!ins_valid || dispatch)) begin
      if (!half_q && ibuf_head[BusBits+1]) begin
        half_d = 1'b1;
      end else begin
        ibuf_pop = 1'b1;
        half_d   = 1'b0;
      end
    end
  end

  // ------------------------------------------------------------ bookkeeping of work in flight
  always_comb begin
    ld_busy_d = (ld_busy_q && !ld_done_i) || (dispatch && is_load && !is_wload);
    wld_busy_d = (wld_busy_q && !wld_done_i) || (dispatch && is_wload);
    wld_pc_d   = (dispatch && is_wload) ? pc_q : wld_pc_q;
    st_busy_d = (st_busy_q && !st_done_i) || (dispatch && is_store);
    ac_busy_d = (ac_busy_q && !ac_done_i) || (dispatch && is_ac);
    ld_buf_d = ld_buf_q; ld_lo_d = ld_lo_q; ld_hi_d = ld_hi_q; ld_pc_d = ld_pc_q;
    st_buf_d = st_buf_q; st_lo_d = st_lo_q; st_hi_d = st_hi_q; st_pc_d = st_pc_q;
    ac_acc_lo_d = ac_acc_lo_q; ac_acc_hi_d = ac_acc_hi_q; ac_bias_d = ac_bias_q;
    ac_has_bias_d = ac_has_bias_q; ac_ub_lo_d = ac_ub_lo_q; ac_ub_hi_d = ac_ub_hi_q;
    if (dispatch && is_load && !is_wload) begin
      ld_buf_d = flags[1:0]; ld_lo_d = {1'b0, f_c}; ld_hi_d = buf_hi; ld_pc_d = pc_q;
    end
    if (dispatch && is_store) begin
      st_buf_d = flags[1:0]; st_lo_d = {1'b0, f_c}; st_hi_d = buf_hi; st_pc_d = pc_q;
    end
    if (dispatch && is_ac) begin
      ac_acc_lo_d = {1'b0, f_b}; ac_acc_hi_d = ac_acc_hi; ac_bias_d = {1'b0, f_d};
      ac_has_bias_d = flags[1]; ac_ub_lo_d = {1'b0, f_c}; ac_ub_hi_d = ac_ub_hi;
    end
    mm_valid_d  = mm_valid_q;
    mm_ub_lo_d  = mm_ub_lo_q;
    mm_ub_hi_d  = mm_ub_hi_q;
    mm_acc_lo_d = mm_acc_lo_q;
    mm_acc_hi_d = mm_acc_hi_q;
    mm_head_d   = mm_head_q;
    mm_tail_d   = mm_tail_q;
    if (mm_done_i) begin
      mm_valid_d[mm_head_q] = 1'b0;
      mm_head_d = mm_head_q + 1'b1;
    end
    if (dispatch && is_mm) begin
      mm_valid_d[mm_tail_q]          = 1'b1;
      mm_ub_lo_d[mm_tail_q*17 +: 17]  = {1'b0, f_c};
      mm_ub_hi_d[mm_tail_q*17 +: 17]  = ub_hi;
      mm_acc_lo_d[mm_tail_q*17 +: 17] = {1'b0, f_d};
      mm_acc_hi_d[mm_tail_q*17 +: 17] = acc_hi;
      mm_tail_d = mm_tail_q + 1'b1;
    end
    tiles_d = tiles_q + 3'(dispatch && is_load && flags[1:0] == mxu_isa_pkg::BufWeights)
                      - 3'(dispatch && is_mm && flags[1]);
    retired_o = 3'(ld_done_i) + 3'(wld_done_i) + 3'(st_done_i) + 3'(mm_done_i) +
                3'(ac_done_i) + 3'(dispatch && (is_sync || is_halt));
    pc_d = dispatch ? pc_q + 1'b1 : pc_q;
  end

  // --------------------------------------------------------------------------- the program
  always_comb begin
    state_d      = state_q;
    cmd_addr_d   = cmd_addr_q;
    count_d      = count_q;
    err_code_d   = err_code_q;
    err_pc_d     = err_pc_q;
    err_addr_d   = err_addr_q;
    done_o       = 1'b0;
    error_o      = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (start_i) begin
          state_d    = StClear;
          cmd_addr_d = cmd_addr_i;
          count_d    = cmd_count_i;
          err_code_d = mxu_isa_pkg::ErrNone;
          err_pc_d   = '0;
          err_addr_d = '0;
        end
      end
      StClear: begin
        // One cycle with the engines in reset: every program starts from empty queues.
        state_d = StRun;
        if (cmd_addr_q[3:0] != '0) begin
          state_d = StDrainError; err_code_d = mxu_isa_pkg::ErrMisaligned; err_addr_d = cmd_addr_q;
        end else if (count_q == '0) begin
          state_d = StDrainError; err_code_d = mxu_isa_pkg::ErrCmdOverrun;
        end
      end
      StRun: begin
        if (ld_error_i) begin
          state_d = StDrainError; err_code_d = mxu_isa_pkg::ErrMemRead;
          err_pc_d = ld_pc_q; err_addr_d = ld_error_addr_i;
        end else if (wld_error_i) begin
          state_d = StDrainError; err_code_d = mxu_isa_pkg::ErrMemRead;
          err_pc_d = wld_pc_q; err_addr_d = wld_error_addr_i;
        end else if (st_error_i) begin
          state_d = StDrainError; err_code_d = mxu_isa_pkg::ErrMemWrite;
          err_pc_d = st_pc_q; err_addr_d = st_error_addr_i;
        end else if (ins_valid && check_err != mxu_isa_pkg::ErrNone) begin
          state_d = StDrainError; err_code_d = check_err; err_pc_d = pc_q;
        end else if (dispatch && is_halt) begin
          state_d = StDrainDone;
        end else if (pc_q == count_q && !ins_valid) begin
          state_d = StDrainError; err_code_d = mxu_isa_pkg::ErrCmdOverrun; err_pc_d = pc_q;
        end else if (fetch_err_q && ibuf_empty && beats_out_q == '0) begin
          state_d = StDrainError; err_code_d = mxu_isa_pkg::ErrMemRead; err_pc_d = pc_q;
          err_addr_d = fetch_err_addr_q;
        end
      end
      StDrainDone: begin
        if (mem_idle_i) begin
          state_d = StIdle;
          done_o  = 1'b1;
        end
      end
      StDrainError: begin
        if (mem_idle_i) begin
          state_d = StIdle;
          error_o = 1'b1;
        end
      end
      StDrainAbort: begin
        if (mem_idle_i) state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
    // A soft reset abandons the program silently (no done, no error).
    if (abort_i) state_d = (state_q == StIdle) ? StIdle : StDrainAbort;
  end

  sync_fifo #(.Width(BusBits + 2), .Depth(IbufBeats)) u_ibuf (
    .clk_i,
    .rst_ni (rst_ni && !clear_o),
    .push_i (ibuf_push),
    .wdata_i(ibuf_wdata),
    .full_o (ibuf_full),
    .pop_i  (ibuf_pop),
    .rdata_o(ibuf_head),
    .empty_o(ibuf_empty),
    .count_o(ibuf_count)
  );

  // WLOAD commands wait here for the shadow registers (one per LOAD WEIGHTS).
  sync_fifo #(.Width(KWidth), .Depth(4)) u_wloads (
    .clk_i,
    .rst_ni (rst_ni && !clear_o),
    .push_i (wl_push),
    .wdata_i(KWidth'(f_rows)),
    .full_o (wl_full),
    .pop_i  (wl_valid_o && wl_ready_i),
    .rdata_o(wl_head),
    .empty_o(wl_empty),
    .count_o(wl_count)
  );
  assign wl_valid_o  = !wl_empty;
  assign wl_k_rows_o = wl_head;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q          <= StIdle;
      clear_q          <= 1'b1;
      cmd_addr_q       <= '0;
      count_q          <= '0;
      err_code_q       <= '0;
      err_pc_q         <= '0;
      err_addr_q       <= '0;
    end else begin
      state_q          <= state_d;
      clear_q          <= state_d != StRun;
      cmd_addr_q       <= cmd_addr_d;
      count_q          <= count_d;
      err_code_q       <= err_code_d;
      err_pc_q         <= err_pc_d;
      err_addr_q       <= err_addr_d;
    end
  end

  // Per-program state: cleared with the engines.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pc_q             <= '0;
      fetch_slot_q     <= '0;
      rsp_slot_q       <= '0;
      beats_out_q      <= '0;
      fetch_err_q      <= 1'b0;
      fetch_err_addr_q <= '0;
      half_q           <= 1'b0;
      ld_busy_q        <= 1'b0;
      wld_busy_q       <= 1'b0;
      wld_pc_q         <= '0;
      st_busy_q        <= 1'b0;
      ac_busy_q        <= 1'b0;
      ld_buf_q         <= '0;
      ld_lo_q          <= '0;
      ld_hi_q          <= '0;
      ld_pc_q          <= '0;
      st_buf_q         <= '0;
      st_lo_q          <= '0;
      st_hi_q          <= '0;
      st_pc_q          <= '0;
      ac_acc_lo_q      <= '0;
      ac_acc_hi_q      <= '0;
      ac_bias_q        <= '0;
      ac_has_bias_q    <= 1'b0;
      ac_ub_lo_q       <= '0;
      ac_ub_hi_q       <= '0;
      mm_valid_q       <= '0;
      mm_ub_lo_q       <= '0;
      mm_ub_hi_q       <= '0;
      mm_acc_lo_q      <= '0;
      mm_acc_hi_q      <= '0;
      mm_head_q        <= '0;
      mm_tail_q        <= '0;
      tiles_q          <= '0;
    end else if (state_q == StClear || clear_o) begin
      pc_q             <= '0;
      fetch_slot_q     <= cmd_addr_q[AddrWidth-1:4];
      rsp_slot_q       <= {cmd_addr_q[AddrWidth-1:5], 1'b0};
      beats_out_q      <= '0;
      fetch_err_q      <= 1'b0;
      fetch_err_addr_q <= '0;
      half_q           <= 1'b0;
      ld_busy_q        <= 1'b0;
      wld_busy_q       <= 1'b0;
      st_busy_q        <= 1'b0;
      ac_busy_q        <= 1'b0;
      mm_valid_q       <= '0;
      mm_head_q        <= '0;
      mm_tail_q        <= '0;
      tiles_q          <= '0;
    end else begin
      pc_q             <= pc_d;
      fetch_slot_q     <= fetch_slot_d;
      rsp_slot_q       <= rsp_slot_d;
      beats_out_q      <= beats_out_d;
      fetch_err_q      <= fetch_err_d;
      fetch_err_addr_q <= fetch_err_addr_d;
      half_q           <= half_d;
      ld_busy_q        <= ld_busy_d;
      wld_busy_q       <= wld_busy_d;
      wld_pc_q         <= wld_pc_d;
      st_busy_q        <= st_busy_d;
      ac_busy_q        <= ac_busy_d;
      ld_buf_q         <= ld_buf_d;
      ld_lo_q          <= ld_lo_d;
      ld_hi_q          <= ld_hi_d;
      ld_pc_q          <= ld_pc_d;
      st_buf_q         <= st_buf_d;
      st_lo_q          <= st_lo_d;
      st_hi_q          <= st_hi_d;
      st_pc_q          <= st_pc_d;
      ac_acc_lo_q      <= ac_acc_lo_d;
      ac_acc_hi_q      <= ac_acc_hi_d;
      ac_bias_q        <= ac_bias_d;
      ac_has_bias_q    <= ac_has_bias_d;
      ac_ub_lo_q       <= ac_ub_lo_d;
      ac_ub_hi_q       <= ac_ub_hi_d;
      mm_valid_q       <= mm_valid_d;
      mm_ub_lo_q       <= mm_ub_lo_d;
      mm_ub_hi_q       <= mm_ub_hi_d;
      mm_acc_lo_q      <= mm_acc_lo_d;
      mm_acc_hi_q      <= mm_acc_hi_d;
      mm_head_q        <= mm_head_d;
      mm_tail_q        <= mm_tail_d;
      tiles_q          <= tiles_d;
    end
  end

  // The engines run only while a program does; after an error or an abort they are held in reset
  // while the memory responses still on their way drain.
  assign clear_o       = clear_q;
  assign running_o     = state_q == StRun;
  assign busy_o        = state_q != StIdle;
  assign pc_o          = pc_q;
  assign error_code_o  = err_code_q;
  assign error_pc_o    = err_pc_q;
  assign error_addr_o  = err_addr_q;
  assign stall_dep_o   = state_q == StRun && ins_valid && check_err == mxu_isa_pkg::ErrNone && !dispatch;
  assign stall_fetch_o = state_q == StRun && !ins_valid && pc_q != count_q;
  assign dbg_dispatch_o = dispatch;
  assign dbg_ins_o      = ins;

  logic unused_signals;
  assign unused_signals = ^{ibuf_full, wl_count, overlap_rd_ub, overlap_wr_ub, overlap_rd_acc,
                            overlap_wr_acc, fetch_r_last_i};

endmodule
