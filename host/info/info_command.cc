#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/built_devices.h"
#include "common/memory_timing.h"
#include "driver/device_config.h"
#include "host/cli/device_options.h"
#include "host/info/commands.h"

namespace mxu::host {

namespace {

struct InfoArgs {
  DeviceOptions device;
  bool json = false;
  bool list = false;
};

// The devices of the build (MXU_DEVICES), from the generated table: no device is opened.
int ListDevices(bool json) {
  const auto& devices = backends::BuiltDevices();
  if (json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const backends::BuiltDevice& d : devices) {
      nlohmann::ordered_json j;
      j["name"] = d.name;
      j["array_rows"] = d.rows;
      j["array_cols"] = d.cols;
      j["ub_depth"] = d.ub_depth;
      j["acc_depth"] = d.acc_depth;
      j["weight_fifo_depth"] = d.wfifo_depth;
      j["subnormals"] = d.flush_subnormals ? "flush" : "ieee";
      j["pe_stages"] = d.pe_stages;
      j["bus_bytes"] = d.bus_bytes;
      j["clock_gating"] = d.clock_gating;
      j["default"] = &d == &devices.front();
      j["binary"] = d.binary;
      list.push_back(j);
    }
    std::printf("%s\n", list.dump().c_str());
    return 0;
  }
  std::printf("Devices of this build (MXU_DEVICES; 'mxu COMMAND --device NAME' picks one):\n");
  std::printf("  %-16s %-9s %8s %8s %6s %3s %5s  %-10s %s\n", "NAME", "ARRAY", "UB ROWS",
              "ACC ROWS", "WFIFO", "PE", "BUS", "SUBNORMALS", "EXECUTABLE");
  for (const backends::BuiltDevice& d : devices) {
    const std::string array = std::to_string(d.rows) + " x " + std::to_string(d.cols);
    const std::string name = std::string(d.name) + (&d == &devices.front() ? " *" : "");
    std::printf("  %-16s %-9s %8u %8u %6u %3u %5u  %-10s %s\n", name.c_str(), array.c_str(),
                d.ub_depth, d.acc_depth, d.wfifo_depth, d.pe_stages, d.bus_bytes,
                d.flush_subnormals ? "flush" : "ieee", d.binary);
  }
  std::printf("  * the default device (no --device)\n");
  return 0;
}

int RunInfo(const CLI::App& cli, const InfoArgs& args) {
  if (args.list) {
    RejectDeviceOptions(cli, "with --list (the devices of the build are listed, none is opened)",
                        {"--device", "--backend", "--mem-latency", "--mem-bytes-per-cycle",
                         "--mem-in-flight", "--watchdog"});
    return ListDevices(args.json);
  }
  auto device = OpenDevice(args.device);
  const driver::DeviceConfig c = driver::ReadDeviceConfig(*device);
  const char* mode = ToString(c.subnormals);
  const std::string device_name =
      args.device.device.empty() ? backends::ThisDevice().name : args.device.device;
  // The memory the backend put behind the port: kPortWidth resolved as the backends resolve it.
  const MemoryTiming memory = args.device.timing.ForPort(c.bus_bytes);
  const bool memory_given = !args.device.timing.port_width();
  if (args.json) {
    nlohmann::ordered_json j;
    j["backend"] = device->name();
    j["device"] = device_name;
    driver::ForEachConfigField(c, [&](const char* name, const auto& value) { j[name] = value; });
    // The host memory's settings, as the Python package's Device.info() names them.
    j["mem_latency"] = memory.latency_cycles;
    j["mem_bytes_per_cycle"] = memory.bytes_per_cycle;
    j["mem_bytes_per_cycle_from"] = memory_given ? "given" : "port";
    j["mem_in_flight"] = memory.max_in_flight;
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  std::printf("MXU device (%s backend), version %u.%u\n", device->name(), c.version >> 16,
              c.version & 0xFFFF);
  // A spec that is not built runs on the model only (the factory refuses it elsewhere).
  std::printf("  device              %s (%s)\n", device_name.c_str(),
              backends::FindBuiltDevice(device_name) != nullptr
                  ? "of this build: 'mxu info --list'"
                  : "a device spec, not built: the model simulates it; 'mxu info --list' shows "
                    "the built ones");
  std::printf("  systolic array      %u x %u PEs (bf16 x bf16 -> fp32)\n", c.rows, c.cols);
  std::printf("  PE pipeline         %u stages (multiply %u, add %u cycles: rows skewed by %u)\n",
              c.pe_stages, c.pe_mul_cycles, c.pe_add_cycles, c.pe_add_cycles);
  std::printf("  unified buffer      %u rows x %u bf16 lanes\n", c.ub_depth, c.ub_lanes);
  std::printf("  accumulators        %u rows x %u fp32 lanes\n", c.acc_depth, c.cols);
  std::printf("  weight FIFO         %u rows\n", c.weight_fifo_depth);
  std::printf("  memory port         %u bytes/beat, %u reads in flight\n", c.bus_bytes,
              c.max_in_flight);
  std::printf("  host memory         %u bytes/cycle (%s), latency %u cycles, %u in flight\n",
              memory.bytes_per_cycle,
              memory_given ? "given" : "the port's width; --mem-bytes-per-cycle sets another",
              memory.latency_cycles, memory.max_in_flight);
  std::printf("  subnormals          %s\n", mode);
  return 0;
}

}  // namespace

std::function<int()> AddInfoCommand(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand(
      "info",
      "The device configuration read from its CSRs, and the host memory behind it: latency, "
      "requests in flight, and bytes per cycle (the port's width unless --mem-bytes-per-cycle "
      "is given; the JSON's mem_bytes_per_cycle_from says which).");
  cmd->footer(kExitCodesHelp);
  cmd->add_flag("--json", args->json, "one JSON object on stdout (--list: an array)");
  cmd->add_flag("--list", args->list,
                "list the devices of this build (name, array, buffer depths, PE stages, bus bytes, "
                "subnormal mode, "
                "executable; the default marked) instead of reading one");
  AddDeviceOptions(cmd, &args->device, kDeviceBackendsHelp);
  return [cmd, args] { return RunInfo(*cmd, *args); };
}

}  // namespace mxu::host
