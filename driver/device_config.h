// The device's configuration, read from its CSRs: the array size and buffer depths are never
// hard-coded in software.
#ifndef MXU_DRIVER_DEVICE_CONFIG_H_
#define MXU_DRIVER_DEVICE_CONFIG_H_

#include <cstdint>
#include <string>

#include "common/subnormals.h"
#include "driver/device.h"

namespace mxu::driver {

struct DeviceConfig {
  uint32_t version = 0;
  uint32_t rows = 0;  // ArrayRows: the K depth of a weight tile
  uint32_t cols = 0;  // ArrayCols: the N width of a weight tile
  uint32_t ub_depth = 0;
  uint32_t acc_depth = 0;
  uint32_t weight_fifo_depth = 0;
  uint32_t ub_lanes = 0;
  uint32_t bus_bytes = 0;
  uint32_t max_in_flight = 0;
  // The PE's pipeline (common/pe_pipeline.h): its depth, the multiply's cycles and the partial-sum
  // chain's step per PE row.
  uint32_t pe_stages = 0;
  uint32_t pe_mul_cycles = 0;
  uint32_t pe_add_cycles = 0;
  Subnormals subnormals = Subnormals::kIeee;
};

// Throws DeviceError when the ID register does not identify the device.
DeviceConfig ReadDeviceConfig(Device& device);

// "MAJOR.MINOR" of the version register.
inline std::string VersionText(uint32_t version) {
  return std::to_string(version >> 16) + "." + std::to_string(version & 0xFFFF);
}

// Calls field(name, value) for each field of the configuration as the tools report it (`mxu info
// --json`, the device of `mxu bench --json`, the Python module's info()), in this order: one list,
// so that they cannot drift. Values are uint32_t, or std::string for version and subnormals.
template <typename Field>
void ForEachConfigField(const DeviceConfig& c, Field&& field) {
  field("version", VersionText(c.version));
  field("array_rows", c.rows);
  field("array_cols", c.cols);
  field("ub_depth", c.ub_depth);
  field("ub_lanes", c.ub_lanes);
  field("acc_depth", c.acc_depth);
  field("weight_fifo_depth", c.weight_fifo_depth);
  field("bus_bytes", c.bus_bytes);
  field("max_in_flight", c.max_in_flight);
  field("pe_stages", c.pe_stages);
  field("subnormals", std::string(ToString(c.subnormals)));
}

}  // namespace mxu::driver

#endif  // MXU_DRIVER_DEVICE_CONFIG_H_
