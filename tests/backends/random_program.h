// Random legal programs for co-simulation of two backends (the model against the RTL), as
// processor teams run generated programs against an instruction-set simulator: loads (plain,
// strided, broadcast, transposed; UB, ACC, weights), MATMULs (new or kept weights, overwrite or
// accumulate, partial K tiles), ACTIVATEs (bias, ReLU), stores and SYNCs over a small, heavily
// overlapping part of the buffers. Every buffer row a program reads was written earlier in the
// same program (the backends need not agree on what earlier programs left), and every STORE gets
// host memory of its own (host memory is not ordered without SYNC, docs/isa.md).
//
// By request (`error`), one instruction at a random place is made illegal so that the program
// stops with that error code: every code of docs/isa.md's table, each in several forms (a
// reserved bit, rows = 0, a range one row too long, an odd host address, an address beyond host
// memory, MATMUL with no weights, a fourth weight tile, no HALT).
//
// With RandomProgramSpace::integer, the programs also use the integer mode (docs/numerics.md):
// int8 LOADs of UB rows and weight tiles at any byte address (plain, strided, broadcast; never
// transposed), int8 x int8 MATMULs (over whatever the UB rows and the tile hold: the PE takes
// each lane's low byte, so any mix of int8 and bf16 operands is legal and defined), requantizing
// ACTIVATEs whose quantization row a LOAD ACC of random words brings in (m and s uniform: any
// 32-bit word is a legal quantization word), int8 and int32 STOREs; the illegal programs get the
// integer mode's forms of their errors too. Without it the programs draw as before (the same
// random draws), so the seeds of earlier findings still name the same instructions.
//
// A third of the STOREs lay their rows back to back (the store engine's linear mode, rows of any
// length), the others are strided; at any element address. These draws have a stream of their
// own: they change only the STOREs' strides and addresses of earlier seeds' programs.
#ifndef MXU_TESTS_BACKENDS_RANDOM_PROGRAM_H_
#define MXU_TESTS_BACKENDS_RANDOM_PROGRAM_H_

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <vector>

#include "common/csr_map.h"
#include "common/isa.h"

