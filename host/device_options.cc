#include "host/device_options.h"

namespace mxu::host {

const std::set<std::string>& DeviceValueFlags() {
  static const std::set<std::string> flags = {"backend", "mem-latency", "mem-bytes-per-cycle",
                                              "mem-in-flight", "watchdog"};
  return flags;
}

DeviceOptions ParseDeviceOptions(const CliArgs& args) {
  DeviceOptions options;
  options.backend = args.String("backend", "rtl");
  options.timing.latency_cycles =
      static_cast<unsigned>(args.Unsigned("mem-latency", options.timing.latency_cycles, 0, 100000));
  options.timing.bytes_per_cycle = static_cast<unsigned>(
      args.Unsigned("mem-bytes-per-cycle", options.timing.bytes_per_cycle, 1, 4096));
  options.timing.max_in_flight =
      static_cast<unsigned>(args.Unsigned("mem-in-flight", options.timing.max_in_flight, 1, 1024));
  options.watchdog_cycles = args.Unsigned("watchdog", options.watchdog_cycles, 1);
  return options;
}

std::unique_ptr<driver::Device> OpenDevice(const DeviceOptions& options) {
  if (options.backend == "model") {
    throw UsageError("--backend model is not available yet (only 'rtl')");
  }
  try {
    return backends::OpenDevice({options.backend, options.timing});
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
}

}  // namespace mxu::host
