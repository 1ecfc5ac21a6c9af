#include "host/device_options.h"

#include <cstdio>

#include "backends/cross_device.h"

namespace mxu::host {

void AddDeviceOptions(CLI::App* app, DeviceOptions* options, const std::string& backends_help) {
  app->add_option("--backend", options->backend, backends_help)->type_name("NAME");
  AddInteger(app, "--mem-latency", &options->timing.latency_cycles, 0, 100000,
             "host-memory latency in device cycles");
  AddInteger(app, "--mem-bytes-per-cycle", &options->timing.bytes_per_cycle, 1, 4096,
             "host-memory bandwidth in bytes per cycle");
  AddInteger(app, "--mem-in-flight", &options->timing.max_in_flight, 1, 1024,
             "host-memory requests in flight");
  AddInteger(app, "--watchdog", &options->watchdog_cycles, 1, UINT64_MAX,
             "device cycles a run may take before it is abandoned (exit code 1)");
}

std::unique_ptr<driver::Device> OpenDevice(const DeviceOptions& options) {
  try {
    auto device = backends::OpenDevice({options.backend, options.timing});
    if (auto* cross = dynamic_cast<backends::CrossDevice*>(device.get())) {
      cross->on_close = [](const std::string& summary) {
        std::fflush(stdout);
        std::fprintf(stderr, "%s\n", summary.c_str());
      };
    }
    return device;
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
}

}  // namespace mxu::host
