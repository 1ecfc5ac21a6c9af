// The buffer traffic counted from a program's instructions (driver/buffer_accesses.h), against
// counts worked out by hand from the ISA's semantics. tests/scripts/buffer_accesses_rtl_test.py
// holds the same counts to the RTL's SRAM enables.
#include "driver/buffer_accesses.h"

#include <gtest/gtest.h>

#include <vector>

namespace mxu::driver {
namespace {

using isa::Buffer;

TEST(BufferAccesses, EachInstructionsRows) {
  const std::vector<isa::Instruction> program = {
      isa::Load(Buffer::kUb, 40, 16, 0, 0x1000, 16),          // 40 UB rows written
      isa::Load(Buffer::kWeights, 12, 16, 0, 0x2000, 16),     // 12 FIFO rows in, and out
      isa::Load(Buffer::kAcc, 3, 16, 100, 0x3000, 16),        // 3 accumulator rows written
      isa::Matmul(40, 12, 0, 0, /*accumulate=*/false, true),  // 40 UB reads, 40 acc writes
      isa::Matmul(7, 12, 0, 0, /*accumulate=*/true, false),   // + 7 acc reads
      isa::Activate(40, 0, 200, true, /*bias=*/true, 100),    // 40 + the bias row; 40 UB writes
      isa::Activate(5, 0, 300, false, /*bias=*/false),        // 5 acc reads, 5 UB writes
      isa::Store(Buffer::kUb, 45, 16, 200, 0x4000, 16),       // 45 UB reads
      isa::Store(Buffer::kAcc, 9, 16, 0, 0x5000, 16),         // 9 acc reads
      isa::Sync(),
      isa::Halt(),
  };
  const BufferAccesses a = CountBufferAccesses(program, 16, 32);
  EXPECT_EQ(a.ub_writes, 40u + 40 + 5);
  EXPECT_EQ(a.ub_reads, 40u + 7 + 45);
  EXPECT_EQ(a.acc_writes, 3u + 40 + 7);
  EXPECT_EQ(a.acc_reads, 7u + 41 + 5 + 9);
  EXPECT_EQ(a.wfifo_writes, 12u);
  EXPECT_EQ(a.wfifo_reads, 12u);
  EXPECT_EQ(a.transpose_reads, 0u);
  EXPECT_EQ(a.transpose_writes, 0u);
}

TEST(BufferAccesses, IntegerActivateReadsItsQuantizationRow) {
  const BufferAccesses a =
      CountBufferAccesses({isa::ActivateInteger(10, 0, 0, false, /*bias=*/true, 50, 51, 0),
                           isa::ActivateInteger(10, 0, 0, false, /*bias=*/false, 0, 51, 0)},
                          8, 32);
  EXPECT_EQ(a.acc_reads, (10u + 2) + (10 + 1));
  EXPECT_EQ(a.ub_writes, 20u);
}

// A transposing LOAD reads `lanes` host rows of `rows` elements, a write into the lane memories
// per beat each spans, and emits `rows` buffer rows, each a read of every lane memory.
TEST(BufferAccesses, TransposerBeatsAndLaneReads) {
  // 4 host rows of 33 bf16 (66 bytes) from 0x1000, stride 40 elements (80 bytes), 32-byte port:
  // starts at offsets 0, 80, 160, 240 -> 0, 16, 0, 16 within a beat: 3, 3, 3, 3 beats.
  const isa::Instruction bf16 = isa::Load(Buffer::kUb, 33, 4, 0, 0x1000, 40, /*transpose=*/true);
  BufferAccesses a = CountBufferAccesses({bf16}, 16, 32);
  EXPECT_EQ(a.transpose_writes, 12u);
  EXPECT_EQ(a.transpose_reads, 33u * 16);
  EXPECT_EQ(a.ub_writes, 33u);
  // int8: 20 bytes a host row from offsets 0, 40, 80: 1 beat (bytes 0-19), 1 (40-59), 2 (80-99).
  const isa::Instruction int8 =
      isa::Load(Buffer::kWeights, 20, 3, 0, 0x2000, 40, /*transpose=*/true, /*integer=*/true);
  a = CountBufferAccesses({int8}, 8, 32);
  EXPECT_EQ(a.transpose_writes, 1u + 1 + 2);
  EXPECT_EQ(a.transpose_reads, 20u * 8);
  EXPECT_EQ(a.wfifo_writes, 20u);
}

TEST(BufferAccesses, Sums) {
  BufferAccesses a = CountBufferAccesses({isa::Load(Buffer::kUb, 4, 4, 0, 0, 4)}, 4, 16);
  const BufferAccesses b = CountBufferAccesses({isa::Store(Buffer::kUb, 3, 4, 0, 0, 4)}, 4, 16);
  a += b;
  BufferAccesses want;
  want.ub_writes = 4, want.ub_reads = 3;
  EXPECT_EQ(a, want);
}

}  // namespace
}  // namespace mxu::driver
