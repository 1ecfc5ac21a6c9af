// Shared configuration and constants of the MXU. Every build parameter of the device lives here;
// the device reports them through its CSRs and software reads them there, never from this file.
package mxu_pkg;

  // Systolic array geometry: ArrayRows PE rows (the K depth of one weight tile) by ArrayCols PE
  // columns (the N width of one weight tile).
  parameter int unsigned ArrayRows = 16;
  parameter int unsigned ArrayCols = 16;

  // On-chip memories, in rows.
  //   Unified buffer: bf16 rows of UbLanes lanes (activations in, activation-unit results out).
  //   Accumulators:   fp32 rows of ArrayCols lanes.
  //   Weight FIFO:    bf16 rows of ArrayCols lanes: two full weight tiles.
  parameter int unsigned UbDepth         = 2048;
  parameter int unsigned AccDepth        = 1024;
  parameter int unsigned WeightFifoDepth = 2 * ArrayRows;

  // Host-memory port: data bytes per beat, address bits, read bursts in flight.
  parameter int unsigned MemBusBytes    = 32;
  parameter int unsigned MemAddrWidth   = 48;
  parameter int unsigned MemMaxInFlight = 8;

  // Subnormal handling of every arithmetic unit (docs/numerics.md):
  //   0 = IEEE: subnormal inputs and results are kept (host CPU default mode);
  //   1 = flush: subnormal inputs read as signed zero, subnormal results become signed zero
  //       (host CPU with flush-to-zero and denormals-are-zero set).
  parameter bit FlushSubnormals = 1'b0;

  // Canonical quiet NaNs: every NaN a unit produces has exactly these bits.
  parameter logic [31:0] Fp32CanonicalNan = 32'h7FC0_0000;
  parameter logic [15:0] Bf16CanonicalNan = 16'h7FC0;

  // ---- Instruction set (docs/isa.md) ----
  parameter logic [7:0] OpLoad     = 8'h01;
  parameter logic [7:0] OpStore    = 8'h02;
  parameter logic [7:0] OpMatmul   = 8'h10;
  parameter logic [7:0] OpActivate = 8'h20;
  parameter logic [7:0] OpSync     = 8'h30;
  parameter logic [7:0] OpHalt     = 8'h3F;

  parameter logic [1:0] BufUb      = 2'd0;
  parameter logic [1:0] BufWeights = 2'd1;
  parameter logic [1:0] BufAcc     = 2'd2;

  // Error codes (CSR ERROR_CODE).
  parameter logic [3:0] ErrNone          = 4'd0;
  parameter logic [3:0] ErrIllegalOpcode = 4'd1;
  parameter logic [3:0] ErrIllegalField  = 4'd2;
  parameter logic [3:0] ErrUbRange       = 4'd3;
  parameter logic [3:0] ErrAccRange      = 4'd4;
  parameter logic [3:0] ErrMisaligned    = 4'd5;
  parameter logic [3:0] ErrMemRead       = 4'd6;
  parameter logic [3:0] ErrMemWrite      = 4'd7;
  parameter logic [3:0] ErrNoWeights     = 4'd8;
  parameter logic [3:0] ErrCmdOverrun    = 4'd9;
  parameter logic [3:0] ErrWeightsFull   = 4'd10;

  // Performance counters (CSR 0x080 + 8 i).
  parameter int unsigned NumCounters      = 10;
  parameter int unsigned CntCycles        = 0;
  parameter int unsigned CntArrayBusy     = 1;
  parameter int unsigned CntMacs          = 2;
  parameter int unsigned CntDmaReadBytes  = 3;
  parameter int unsigned CntDmaWriteBytes = 4;
  parameter int unsigned CntInstructions  = 5;
  parameter int unsigned CntStallDep      = 6;
  parameter int unsigned CntStallWeights  = 7;
  parameter int unsigned CntStallFetch    = 8;
  parameter int unsigned CntStallMemory   = 9;

  parameter logic [31:0] DeviceId      = 32'h4D58_5530;  // "MXU0"
  parameter logic [31:0] DeviceVersion = 32'h0001_0000;

endpackage
