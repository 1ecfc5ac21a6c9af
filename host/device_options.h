// Options shared by the subcommands that drive a device: the backend and the host-memory timing
// of the RTL platform, and the watchdog.
#ifndef MXU_HOST_DEVICE_OPTIONS_H_
#define MXU_HOST_DEVICE_OPTIONS_H_

#include <memory>
#include <string>

#include "backends/device_factory.h"
#include "common/memory_timing.h"
#include "driver/device.h"
#include "host/cli.h"

namespace mxu::host {

struct DeviceOptions {
  std::string backend = "rtl";
  MemoryTiming timing;
  uint64_t watchdog_cycles = 200'000'000;
};

// Adds --backend, --mem-latency, --mem-bytes-per-cycle, --mem-in-flight, --watchdog to app;
// backends_help lists the backends the command takes.
void AddDeviceOptions(CLI::App* app, DeviceOptions* options, const std::string& backends_help);

// Opens the device through the backend factory. Throws UsageError for a backend that is not
// available.
std::unique_ptr<driver::Device> OpenDevice(const DeviceOptions& options);

}  // namespace mxu::host

#endif  // MXU_HOST_DEVICE_OPTIONS_H_
