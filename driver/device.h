// The device as the driver sees it: CSRs, host memory, and a clock to run until the interrupt.
// The RTL platform implements it (driver/rtl_device.h); a fast C++ model of the device will be a
// second implementation, so nothing above this layer knows which one it drives.
#ifndef MXU_DRIVER_DEVICE_H_
#define MXU_DRIVER_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

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
  // Names the programs run from now on in a recording of the device (the instruction timeline's
  // program spans, e.g. "layer 1 forward 64x2x32"); empty: numbered. Nothing without a recorder.
  virtual void SetProgramLabel(const std::string& /*label*/) {}
};

}  // namespace mxu::driver

#endif  // MXU_DRIVER_DEVICE_H_
