// Controller, dispatch: the program state machine. It starts a program on the CSRs' doorbell,
// hands the decoded head instruction to its engine when it is legal, conflicts with nothing in
// flight and its engine can take it (a load engine: while its queue has room), and stops on the first error (an illegal instruction, a memory
// error of an engine or of the fetch, running past the program's end). After HALT, an error or
// a soft reset it holds the engines in reset (clear_o, from a flop, so the reset is glitch-free)
// until every memory transaction is back, and only then reports done or the error.
// LOAD WEIGHTS commands wait in a small queue for the datapath's shadow registers.
`include "mxu_assert.svh"

module mxu_ctrl_dispatch #(
  localparam int unsigned AddrWidth = mxu_pkg::MemAddrWidth,
  localparam int unsigned KWidth    = mxu_pkg::KWidth,
  localparam int unsigned NWidth    = mxu_pkg::NWidth
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  mxu_pkg::csr_ctrl_t   csr_i,
  output mxu_pkg::ctrl_csr_t   csr_o,
  input  logic                 mem_idle_i,    // no memory transaction outstanding
  output logic                 clear_o,       // hold the engines in reset
  output logic                 restart_o,     // per-program state back to its start
  output logic                 run_o,         // executing a program
  output logic [AddrWidth-1:0] cmd_addr_o,
  output logic [31:0]          count_o,
  output logic                 stall_dep_o,
  output logic                 stall_fetch_o,
  // The head instruction, decoded, and what stands in its way.
  input  logic                 ins_valid_i,
  input  mxu_pkg::ctrl_dec_t   dec_i,
  input  logic [15:0]          wl_rows_i,     // LOAD WEIGHTS: rows of the tile
  input  logic [15:0]          wl_lanes_i,    // ... and its columns
  input  logic                 conflict_i,
  input  logic                 fetch_failed_i,
  input  logic [AddrWidth-1:0] fetch_fail_addr_i,
  input  logic                 ld_full_i,     // every LOAD slot of the engine taken
  input  logic                 wld_full_i,
  input  logic                 st_full_i,  // no room for another STORE
  input  logic                 ac_busy_i,
  input  logic                 mm_full_i,
  input  logic                 in_flight_i,
  input  logic [31:0]          ld_pc_i,
  input  logic [31:0]          wld_pc_i,
  input  logic [31:0]          st_pc_i,
  output logic                 dispatch_o,
  output logic [31:0]          pc_o,
  // Engines.
  output logic                 ld_valid_o,
  input  logic                 ld_ready_i,
  output logic                 wld_valid_o,
  input  logic                 wld_ready_i,
  input  mxu_pkg::dma_status_t ld_status_i,
  input  mxu_pkg::dma_status_t wld_status_i,
  output logic                 st_valid_o,
  input  logic                 st_ready_i,
  input  mxu_pkg::dma_status_t st_status_i,
  output logic                 mm_valid_o,
  input  logic                 mm_ready_i,
  output logic                 ac_valid_o,
  input  logic                 ac_ready_i,
  output logic                 wl_valid_o,
  input  logic                 wl_ready_i,
  output logic [KWidth-1:0]    wl_k_rows_o,
  output logic [NWidth-1:0]    wl_n_cols_o
);

  mxu_pkg::ctrl_state_e state_d, state_q;
  logic                 clear_d, clear_q;  // a flop, not a decode: it drives the engines' reset
  logic                 halt;       // a HALT is dispatched: the program ends
  logic [AddrWidth-1:0] cmd_addr_d, cmd_addr_q;
  logic [31:0]          count_d, count_q;
  logic [31:0]          pc_d, pc_q;  // instructions dispatched
  logic [3:0]           err_code_d, err_code_q;
  logic [31:0]          err_pc_d, err_pc_q;
  logic [AddrWidth-1:0] err_addr_d, err_addr_q;
  logic                 structural, dispatch, done, error, run;
  logic                 wl_push, wl_full, wl_empty;
  logic [KWidth-1:0]    wl_head;
  logic [NWidth-1:0]    wl_head_cols;
  logic [$clog2(mxu_pkg::WeightLoadQueueDepth + 1)-1:0] wl_count;

  always_comb begin
    run        = state_q == mxu_pkg::CtrlRun;
    structural = (dec_i.is_load && !dec_i.is_wload && (!ld_ready_i || ld_full_i)) ||
                 (dec_i.is_wload && (!wld_ready_i || wld_full_i || wl_full)) ||
                 (dec_i.is_store && (!st_ready_i || st_full_i)) ||
                 (dec_i.is_mm && (!mm_ready_i || mm_full_i)) ||
                 (dec_i.is_ac && (!ac_ready_i || ac_busy_i)) ||
                 ((dec_i.is_sync || dec_i.is_halt) && in_flight_i);
    dispatch   = run && ins_valid_i && dec_i.err == mxu_isa_pkg::ErrNone && !conflict_i &&
                 !structural;
    // Engine commands (valid only in the dispatch cycle).
    ld_valid_o  = dispatch && dec_i.is_load && !dec_i.is_wload;
    wld_valid_o = dispatch && dec_i.is_wload;
    st_valid_o  = dispatch && dec_i.is_store;
    mm_valid_o  = dispatch && dec_i.is_mm;
    ac_valid_o  = dispatch && dec_i.is_ac;
    wl_push     = dispatch && dec_i.is_wload;
    pc_d        = dispatch ? pc_q + 1'b1 : pc_q;
  end

  // ----- The program.
  always_comb begin
    state_d      = state_q;
    cmd_addr_d   = cmd_addr_q;
    count_d      = count_q;
    err_code_d   = err_code_q;
    err_pc_d     = err_pc_q;
    err_addr_d   = err_addr_q;
    done         = 1'b0;
    error        = 1'b0;
    unique case (state_q)
      mxu_pkg::CtrlIdle: begin
        if (csr_i.start) begin
          state_d    = mxu_pkg::CtrlClear;
          cmd_addr_d = csr_i.cmd_addr;
          count_d    = csr_i.cmd_count;
          err_code_d = mxu_isa_pkg::ErrNone;
          err_pc_d   = '0;
          err_addr_d = '0;
        end
      end
      mxu_pkg::CtrlClear: begin
        // One cycle with the engines in reset: every program starts from empty queues.
        state_d = mxu_pkg::CtrlRun;
        if (cmd_addr_q[3:0] != '0) begin
          state_d = mxu_pkg::CtrlDrainError; err_code_d = mxu_isa_pkg::ErrMisaligned;
          err_addr_d = cmd_addr_q;
        end else if (count_q == '0) begin
          state_d = mxu_pkg::CtrlDrainError; err_code_d = mxu_isa_pkg::ErrCmdOverrun;
        end
      end
      mxu_pkg::CtrlRun: begin
        if (ld_status_i.error) begin
          state_d = mxu_pkg::CtrlDrainError; err_code_d = mxu_isa_pkg::ErrMemRead;
          err_pc_d = ld_pc_i; err_addr_d = ld_status_i.error_addr;
        end else if (wld_status_i.error) begin
          state_d = mxu_pkg::CtrlDrainError; err_code_d = mxu_isa_pkg::ErrMemRead;
          err_pc_d = wld_pc_i; err_addr_d = wld_status_i.error_addr;
        end else if (st_status_i.error) begin
          state_d = mxu_pkg::CtrlDrainError; err_code_d = mxu_isa_pkg::ErrMemWrite;
          err_pc_d = st_pc_i; err_addr_d = st_status_i.error_addr;
        end else if (ins_valid_i && dec_i.err != mxu_isa_pkg::ErrNone) begin
          state_d = mxu_pkg::CtrlDrainError; err_code_d = dec_i.err; err_pc_d = pc_q;
        end else if (pc_q == count_q && !ins_valid_i) begin
          state_d = mxu_pkg::CtrlDrainError; err_code_d = mxu_isa_pkg::ErrCmdOverrun; err_pc_d = pc_q;
        end else if (fetch_failed_i) begin
          state_d = mxu_pkg::CtrlDrainError; err_code_d = mxu_isa_pkg::ErrMemRead; err_pc_d = pc_q;
          err_addr_d = fetch_fail_addr_i;
        end
      end
      mxu_pkg::CtrlDrainDone: begin
        if (mem_idle_i) begin
          state_d = mxu_pkg::CtrlIdle;
          done    = 1'b1;
        end
      end
      mxu_pkg::CtrlDrainError: begin
        if (mem_idle_i) begin
          state_d = mxu_pkg::CtrlIdle;
          error   = 1'b1;
        end
      end
      mxu_pkg::CtrlDrainAbort: begin
        if (mem_idle_i) state_d = mxu_pkg::CtrlIdle;
      end
      default: state_d = mxu_pkg::CtrlIdle;
    endcase
    // A soft reset abandons the program silently (no done, no error).
    if (csr_i.soft_reset) begin
      state_d = (state_q == mxu_pkg::CtrlIdle) ? mxu_pkg::CtrlIdle : mxu_pkg::CtrlDrainAbort;
    end
    // A dispatched HALT leaves CtrlRun for CtrlDrainDone unless an error or a soft reset above
    // came first (the overrun and fetch-failure exits need an empty head: never beside it).
    // Decided last, so that dispatch (late: the scoreboard's compares) passes one mux, not the
    // state machine's priority chain.
    halt    = dispatch && dec_i.is_halt && !ld_status_i.error && !wld_status_i.error &&
              !st_status_i.error && !csr_i.soft_reset;
    clear_d = halt || state_d != mxu_pkg::CtrlRun;
    if (halt) state_d = mxu_pkg::CtrlDrainDone;
  end

  // LOAD WEIGHTS commands wait here for the shadow registers (one per LOAD WEIGHTS).
  mxu_sync_fifo #(.Width(NWidth + KWidth), .Depth(mxu_pkg::WeightLoadQueueDepth)) u_wloads (
    .clk_i,
    .rst_ni (rst_ni && !clear_o),
    .push_i (wl_push),
    .wdata_i({NWidth'(wl_lanes_i), KWidth'(wl_rows_i)}),
    .full_o (wl_full),
    .pop_i  (wl_valid_o && wl_ready_i),
    .rdata_o({wl_head_cols, wl_head}),
    .empty_o(wl_empty),
    .count_o(wl_count)
  );
  assign wl_valid_o  = !wl_empty;
  assign wl_k_rows_o = wl_head;
  assign wl_n_cols_o = wl_head_cols;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= mxu_pkg::CtrlIdle;
      clear_q    <= 1'b1;
      cmd_addr_q <= '0;
      count_q    <= '0;
      err_code_q <= '0;
      err_pc_q   <= '0;
      err_addr_q <= '0;
    end else begin
      state_q    <= state_d;
      clear_q    <= clear_d;
      cmd_addr_q <= cmd_addr_d;
      count_q    <= count_d;
      err_code_q <= err_code_d;
      err_pc_q   <= err_pc_d;
      err_addr_q <= err_addr_d;
    end
  end

  // Per-program state: cleared with the engines.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pc_q <= '0;
    end else if (restart_o) begin
      pc_q <= '0;
    end else begin
      pc_q <= pc_d;
    end
  end

  always_comb begin
    csr_o.busy       = state_q != mxu_pkg::CtrlIdle;
    csr_o.done       = done;
    csr_o.error      = error;
    csr_o.error_code = err_code_q;
    csr_o.error_pc   = err_pc_q;
    csr_o.error_addr = err_addr_q;
    csr_o.pc         = pc_q;
  end

  // The engines run only while a program does; after an error or an abort they are held in reset
  // while the memory responses still on their way drain.
  assign clear_o       = clear_q;
  assign restart_o     = state_q == mxu_pkg::CtrlClear || clear_q;
  assign run_o         = run;
  assign cmd_addr_o    = cmd_addr_q;
  assign count_o       = count_q;
  assign dispatch_o    = dispatch;
  assign pc_o          = pc_q;
  assign stall_dep_o   = run && ins_valid_i && dec_i.err == mxu_isa_pkg::ErrNone && !dispatch;
  assign stall_fetch_o = run && !ins_valid_i && pc_q != count_q;

  // The state is always one of the enum's; at most one engine gets a command per cycle; a
  // command goes only to an engine that is ready for it.
  `MXU_ASSERT(StateLegal, state_q inside {mxu_pkg::CtrlIdle, mxu_pkg::CtrlClear, mxu_pkg::CtrlRun,
              mxu_pkg::CtrlDrainDone, mxu_pkg::CtrlDrainError, mxu_pkg::CtrlDrainAbort},
              clk_i, rst_ni)
  `MXU_ASSERT_ONEHOT0(OneCommand, {ld_valid_o, wld_valid_o, st_valid_o, mm_valid_o, ac_valid_o},
                      clk_i, rst_ni)
  `MXU_ASSERT_NEVER(LdNotReady, ld_valid_o && !ld_ready_i, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(WldNotReady, wld_valid_o && !wld_ready_i, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(StNotReady, st_valid_o && !st_ready_i, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(MmNotReady, mm_valid_o && !mm_ready_i, clk_i, rst_ni)
  `MXU_ASSERT_NEVER(AcNotReady, ac_valid_o && !ac_ready_i, clk_i, rst_ni)
  // Engines are held in reset whenever no program runs.
  `MXU_ASSERT(ClearUnlessRun, (state_q != mxu_pkg::CtrlRun) |-> clear_q, clk_i, rst_ni)

  // FSM coverage (scripts/coverage.sh reads FsmState_* and FsmArc_*): every state, and every
  // arc of the state machine above; ArcKnown keeps the list complete (an arc added above without
  // its cover here stops the simulations).
  `MXU_COVER(FsmState_Idle, state_q == mxu_pkg::CtrlIdle, clk_i, rst_ni)
  `MXU_COVER(FsmState_Clear, state_q == mxu_pkg::CtrlClear, clk_i, rst_ni)
  `MXU_COVER(FsmState_Run, state_q == mxu_pkg::CtrlRun, clk_i, rst_ni)
  `MXU_COVER(FsmState_DrainDone, state_q == mxu_pkg::CtrlDrainDone, clk_i, rst_ni)
  `MXU_COVER(FsmState_DrainError, state_q == mxu_pkg::CtrlDrainError, clk_i, rst_ni)
  `MXU_COVER(FsmState_DrainAbort, state_q == mxu_pkg::CtrlDrainAbort, clk_i, rst_ni)
  // start
  `MXU_COVER(FsmArc_Idle_Clear,
             {state_q, state_d} == {mxu_pkg::CtrlIdle, mxu_pkg::CtrlClear}, clk_i, rst_ni)
  // the program's address and count are legal
  `MXU_COVER(FsmArc_Clear_Run,
             {state_q, state_d} == {mxu_pkg::CtrlClear, mxu_pkg::CtrlRun}, clk_i, rst_ni)
  // a misaligned command address or a zero count
  `MXU_COVER(FsmArc_Clear_DrainError,
             {state_q, state_d} == {mxu_pkg::CtrlClear, mxu_pkg::CtrlDrainError}, clk_i, rst_ni)
  // a soft reset in the clear cycle
  `MXU_COVER(FsmArc_Clear_DrainAbort,
             {state_q, state_d} == {mxu_pkg::CtrlClear, mxu_pkg::CtrlDrainAbort}, clk_i, rst_ni)
  // HALT dispatched
  `MXU_COVER(FsmArc_Run_DrainDone,
             {state_q, state_d} == {mxu_pkg::CtrlRun, mxu_pkg::CtrlDrainDone}, clk_i, rst_ni)
  // an error
  `MXU_COVER(FsmArc_Run_DrainError,
             {state_q, state_d} == {mxu_pkg::CtrlRun, mxu_pkg::CtrlDrainError}, clk_i, rst_ni)
  // a soft reset
  `MXU_COVER(FsmArc_Run_DrainAbort,
             {state_q, state_d} == {mxu_pkg::CtrlRun, mxu_pkg::CtrlDrainAbort}, clk_i, rst_ni)
  // memory idle: done
  `MXU_COVER(FsmArc_DrainDone_Idle,
             {state_q, state_d} == {mxu_pkg::CtrlDrainDone, mxu_pkg::CtrlIdle}, clk_i, rst_ni)
  // a soft reset while draining
  `MXU_COVER(FsmArc_DrainDone_DrainAbort,
             {state_q, state_d} == {mxu_pkg::CtrlDrainDone, mxu_pkg::CtrlDrainAbort}, clk_i, rst_ni)
  // memory idle: error
  `MXU_COVER(FsmArc_DrainError_Idle,
             {state_q, state_d} == {mxu_pkg::CtrlDrainError, mxu_pkg::CtrlIdle}, clk_i, rst_ni)
  // a soft reset while draining
  `MXU_COVER(FsmArc_DrainError_DrainAbort,
             {state_q, state_d} == {mxu_pkg::CtrlDrainError, mxu_pkg::CtrlDrainAbort},
             clk_i, rst_ni)
  // memory idle
  `MXU_COVER(FsmArc_DrainAbort_Idle,
             {state_q, state_d} == {mxu_pkg::CtrlDrainAbort, mxu_pkg::CtrlIdle}, clk_i, rst_ni)
  `MXU_ASSERT(ArcKnown, state_d == state_q || {state_q, state_d} inside {
                {mxu_pkg::CtrlIdle, mxu_pkg::CtrlClear}, {mxu_pkg::CtrlClear, mxu_pkg::CtrlRun},
                {mxu_pkg::CtrlClear, mxu_pkg::CtrlDrainError},
                {mxu_pkg::CtrlClear, mxu_pkg::CtrlDrainAbort},
                {mxu_pkg::CtrlRun, mxu_pkg::CtrlDrainDone},
                {mxu_pkg::CtrlRun, mxu_pkg::CtrlDrainError},
                {mxu_pkg::CtrlRun, mxu_pkg::CtrlDrainAbort},
                {mxu_pkg::CtrlDrainDone, mxu_pkg::CtrlIdle},
                {mxu_pkg::CtrlDrainDone, mxu_pkg::CtrlDrainAbort},
                {mxu_pkg::CtrlDrainError, mxu_pkg::CtrlIdle},
                {mxu_pkg::CtrlDrainError, mxu_pkg::CtrlDrainAbort},
                {mxu_pkg::CtrlDrainAbort, mxu_pkg::CtrlIdle}}, clk_i, rst_ni)

  logic unused_signals;
  assign unused_signals = ^{wl_count, dec_i, wl_rows_i, wl_lanes_i, ld_status_i, wld_status_i, st_status_i};

endmodule
