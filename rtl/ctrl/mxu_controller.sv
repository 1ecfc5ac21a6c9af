// Controller: fetches the program from host memory, decodes and checks every instruction,
// dispatches it in order to the engine that runs it (DMA load, DMA store, MATMUL, ACTIVATE) as
// soon as it conflicts with nothing still in flight, and reports completion and errors
// (docs/isa.md). Loads of the next tile, the current MATMULs and stores of earlier results
// therefore overlap, as in a decoupled load / compute / store machine.
//
// Four blocks, each with one job, wired here:
//   u_fetch      (mxu_ctrl_fetch)      program -> instruction buffer -> the head instruction
//   u_decode     (mxu_ctrl_decode)     fields, legality, rows read and written, engine commands
//   u_scoreboard (mxu_ctrl_scoreboard) work in flight, conflicts, weight tiles, retirement
//   u_dispatch   (mxu_ctrl_dispatch)   the program state machine: start, dispatch, drain, report
module mxu_controller #(
  localparam int unsigned KWidth = mxu_pkg::KWidth,
  localparam int unsigned NWidth = mxu_pkg::NWidth
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // From and to the CSRs.
  input  mxu_pkg::csr_ctrl_t    csr_i,
  output mxu_pkg::ctrl_csr_t    csr_o,
  input  logic                 mem_idle_i,    // no memory transaction outstanding
  output logic                 clear_o,       // hold the engines in reset
  output logic                 running_o,     // executing a program (memory responses wanted)
  output logic [2:0]           retired_o,     // instructions completed this cycle
  output logic                 stall_dep_o,
  output logic                 stall_fetch_o,
  // Observation only (waveforms, timeline): the instruction dispatched this cycle; its index is
  // csr_o.pc.
  output logic                 dbg_dispatch_o,
  output logic [127:0]         dbg_ins_o,
  // Instruction fetch (the DMA gives it read ID 0).
  output mxu_pkg::mem_rd_req_t fetch_req_o,
  input  mxu_pkg::mem_rd_rsp_t fetch_rsp_i,
  // DMA load engines: unified buffer / accumulators (ld_) and weights (wld_), one command bus.
  output logic                 ld_valid_o,
  input  logic                 ld_ready_i,
  output logic                 wld_valid_o,
  input  logic                 wld_ready_i,
  output mxu_pkg::load_cmd_t   ld_cmd_o,
  input  mxu_pkg::dma_status_t ld_status_i,
  input  mxu_pkg::dma_status_t wld_status_i,
  // DMA store engine.
  output logic                 st_valid_o,
  input  logic                 st_ready_i,
  output mxu_pkg::store_cmd_t  st_cmd_o,
  input  mxu_pkg::dma_status_t st_status_i,
  // Datapath.
  output logic                 wl_valid_o,
  input  logic                 wl_ready_i,
  output logic [KWidth-1:0]    wl_k_rows_o,
  output logic [NWidth-1:0]    wl_n_cols_o,
  output logic                 mm_valid_o,
  input  logic                 mm_ready_i,
  output mxu_pkg::matmul_cmd_t mm_cmd_o,
  input  logic                 mm_done_i,
  output logic                 ac_valid_o,
  input  logic                 ac_ready_i,
  output mxu_pkg::activate_cmd_t ac_cmd_o,
  input  logic                 ac_done_i
);

  mxu_pkg::ctrl_dec_t   dec;
  logic [127:0]         ins;
  logic                 ins_valid, dispatch, restart, run, conflict, fetch_failed;
  logic [mxu_pkg::MemAddrWidth-1:0] cmd_addr, fetch_fail_addr;
  logic [31:0]          count, pc, ld_pc, wld_pc, st_pc;
  logic                 ld_full, wld_full, st_full, ac_busy, mm_full, in_flight;
  logic [2:0]           tiles;

  mxu_ctrl_fetch u_fetch (
    .clk_i,
    .rst_ni,
    .clear_i    (clear_o),
    .restart_i  (restart),
    .run_i      (run),
    .cmd_addr_i (cmd_addr),
    .count_i    (count),
    .dispatch_i (dispatch),
    .fetch_req_o,
    .fetch_rsp_i,
    .ins_o      (ins),
    .ins_valid_o(ins_valid),
    .failed_o   (fetch_failed),
    .fail_addr_o(fetch_fail_addr)
  );

  mxu_ctrl_decode u_decode (
    .ins_i   (ins),
    .tiles_i (tiles),
    .dec_o   (dec),
    .ld_cmd_o,
    .st_cmd_o,
    .mm_cmd_o,
    .ac_cmd_o
  );

  mxu_ctrl_scoreboard #(.MmSlots(mxu_pkg::MmSlots)) u_scoreboard (
    .clk_i,
    .rst_ni,
    .restart_i  (restart),
    .dec_i      (dec),
    .dispatch_i (dispatch),
    .pc_i       (pc),
    .ld_done_i  (ld_status_i.done),
    .wld_done_i (wld_status_i.done),
    .st_done_i  (st_status_i.done),
    .st_release_i(st_status_i.released),
    .mm_done_i,
    .ac_done_i,
    .conflict_o (conflict),
    .ld_skip_i  (ld_status_i.error_skip),
    .wld_skip_i (wld_status_i.error_skip),
    .ld_full_o  (ld_full),
    .wld_full_o (wld_full),
    .st_full_o  (st_full),
    .ac_busy_o  (ac_busy),
    .mm_full_o  (mm_full),
    .in_flight_o(in_flight),
    .tiles_o    (tiles),
    .ld_pc_o    (ld_pc),
    .wld_pc_o   (wld_pc),
    .st_pc_o    (st_pc),
    .retired_o
  );

  mxu_ctrl_dispatch u_dispatch (
    .clk_i,
    .rst_ni,
    .csr_i,
    .csr_o,
    .mem_idle_i,
    .clear_o,
    .restart_o        (restart),
    .run_o            (run),
    .cmd_addr_o       (cmd_addr),
    .count_o          (count),
    .stall_dep_o,
    .stall_fetch_o,
    .ins_valid_i      (ins_valid),
    .dec_i            (dec),
    .wl_rows_i        (ld_cmd_o.rows),
    .wl_lanes_i       (ld_cmd_o.lanes),
    .conflict_i       (conflict),
    .fetch_failed_i   (fetch_failed),
    .fetch_fail_addr_i(fetch_fail_addr),
    .ld_full_i        (ld_full),
    .wld_full_i       (wld_full),
    .st_full_i        (st_full),
    .ac_busy_i        (ac_busy),
    .mm_full_i        (mm_full),
    .in_flight_i      (in_flight),
    .ld_pc_i          (ld_pc),
    .wld_pc_i         (wld_pc),
    .st_pc_i          (st_pc),
    .dispatch_o       (dispatch),
    .pc_o             (pc),
    .ld_valid_o,
    .ld_ready_i,
    .wld_valid_o,
    .wld_ready_i,
    .ld_status_i,
    .wld_status_i,
    .st_valid_o,
    .st_ready_i,
    .st_status_i,
    .mm_valid_o,
    .mm_ready_i,
    .ac_valid_o,
    .ac_ready_i,
    .wl_valid_o,
    .wl_ready_i,
    .wl_k_rows_o,
    .wl_n_cols_o
  );

  assign running_o      = run;
  assign dbg_dispatch_o = dispatch;
  assign dbg_ins_o      = ins;

endmodule
