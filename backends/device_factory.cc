#include "backends/device_factory.h"

#include <stdexcept>

#include "backends/built_devices.h"
#include "backends/cross_device.h"
#include "backends/model_device.h"
#include "backends/rtl_device.h"

namespace mxu::backends {

const std::vector<std::string>& AvailableBackends() {
  static const std::vector<std::string> names = {"rtl", "model", "cross"};
  return names;
}

std::unique_ptr<driver::Device> OpenDevice(const BackendOptions& options) {
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
