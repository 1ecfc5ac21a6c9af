// The random programs the default suite runs on the RTL against the model
// (model_agreement_test), named once so that the functional coverage (isa_coverage_test) counts
// exactly those programs.
#ifndef MXU_TESTS_BACKENDS_RANDOM_PROGRAM_SUITES_H_
#define MXU_TESTS_BACKENDS_RANDOM_PROGRAM_SUITES_H_

#include <cstdint>
#include <vector>

#include "common/csr_map.h"
#include "common/isa.h"
#include "tests/backends/random_program.h"

namespace mxu::testing {

// Legal programs: `count` seeds from `first_seed` (MXU_RANDOM_PROGRAMS replaces the count).
// Their input: the low bytes of RandomOperand (kOperands), or bf16 values whose products are
// near zero (kNearZero: NearZeroBf16, one 16-bit value per aligned pair of bytes).
struct LegalProgramSuite {
  const char* name;
  uint64_t first_seed;
  int count;
  bool integer;
  enum class Place { kCorner, kBufferEnds } place = Place::kCorner;
  enum class Data { kOperands, kNearZero } data = Data::kOperands;
};

inline constexpr LegalProgramSuite kLegalProgramSuites[] = {
    {"RandomPrograms", 1000, 200, false},
    {"RandomIntegerPrograms", 3000, 150, true},
    // The UB rows used at the buffer's end, the accumulator rows across its two banks (the top
    // address bit) and, for a third of the seeds, at its end: the boundaries the corner of the
    // other suites never reaches.
    {"RandomProgramsAtBufferEnds", 7000, 200, true, LegalProgramSuite::Place::kBufferEnds},
    // Operands of +-(1, 1.25, 1.5 or 1.75) x 2^-63, whose products are +-(1 .. 3.0625) x 2^-126:
    // sums that cancel to +0, or to subnormals that flush mode flushes to a signed zero, against
    // partial K tiles (issue 58: the RTL's padded lanes turned a -0 sum into +0). Run on every
    // built device: both subnormal modes.
    {"RandomProgramsNearZero", 9000, 60, false, LegalProgramSuite::Place::kCorner,
     LegalProgramSuite::Data::kNearZero},
};

// One bf16 value of the kNearZero data.
inline uint16_t NearZeroBf16(uint64_t pick) {
  static constexpr uint16_t kValues[] = {0x2000, 0xA000, 0x2020, 0xA020,
                                         0x2040, 0xA040, 0x2060, 0xA060};
  return kValues[pick % (sizeof kValues / sizeof kValues[0])];
}

// The space of one suite's seed on a device with these buffers.
inline RandomProgramSpace SpaceOf(const LegalProgramSuite& suite, uint64_t seed, int ub_depth,
                                  int acc_depth) {
  RandomProgramSpace space;
  space.integer = suite.integer;
  if (suite.place == LegalProgramSuite::Place::kBufferEnds) {
    // Fewer rows than the corner's: ranges meet the last row, and each other, more often.
    space.ub_rows = 64, space.acc_rows = 48;
    space.ub_base = ub_depth - space.ub_rows;
    space.acc_base =
        seed % 3 == 0 ? acc_depth - space.acc_rows : acc_depth / 2 - space.acc_rows / 2;
  }
  return space;
}

// Illegal programs: for each error code (1 .. 10), IllegalProgramsPerCode seeds (5000 + 100 *
// code + i, then from 100,000 + 1,000 * code), every other one with int8 instructions
// (MXU_RANDOM_PROGRAMS / 20 replaces the count). ILLEGAL_FIELD has the most forms (eleven kinds
// of field, a reserved bit in each of nine instructions): it gets more seeds.
inline int IllegalProgramsPerCode(csr::ErrorCode code) {
  return code == csr::ErrorCode::kIllegalField ? 200 : 30;
}
inline constexpr int kIllegalProgramLength = 16;

inline uint64_t IllegalProgramSeed(uint32_t code, int i) {
  return i < 100 ? 5000 + 100 * code + i : 100'000 + 1'000 * code + i;
}
inline bool IllegalProgramIsInteger(int i) { return i % 2 == 1; }

}  // namespace mxu::testing

#endif  // MXU_TESTS_BACKENDS_RANDOM_PROGRAM_SUITES_H_
