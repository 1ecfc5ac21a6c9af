#include "driver/program_runner.h"

#include <chrono>
#include <string>

namespace mxu::driver {

ProgramRunner::ProgramRunner(Device& device, uint64_t watchdog_cycles)
    : device_(device), watchdog_cycles_(watchdog_cycles) {}

RunStats ProgramRunner::Run(const std::vector<isa::Instruction>& program, uint64_t program_addr) {
  std::vector<uint8_t> bytes;
  bytes.reserve(program.size() * isa::kInstructionBytes);
  for (const isa::Instruction& instruction : program) isa::AppendBytes(instruction, bytes);
  device_.WriteMemory(program_addr, bytes.data(), bytes.size());

  const auto start = std::chrono::steady_clock::now();
  device_.WriteCsr(csr::kCmdAddrLo, static_cast<uint32_t>(program_addr));
  device_.WriteCsr(csr::kCmdAddrHi, static_cast<uint32_t>(program_addr >> 32));
  device_.WriteCsr(csr::kCmdCount, static_cast<uint32_t>(program.size()));
  device_.WriteCsr(csr::kCtrl, csr::kCtrlStart | csr::kCtrlIrqEnable);
  const bool finished = device_.RunUntilInterrupt(watchdog_cycles_);
  RunStats stats;
  stats.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!finished) {
    // Abandon the program so that the device is usable again.
    device_.WriteCsr(csr::kCtrl, csr::kCtrlSoftReset);
    device_.RunUntilInterrupt(10'000);
    throw DeviceError("watchdog: the device did not finish within " +
                      std::to_string(watchdog_cycles_) + " cycles");
  }
  const uint32_t status = device_.ReadCsr(csr::kStatus);
  device_.WriteCsr(csr::kIrqClear, csr::kIrqClearPending);
  if (status & csr::kStatusError) {
    const uint32_t code = device_.ReadCsr(csr::kErrorCode);
    const uint32_t pc = device_.ReadCsr(csr::kErrorPc);
    const uint64_t addr =
        device_.ReadCsr(csr::kErrorAddrLo) | uint64_t{device_.ReadCsr(csr::kErrorAddrHi)} << 32;
    std::string message = std::string("device error ") + csr::ErrorName(code) + " at instruction " +
                          std::to_string(pc);
    if (pc < program.size()) message += " (" + isa::Disassemble(program[pc]) + ")";
    if (code == static_cast<uint32_t>(csr::ErrorCode::kMemRead) ||
        code == static_cast<uint32_t>(csr::ErrorCode::kMemWrite)) {
      char hex[32];
      std::snprintf(hex, sizeof hex, ", address 0x%llx", static_cast<unsigned long long>(addr));
      message += hex;
    }
    throw DeviceError(message);
  }
  for (uint32_t i = 0; i < csr::kNumCounters; ++i) {
    stats.counters[i] =
        device_.ReadCsr(csr::CounterLo(i)) | uint64_t{device_.ReadCsr(csr::CounterHi(i))} << 32;
  }
  return stats;
}

}  // namespace mxu::driver
