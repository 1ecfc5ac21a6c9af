// Configure-time helper of cmake/devices.cmake: parses each MXU_DEVICES entry with the project's
// one parser (common/device_spec.cc, compiled in here) and prints one line of tab-separated
// fields per entry, "name rows cols flush ub acc wfifo pe bus hier threads gate", or "error ENTRY
// RULE" for the first bad entry (exit status 1), after a first line "defaults PE_STAGES" (the
// default PE depth, kDefaultPeStages). Usage: device_spec_tool HIER_MIN_PES ENTRY...
#include <cstdio>
#include <cstdlib>

#include "common/device_spec.cc"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const auto hier_min_pes = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  std::printf("defaults\t%u\n", mxu::kDefaultPeStages);
  for (int i = 2; i < argc; ++i) {
    try {
      const mxu::DeviceSpec d = mxu::ParseDeviceSpec(argv[i], hier_min_pes);
      // A built device is verilated: its bus must be one the RTL takes.
      if (d.bus_bytes > mxu::kMaxRtlBusBytes) {
        std::printf(
            "error\t%s\tbus=%u: the RTL's DMA takes at most %u bytes a beat (wider ports "
            "run on the model backend only: --backend model --device SPEC)\n",
            argv[i], d.bus_bytes, mxu::kMaxRtlBusBytes);
        return 1;
      }
      std::printf("%s\t%u\t%u\t%d\t%u\t%u\t%u\t%u\t%u\t%d\t%u\t%d\n", d.name.c_str(), d.rows,
                  d.cols, d.flush_subnormals ? 1 : 0, d.ub_depth, d.acc_depth, d.wfifo_depth,
                  d.pe_stages, d.bus_bytes, d.hier ? 1 : 0, d.threads, d.clock_gating ? 1 : 0);
    } catch (const mxu::DeviceSpecError& error) {
      std::printf("error\t%s\t%s\n", argv[i], error.what());
      return 1;
    }
  }
  return 0;
}
