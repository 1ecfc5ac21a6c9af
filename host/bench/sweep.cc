#include "host/bench/sweep.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <utility>

#include "common/device_spec.h"
#include "host/cli/cli.h"

namespace mxu::host {

using Json = nlohmann::ordered_json;

std::vector<std::string> ParseSweep(const std::string& text) {
  std::vector<std::string> specs(1);
  for (char c : text) {
    if (c == ',') {
      specs.emplace_back();
    } else {
      specs.back() += c;
    }
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].empty()) throw UsageError("--sweep '" + text + "': an empty device spec");
    try {
      ParseDeviceSpec(specs[i]);
    } catch (const DeviceSpecError& error) {
      throw UsageError("--sweep '" + specs[i] + "': " + error.what());
    }
    if (std::find(specs.begin(), specs.begin() + i, specs[i]) != specs.begin() + i) {
      throw UsageError("--sweep '" + specs[i] + "' given twice");
    }
  }
  return specs;
}

MemoryTiming PointTiming(const MemoryTiming& base, unsigned bus_bytes, bool memory_given) {
  MemoryTiming timing = base.ForPort(bus_bytes);
  if (!memory_given && bus_bytes > DeviceSpec().bus_bytes) {
    timing.max_in_flight = std::max(base.max_in_flight, 3 * DmaMaxInFlight(bus_bytes));
  }
  return timing;
}

std::vector<std::vector<size_t>> GroupRows(const Json& rows) {
  std::vector<std::vector<size_t>> groups;
  std::map<std::pair<uint64_t, uint64_t>, size_t> index;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::pair<uint64_t, uint64_t> key = {rows[i].value("point", uint64_t{0}),
                                               rows[i]["setting"].get<uint64_t>()};
    const auto [at, added] = index.emplace(key, groups.size());
    if (added) groups.emplace_back();
    groups[at->second].push_back(i);
  }
  return groups;
}

Json GroupHeading(const Json& first, size_t rows) {
  Json g;
  g["device_spec"] = first.value("device_spec", std::string("-"));
  g["setting"] = first["setting"];
  g["array_rows"] = first["array_rows"];
  g["array_cols"] = first["array_cols"];
  g["gemms"] = rows;
  return g;
}

Json SweepSummary(const Json& rows, double clock_mhz) {
  Json summary = Json::array();
  for (const std::vector<size_t>& group : GroupRows(rows)) {
    const Json& first = rows[group[0]];
    Json g = GroupHeading(first, group.size());
    g["bus_bytes"] = first["bus_bytes"];
    g["memory_bytes_per_cycle"] = first["bytes_per_cycle"];
    g["memory_in_flight"] = first["max_in_flight"];
    for (const char* key : {"macs", "cycles", "dma_read_bytes", "dma_write_bytes"}) {
      uint64_t sum = 0;
      for (size_t i : group) sum += rows[i][key].get<uint64_t>();
      g[key] = sum;
    }
    const double pes = g["array_rows"].get<double>() * g["array_cols"].get<double>();
    const double cycles = g["cycles"].get<double>();
    g["utilization"] = cycles > 0 ? g["macs"].get<double>() / (pes * cycles) : 0.0;
    g["dma_bytes"] = g["dma_read_bytes"].get<uint64_t>() + g["dma_write_bytes"].get<uint64_t>();
    g["clock_mhz"] = clock_mhz;
    g["milliseconds"] = cycles / (clock_mhz * 1e3);
    summary.push_back(g);
  }
  return summary;
}

void PrintSweepSummary(const Json& summary, double clock_mhz) {
  std::printf("\nsweep summary (time at %.0f MHz; utilization = MACs / (PEs x cycles)):\n",
              clock_mhz);
  constexpr char kFormat[] = "%-28s %9s %10s %13s %7s %14s %11s\n";
  std::printf(kFormat, "device", "array", "memory", "cycles", "util", "DMA bytes", "time ms");
  for (const Json& g : summary) {
    const std::string array = std::to_string(g["array_rows"].get<unsigned>()) + "x" +
                              std::to_string(g["array_cols"].get<unsigned>());
    const std::string memory = std::to_string(g["memory_bytes_per_cycle"].get<unsigned>()) + " B/c";
    char util[16], ms[32];
    std::snprintf(util, sizeof util, "%.1f%%", 100 * g["utilization"].get<double>());
    std::snprintf(ms, sizeof ms, "%.3f", g["milliseconds"].get<double>());
    std::printf(kFormat, g["device_spec"].get<std::string>().c_str(), array.c_str(), memory.c_str(),
                std::to_string(g["cycles"].get<uint64_t>()).c_str(), util,
                std::to_string(g["dma_bytes"].get<uint64_t>()).c_str(), ms);
  }
  std::fflush(stdout);
}

}  // namespace mxu::host
