// The on-chip memory traffic of a program, counted from its instructions by the ISA's semantics
// (docs/isa.md): the rows each instruction reads and writes in the unified buffer, the
// accumulators and the weight FIFO, and the bytes it passes through the DMA's transposer. The
// energy model (energy/energy_model.h) prices them; tests/scripts/buffer_accesses_test.py holds
// them to the SRAM enables of the RTL itself.
#ifndef MXU_DRIVER_BUFFER_ACCESSES_H_
#define MXU_DRIVER_BUFFER_ACCESSES_H_

#include <cstdint>
#include <vector>

#include "common/isa.h"

namespace mxu::driver {

struct BufferAccesses {
  uint64_t ub_reads = 0, ub_writes = 0;        // rows of the unified buffer
  uint64_t acc_reads = 0, acc_writes = 0;      // rows of the accumulators
  uint64_t wfifo_reads = 0, wfifo_writes = 0;  // rows of the weight FIFO
  // The transposer's lane memories (a transposing LOAD): a write per host-memory beat of each
  // host row, a read of every lane per buffer row it emits.
  uint64_t transpose_reads = 0, transpose_writes = 0;

  BufferAccesses& operator+=(const BufferAccesses& other);
  bool operator==(const BufferAccesses& other) const;
};

// ub_lanes: the unified buffer's lanes (the array's rows), the transposer's lane memories;
// bus_bytes: the host-memory port's width. Exact for the transposer while a transposing LOAD's
// host rows are no longer than one segment (docs/ppa.md, "Energy").
BufferAccesses CountBufferAccesses(const std::vector<isa::Instruction>& program, uint32_t ub_lanes,
                                   uint32_t bus_bytes);

}  // namespace mxu::driver

#endif  // MXU_DRIVER_BUFFER_ACCESSES_H_
