// Runs raw instruction programs on any driver::Device and reads back how they ended: the shared
// harness of the model backend's tests and the model-vs-RTL agreement test (and, through
// StartProgram and ReadOutcome, of the SystemC platform's device test).
#ifndef MXU_TESTS_BACKENDS_PROGRAM_HARNESS_H_
#define MXU_TESTS_BACKENDS_PROGRAM_HARNESS_H_

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "common/csr_map.h"
#include "common/isa.h"
#include "driver/device.h"

namespace mxu::testing {

struct Outcome {
  bool completed = false;  // the interrupt came before the watchdog
  bool done = false;
  bool error = false;
  uint32_t code = 0;
  uint32_t pc = 0;
  uint64_t error_addr = 0;
  std::array<uint64_t, csr::kNumCounters> counters{};
  uint64_t counter(csr::Counter c) const { return counters[static_cast<uint32_t>(c)]; }
};

// A program that ran to HALT; one that stopped with `code` at instruction `pc`.
inline void ExpectDone(const Outcome& out) {
  ASSERT_TRUE(out.completed);
  EXPECT_TRUE(out.done);
  EXPECT_FALSE(out.error) << "error " << csr::ErrorName(out.code) << " at pc " << out.pc;
}

inline void ExpectError(const Outcome& out, csr::ErrorCode code, uint32_t pc) {
  ASSERT_TRUE(out.completed);
  EXPECT_TRUE(out.error);
  EXPECT_FALSE(out.done);
  EXPECT_EQ(out.code, static_cast<uint32_t>(code))
      << "got " << csr::ErrorName(out.code) << ", want " << csr::ErrorName(code);
  EXPECT_EQ(out.pc, pc);
}

inline constexpr uint64_t kProgramAddr = 0x1000;

// Points the device at `count` instructions at program_addr and starts it, the interrupt
// enabled. Csrs: anything with ReadCsr/WriteCsr (a driver::Device, the SystemC platform).
template <typename Csrs>
void StartProgram(Csrs& dev, uint64_t program_addr, uint32_t count) {
  dev.WriteCsr(csr::kCmdAddrLo, static_cast<uint32_t>(program_addr));
  dev.WriteCsr(csr::kCmdAddrHi, static_cast<uint32_t>(program_addr >> 32));
  dev.WriteCsr(csr::kCmdCount, count);
  dev.WriteCsr(csr::kCtrl, csr::kCtrlStart | csr::kCtrlIrqEnable);
}

// How the program ended (status, error CSRs, counters); then clears the interrupt.
template <typename Csrs>
Outcome ReadOutcome(Csrs& dev, bool completed) {
  Outcome out;
  out.completed = completed;
  const uint32_t status = dev.ReadCsr(csr::kStatus);
  out.done = status & csr::kStatusDone;
  out.error = status & csr::kStatusError;
  out.code = dev.ReadCsr(csr::kErrorCode);
  out.pc = dev.ReadCsr(csr::kErrorPc);
  out.error_addr = dev.ReadCsr(csr::kErrorAddrLo) | uint64_t{dev.ReadCsr(csr::kErrorAddrHi)} << 32;
  for (uint32_t i = 0; i < csr::kNumCounters; ++i) {
    out.counters[i] = dev.ReadCsr(csr::CounterLo(i)) | uint64_t{dev.ReadCsr(csr::CounterHi(i))}
                                                           << 32;
  }
  dev.WriteCsr(csr::kIrqClear, csr::kIrqClearPending);
  return out;
}

inline std::vector<uint8_t> ProgramBytes(const std::vector<isa::Instruction>& program) {
  std::vector<uint8_t> bytes;
  for (const isa::Instruction& ins : program) isa::AppendBytes(ins, bytes);
  return bytes;
}

inline Outcome RunProgram(driver::Device& dev, const std::vector<isa::Instruction>& program,
                          uint64_t program_addr = kProgramAddr, uint32_t count = UINT32_MAX,
                          uint64_t watchdog = 2'000'000) {
  const std::vector<uint8_t> bytes = ProgramBytes(program);
  if (!bytes.empty() && program_addr + bytes.size() <= dev.memory_size()) {
    dev.WriteMemory(program_addr, bytes.data(), bytes.size());
  }
  StartProgram(dev, program_addr,
               count == UINT32_MAX ? static_cast<uint32_t>(program.size()) : count);
  return ReadOutcome(dev, dev.RunUntilInterrupt(watchdog));
}

}  // namespace mxu::testing

#endif  // MXU_TESTS_BACKENDS_PROGRAM_HARNESS_H_
