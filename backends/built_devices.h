// The devices this build made (MXU_DEVICES, cmake/devices.cmake): one verilated mxu_top per
// entry, each behind its own backends library and `mxu` executable (one device per process).
// The table is the same in every binary; ThisDevice() is the one this binary's RTL backend
// simulates, and the one the model backend stands for.
#ifndef MXU_BACKENDS_BUILT_DEVICES_H_
#define MXU_BACKENDS_BUILT_DEVICES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "backends/model/core.h"
#include "common/device_spec.h"
#include "common/memory_timing.h"

namespace mxu::backends {

struct BuiltDevice {
  const char* name;  // "16x16", "8x4-flush"
  uint32_t rows, cols, ub_depth, acc_depth, wfifo_depth;
  bool flush_subnormals;
  uint32_t pe_stages;  // the PE's pipeline depth (pe=N)
  uint32_t bus_bytes;  // the memory port's bytes per beat (bus=B)
  bool clock_gating;   // gated clocks (gate=1): the model counts the clocks as the RTL gates them
  const char* binary;  // the executable's file name: "mxu" for the default device, "mxu-NAME"
};

// Every device of the build, the default first.
const std::vector<BuiltDevice>& BuiltDevices();
// The device of this binary.
const BuiltDevice& ThisDevice();
// The device of that name, or the one whose hardware the spec describes (any spelling of it:
// "16x16:pe=6", or MXU_DEVICES's own entry with hier=1); nullptr when the build has none.
const BuiltDevice* FindBuiltDevice(const std::string& name);
// "'16x16', '8x4-flush'": the names, for messages.
std::string BuiltDeviceNames();

// The model backend's configuration for a device: its build parameters, the given memory timing.
model::Config ModelConfig(const BuiltDevice& device, const MemoryTiming& timing);
// ... for any device spec, built or not.
model::Config ModelConfig(const DeviceSpec& device, const MemoryTiming& timing);

}  // namespace mxu::backends

#endif  // MXU_BACKENDS_BUILT_DEVICES_H_
