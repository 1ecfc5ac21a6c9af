// The one place where a backend is chosen: the tools name a backend and get a driver::Device,
// never a platform or a model class.
#ifndef MXU_BACKENDS_DEVICE_FACTORY_H_
#define MXU_BACKENDS_DEVICE_FACTORY_H_

#include <memory>
#include <string>
#include <vector>

#include "common/memory_timing.h"
#include "driver/device.h"

namespace mxu::backends {

struct BackendOptions {
  std::string backend = "rtl";
  MemoryTiming timing;
  // Another device for the model backend to stand for, in MXU_DEVICES syntax (common/
  // device_spec.h), built or not: "128x128:pe=3". Empty: this binary's device.
  std::string device_spec;
};

// The backends this build can open, the default first.
const std::vector<std::string>& AvailableBackends();

// Opens the named backend, for the device this binary was built for (backends/built_devices.h:
// the model backend takes that device's parameters). Throws std::invalid_argument naming the
// backend and the available ones when it is unknown, or naming the rule a device_spec breaks, or
// for a device_spec with a backend other than the model (only this binary's device is verilated
// here). The RTL backend elaborates SystemC: once per process, from sc_main.
std::unique_ptr<driver::Device> OpenDevice(const BackendOptions& options);

}  // namespace mxu::backends

#endif  // MXU_BACKENDS_DEVICE_FACTORY_H_
