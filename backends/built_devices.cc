// Compiled once per device of the build (backends/CMakeLists.txt), with MXU_THIS_DEVICE the
// index of that device in the generated table.
#include "backends/built_devices.h"

#ifndef MXU_THIS_DEVICE
#error "MXU_THIS_DEVICE (the index of this library's device in MXU_DEVICES) is not defined"
#endif

namespace mxu::backends {

const std::vector<BuiltDevice>& BuiltDevices() {
  static const std::vector<BuiltDevice> devices = {
#include "mxu_built_devices.inc"
  };
  return devices;
}

const BuiltDevice& ThisDevice() { return BuiltDevices().at(MXU_THIS_DEVICE); }

const BuiltDevice* FindBuiltDevice(const std::string& name) {
  for (const BuiltDevice& device : BuiltDevices()) {
    if (name == device.name) return &device;
  }
  // A spec of a built device's hardware is that device ("16x16:pe=6" is 16x16); hier and threads
  // only say how its RTL is simulated.
  DeviceSpec spec;
  try {
    spec = ParseDeviceSpec(name);
  } catch (const DeviceSpecError&) {
    return nullptr;
  }
  for (const BuiltDevice& d : BuiltDevices()) {
    if (spec.rows == d.rows && spec.cols == d.cols && spec.ub_depth == d.ub_depth &&
        spec.acc_depth == d.acc_depth && spec.wfifo_depth == d.wfifo_depth &&
        spec.flush_subnormals == d.flush_subnormals && spec.pe_stages == d.pe_stages &&
        spec.bus_bytes == d.bus_bytes && spec.clock_gating == d.clock_gating) {
      return &d;
    }
  }
  return nullptr;
}

std::string BuiltDeviceNames() {
  std::string names;
  for (const BuiltDevice& device : BuiltDevices()) {
    names += (names.empty() ? "'" : ", '") + std::string(device.name) + "'";
  }
  return names;
}

model::Config ModelConfig(const DeviceSpec& device, const MemoryTiming& timing) {
  model::Config config;
  config.rows = device.rows;
  config.cols = device.cols;
  config.ub_depth = device.ub_depth;
  config.acc_depth = device.acc_depth;
  config.wfifo_depth = device.wfifo_depth;
  config.subnormals = device.flush_subnormals ? Subnormals::kFlush : Subnormals::kIeee;
  config.pe_stages = device.pe_stages;
  config.bus_bytes = device.bus_bytes;
  config.clock_gating = device.clock_gating;
  config.max_in_flight = DmaMaxInFlight(device.bus_bytes);
  config.timing = timing;
  return config;
}

model::Config ModelConfig(const BuiltDevice& device, const MemoryTiming& timing) {
  DeviceSpec spec;
  spec.name = device.name;
  spec.rows = device.rows;
  spec.cols = device.cols;
  spec.ub_depth = device.ub_depth;
  spec.acc_depth = device.acc_depth;
  spec.wfifo_depth = device.wfifo_depth;
  spec.flush_subnormals = device.flush_subnormals;
  spec.pe_stages = device.pe_stages;
  spec.bus_bytes = device.bus_bytes;
  spec.clock_gating = device.clock_gating;
  return ModelConfig(spec, timing);
}

}  // namespace mxu::backends
