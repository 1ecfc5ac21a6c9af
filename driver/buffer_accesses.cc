#include "driver/buffer_accesses.h"

namespace mxu::driver {

BufferAccesses& BufferAccesses::operator+=(const BufferAccesses& o) {
  ub_reads += o.ub_reads, ub_writes += o.ub_writes;
  acc_reads += o.acc_reads, acc_writes += o.acc_writes;
  wfifo_reads += o.wfifo_reads, wfifo_writes += o.wfifo_writes;
  transpose_reads += o.transpose_reads, transpose_writes += o.transpose_writes;
  return *this;
}

bool BufferAccesses::operator==(const BufferAccesses& o) const {
  return ub_reads == o.ub_reads && ub_writes == o.ub_writes && acc_reads == o.acc_reads &&
         acc_writes == o.acc_writes && wfifo_reads == o.wfifo_reads &&
         wfifo_writes == o.wfifo_writes && transpose_reads == o.transpose_reads &&
         transpose_writes == o.transpose_writes;
}

namespace {

using isa::Buffer;
using isa::Opcode;

// Host-memory beats of `bytes` from byte address `addr` on a port `bus_bytes` wide.
uint64_t BeatsSpanned(uint64_t addr, uint64_t bytes, uint64_t bus_bytes) {
  if (bytes == 0) return 0;
  return (addr + bytes - 1) / bus_bytes - addr / bus_bytes + 1;
}

void CountTransfer(const isa::Instruction& in, bool load, uint32_t ub_lanes, uint32_t bus_bytes,
                   BufferAccesses* a) {
  const uint64_t rows = in.Get(isa::kTransferRows);
  const auto buffer = static_cast<Buffer>(in.Get(isa::kTransferBuffer));
  const bool flag = in.Get(isa::kTransferFlag) != 0;
  if (load) {
    if (buffer == Buffer::kUb) a->ub_writes += rows;
    if (buffer == Buffer::kWeights) a->wfifo_writes += rows, a->wfifo_reads += rows;
    if (buffer == Buffer::kAcc) a->acc_writes += rows;
    // A transposing LOAD (UB, WEIGHTS) reads `lanes` host rows of `rows` elements each into
    // the transposer's lane memories, a beat at a time, and emits `rows` buffer rows, each a
    // read of every lane memory.
    if (flag && buffer != Buffer::kAcc) {
      const uint64_t element_bytes = in.Get(isa::kTransferInt8) ? 1 : 2;
      const uint64_t host = in.Get(isa::kTransferHostAddr);
      const uint64_t stride = in.Get(isa::kTransferStride) * element_bytes;
      for (uint64_t lane = 0; lane < in.Get(isa::kTransferLanes); ++lane) {
        a->transpose_writes += BeatsSpanned(host + lane * stride, rows * element_bytes, bus_bytes);
      }
      a->transpose_reads += rows * ub_lanes;
    }
  } else {
    if (buffer == Buffer::kUb) a->ub_reads += rows;
    if (buffer == Buffer::kAcc) a->acc_reads += rows;
  }
}

}  // namespace

BufferAccesses CountBufferAccesses(const std::vector<isa::Instruction>& program, uint32_t ub_lanes,
                                   uint32_t bus_bytes) {
  BufferAccesses a;
  for (const isa::Instruction& in : program) {
    switch (static_cast<Opcode>(in.opcode())) {
      case Opcode::kLoad:
      case Opcode::kStore:
        CountTransfer(in, in.opcode() == static_cast<uint8_t>(Opcode::kLoad), ub_lanes, bus_bytes,
                      &a);
        break;
      case Opcode::kMatmul: {
        // Each activation row is read once and its result row written once; an accumulating
        // row also reads the row it adds into. (The weight FIFO's reads are counted at its
        // LOADs: every row loaded leaves the FIFO once, into the array.)
        const uint64_t rows = in.Get(isa::kMatmulRows);
        a.ub_reads += rows;
        a.acc_writes += rows;
        if (in.Get(isa::kMatmulAccumulate)) a.acc_reads += rows;
        break;
      }
      case Opcode::kActivate: {
        // The bias row and the quantization row are read once per ACTIVATE, before its rows.
        const uint64_t rows = in.Get(isa::kActivateRows);
        a.acc_reads +=
            rows + (in.Get(isa::kActivateBias) ? 1 : 0) + (in.Get(isa::kActivateInt8) ? 1 : 0);
        a.ub_writes += rows;
        break;
      }
      default:
        break;  // SYNC, HALT: no buffer
    }
  }
  return a;
}

}  // namespace mxu::driver