namespace mxu::testing {

struct RandomProgramSpace {
  uint64_t input = 0x20000;  // random data the program reads
  uint64_t input_bytes = 0x10000;
  uint64_t output = 0x100000;  // where its STOREs go, each to a range of its own
  uint64_t output_bytes = 0x40000;
  int ub_rows = 256, acc_rows = 128;  // the buffer rows used (a corner of each) ...
  int ub_base = 0, acc_base = 0;      // ... from these rows (at the buffers' ends, across banks)
  int rows = 16, cols = 16;           // the array
  bool integer = false;               // the integer mode's instructions too
  // The whole buffers and host memory, for the illegal programs' out-of-range addresses.
  int ub_depth = 8192, acc_depth = 1024, ub_lanes = 16;
  uint64_t memory_bytes = 1ull << 32;
};

// A uniform draw from [lo, hi]: every draw of the generators below, in the order the programs
// of recorded seeds were drawn.
inline int Pick(std::mt19937_64& rng, int lo, int hi) {
  return static_cast<int>(std::uniform_int_distribution<int>(lo, hi)(rng));
}

// An opcode no instruction has.
inline isa::Instruction IllegalOpcode(std::mt19937_64& rng) {
  static constexpr uint32_t kIllegal[] = {0x00, 0x03, 0x04, 0x0F, 0x11, 0x1F,
                                          0x21, 0x2F, 0x31, 0x3E, 0x40, 0xFF};
  const uint32_t op = kIllegal[Pick(rng, 0, std::size(kIllegal) - 1)];
  return isa::Raw({op | uint32_t(Pick(rng, 0, 0xFFFF)) << 16, 0, 0, 0});
}

// A reserved bit set in an otherwise legal instruction.
inline isa::Instruction ReservedBitSet(const RandomProgramSpace& s, std::mt19937_64& rng) {
  using isa::Buffer;
  const uint64_t in = s.input;
  const isa::Instruction legal[] = {isa::Load(Buffer::kUb, 1, 1, 0, in, 1),
                                    isa::Store(Buffer::kUb, 1, 1, 0, in, 1),
                                    isa::Matmul(1, 1, 0, 0, false, false),
                                    isa::Activate(1, 0, 0, false, false), isa::Sync(), isa::Halt(),
                                    // The integer mode's (drawn only with s.integer).
                                    isa::Load(Buffer::kWeights, 1, 1, 0, in + 1, 1, false, true),
                                    isa::Matmul(1, 1, 0, 0, true, false, true),
                                    isa::ActivateInteger(1, 0, 0, true, false, 0, 1, -3)};
  const int kinds = s.integer ? static_cast<int>(std::size(legal)) : 6;
  isa::Instruction ins = legal[Pick(rng, 0, kinds - 1)];
  const isa::Words named = isa::NamedBits(ins.opcode());
  int bit;
  do bit = Pick(rng, 0, 127);
  while (named[bit / 32] >> (bit % 32) & 1);
  ins.words[bit / 32] |= 1u << (bit % 32);
  return ins;
}

// A field out of its legal values (kIllegalField), in one of its forms.
inline isa::Instruction IllegalField(const RandomProgramSpace& s, std::mt19937_64& rng) {
  using isa::Buffer;
  const uint64_t in = s.input;
  switch (Pick(rng, 0, s.integer ? 10 : 7)) {
    case 0:
      return ReservedBitSet(s, rng);
    case 1:
      return isa::Load(Buffer::kUb, 0, 4, 0, in, 4);  // rows = 0
    case 2:
      return isa::Load(Buffer::kUb, 2, s.ub_lanes + Pick(rng, 1, 4), 0, in, 32);
    case 3:
      return isa::Load(Buffer::kAcc, 2, 4, 0, in, 4, true);  // transpose on ACC
    case 4:
      return isa::Store(Buffer::kUb, 2, 4, 0, s.output, 4, true);  // relu on UB
    case 5:
      return isa::Matmul(4, s.rows + Pick(rng, 1, 4), 0, 0, false, false);  // k_rows
    case 6:
      return isa::Load(Buffer::kWeights, 1, 1, 1, in, 1);  // weights at row 1
    case 7:
      return isa::Store(Buffer::kWeights, 1, 1, 0, s.output, 1);  // no such source
    case 8:                                                       // int8 with transpose
      return isa::Load(Pick(rng, 0, 1) ? Buffer::kUb : Buffer::kWeights, 2, 2, 0, in + 1, 4, true,
                       true);
    case 9: {  // a quantization row without the integer mode
      isa::Instruction ins = isa::Activate(1, 0, 0, false, false);
      ins.Set(isa::kActivateQuantAddr, Pick(rng, 1, 0xFFFF));
      return ins;
    }
    default: {  // a zero point without the integer mode
      isa::Instruction ins = isa::Activate(1, 0, 0, Pick(rng, 0, 1) == 1, false);
      ins.Set(isa::kActivateZeroPoint, Pick(rng, 1, 255));
      return ins;
    }
  }
}

// Rows that run past the end of the unified buffer.
inline isa::Instruction UbOutOfRange(const RandomProgramSpace& s, std::mt19937_64& rng) {
  using isa::Buffer;
  const int rows = Pick(rng, 1, 40), start = s.ub_depth - rows + Pick(rng, 1, 8);
  switch (Pick(rng, 0, 3)) {
    case 0:
      return isa::Load(Buffer::kUb, rows, 4, start, s.input, 4);
    case 1:
      return isa::Store(Buffer::kUb, rows, 4, start, s.output, 4);
    case 2:
      return isa::Matmul(rows, 1, start, 0, false, false);
    default:
      return isa::Activate(rows, 0, start, false, false);
  }
}

// Rows (or a bias or quantization row) past the end of the accumulators.
inline isa::Instruction AccOutOfRange(const RandomProgramSpace& s, std::mt19937_64& rng) {
  using isa::Buffer;
  const auto pick = [&](int lo, int hi) { return Pick(rng, lo, hi); };
  const int rows = pick(1, 40), start = s.acc_depth - rows + pick(1, 8);
  switch (pick(0, s.integer ? 5 : 4)) {
    case 0:
      return isa::Load(Buffer::kAcc, rows, 4, start, s.input, 4);
    case 1:
      return isa::Store(Buffer::kAcc, rows, 4, start, s.output, 4);
    case 2:
      return isa::Matmul(rows, 1, 0, start, false, false);
    case 3:
      return isa::Activate(rows, start, 0, false, false);
    case 4:  // the bias row
      return isa::Activate(1, 0, 0, false, true, s.acc_depth + pick(0, 8));
    default:  // the quantization row
      return isa::ActivateInteger(1, 0, 0, false, false, 0, s.acc_depth + pick(0, 8),
                                  pick(-128, 127));
  }
}

// A host address off its element size.
inline isa::Instruction MisalignedTransfer(const RandomProgramSpace& s, std::mt19937_64& rng) {
  using isa::Buffer;
  const uint64_t in = s.input;
  switch (Pick(rng, 0, s.integer ? 3 : 2)) {
    case 0:
      return isa::Load(Buffer::kUb, 2, 4, 0, in + 1, 4);
    case 1:
      return isa::Load(Buffer::kAcc, 2, 4, 0, in + 2, 4);
    case 2:
      return isa::Store(Buffer::kAcc, 2, 4, 0, s.output + 2 * Pick(rng, 0, 1) + 1, 4);
    default:  // int32 words keep the 4-byte rule in the integer mode
      return isa::Load(Buffer::kAcc, 2, 4, 0, in + Pick(rng, 1, 3), 4, false, true);
  }
}

// A load that reads beyond host memory, from outside it or running past its end.
inline isa::Instruction ReadBeyondMemory(const RandomProgramSpace& s, std::mt19937_64& rng) {
  const uint64_t beyond = s.memory_bytes + 64 * uint64_t(Pick(rng, 0, 1000));
  if (Pick(rng, 0, 1) == 0) return isa::Load(isa::Buffer::kUb, Pick(rng, 1, 8), 4, 0, beyond, 4);
  // starts inside host memory and runs past its end
  return isa::Load(isa::Buffer::kUb, 8, 16, 0, s.memory_bytes - 64, 16);
}

// Appends instructions whose last one fails with `error` (the ones before it are legal: they
// take or fill weight tiles as the error needs). unclaimed: weight tiles waiting for a MATMUL.
inline void AppendIllegal(csr::ErrorCode error, const RandomProgramSpace& s, std::mt19937_64& rng,
                          int unclaimed, std::vector<isa::Instruction>& p) {
  using isa::Buffer;
  switch (error) {
    case csr::ErrorCode::kIllegalOpcode:
      p.push_back(IllegalOpcode(rng));
      return;
    case csr::ErrorCode::kIllegalField:
      p.push_back(IllegalField(s, rng));
      return;
    case csr::ErrorCode::kUbRange:
      p.push_back(UbOutOfRange(s, rng));
      return;
    case csr::ErrorCode::kAccRange:
      p.push_back(AccOutOfRange(s, rng));
      return;
    case csr::ErrorCode::kMisaligned:
      p.push_back(MisalignedTransfer(s, rng));
      return;
    case csr::ErrorCode::kMemRead:
      p.push_back(ReadBeyondMemory(s, rng));
      return;
    case csr::ErrorCode::kMemWrite:
      p.push_back(isa::Store(Buffer::kUb, Pick(rng, 1, 8), 4, 0,
                             s.memory_bytes + 64 * uint64_t(Pick(rng, 0, 1000)), 4));
      return;
    case csr::ErrorCode::kNoWeights:
      // Take the waiting tiles first (rows 0 of the UB hold whatever earlier programs left:
      // the outcome does not depend on it, and no result of this program is compared).
      for (; unclaimed > 0; --unclaimed) p.push_back(isa::Matmul(1, 1, 0, 0, false, true));
      p.push_back(isa::Matmul(Pick(rng, 1, 8), 1, 0, 0, false, true));
      return;
    case csr::ErrorCode::kWeightsFull:
      for (; unclaimed < 3; ++unclaimed) {
        p.push_back(isa::Load(Buffer::kWeights, 1, 1, 0, s.input, 1));
      }
      p.push_back(isa::Load(Buffer::kWeights, 1, 1, 0, s.input, 1));
      return;
    case csr::ErrorCode::kCmdOverrun:  // no HALT: RandomProgram leaves it out
    case csr::ErrorCode::kNone:
      return;
  }
}

// An integer ACTIVATE's quantization row: random words, loaded just before (the ACTIVATE waits
// for that LOAD) or, sometimes, whatever a written row holds. pick(lo, hi): the program's draws.
template <typename Pick>
int PickQuantizationRow(const RandomProgramSpace& s, Pick& pick, std::vector<bool>& acc_written,
                        std::vector<isa::Instruction>& p) {
  const int quant_row = pick(0, s.acc_rows - 1);
  if (!acc_written[quant_row] || pick(0, 2) != 0) {
    const int lanes = pick(1, s.cols);
    const uint64_t elem = pick(0, static_cast<int>(s.input_bytes / 4 - lanes));
    p.push_back(
        isa::Load(isa::Buffer::kAcc, 1, lanes, s.acc_base + quant_row, s.input + 4 * elem, lanes));
    acc_written[quant_row] = true;
  }
  return quant_row;
}

inline std::vector<isa::Instruction> RandomProgram(uint64_t seed, const RandomProgramSpace& s,
                                                   int instructions = 24,
                                                   csr::ErrorCode error = csr::ErrorCode::kNone) {
  std::mt19937_64 rng(seed);
  const auto pick = [&](int lo, int hi) {  // [lo, hi]
    return static_cast<int>(std::uniform_int_distribution<int>(lo, hi)(rng));
  };
  // The STOREs' layout draws come from a stream of their own, so that every other draw, and so
  // every seed's instructions, stay what they were before these draws came in.
  std::mt19937_64 layout_rng(seed ^ 0x9E3779B97F4A7C15ull);
  std::vector<bool> ub_written(s.ub_rows, false), acc_written(s.acc_rows, false);
  const auto written = [](const std::vector<bool>& w, int lo, int rows) {
    return std::all_of(w.begin() + lo, w.begin() + lo + rows, [](bool b) { return b; });
  };
  const auto mark = [](std::vector<bool>& w, int lo, int rows) {
    std::fill(w.begin() + lo, w.begin() + lo + rows, true);
  };
  int unclaimed = 0;  // weight tiles loaded and not yet taken by a MATMUL
  bool have_weights = false;
  uint64_t out_next = s.output;
  std::vector<isa::Instruction> p;
  const int error_at = error == csr::ErrorCode::kNone ? -1 : pick(0, instructions - 1);
  for (int n = 0; n < instructions; ++n) {
    if (n == error_at) {
      AppendIllegal(error, s, rng, unclaimed, p);
      continue;
    }
    const int kind = pick(0, 9);
    if (kind <= 1) {  // LOAD UB: plain, strided, broadcast or transposed; bf16 or int8
      const int rows = pick(1, 48), lanes = pick(1, s.rows), buf = pick(0, s.ub_rows - rows);
      const int mode = pick(0, 3);
      const bool trans = mode == 3;
      const bool integer = s.integer && !trans && pick(0, 1) == 1;
      const uint32_t stride = mode == 0   ? lanes
                              : mode == 1 ? pick(lanes, 80)
                              : mode == 2 ? 0
                                          : pick(rows, rows + 40);
      const uint64_t span =
          trans ? uint64_t(lanes - 1) * stride + rows : uint64_t(rows - 1) * stride + lanes;
      const uint64_t size = integer ? 1 : 2;  // int8 bytes at any address
      const uint64_t elem = pick(0, static_cast<int>(s.input_bytes / size - span));
      p.push_back(isa::Load(isa::Buffer::kUb, rows, lanes, s.ub_base + buf, s.input + size * elem,
                            stride, trans, integer));
      mark(ub_written, buf, rows);
    } else if (kind == 2) {  // LOAD ACC (fp32 from the same random bytes)
      const int rows = pick(1, 32), lanes = pick(1, s.cols), buf = pick(0, s.acc_rows - rows);
      const uint32_t stride = pick(0, 2) == 0 ? 0 : pick(lanes, 40);
      const uint64_t span = uint64_t(rows - 1) * stride + lanes;
      const uint64_t elem = pick(0, static_cast<int>(s.input_bytes / 4 - span));
      p.push_back(
          isa::Load(isa::Buffer::kAcc, rows, lanes, s.acc_base + buf, s.input + 4 * elem, stride));
      mark(acc_written, buf, rows);
    } else if (kind <= 4 && unclaimed < 3) {  // LOAD WEIGHTS: plain or transposed; bf16 or int8
      const int rows = pick(1, s.rows), lanes = pick(1, s.cols);
      const bool trans = pick(0, 2) == 0;
      const bool integer = s.integer && !trans && pick(0, 1) == 1;
      uint32_t stride = trans ? pick(rows, rows + 30) : pick(lanes, lanes + 30);
      if (integer && pick(0, 3) == 0) stride = pick(0, 1) ? 0 : lanes;  // broadcast or packed
      const uint64_t span =
          trans ? uint64_t(lanes - 1) * stride + rows : uint64_t(rows - 1) * stride + lanes;
      const uint64_t size = integer ? 1 : 2;
      const uint64_t elem = pick(0, static_cast<int>(s.input_bytes / size - span));
      p.push_back(isa::Load(isa::Buffer::kWeights, rows, lanes, 0, s.input + size * elem, stride,
                            trans, integer));
      ++unclaimed;
    } else if (kind <= 6 && (unclaimed > 0 || have_weights)) {  // MATMUL
      const int rows = pick(1, 40), k_rows = pick(1, s.rows);
      const int ub = pick(0, s.ub_rows - rows), acc = pick(0, s.acc_rows - rows);
      if (!written(ub_written, ub, rows)) continue;
      const bool accumulate = written(acc_written, acc, rows) && pick(0, 1) == 1;
      const bool new_weights = unclaimed > 0 && (!have_weights || pick(0, 1) == 1);
      const bool integer = s.integer && pick(0, 1) == 1;
      p.push_back(isa::Matmul(rows, k_rows, s.ub_base + ub, s.acc_base + acc, accumulate,
                              new_weights, integer));
      if (new_weights) --unclaimed, have_weights = true;
      mark(acc_written, acc, rows);
    } else if (kind == 7) {  // ACTIVATE: fp32 -> bf16 or, integer, requantization to int8
      const int rows = pick(1, 32), acc = pick(0, s.acc_rows - rows),
                ub = pick(0, s.ub_rows - rows);
      const int bias_row = pick(0, s.acc_rows - 1);
      const bool bias = acc_written[bias_row] && pick(0, 1) == 1;
      if (!written(acc_written, acc, rows)) continue;
      const bool relu = pick(0, 1) == 1;
      if (s.integer && pick(0, 1) == 1) {
        const int quant_row = PickQuantizationRow(s, pick, acc_written, p);
        p.push_back(isa::ActivateInteger(rows, s.acc_base + acc, s.ub_base + ub, relu, bias,
                                         bias ? s.acc_base + bias_row : 0, s.acc_base + quant_row,
                                         pick(-128, 127)));
      } else {
        p.push_back(isa::Activate(rows, s.acc_base + acc, s.ub_base + ub, relu, bias,
                                  bias ? s.acc_base + bias_row : 0));
      }
      mark(ub_written, ub, rows);
    } else if (kind == 8) {  // STORE, from UB or ACC, to host memory of its own
      const bool from_acc = pick(0, 1) == 1;
      const int rows = pick(1, 32), lanes = pick(1, from_acc ? s.cols : s.rows);
      const int buf = pick(0, (from_acc ? s.acc_rows : s.ub_rows) - rows);
      if (!written(from_acc ? acc_written : ub_written, buf, rows)) continue;
      // A third of them rows back to back (the store engine's linear mode, rows of any length),
      // the others strided; at any element address.
      const uint32_t strided = pick(lanes, lanes + 20);
      const uint32_t stride = Pick(layout_rng, 0, 2) == 0 ? lanes : strided;
      // Integer: int8 bytes from UB (the draw of before), int32 words from ACC.
      const bool integer = s.integer && pick(0, 1) == 1, int8 = integer && !from_acc;
      const uint64_t size = from_acc ? 4 : integer ? 1 : 2, offset = int8 ? pick(0, 63) : 0;
      const uint64_t at =
          out_next + (int8 ? offset : size * Pick(layout_rng, 0, static_cast<int>(63 / size)));
      const uint64_t bytes = (uint64_t(rows - 1) * stride + lanes) * size;
      if (at + bytes > s.output + s.output_bytes) continue;
      p.push_back(isa::Store(from_acc ? isa::Buffer::kAcc : isa::Buffer::kUb, rows, lanes,
                             (from_acc ? s.acc_base : s.ub_base) + buf, at, stride,
                             from_acc && pick(0, 1) == 1, integer));
      out_next = (at + bytes + 63) & ~uint64_t{63};
    } else {
      p.push_back(isa::Sync());
    }
  }
  if (error != csr::ErrorCode::kCmdOverrun) p.push_back(isa::Halt());
  return p;
}

}  // namespace mxu::testing

#endif  // MXU_TESTS_BACKENDS_RANDOM_PROGRAM_H_
