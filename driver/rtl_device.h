// The RTL backend: the verilated device on the SystemC platform (sim/platform.h). Construct it
// from sc_main (SystemC elaborates once per process: one RtlDevice per process).
#ifndef MXU_DRIVER_RTL_DEVICE_H_
#define MXU_DRIVER_RTL_DEVICE_H_

#include <memory>
#include <string>

#include "driver/device.h"

namespace mxu::sim {
class Platform;
class Timeline;
}  // namespace mxu::sim

namespace mxu::driver {

// Host-memory timing of the platform, in device clock cycles.
struct MemoryTiming {
  unsigned latency_cycles = 100;
  unsigned bytes_per_cycle = 32;
  unsigned max_in_flight = 8;
};

class RtlDevice : public Device {
 public:
  explicit RtlDevice(const MemoryTiming& timing = MemoryTiming());
  ~RtlDevice() override;

  uint32_t ReadCsr(uint32_t addr) override;
  void WriteCsr(uint32_t addr, uint32_t value) override;
  void WriteMemory(uint64_t addr, const void* data, size_t bytes) override;
  void ReadMemory(uint64_t addr, void* data, size_t bytes) override;
  uint64_t memory_size() const override;
  bool RunUntilInterrupt(uint64_t max_cycles) override;
  const char* name() const override { return "rtl"; }
  void SetProgramLabel(const std::string& label) override;

  // FST trace of device cycles [start, start + cycles) (0 cycles: to the end).
  void SetTrace(const std::string& path, uint64_t start_cycle, uint64_t cycles);
  // Instruction timeline (sim/timeline.h) from now on; WriteTimeline stops it and writes it as
  // Chrome trace-event JSON, throwing std::runtime_error ("cannot write timeline file '...'")
  // when the file cannot be written.
  void StartTimeline();
  void WriteTimeline(const std::string& path);
  const sim::Timeline* timeline() const;
  sim::Platform& platform() { return *platform_; }

 private:
  std::unique_ptr<sim::Platform> platform_;
};

}  // namespace mxu::driver

#endif  // MXU_DRIVER_RTL_DEVICE_H_
