#include "backends/device_factory.h"

#include <stdexcept>

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
  if (options.backend == "model") return std::make_unique<ModelDevice>(options.timing);
  if (options.backend == "cross") {
    return std::make_unique<CrossDevice>(std::make_unique<RtlDevice>(options.timing),
                                         std::make_unique<ModelDevice>(options.timing));
  }
  std::string available;
  for (const std::string& name : AvailableBackends()) {
    available += (available.empty() ? "'" : ", '") + name + "'";
  }
  throw std::invalid_argument("unknown backend '" + options.backend + "' (available: " + available +
                              ")");
}

}  // namespace mxu::backends
