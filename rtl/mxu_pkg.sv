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

  // The instruction set, error codes, CSR map and performance counters: package mxu_isa_pkg
  // (rtl/mxu_isa_pkg.sv, generated from common/isa.toml by scripts/gen_isa.py).

endpackage
