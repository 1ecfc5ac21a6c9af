// Options shared by the subcommands that drive a device: the backend and the host-memory timing
// of the RTL platform, and the watchdog.
#ifndef MXU_HOST_CLI_DEVICE_OPTIONS_H_
#define MXU_HOST_CLI_DEVICE_OPTIONS_H_

#include <memory>
#include <string>
#include <vector>

#include "backends/device_factory.h"
#include "common/memory_timing.h"
#include "driver/device.h"
#include "host/cli/cli.h"

namespace mxu::host {

struct DeviceOptions {
  std::string device;  // --device: empty for this executable's own device; or any device spec
  std::string backend = "rtl";
  MemoryTiming timing;
  uint64_t watchdog_cycles = 200'000'000;
};

// The --backend help of the commands that take a device.
inline constexpr const char* kDeviceBackendsHelp =
    "the device: rtl (the verilated RTL platform), model (the fast C++ model) or cross (both, "
    "compared after every program: stops at the first divergence with a report)";

// Adds --device, --backend, --mem-latency, --mem-bytes-per-cycle, --mem-in-flight, --watchdog to
// app; backends_help lists the backends the command takes.
void AddDeviceOptions(CLI::App* app, DeviceOptions* options, const std::string& backends_help);

// Refuses the device options given on cli (among `names`, default: all but --backend) where no
// device is opened, rather than ignoring them: "--mem-latency has no effect <why>".
void RejectDeviceOptions(const CLI::App& cli, const std::string& why,
                         const std::vector<std::string>& names = {"--device", "--mem-latency",
                                                                  "--mem-bytes-per-cycle",
                                                                  "--mem-in-flight", "--watchdog"});

// Opens the device through the backend factory. Throws UsageError for a backend that is not
// available, or for a --device that this executable does not simulate: another built device is
// run by its own executable (RunDeviceExecutable, before the command line is parsed), and a device
// that is not built only on the model backend. The cross backend prints its summary line to
// stderr when it is closed.
std::unique_ptr<driver::Device> OpenDevice(const DeviceOptions& options);

// --device NAME: every device of the build has its own executable (one verilated device per
// process; backends/built_devices.h). When argv's command (argv[1]) is given --device NAME (or
// --device=NAME) for a built device other than this executable's own, runs that device's
// executable, from this one's directory, with the same arguments (execv: does not return).
// Returns normally when there is nothing to run, also for a NAME that names no built device (the
// command line's check reports that). When the executable cannot be run, prints one line and
// exits with status 2.
void RunDeviceExecutable(int argc, char** argv);

// The --device help: the built devices, the default marked.
std::string DeviceOptionHelp();

}  // namespace mxu::host

#endif  // MXU_HOST_CLI_DEVICE_OPTIONS_H_
