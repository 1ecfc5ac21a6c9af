#include "host/info_command.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "driver/device_config.h"
#include "host/device_options.h"

namespace mxu::host {

namespace {

struct InfoArgs {
  DeviceOptions device;
  bool json = false;
};

int RunInfo(const InfoArgs& args) {
  auto device = OpenDevice(args.device);
  const driver::DeviceConfig c = driver::ReadDeviceConfig(*device);
  const char* mode = c.subnormals == Subnormals::kFlush ? "flush" : "ieee";
  if (args.json) {
    nlohmann::ordered_json j;
    j["backend"] = device->name();
    j["version"] = std::to_string(c.version >> 16) + "." + std::to_string(c.version & 0xFFFF);
    j["array_rows"] = c.rows;
    j["array_cols"] = c.cols;
    j["ub_depth"] = c.ub_depth;
    j["ub_lanes"] = c.ub_lanes;
    j["acc_depth"] = c.acc_depth;
    j["weight_fifo_depth"] = c.weight_fifo_depth;
    j["bus_bytes"] = c.bus_bytes;
    j["max_in_flight"] = c.max_in_flight;
    j["subnormals"] = mode;
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  std::printf("MXU device (%s backend), version %u.%u\n", device->name(), c.version >> 16,
              c.version & 0xFFFF);
  std::printf("  systolic array      %u x %u PEs (bf16 x bf16 -> fp32)\n", c.rows, c.cols);
  std::printf("  unified buffer      %u rows x %u bf16 lanes\n", c.ub_depth, c.ub_lanes);
  std::printf("  accumulators        %u rows x %u fp32 lanes\n", c.acc_depth, c.cols);
  std::printf("  weight FIFO         %u rows\n", c.weight_fifo_depth);
  std::printf("  memory port         %u bytes/beat, %u reads in flight\n", c.bus_bytes,
              c.max_in_flight);
  std::printf("  subnormals          %s\n", mode);
  return 0;
}

}  // namespace

std::function<int()> AddInfoCommand(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand("info", "The device configuration read from its CSRs.");
  cmd->footer(kExitCodesHelp);
  cmd->add_flag("--json", args->json, "one JSON object on stdout");
  AddDeviceOptions(cmd, &args->device, kDeviceBackendsHelp);
  return [args] { return RunInfo(*args); };
}

}  // namespace mxu::host
