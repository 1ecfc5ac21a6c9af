// The device as the driver sees it: CSRs, host memory, and a clock to run until the interrupt.
// Backends implement it (backends/: the verilated RTL on its SystemC platform; a fast C++ model
// next); the driver and the tools above it never know which one they drive.
#ifndef MXU_DRIVER_DEVICE_H_
#define MXU_DRIVER_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "driver/tracing.h"

namespace mxu::driver {

// The device stopped with an error code, or did not finish in time.
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Device {
 public:
  virtual ~Device() = default;

  virtual uint32_t ReadCsr(uint32_t addr) = 0;
  virtual void WriteCsr(uint32_t addr, uint32_t value) = 0;
  virtual void WriteMemory(uint64_t addr, const void* data, size_t bytes) = 0;
  virtual void ReadMemory(uint64_t addr, void* data, size_t bytes) = 0;
  virtual uint64_t memory_size() const = 0;
  // Runs until the interrupt is raised (true) or max_cycles have passed (false).
  virtual bool RunUntilInterrupt(uint64_t max_cycles) = 0;
  virtual const char* name() const = 0;
  // Waveforms and timelines, where the backend can record them; nullptr otherwise.
  virtual Tracing* tracing() { return nullptr; }
};

}  // namespace mxu::driver

#endif  // MXU_DRIVER_DEVICE_H_
