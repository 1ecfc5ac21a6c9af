#include "host/info_command.h"

#include <cstdio>

#include "driver/device_config.h"
#include "host/device_options.h"

namespace mxu::host {

int RunInfo(const std::vector<std::string>& args) {
  const CliArgs cli(args, DeviceValueFlags(), {"json"});
  const DeviceOptions options = ParseDeviceOptions(cli);
  auto device = OpenDevice(options);
  const driver::DeviceConfig c = driver::ReadDeviceConfig(*device);
  const char* mode = c.subnormals == Subnormals::kFlush ? "flush" : "ieee";
  if (cli.Has("json")) {
    std::printf(
        "{\"backend\": \"%s\", \"version\": \"%u.%u\", \"array_rows\": %u, \"array_cols\": %u, "
        "\"ub_depth\": %u, \"ub_lanes\": %u, \"acc_depth\": %u, \"weight_fifo_depth\": %u, "
        "\"bus_bytes\": %u, \"max_in_flight\": %u, \"subnormals\": \"%s\"}\n",
        device->name(), c.version >> 16, c.version & 0xFFFF, c.rows, c.cols, c.ub_depth, c.ub_lanes,
        c.acc_depth, c.weight_fifo_depth, c.bus_bytes, c.max_in_flight, mode);
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

}  // namespace mxu::host
