// The model backend: a fast C++ model of the whole device behind the driver's Device interface
// (backends/model/: its host memory and the core that runs programs). Results, DMA byte
// counters, instruction counts, ARRAY_BUSY and MACS are exact; CYCLES and the stall counters
// are estimated (docs/architecture.md, "The model backend"). It records no waveforms
// (tracing() is nullptr). Any number of model devices may live in one process.
#ifndef MXU_BACKENDS_MODEL_DEVICE_H_
#define MXU_BACKENDS_MODEL_DEVICE_H_

#include <array>
#include <cstdint>

#include "backends/model/core.h"
#include "backends/model/sparse_memory.h"
#include "common/memory_timing.h"
#include "driver/device.h"

namespace mxu::backends {

class ModelDevice : public driver::Device {
 public:
  explicit ModelDevice(const MemoryTiming& timing = MemoryTiming());
  explicit ModelDevice(const model::Config& config);

  // driver::Device. CSR accesses answered with an error response (an unknown address, a write
  // to a read-only register) throw std::runtime_error, as the RTL platform does.
  uint32_t ReadCsr(uint32_t addr) override;
  void WriteCsr(uint32_t addr, uint32_t value) override;
  void WriteMemory(uint64_t addr, const void* data, size_t bytes) override;
  void ReadMemory(uint64_t addr, void* data, size_t bytes) override;
  uint64_t memory_size() const override { return core_.memory().size(); }
  bool RunUntilInterrupt(uint64_t max_cycles) override;
  const char* name() const override { return "model"; }

  // The model's own host memory (error injection for tests) and settings.
  model::SparseMemory& memory() { return core_.memory(); }
  const model::Config& config() const { return core_.config(); }
  void set_timing(const MemoryTiming& timing) { core_.set_timing(timing); }
  // Device cycles since the device was made.
  uint64_t cycle() const { return cycle_; }

 private:
  void Start();
  void Finish();

  model::Core core_;
  uint64_t cycle_ = 0;
  bool irq_enable_ = false, irq_pending_ = false;
  bool busy_ = false, done_ = false, error_ = false;
  uint32_t error_code_ = 0, error_pc_ = 0, pc_ = 0;
  uint64_t error_addr_ = 0;
  uint64_t cmd_addr_ = 0;
  uint32_t cmd_count_ = 0;
  uint64_t remaining_ = 0;  // cycles until the running program stops
  model::RunResult result_;
  std::array<uint64_t, csr::kNumCounters> counters_{};
};

}  // namespace mxu::backends

#endif  // MXU_BACKENDS_MODEL_DEVICE_H_
