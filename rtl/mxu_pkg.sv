// Shared configuration and constants of the MXU. Every build parameter of the device lives here;
// the device reports them through its CSRs and software reads them there, never from this file.
//
// A device's own values come as defines (+define+MXU_ARRAY_ROWS=32 ...; cmake/devices.cmake makes
// them from the device list, and the datapath tests, the lint and the dma_pack proof set their
// own), not as -G overrides of mxu_top: Verilator's hierarchical flow hands mxu_top's command line
// to the array row's own verilation, where a -G of mxu_top fails. mxu_top has no parameters: the
// device descriptor below sizes it and every block of it.
`ifndef MXU_ARRAY_ROWS
`define MXU_ARRAY_ROWS 16
`endif
`ifndef MXU_ARRAY_COLS
`define MXU_ARRAY_COLS 16
`endif
`ifndef MXU_UB_DEPTH
`define MXU_UB_DEPTH 8192
`endif
`ifndef MXU_ACC_DEPTH
`define MXU_ACC_DEPTH 1024
`endif
`ifndef MXU_WEIGHT_FIFO_DEPTH
`define MXU_WEIGHT_FIFO_DEPTH (2 * `MXU_ARRAY_ROWS)
`endif
`ifndef MXU_PE_STAGES
`define MXU_PE_STAGES 6
`endif
`ifndef MXU_BUS_BYTES
`define MXU_BUS_BYTES 32
`endif
`ifndef MXU_FLUSH_SUBNORMALS
`define MXU_FLUSH_SUBNORMALS 0
`endif
`ifndef MXU_CLOCK_GATING
`define MXU_CLOCK_GATING 1
`endif

package mxu_pkg;

  // Systolic array geometry: ArrayRows PE rows (the K depth of one weight tile) by ArrayCols PE
  // columns (the N width of one weight tile).
  parameter int unsigned ArrayRows = `MXU_ARRAY_ROWS;
  parameter int unsigned ArrayCols = `MXU_ARRAY_COLS;

  // On-chip memories, in rows.
  //   Unified buffer: bf16 rows of UbLanes lanes (activations in, activation-unit results out).
  //   Accumulators:   fp32 rows of ArrayCols lanes.
  //   Weight FIFO:    bf16 rows of ArrayCols lanes: two full weight tiles.
  parameter int unsigned UbDepth         = `MXU_UB_DEPTH;
  parameter int unsigned AccDepth        = `MXU_ACC_DEPTH;
  // The accumulators are split into AccBanks banks by their top address bits, each its own 1R1W
  // SRAM, so that a store or ACTIVATE reading one half (or a preload writing it) never waits for
  // the array accumulating into the other: the driver alternates output blocks between halves.
  parameter int unsigned AccBanks        = 2;
  parameter int unsigned WeightFifoDepth = `MXU_WEIGHT_FIFO_DEPTH;

  // Host-memory port: data bytes per beat, address bits, bursts in flight per DMA engine: 8, and
  // bus / 32 on ports wider than 256 bytes (16 at 512, 32 at 1,024), so that bursts of at most
  // 4 KiB still cover a memory latency of 100 cycles at one beat per cycle (DmaMaxInFlight in
  // common/device_spec.h, what the model backend takes).
  parameter int unsigned MemBusBytes    = `MXU_BUS_BYTES;
  parameter int unsigned MemAddrWidth   = 48;
  parameter int unsigned MemMaxInFlight = (MemBusBytes / 32 > 8) ? MemBusBytes / 32 : 8;
  parameter int unsigned MemIdWidth     = 2;
  parameter int unsigned MemBusBits     = MemBusBytes * 8;

  // DMA load engines: LOADs in flight per engine (its command queue; the controller's scoreboard
  // tracks as many), and the buffer rows of one transposed block: a transposed segment is a run of
  // up to TransposeRows elements of one host row (one 16-beat burst, 8 x MemBusBytes, at most
  // 2048; one beat's elements fewer when the host rows are not bus aligned, so that it still fits
  // 16 beats),
  // collected in a double-buffered transpose buffer of 2 x TransposeRows x UbLanes bf16 elements.
  parameter int unsigned DmaQueueDepth = 4;
  parameter int unsigned TransposeRows = (8 * MemBusBytes > 2048) ? 2048 : 8 * MemBusBytes;

  // ---- The device descriptor ----
  // Every width of the device's ports follows from the build parameters above, here and nowhere
  // else: the blocks that make up one device (mxu_top and everything below it but the generic
  // primitives: FIFOs, SRAMs, the PE and the array) take their sizes from this package, not from
  // parameters of their own, so a struct that carries a buffer row means the same on both sides
  // of every port. A test that wants another size builds another device (its defines).
  //   UbLanes: a unified-buffer row's bf16 lanes, enough for an activation row (ArrayRows) and a
  //   result row (ArrayCols); KWidth: a weight tile's row count, 0 .. ArrayRows; NWidth: its
  //   column count, 0 .. ArrayCols.
  parameter int unsigned UbLanes      = (ArrayRows > ArrayCols) ? ArrayRows : ArrayCols;
  parameter int unsigned UbAddrWidth  = (UbDepth > 1) ? $clog2(UbDepth) : 1;
  parameter int unsigned AccAddrWidth = (AccDepth > 1) ? $clog2(AccDepth) : 1;
  parameter int unsigned KWidth       = $clog2(ArrayRows + 1);
  parameter int unsigned NWidth       = $clog2(ArrayCols + 1);

  typedef logic [UbAddrWidth-1:0]  ub_addr_t;
  typedef logic [AccAddrWidth-1:0] acc_addr_t;
  typedef logic [UbLanes*16-1:0]   ub_row_t;      // bf16 lanes
  typedef logic [ArrayCols*32-1:0] acc_row_t;     // fp32 (int32) lanes
  typedef logic [ArrayCols*16-1:0] weight_row_t;  // bf16 lanes of one weight-tile row

  // The buffers' DMA side (mxu_dma <-> mxu_datapath): what the load engines write (unified buffer,
  // accumulators, weight FIFO) and what the store engine reads. Each buffer port is granted when
  // the datapath's own user of it is idle; read data comes the cycle after the grant.
  typedef struct packed {
    logic        ub_en;
    ub_addr_t    ub_addr;
    ub_row_t     ub_data;
    logic        acc_en;
    acc_addr_t   acc_addr;
    acc_row_t    acc_data;
    logic        wf_valid;  // a row for the weight FIFO, taken unless wf_full
    weight_row_t wf_data;
  } buf_wr_req_t;

  typedef struct packed {
    logic ub_gnt;
    logic acc_gnt;
    logic wf_full;
  } buf_wr_rsp_t;

  typedef struct packed {
    logic      ub_en;
    ub_addr_t  ub_addr;
    logic      acc_en;
    acc_addr_t acc_addr;
  } buf_rd_req_t;

  typedef struct packed {
    logic     ub_gnt;
    logic     acc_gnt;
    ub_row_t  ub_data;   // the cycle after ub_gnt
    acc_row_t acc_data;  // the cycle after acc_gnt
  } buf_rd_rsp_t;

  // ---- Typed interfaces ----
  // The host-memory port, AXI4-like, as one request and one response struct per direction of
  // each half: the read half (AR, R) and the write half (AW, W, B). A channel's payload is its
  // own struct; valid travels with the payload, ready with the other direction.
  typedef struct packed {
    logic [MemAddrWidth-1:0] addr;
    logic [7:0]              len;   // beats - 1 (INCR)
    logic [MemIdWidth-1:0]   id;
  } mem_ar_t;

  typedef struct packed {
    logic [MemBusBits-1:0] data;
    logic [MemIdWidth-1:0] id;
    logic                  last;
    logic [1:0]            resp;    // 0: OKAY
  } mem_r_t;

  typedef struct packed {
    logic [MemAddrWidth-1:0] addr;
    logic [7:0]              len;   // beats - 1 (INCR)
  } mem_aw_t;

  typedef struct packed {
    logic [MemBusBits-1:0]  data;
    logic [MemBusBytes-1:0] strb;
    logic                   last;
  } mem_w_t;

  typedef struct packed {
    logic [1:0] resp;               // 0: OKAY
  } mem_b_t;

  typedef struct packed {
    logic    ar_valid;
    mem_ar_t ar;
    logic    r_ready;
  } mem_rd_req_t;

  typedef struct packed {
    logic   ar_ready;
    logic   r_valid;
    mem_r_t r;
  } mem_rd_rsp_t;

  typedef struct packed {
    logic    aw_valid;
    mem_aw_t aw;
    logic    w_valid;
    mem_w_t  w;
    logic    b_ready;
  } mem_wr_req_t;

  typedef struct packed {
    logic   aw_ready;
    logic   w_ready;
    logic   b_valid;
    mem_b_t b;
  } mem_wr_rsp_t;

  typedef struct packed {
    mem_rd_req_t rd;
    mem_wr_req_t wr;
  } mem_req_t;

  typedef struct packed {
    mem_rd_rsp_t rd;
    mem_wr_rsp_t wr;
  } mem_rsp_t;

  // Commands from the controller to the engines (fields as in docs/isa.md; an engine takes the
  // low bits it needs). Each travels with a valid beside it and is sampled when valid && ready.
  typedef struct packed {
    logic [1:0]              target;     // BufUb, BufWeights or BufAcc
    logic                    transpose;
    logic                    int8;   // UB / WEIGHTS: int8 host bytes, sign-extended into lanes
    logic [15:0]             rows;
    logic [15:0]             lanes;
    logic [15:0]             buf_addr;
    logic [MemAddrWidth-1:0] host_addr;
    logic [15:0]             stride;     // elements
  } load_cmd_t;

  typedef struct packed {
    logic [1:0]              source;     // BufUb or BufAcc
    logic                    relu;       // ACC only: ReLU on every fp32 (integer: int32) value
    logic                    int8;   // UB: a lane's low byte (int8); ACC: int32 words
    logic [15:0]             rows;
    logic [15:0]             lanes;
    logic [15:0]             buf_addr;
    logic [MemAddrWidth-1:0] host_addr;
    logic [15:0]             stride;     // elements
  } store_cmd_t;

  typedef struct packed {
    logic [15:0] ub_addr;
    logic [15:0] acc_addr;
    logic [15:0] rows;
    logic [15:0] k_rows;
    logic        accumulate;
    logic        new_weights;
    logic        int8;  // int8 x int8 -> int32
  } matmul_cmd_t;

  typedef struct packed {
    logic [15:0] acc_addr;
    logic [15:0] ub_addr;
    logic [15:0] rows;
    logic        relu;
    logic        bias_en;
    logic [15:0] bias_addr;
    logic        int8;    // requantize int32 -> int8 (docs/numerics.md)
    logic [15:0] quant_addr;  // integer: the quantization row
    logic [7:0]  zero_point;  // integer: the output zero point (int8)
  } activate_cmd_t;

  // A load engine's command as its consumer sees it (the head of its command queue).
  typedef struct packed {
    logic [1:0]  target;
    logic        transpose;
    logic        int8;    // UB / WEIGHTS: one byte per element, sign-extended
    logic        linear;      // plain rows back to back in host memory, any length and alignment
    logic        short_blk;   // transposed, host rows not bus aligned: blocks one beat shorter
    logic        broadcast;   // plain with stride 0: one row read, written `rows` times
    logic [17:0] row_bytes;   // linear: a row's bytes
    logic [9:0]  first_off;   // linear: the first row's byte offset in the first beat
    logic [15:0] rows;
    logic [15:0] lanes;
    logic [15:0] buf_addr;
  } dma_load_q_t;

  // The DMA load engine's geometry (mxu_dma_load and its blocks). A plain segment is one buffer
  // row (ub_lanes bf16 or cols fp32 elements) at any byte offset in its first beat; a transposed
  // one is trows elements of a bus-aligned host row, or dma_short_rows(trows) at any even byte
  // offset (one beat's elements fewer, so that a segment needs no more beats).
  function automatic int unsigned dma_seg_bytes_max(int unsigned ub_lanes, int unsigned cols);
    dma_seg_bytes_max = (ub_lanes * 2 > cols * 4) ? ub_lanes * 2 : cols * 4;
  endfunction

  function automatic int unsigned dma_seg_beats_max(int unsigned ub_lanes, int unsigned cols);
    dma_seg_beats_max = (dma_seg_bytes_max(ub_lanes, cols) + 2 * MemBusBytes - 2) / MemBusBytes;
  endfunction

  function automatic int unsigned dma_short_rows(int unsigned trows);
    dma_short_rows = (trows > MemBusBytes) ? trows - MemBusBytes / 2 : trows;
  endfunction

  // Beats of a transposed segment: a half of the transpose buffer holds one a lane.
  function automatic int unsigned dma_tseg_words(int unsigned trows);
    int unsigned aligned, unaligned;
    aligned   = (2 * trows + MemBusBytes - 1) / MemBusBytes;
    unaligned = (2 * dma_short_rows(trows) + 2 * MemBusBytes - 3) / MemBusBytes;
    dma_tseg_words = (aligned > unaligned) ? aligned : unaligned;
  endfunction

  // Bits of a count of a segment's beats, plain or transposed.
  function automatic int unsigned dma_beats_width(int unsigned ub_lanes, int unsigned cols,
                                                  int unsigned trows);
    int unsigned plain, transposed;
    plain      = dma_seg_beats_max(ub_lanes, cols);
    transposed = dma_tseg_words(trows);
    dma_beats_width = $clog2(((plain > transposed) ? plain : transposed) + 1);
  endfunction

  // What a DMA engine reports back: an instruction done (pulse, in command order), the first
  // error (pulse), the address of the burst it belongs to and how many older commands of the same
  // engine are still completing ahead of the failing one (the scoreboard names its instruction).
  // The store engine also says when a STORE has read all of its buffer rows: from then on they
  // may be overwritten, while its writes still wait for their responses.
  typedef struct packed {
    logic                    done;
    logic                    error;
    logic [MemAddrWidth-1:0] error_addr;
    logic [1:0]              error_skip;  // earlier commands of the engine still completing
    logic                    released;    // STORE: every buffer row read (pulse); loads: 0
  } dma_status_t;

  // Which of the datapath's gated clocks run in a cycle (the clock counters of mxu_top): how
  // many columns' clocks run in column 0's time (column c's in that cycle: c cycles later),
  // the accumulators', the activation unit's.
  typedef struct packed {
    logic [NWidth-1:0] columns;
    logic acc;
    logic activate;
  } datapath_clocks_t;

  // Register port.
  typedef struct packed {
    logic        valid;
    logic        write;
    logic [11:0] addr;
    logic [31:0] wdata;
  } reg_req_t;

  typedef struct packed {
    logic        ready;
    logic        valid;
    logic [31:0] rdata;
    logic        error;
  } reg_rsp_t;

  // CSRs -> controller: run a program, or abandon it.
  typedef struct packed {
    logic                    start;      // pulse
    logic                    soft_reset; // pulse: abandon the program
    logic [MemAddrWidth-1:0] cmd_addr;
    logic [31:0]             cmd_count;
  } csr_ctrl_t;

  // Controller -> CSRs: status.
  typedef struct packed {
    logic                    busy;
    logic                    done;       // pulse: HALT retired, nothing outstanding
    logic                    error;      // pulse: the first error, nothing outstanding
    logic [3:0]              error_code;
    logic [31:0]             error_pc;
    logic [MemAddrWidth-1:0] error_addr;
    logic [31:0]             pc;
  } ctrl_csr_t;

  // A buffer row or the end of a row range [lo, hi): the instruction's 16-bit buffer-address
  // fields and a carry, so that lo + rows never wraps (mxu_ctrl_decode checks the width against
  // mxu_isa_pkg).
  parameter int unsigned RowBits = 17;
  typedef logic [RowBits-1:0] row_t;

  // The instruction at the head of the controller's buffer, decoded (mxu_ctrl_decode): its class,
  // its legality and the buffer rows it reads and writes, for the scoreboard's conflict checks.
  // err holds an mxu_isa_pkg::err_e and buf_sel an mxu_isa_pkg::buf_e: Yosys 0.23 reads no type
  // of another package inside a package, so the fields are plain logic of the enums' widths.
  typedef struct packed {
    logic        is_load;      // LOAD (any target)
    logic        is_wload;     // LOAD WEIGHTS
    logic        is_store;
    logic        is_mm;
    logic        is_ac;
    logic        is_sync;
    logic        is_halt;
    logic        new_weights;  // a MATMUL that claims a loaded weight tile
    logic [3:0]  err;          // ErrNone if the instruction is legal
    logic [1:0]  buf_sel;      // LOAD / STORE: the buffer, rows [buf_lo, buf_hi)
    logic [15:0] rows;         // every range below is [lo, lo + rows): hi, but early (the
                               // scoreboard compares lo + rows without waiting for the add)
    row_t        buf_lo;
    row_t        buf_hi;
    logic        r_ub;         // reads unified-buffer rows [r_ub_lo, r_ub_hi)
    row_t        r_ub_lo;
    row_t        r_ub_hi;
    logic        w_ub;         // writes unified-buffer rows
    row_t        w_ub_lo;
    row_t        w_ub_hi;
    logic        r_acc;        // reads accumulator rows
    row_t        r_acc_lo;
    row_t        r_acc_hi;
    logic        w_acc;        // writes accumulator rows
    row_t        w_acc_lo;
    row_t        w_acc_hi;
    logic        r_bias;       // ACTIVATE: reads the bias row too
    row_t        bias_row;
    logic        r_quant;      // integer ACTIVATE: reads the quantization row too
    row_t        quant_row;
  } ctrl_dec_t;

  // ---- State machines ----
  // The controller's program FSM.
  typedef enum logic [2:0] {
    CtrlIdle, CtrlClear, CtrlRun, CtrlDrainDone, CtrlDrainError, CtrlDrainAbort
  } ctrl_state_e;

  // Subnormal handling of every arithmetic unit (docs/numerics.md):
  //   0 = IEEE: subnormal inputs and results are kept (host CPU default mode);
  //   1 = flush: subnormal inputs read as signed zero, subnormal results become signed zero
  //       (host CPU with flush-to-zero and denormals-are-zero set).
  parameter bit FlushSubnormals = 1'(`MXU_FLUSH_SUBNORMALS);

  // Clock gating (docs/architecture.md, "Clock gating"): 1 = every block that can rest runs on a
  // clock of its own, gated off (mxu_icg) in the cycles it has nothing to do; 0 = one free clock
  // (the design before gating, which the formal equivalence check compares against). Results,
  // cycles and counters are the same either way.
  parameter bit ClockGating = 1'(`MXU_CLOCK_GATING);

  // The processing element's pipeline (docs/architecture.md, "The pipelined PE"): PeStages
  // register stages from an activation entering a PE to its partial sum leaving it. The multiply
  // and the add are cut at fixed points; each depth takes the set of cuts that makes its longest
  // stage shortest (scripts/hw_cost.sh --pe-stages measures them). Cuts before the add (in the
  // multiplier, and between multiplier and adder) delay a product but not the partial-sum chain;
  // cuts in the adder lengthen the chain's step from one PE row to the next.
  parameter int unsigned PeStages    = `MXU_PE_STAGES;
  parameter int unsigned PeMaxStages = 7;

  // Multiplier cuts {after normalize, after product}.
  function automatic logic [1:0] pe_mul_cuts(int unsigned stages);
    unique case (stages)
      5, 6:    pe_mul_cuts = 2'b10;
      7:       pe_mul_cuts = 2'b11;
      default: pe_mul_cuts = 2'b00;
    endcase
  endfunction

  // The register between the multiplier and the adder.
  function automatic logic pe_product_cut(int unsigned stages);
    pe_product_cut = stages >= 2;
  endfunction

  // Adder cuts {after normalize, after sum, after align}.
  function automatic logic [2:0] pe_add_cuts(int unsigned stages);
    unique case (stages)
      3:       pe_add_cuts = 3'b010;
      4, 5:    pe_add_cuts = 3'b011;
      6, 7:    pe_add_cuts = 3'b111;
      default: pe_add_cuts = 3'b000;
    endcase
  endfunction

  // Cycles from an activation entering a PE to its product at the adder (the activation register
  // the multiplier reads, then the multiplier's cuts and the product register), and from a partial
  // sum entering a PE to the PE's partial sum out: the array skews row r by r x pe_add_cycles.
  function automatic int unsigned pe_mul_cycles(int unsigned stages);
    logic [1:0] cuts;
    cuts = pe_mul_cuts(stages);
    pe_mul_cycles = 1 + 32'(cuts[0]) + 32'(cuts[1]) + 32'(pe_product_cut(stages));
  endfunction

  function automatic int unsigned pe_add_cycles(int unsigned stages);
    logic [2:0] cuts;
    cuts = pe_add_cuts(stages);
    pe_add_cycles = 1 + 32'(cuts[0]) + 32'(cuts[1]) + 32'(cuts[2]);
  endfunction

  // Cycles a weight bank must see no new activation before a commit may overwrite it, for rows
  // that use its first `rows` PE rows: the last activation on it reaches PE row rows - 1
  // (rows - 1) x pe_add_cycles cycles after entering the array and is multiplied a cycle later,
  // from the PE's activation register; the commit lands at the end of its cycle.
  function automatic int unsigned pe_commit_gap(int unsigned rows, int unsigned stages);
    pe_commit_gap = (rows - 1) * pe_add_cycles(stages) + 2;
  endfunction

  // The accumulators' fp32 add, cut after each of its steps like the deepest PE's (align | sum |
  // normalize | round): a result row is written acc_add_cycles() cycles after it reaches the
  // accumulators (its read, then the add's three cuts), and a row bound for the same accumulator
  // row must arrive no sooner (mxu_matmul_seq holds it back).
  parameter logic [2:0] AccAddCuts = 3'b111;

  // The activation unit's register stages from a row in to its result out, in both modes.
  parameter int unsigned ActCycles = 4;

  function automatic int unsigned acc_add_cycles();
    acc_add_cycles = 1 + 32'(AccAddCuts[0]) + 32'(AccAddCuts[1]) + 32'(AccAddCuts[2]);
  endfunction

  // MATMULs the controller keeps in flight (the scoreboard's slots, mxu_ctrl_scoreboard): enough
  // that back-to-back products of 40 cycles each (a small product's weight tile, three in flight
  // at a memory latency of 100, takes about that) cover the array's latency (a MATMUL stays in
  // flight until its last result row is written), at least 4, a power of two. 4 on the default
  // 16 x 16 device; 32 on 128 x 128 (issue 66: with 4, a 10-row product there was held to one a
  // quarter of the latency). MatmulSlots in common/pe_pipeline.h is the same rule.
  function automatic int unsigned mm_slots(int unsigned rows, int unsigned cols,
                                           int unsigned stages);
    int unsigned latency;
    latency  = rows * pe_add_cycles(stages) + pe_mul_cycles(stages) + cols - 1;
    mm_slots = 4;
    while (mm_slots * 40 < latency) mm_slots = mm_slots * 2;
  endfunction
  parameter int unsigned MmSlots = mm_slots(ArrayRows, ArrayCols, PeStages);

  // What a pipelined arithmetic unit carries between its stages besides the value: the result's
  // class, decided at the first stage (mxu_bf16_mul, mxu_fp32_add).
  typedef enum logic [1:0] {FpFinite, FpZero, FpInf, FpNan} fp_class_e;

  // Between the multiplier's stages: the exact significand product ...
  typedef struct packed {
    fp_class_e   cls;
    logic        sign;
    logic [8:0]  exp_sum;  // a_exp + b_exp
    logic [15:0] sig;
  } mul_product_t;

  // ... then the product normalized: fp32_norm_t.

  // Between the adder's stages: the operands aligned ...
  typedef struct packed {
    fp_class_e   cls;       // FpZero: both operands zero (sign below); FpFinite otherwise
    logic        sign;      // the result's sign: Inf's, the larger operand's, or -0 + -0
    logic [7:0]  exp;       // the larger operand's exponent
    logic        subtract;
    logic [27:0] sig_big;   // significands with a carry bit above, guard, round, sticky below
    logic [27:0] sig_small;
  } add_align_t;

  // ... their sum and its leading zeros ...
  typedef struct packed {
    fp_class_e   cls;
    logic        sign;
    logic [7:0]  exp;
    logic [27:0] sig;
    logic [4:0]  lead_zeros;
  } add_sum_t;

  // ... then the sum normalized: fp32_norm_t.

  // Either unit's value normalized, what its last step (mxu_fp32_finish) rounds to binary32: the
  // significand's leading one at bit 27, 24 bits, a guard bit and round/sticky bits below (zeros
  // where the product has no more), the exponent unbounded and biased.
  typedef struct packed {
    fp_class_e         cls;
    logic              sign;
    logic signed [9:0] exp;
    logic [27:0]       sig;
  } fp32_norm_t;

  // Canonical quiet NaNs: every NaN a unit produces has exactly these bits.
  parameter logic [31:0] Fp32CanonicalNan = 32'h7FC0_0000;
  parameter logic [15:0] Bf16CanonicalNan = 16'h7FC0;

  // The instruction set, error codes, CSR map and performance counters: package mxu_isa_pkg
  // (rtl/mxu_isa_pkg.sv, generated from common/isa.toml by scripts/gen_isa.py).

endpackage
