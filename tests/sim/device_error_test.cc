// Error paths: every error code stops the device with its pc, and the device recovers after
// errors and a soft reset.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/sim/device_test_util.h"

namespace mxu::device_test {
namespace {

// ------------------------------------------------------------------------------- error paths

TEST_F(DeviceTest, IllegalOpcodeStopsWithItsPc) {
  ExpectError(RunProgram({isa::Sync(), isa::Sync(), isa::Raw({0x55, 0, 0, 0}), isa::Halt()}),
              csr::ErrorCode::kIllegalOpcode, 2);
  ExpectError(RunProgram({isa::Raw({0, 0, 0, 0})}), csr::ErrorCode::kIllegalOpcode, 0);
}

TEST_F(DeviceTest, IllegalFieldsAreRejected) {
  Instruction halt = isa::Halt();
  halt.words[3] |= 1u << 4;  // a reserved bit
  ExpectError(RunProgram({halt}), csr::ErrorCode::kIllegalField, 0);
  ExpectError(RunProgram({isa::Load(Buffer::kUb, 0, 1, 0, 0x20000, 1), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);  // zero rows
  ExpectError(
      RunProgram({isa::Load(Buffer::kUb, 1, config_.ub_lanes + 1, 0, 0x20000, 64), isa::Halt()}),
      csr::ErrorCode::kIllegalField, 0);  // too many lanes
  ExpectError(RunProgram({isa::Load(Buffer::kAcc, 1, 1, 0, 0x20000, 1, true), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);  // transposed accumulator load
  ExpectError(RunProgram({isa::Matmul(1, config_.rows + 1, 0, 0, false, false), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);  // k_rows beyond the array
  ExpectError(RunProgram({isa::Store(Buffer::kUb, 1, 1, 0, 0x20000, 1, true), isa::Halt()}),
              csr::ErrorCode::kIllegalField, 0);  // ReLU on a unified-buffer store
}

// Every bit of every field reaches the decoder: an instruction of all ones is an illegal opcode;
// each opcode with all its other bits set has reserved bits set; each format with every named
// field at its maximum breaks a field limit or a buffer range. A legal LOAD and STORE with the
// largest stride (0xFFFF elements) move the rows the stride names.
TEST_F(DeviceTest, FieldsOfAllOnesAreDecoded) {
  ExpectError(RunProgram({isa::Raw({~0u, ~0u, ~0u, ~0u})}), csr::ErrorCode::kIllegalOpcode, 0);
  for (const isa::Opcode op : {isa::Opcode::kLoad, isa::Opcode::kStore, isa::Opcode::kMatmul,
                               isa::Opcode::kActivate, isa::Opcode::kSync, isa::Opcode::kHalt}) {
    SCOPED_TRACE("opcode " + std::to_string(static_cast<int>(op)));
    ExpectError(RunProgram({isa::Raw({~0xFFu | static_cast<uint32_t>(op), ~0u, ~0u, ~0u})}),
                csr::ErrorCode::kIllegalField, 0);
  }
  const uint64_t host = 0x20000;
  ExpectError(RunProgram({isa::Load(Buffer::kUb, 0xFFFF, 0xFFFF, 0xFFFF, host, 0xFFFF)}),
              csr::ErrorCode::kIllegalField, 0);  // lanes
  ExpectError(RunProgram({isa::Load(Buffer::kUb, 0xFFFF, 1, 0xFFFF, host, 0xFFFF)}),
              csr::ErrorCode::kUbRange, 0);
  ExpectError(RunProgram({isa::Store(Buffer::kAcc, 0xFFFF, 1, 0xFFFF, host, 0xFFFF, true)}),
              csr::ErrorCode::kAccRange, 0);
  ExpectError(RunProgram({isa::Matmul(0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, true, true)}),
              csr::ErrorCode::kIllegalField, 0);  // k_rows
  ExpectError(RunProgram({isa::Matmul(0xFFFF, 1, 0xFFFF, 0xFFFF, true, true)}),
              csr::ErrorCode::kUbRange, 0);
  ExpectError(RunProgram({isa::Matmul(1, 1, 0, 0xFFFF, true, true)}), csr::ErrorCode::kAccRange, 0);
  ExpectError(
      RunProgram({isa::ActivateInteger(0xFFFF, 0xFFFF, 0xFFFF, true, true, 0xFFFF, 0xFFFF, -1)}),
      csr::ErrorCode::kUbRange, 0);
  ExpectError(RunProgram({isa::ActivateInteger(1, 0xFFFF, 0, true, true, 0xFFFF, 0xFFFF, -1)}),
              csr::ErrorCode::kAccRange, 0);

  const uint16_t first = 0x3F80, second = 0xC000;  // 1.0 and -2.0
  WriteHost(host, &first, 2);
  WriteHost(host + 2 * 0xFFFF, &second, 2);
  ExpectDone(
      RunProgram({isa::Load(Buffer::kUb, 2, 1, config_.ub_depth - 2, host, 0xFFFF),
                  isa::Store(Buffer::kUb, 2, 1, config_.ub_depth - 2, 0x60000, 0xFFFF),
                  isa::Store(Buffer::kUb, 2, 1, config_.ub_depth - 2, 0x40000, 1), isa::Halt()}));
  EXPECT_EQ(ReadHost<uint16_t>(0x40000, 2), (std::vector<uint16_t>{first, second}));
  EXPECT_EQ(ReadHost<uint16_t>(0x60000 + 2 * 0xFFFF, 1), (std::vector<uint16_t>{second}));
}

TEST_F(DeviceTest, BufferRangesAreChecked) {
  ExpectError(
      RunProgram({isa::Load(Buffer::kUb, 2, 1, config_.ub_depth - 1, 0x20000, 1), isa::Halt()}),
      csr::ErrorCode::kUbRange, 0);
  ExpectError(
      RunProgram({isa::Sync(), isa::Store(Buffer::kAcc, 1, 1, config_.acc_depth, 0x20000, 1)}),
      csr::ErrorCode::kAccRange, 1);
  ExpectError(RunProgram({isa::Matmul(4, 1, 0, config_.acc_depth - 3, false, false), isa::Halt()}),
              csr::ErrorCode::kAccRange, 0);
}

TEST_F(DeviceTest, MisalignedHostAddressesAreRejected) {
  ExpectError(RunProgram({isa::Load(Buffer::kUb, 1, 1, 0, 0x20001, 1), isa::Halt()}),
              csr::ErrorCode::kMisaligned, 0);
  ExpectError(RunProgram({isa::Store(Buffer::kAcc, 1, 1, 0, 0x20002, 1), isa::Halt()}),
              csr::ErrorCode::kMisaligned, 0);
  ExpectError(RunProgram({isa::Halt()}, kProgramAddr + 8), csr::ErrorCode::kMisaligned, 0);
}

TEST_F(DeviceTest, WeightTilesAreAccountedFor) {
  ExpectError(RunProgram({isa::Matmul(1, 1, 0, 0, false, true), isa::Halt()}),
              csr::ErrorCode::kNoWeights, 0);
  const Instruction w = isa::Load(Buffer::kWeights, 1, 1, 0, 0x20000, 1);
  ExpectError(RunProgram({w, w, w, w, isa::Halt()}), csr::ErrorCode::kWeightsFull, 3);
}

TEST_F(DeviceTest, RunningOffTheProgramIsAnError) {
  ExpectError(RunProgram({isa::Sync(), isa::Sync()}), csr::ErrorCode::kCmdOverrun, 2);
  ExpectError(RunProgram({isa::Halt()}, kProgramAddr, 0), csr::ErrorCode::kCmdOverrun, 0);
}

TEST_F(DeviceTest, MemoryErrorsStopTheDevice) {
  const uint64_t beyond = Dut().memory().config().size_bytes + 0x1000;
  Outcome out = RunProgram({isa::Sync(), isa::Load(Buffer::kUb, 4, 1, 0, beyond, 1), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemRead, 1);
  EXPECT_EQ(out.error_addr, beyond & ~uint64_t{31});
  Dut().memory().InjectError(0x70000, 64);
  out = RunProgram({isa::Store(Buffer::kUb, 8, 1, 0, 0x6FFF0, 32), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemWrite, 0);
  EXPECT_GE(out.error_addr, 0x6FFE0u);
  // A program that cannot even be fetched.
  ExpectError(RunProgram({}, beyond, 4), csr::ErrorCode::kMemRead, 0);
}

// After every kind of stop the device runs the next program normally.
TEST_F(DeviceTest, RecoversAfterErrorsAndSoftReset) {
  ExpectError(RunProgram({isa::Raw({0x77, 0, 0, 0})}), csr::ErrorCode::kIllegalOpcode, 0);
  ExpectDone(RunProgram({isa::Halt()}));
  // Abort a long program in the middle with a soft reset.
  const GemmCase g{200, static_cast<int>(4 * config_.rows), static_cast<int>(config_.cols), false};
  const GemmData d = WriteGemmInputs(g, 7);
  const std::vector<uint8_t> bytes = testing::ProgramBytes(GemmProgram(g, config_, false));
  Dut().memory().Write(kProgramAddr, bytes.data(), bytes.size());
  Dut().WriteCsr(csr::kCmdAddrLo, kProgramAddr);
  Dut().WriteCsr(csr::kCmdAddrHi, 0);
  Dut().WriteCsr(csr::kCmdCount, static_cast<uint32_t>(bytes.size() / 16));
  Dut().WriteCsr(csr::kCtrl, csr::kCtrlStart);
  Dut().RunCycles(300);
  EXPECT_TRUE(Dut().ReadCsr(csr::kStatus) & csr::kStatusBusy);
  Dut().WriteCsr(csr::kCtrl, csr::kCtrlSoftReset);
  Dut().RunCycles(2000);
  EXPECT_FALSE(Dut().ReadCsr(csr::kStatus) & csr::kStatusBusy);
  const Outcome out = RunProgram(GemmProgram(g, config_, false));
  ExpectDone(out);
  EXPECT_EQ(CheckGemmOutputs(g, d, config_), 0);
}

// Host addresses keep all 48 bits through the fetch, the DMA engines and the error registers: a
// program, a LOAD and a STORE at the top of the 48-bit space each stop with the memory error
// naming that address. A command count with all 32 bits set runs a program to its HALT.
TEST_F(DeviceTest, HostAddressesKeepAll48Bits) {
  const uint64_t top = (uint64_t{1} << 48) - 256;  // bits 8 .. 47 set
  Outcome out = RunProgram({}, top, 4);
  ExpectError(out, csr::ErrorCode::kMemRead, 0);
  EXPECT_EQ(out.error_addr, top);
  out = RunProgram({isa::Load(Buffer::kUb, 4, 1, 0, top + 0xC0, 1), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemRead, 0);
  EXPECT_EQ(out.error_addr >> 8, top >> 8);
  out = RunProgram({isa::Store(Buffer::kUb, 4, 1, 0, top + 0xC0, 1), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemWrite, 0);
  EXPECT_EQ(out.error_addr >> 8, top >> 8);
  out = RunProgram({isa::Load(Buffer::kWeights, 4, 1, 0, top + 0xC0, 1), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemRead, 0);
  EXPECT_EQ(out.error_addr >> 8, top >> 8);
  out = RunProgram({isa::Load(Buffer::kAcc, 4, 1, 0, top + 0xC0, 1), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemRead, 0);
  EXPECT_EQ(out.error_addr >> 8, top >> 8);
  out = RunProgram({isa::Store(Buffer::kAcc, 4, 1, 0, top + 0xC0, 1), isa::Halt()});
  ExpectError(out, csr::ErrorCode::kMemWrite, 0);
  EXPECT_EQ(out.error_addr >> 8, top >> 8);
  // A misaligned program address is reported whole.
  out = RunProgram({}, top + 0xFF, 4);
  ExpectError(out, csr::ErrorCode::kMisaligned, 0);
  EXPECT_EQ(out.error_addr, top + 0xFF);
  ExpectDone(RunProgram({isa::Sync(), isa::Halt()}, kProgramAddr, UINT32_MAX - 1));
}

// The error PC keeps its bits: an illegal instruction after 4,095 SYNCs stops the device with
// ERROR_PC 4,095 (0xFFF, bits 0-11 set; the coverage waivers take PC bits from 12 up as
// unreachable in the regressions).
TEST_F(DeviceTest, ErrorPcKeepsItsBits) {
  std::vector<Instruction> program(4095, isa::Sync());
  program.push_back(isa::Raw({0x77, 0, 0, 0}));
  const Outcome out = RunProgram(program, 0x800000);
  ExpectError(out, csr::ErrorCode::kIllegalOpcode, 4095);
}

// A soft reset at every cycle of a program's life: as it starts, while it runs, while it drains
// its STOREs after HALT or after an error, and after it ended. Each time the device goes idle
// within a bounded number of cycles, without an error or a done the program had not reached, and
// then runs the next program correctly. (The state machine's abort arcs: FSM coverage,
// docs/testing.md.)
TEST_F(DeviceTest, SoftResetAtAnyCycleAbandonsTheProgram) {
  const uint32_t lanes = config_.ub_lanes;
  const Instruction load = isa::Load(Buffer::kUb, 8, lanes, 0, 0x20000, lanes);
  const Instruction store = isa::Store(Buffer::kUb, 8, lanes, 0, 0x60000, 2 * lanes);
  const std::vector<std::vector<Instruction>> programs = {
      {load, store, isa::Halt()},                 // drains its STORE after HALT
      {load, store, isa::Raw({0x77, 0, 0, 0})}};  // drains it after an illegal opcode
  for (const auto& program : programs) {
    const std::vector<uint8_t> bytes = testing::ProgramBytes(program);
    Dut().memory().Write(kProgramAddr, bytes.data(), bytes.size());
    // The program's length without a reset: the sweep runs past its end.
    const uint64_t begin = Dut().cycle();
    testing::StartProgram(Dut(), kProgramAddr, static_cast<uint32_t>(program.size()));
    ASSERT_TRUE(Dut().RunUntilIrq(kWatchdog).completed);
    const uint64_t length = Dut().cycle() - begin;
    const uint32_t end_status = Dut().ReadCsr(csr::kStatus);
    Dut().WriteCsr(csr::kCtrl, csr::kCtrlSoftReset);
    for (uint64_t delay = 0; delay < length + 8; ++delay) {
      SCOPED_TRACE("soft reset " + std::to_string(delay) + " cycles after the start");
      testing::StartProgram(Dut(), kProgramAddr, static_cast<uint32_t>(program.size()));
      Dut().RunCycles(delay);
      // The next instruction to dispatch (not read at 0: the reset follows the start directly).
      if (delay > 0) {
        EXPECT_LE(Dut().ReadCsr(csr::kPc), program.size());
      }
      Dut().WriteCsr(csr::kCtrl, csr::kCtrlSoftReset);
      uint32_t status = Dut().ReadCsr(csr::kStatus);
      for (int wait = 0; wait < 100 && (status & csr::kStatusBusy); ++wait) {
        Dut().RunCycles(10);
        status = Dut().ReadCsr(csr::kStatus);
      }
      ASSERT_FALSE(status & csr::kStatusBusy) << "still busy 1,000 cycles after the reset";
      // Done or error only if the program got there: never one it did not reach.
      EXPECT_EQ(status & ~end_status & (csr::kStatusDone | csr::kStatusError), 0u);
      Dut().WriteCsr(csr::kCtrl, csr::kCtrlSoftReset);
    }
  }
  const GemmCase g{20, static_cast<int>(config_.rows), static_cast<int>(config_.cols), false};
  const GemmData d = WriteGemmInputs(g, 11);
  ExpectDone(RunProgram(GemmProgram(g, config_, false)));
  EXPECT_EQ(CheckGemmOutputs(g, d, config_), 0);
}

}  // namespace
}  // namespace mxu::device_test
