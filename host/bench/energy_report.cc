#include "host/bench/energy_report.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/bench/sweep.h"
#include "host/cli/cli.h"

namespace mxu::host {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kParts[] = {"mac_uj", "clock_uj", "sram_uj", "dram_uj", "total_uj"};

// 1 for the smallest value, in the groups' order.
std::vector<int> Ranks(const std::vector<double>& values) {
  std::vector<int> ranks(values.size(), 1);
  for (size_t i = 0; i < values.size(); ++i) {
    for (double v : values) ranks[i] += v < values[i];
  }
  return ranks;
}

// The memory a row ran under, as the tables' headings give it (the setting's number means
// nothing to a reader).
std::string MemoryText(const Json& row) {
  return "latency " + std::to_string(row["latency_cycles"].get<uint64_t>()) + ", " +
         std::to_string(row["bytes_per_cycle"].get<uint64_t>()) + " B/cycle, " +
         std::to_string(row["max_in_flight"].get<uint64_t>()) + " in flight";
}

std::string GroupName(const Json& g) {
  return g["device_spec"].get<std::string>() + ", memory " + g["memory"].get<std::string>();
}

// Each GEMM's energy; under several devices or memories, each group's under its heading.
void PrintRows(const Json& rows, const Json& summary, int width) {
  const std::vector<std::vector<size_t>> groups = GroupRows(rows);
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups.size() > 1) std::printf("%s:\n", GroupName(summary[g]).c_str());
    for (size_t i : groups[g]) {
      const Json& r = rows[i];
      const Json& e = r["energy"];
      std::printf("%-*s %10.3f %10.3f %10.3f %10.3f %11.3f %8.2f %7.3f\n", width,
                  r["name"].get<std::string>().c_str(), e["mac_uj"].get<double>(),
                  e["clock_uj"].get<double>(), e["sram_uj"].get<double>(),
                  e["dram_uj"].get<double>(), e["total_uj"].get<double>(),
                  e.value("pj_per_mac", 0.0), e.value("tops_per_watt", 0.0));
    }
  }
}

}  // namespace

EnergyTable EnergyTableFor(int node_nm) {
  try {
    return energy::EnergyTableFor(node_nm);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

double EstimatedAreaMm2(const EnergyTable& t, const Json& d) {
  const double rows = d["array_rows"].get<double>(), cols = d["array_cols"].get<double>();
  const double bits = d["ub_depth"].get<double>() * d["ub_lanes"].get<double>() * 16 +
                      d["acc_depth"].get<double>() * cols * 32 +
                      d["weight_fifo_depth"].get<double>() * cols * 16;
  return (rows * cols * t.pe_um2 + t.control_um2 + bits * t.sram_um2_per_bit) * 1e-6;
}

void AddEnergy(const EnergyTable& table, const Json& device, Json* row) {
  (*row)["energy"] = EnergyJson(EnergyOfRow(table, *row), (*row)["macs"].get<double>());
  (*row)["device_area_mm2"] = EstimatedAreaMm2(table, device);
}

Json EnergySummary(const EnergyTable& table, const Json& rows, const std::string& device_spec) {
  Json summary = Json::array();
  std::vector<double> times, energies, areas;
  for (const std::vector<size_t>& group : GroupRows(rows)) {
    const Json& first = rows[group[0]];
    Json g = GroupHeading(first, group.size());
    if (!first.contains("device_spec")) g["device_spec"] = device_spec;
    g["memory"] = MemoryText(first);
    uint64_t macs = 0, cycles = 0;
    for (size_t i : group) {
      macs += rows[i]["macs"].get<uint64_t>(), cycles += rows[i]["cycles"].get<uint64_t>();
    }
    g["macs"] = macs;
    g["cycles"] = cycles;
    for (const char* part : kParts) {
      double sum = 0;
      for (size_t i : group) sum += rows[i]["energy"][part].get<double>();
      g[part] = sum;
    }
    g["area_mm2"] = first["device_area_mm2"];
    const double uj = g["total_uj"].get<double>();
    const double us = double(cycles) / table.clock_mhz;
    g["pj_per_mac"] = macs > 0 ? uj * 1e6 / double(macs) : 0.0;
    g["tops_per_watt"] = uj > 0 ? 2 * double(macs) / (uj * 1e6) : 0.0;
    g["clock_mhz"] = table.clock_mhz;
    g["microseconds"] = us;
    // Work per area: ops a second over the estimated area.
    g["tops_per_mm2"] = us > 0 ? 2 * double(macs) / (us * 1e6) / g["area_mm2"].get<double>() : 0.0;
    times.push_back(us), energies.push_back(uj), areas.push_back(g["area_mm2"].get<double>());
    summary.push_back(g);
  }
  const std::vector<int> by_time = Ranks(times), by_energy = Ranks(energies),
                         by_area = Ranks(areas);
  for (size_t i = 0; i < summary.size(); ++i) {
    summary[i]["rank_time"] = by_time[i];
    summary[i]["rank_energy"] = by_energy[i];
    summary[i]["rank_area"] = by_area[i];
  }
  return summary;
}

void PrintEnergy(const EnergyTable& t, const Json& rows, const Json& summary, bool network) {
  std::printf("\nenergy at %d nm (%s: %s), clock %.0f MHz:\n", t.node_nm,
              t.measured ? "measured" : "scaled", t.method.c_str(), t.clock_mhz);
  int width = 4;
  for (const Json& r : rows) width = std::max(width, int(r["name"].get<std::string>().size()));
  std::printf("%-*s %10s %10s %10s %10s %11s %8s %7s\n", width, "name", "MAC uJ", "clock uJ",
              "SRAM uJ", "DRAM uJ", "total uJ", "pJ/MAC", "TOPS/W");
  PrintRows(rows, summary, width);
  int name_width = 34;
  for (const Json& g : summary) name_width = std::max(name_width, int(GroupName(g).size()));
  std::printf("\n%-*s %11s %8s %7s %11s %9s %9s %s\n", name_width, "device, memory", "total uJ",
              "pJ/MAC", "TOPS/W", "time us", "area mm2", "TOPS/mm2", "rank: time energy area");
  for (const Json& g : summary) {
    std::printf("%-*s %11.3f %8.2f %7.3f %11.2f %9.3f %9.4f %6d %6d %4d\n", name_width,
                GroupName(g).c_str(), g["total_uj"].get<double>(), g["pj_per_mac"].get<double>(),
                g["tops_per_watt"].get<double>(), g["microseconds"].get<double>(),
                g["area_mm2"].get<double>(), g["tops_per_mm2"].get<double>(),
                g["rank_time"].get<int>(), g["rank_energy"].get<int>(), g["rank_area"].get<int>());
    if (network && g["total_uj"].get<double>() > 0) {
      std::printf("  one inference: %.3f uJ, %.3g inferences per joule\n",
                  g["total_uj"].get<double>(), 1e6 / g["total_uj"].get<double>());
    }
  }
  std::fflush(stdout);
}

}  // namespace mxu::host
