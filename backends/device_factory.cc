#include "backends/device_factory.h"

#include <stdexcept>

#include "backends/built_devices.h"
#include "backends/cross_device.h"
#include "backends/model_device.h"
#include "backends/rtl_device.h"
#include "common/device_spec.h"

namespace mxu::backends {

const std::vector<std::string>& AvailableBackends() {
  static const std::vector<std::string> names = {"rtl", "model", "cross"};
  return names;
}

std::unique_ptr<driver::Device> OpenDevice(const BackendOptions& options) {
  if (!options.device_spec.empty() && FindBuiltDevice(options.device_spec) != &ThisDevice()) {
    DeviceSpec spec;
    try {
      spec = ParseDeviceSpec(options.device_spec);
    } catch (const DeviceSpecError& error) {
      throw std::invalid_argument("device '" + options.device_spec + "': " + error.what());
    }
    if (options.backend != "model") {
      throw std::invalid_argument("device '" + options.device_spec +
                                  "' is not built here (built: " + BuiltDeviceNames() +
                                  "): only --backend model simulates any device");
    }
    return std::make_unique<ModelDevice>(ModelConfig(spec, options.timing));
  }
  if (options.backend == "rtl") return std::make_unique<RtlDevice>(options.timing);
  // The model stands for this binary's device (its array, buffers and subnormal mode).
  const model::Config model = ModelConfig(ThisDevice(), options.timing);
  if (options.backend == "model") return std::make_unique<ModelDevice>(model);
  if (options.backend == "cross") {
    return std::make_unique<CrossDevice>(std::make_unique<RtlDevice>(options.timing),
                                         std::make_unique<ModelDevice>(model));
  }
  std::string available;
  for (const std::string& name : AvailableBackends()) {
    available += (available.empty() ? "'" : ", '") + name + "'";
  }
  throw std::invalid_argument("unknown backend '" + options.backend + "' (available: " + available +
                              ")");
}

}  // namespace mxu::backends
