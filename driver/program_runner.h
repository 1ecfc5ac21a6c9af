// Runs one instruction stream on a device: writes it to host memory, rings the doorbell, waits
// for the interrupt under a watchdog, and turns the outcome into statistics or a DeviceError that
// names the error code and the faulting instruction.
#ifndef MXU_DRIVER_PROGRAM_RUNNER_H_
#define MXU_DRIVER_PROGRAM_RUNNER_H_

#include <array>
#include <cstdint>
#include <vector>

#include "common/csr_map.h"
#include "common/isa.h"
#include "driver/buffer_accesses.h"
#include "driver/device.h"

namespace mxu::driver {

struct RunStats {
  std::array<uint64_t, csr::kNumCounters> counters{};
  // The program's buffer traffic, by its instructions (set by the GEMM op, which knows the
  // device's configuration: reading it here would add CSR accesses to every run).
  BufferAccesses accesses;
  double wall_seconds = 0;
  uint64_t counter(csr::Counter c) const { return counters[static_cast<size_t>(c)]; }
};

class ProgramRunner {
 public:
  // watchdog_cycles bounds every run: a device that has not finished by then is reported, never
  // waited for.
  ProgramRunner(Device& device, uint64_t watchdog_cycles);

  // The program is written at program_addr (16-byte aligned) and must end with HALT.
  RunStats Run(const std::vector<isa::Instruction>& program, uint64_t program_addr);

 private:
  Device& device_;
  uint64_t watchdog_cycles_;
};

}  // namespace mxu::driver

#endif  // MXU_DRIVER_PROGRAM_RUNNER_H_
