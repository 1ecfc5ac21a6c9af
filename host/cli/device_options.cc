#include "host/cli/device_options.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backends/built_devices.h"
#include "backends/cross_device.h"
#include "common/device_spec.h"

namespace mxu::host {

std::string DeviceOptionHelp() {
  std::string names;
  for (const backends::BuiltDevice& device : backends::BuiltDevices()) {
    names += (names.empty() ? "" : ", ") + std::string(device.name);
    if (&device == &backends::BuiltDevices().front()) names += " (default)";
  }
  return "the device, by the name it was built as: " + names +
         " ('mxu info --list' shows them); with --backend model any device, built or not, as " +
         kDeviceSpecSyntax + " (e.g. 128x128:pe=3)";
}

void AddDeviceOptions(CLI::App* app, DeviceOptions* options, const std::string& backends_help) {
  app->add_option("--device", options->device, DeviceOptionHelp())
      ->type_name("NAME")
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            if (backends::FindBuiltDevice(name) != nullptr) return "";
            try {
              ParseDeviceSpec(name);  // any spec, for the model backend (checked when opened)
              return "";
            } catch (const DeviceSpecError& error) {
              return "'" + name + "' is neither a device of this build (" +
                     backends::BuiltDeviceNames() + ") nor a device spec: " + error.what();
            }
          },
          "", "device"));
  app->add_option("--backend", options->backend, backends_help)->type_name("NAME");
  AddInteger(app, "--mem-latency", &options->timing.latency_cycles, 0, 100000,
             "host-memory latency in device cycles");
  AddInteger(app, "--mem-bytes-per-cycle", &options->timing.bytes_per_cycle, 1, 4096,
             "host-memory bandwidth in bytes per cycle (reads and writes share it); by default "
             "as wide as the device's memory port (bus=B), as 'mxu info' shows")
      ->default_str("port width");
  AddInteger(app, "--mem-in-flight", &options->timing.max_in_flight, 1, 1024,
             "host-memory requests in flight");
  AddInteger(app, "--watchdog", &options->watchdog_cycles, 1, UINT64_MAX,
             "device cycles a run may take before it is abandoned (exit code 1)");
}

std::unique_ptr<driver::Device> OpenDevice(const DeviceOptions& options) {
  try {
    auto device = backends::OpenDevice({options.backend, options.timing, options.device});
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

void RunDeviceExecutable(int argc, char** argv) {
  std::string name;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg == "--device" && i + 1 < argc) {
      name = argv[i + 1];
      break;
    }
    if (arg.rfind("--device=", 0) == 0) {
      name = arg.substr(9);
      break;
    }
  }
  const backends::BuiltDevice* device = backends::FindBuiltDevice(name);
  if (device == nullptr || device == &backends::ThisDevice()) return;
  // The sibling executable lies beside this one (build/bin, or the install prefix's bin).
  std::string path = device->binary;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n > 0) {
    const std::string dir(self, static_cast<size_t>(n));
    path = dir.substr(0, dir.rfind('/') + 1) + device->binary;
  }
  execv(path.c_str(), argv);
  const std::string command = argc > 1 ? argv[1] : "";
  std::fprintf(stderr,
               "mxu %s: --device %s: cannot run its executable %s: %s (build it: cmake --build "
               "build --target %s)\n",
               command.c_str(), name.c_str(), path.c_str(), std::strerror(errno), device->binary);
  std::exit(2);
}

void RejectDeviceOptions(const CLI::App& cli, const std::string& why,
                         const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (Given(cli, name)) throw UsageError(name + " has no effect " + why);
  }
}

}  // namespace mxu::host
