// `mxu bench --sweep SPEC,SPEC,...`: the same shapes or topology on several devices, each given
// as a device spec (MXU_DEVICES syntax) and run on the model backend, which needs no RTL build;
// then a summary per device: total cycles, utilization, DMA bytes and the time at a clock.
#ifndef MXU_HOST_BENCH_SWEEP_H_
#define MXU_HOST_BENCH_SWEEP_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/memory_timing.h"

namespace mxu::host {

// The specs of "SPEC,SPEC,...", each checked (UsageError naming it otherwise), none twice.
std::vector<std::string> ParseSweep(const std::string& text);

// The host memory of a point whose port is `bus_bytes` wide: as wide as the port unless the
// command line set the memory's width (memory_given), as everywhere; and then a port wider than
// the default device's (32 bytes) also gets the requests the DMA's three engines keep in flight
// (as scripts/port_width.sh does), so that a wide device is not starved of requests either.
MemoryTiming PointTiming(const MemoryTiming& base, unsigned bus_bytes, bool memory_given);

// The rows' indices grouped by device and memory setting ("point" where a sweep set it,
// "setting"), the groups in the order their first rows came.
std::vector<std::vector<size_t>> GroupRows(const nlohmann::ordered_json& rows);

// A group's heading, from its first row and its number of rows: device_spec ("-" outside a
// sweep), setting, array_rows, array_cols, gemms.
nlohmann::ordered_json GroupHeading(const nlohmann::ordered_json& first, size_t rows);

// One entry per device and memory setting of rows (by "point", "device_spec" where a sweep set
// them, and "setting"): GEMMs, MACs, cycles, utilization (MACs / (PEs x cycles)), DMA bytes, and
// milliseconds at clock_mhz.
nlohmann::ordered_json SweepSummary(const nlohmann::ordered_json& rows, double clock_mhz);

// The summary as a table on stdout.
void PrintSweepSummary(const nlohmann::ordered_json& summary, double clock_mhz);

}  // namespace mxu::host

#endif  // MXU_HOST_BENCH_SWEEP_H_
