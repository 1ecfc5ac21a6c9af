// The RTL backend: the verilated device on the SystemC platform (sim/platform.h), behind the
// driver's Device interface, with waveforms and timelines through driver::Tracing. Construct it
// from sc_main (SystemC elaborates once per process: one RtlDevice per process).
#ifndef MXU_BACKENDS_RTL_DEVICE_H_
#define MXU_BACKENDS_RTL_DEVICE_H_

#include <memory>
#include <string>

#include "common/memory_timing.h"
#include "driver/device.h"
#include "driver/tracing.h"

namespace mxu::sim {
class Platform;
}  // namespace mxu::sim

namespace mxu::backends {

class RtlDevice : public driver::Device, public driver::Tracing {
 public:
  explicit RtlDevice(const MemoryTiming& timing = MemoryTiming());
  ~RtlDevice() override;

  // driver::Device
  uint32_t ReadCsr(uint32_t addr) override;
  void WriteCsr(uint32_t addr, uint32_t value) override;
  void WriteMemory(uint64_t addr, const void* data, size_t bytes) override;
  void ReadMemory(uint64_t addr, void* data, size_t bytes) override;
  uint64_t memory_size() const override;
  bool RunUntilInterrupt(uint64_t max_cycles) override;
  const char* name() const override { return "rtl"; }
  driver::Tracing* tracing() override { return this; }

  // driver::Tracing
  uint64_t cycle() const override;
  void SetTrace(const std::string& path, uint64_t start_cycle, uint64_t cycles,
                const driver::TraceScope& scope) override;
  void CloseTrace() override;
  bool trace_written() const override;
  void WriteTraceLayout(const std::string& gtkw_path) override;
  void StartTimeline() override;
  void WriteTimeline(const std::string& path) override;
  void StopTimeline() override;
  void SetProgramLabel(const std::string& label) override;

 private:
  std::unique_ptr<sim::Platform> platform_;
};

}  // namespace mxu::backends

#endif  // MXU_BACKENDS_RTL_DEVICE_H_
