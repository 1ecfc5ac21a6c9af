// A device as MXU_DEVICES names it:
// ROWSxCOLS[-flush][:ub=N][:acc=N][:wfifo=N][:pe=N][:bus=B][:hier=0|1][:threads=N][:gate=0|1].
// The one parser of that syntax: cmake/devices.cmake runs it at configure time (tools/
// device_spec_cmake.cc) to make each built device's Verilator defines and targets, and the tools
// run it for `--device SPEC` (the model backend simulates any spec, built or not).
#ifndef MXU_COMMON_DEVICE_SPEC_H_
#define MXU_COMMON_DEVICE_SPEC_H_

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/device_table.h"  // DmaMaxInFlight, the RTL's MemMaxInFlight

namespace mxu {

// Devices with at least this many PEs verilate the array column once (hier=1 unless given).
constexpr uint32_t kHierMinPes = 1024;
// The default PE pipeline depth: the shallowest whose longest stage is at most 50 gate levels
// (docs/architecture.md, "The pipelined PE"). rtl/mxu_pkg.sv's MXU_PE_STAGES default is the same
// (a unit test reads it there).
constexpr uint32_t kDefaultPeStages = 6;

struct DeviceSpec {
  std::string name;  // the entry up to its first ':' ("8x4-flush")
  uint32_t rows = 16, cols = 16;
  bool flush_subnormals = false;
  uint32_t ub_depth = 8192;
  uint32_t acc_depth = 1024;
  uint32_t wfifo_depth = 32;  // default 2 x rows
  uint32_t pe_stages = kDefaultPeStages;
  uint32_t bus_bytes = 32;  // the memory port's bytes per beat
  bool hier = false;        // default rows x cols >= hier_min_pes
  // The RTL build's simulation threads (Verilator --threads; flat devices only). Simulation
  // only: the hardware, the model and every result are the same at any setting.
  uint32_t threads = 1;
  // gate=0|1: the RTL's clock gating (rtl/mxu_pkg.sv ClockGating; docs/architecture.md, "Clock
  // gating"). Cycles and results are the same either way; power and energy are not.
  bool clock_gating = true;
};

// Thrown with the rule the entry breaks ("pe=0 must be 1 to 7 (the PE's pipeline stages)").
struct DeviceSpecError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

DeviceSpec ParseDeviceSpec(const std::string& entry, uint32_t hier_min_pes = kHierMinPes);

// The entry's syntax, for messages and help.
inline constexpr const char* kDeviceSpecSyntax =
    "ROWSxCOLS[-flush][:ub=N][:acc=N][:wfifo=N][:pe=N][:bus=B][:hier=0|1][:threads=N][:gate=0|1]";

// The widest memory port the RTL takes (a device spec with a wider one is refused at configure
// time); the model takes up to kMaxBusBytes, the same.
constexpr uint32_t kMaxRtlBusBytes = 1024;
constexpr uint32_t kMinBusBytes = 16;
constexpr uint32_t kMaxBusBytes = 1024;
// The most simulation threads a device's RTL build may ask for.
constexpr uint32_t kMaxSimThreads = 64;

}  // namespace mxu

#endif  // MXU_COMMON_DEVICE_SPEC_H_
