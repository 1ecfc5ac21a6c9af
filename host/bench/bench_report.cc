#include "host/bench/bench_report.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace mxu::host {
namespace {

using Json = nlohmann::ordered_json;

std::string Percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f", 100 * fraction);
  return text;
}

constexpr char kRowFormat[] = "%-*s %-*s %7s %7s %7s %5s %5s %6s %6s %6s %6s %6s %6s %6s %6s\n";

// A shape named by itself (--shape, the plain table entries) shows "-" for its name.
std::string ShownName(const std::string& name, const std::string& shape) {
  return name == shape ? "-" : name;
}

}  // namespace

Json TimingJson(const MemoryTiming& t) {
  Json j;
  j["latency_cycles"] = t.latency_cycles;
  if (t.port_width()) {
    j["bytes_per_cycle"] = "port";  // each device's own width (a sweep's rows say which)
  } else {
    j["bytes_per_cycle"] = t.bytes_per_cycle;
  }
  j["max_in_flight"] = t.max_in_flight;
  return j;
}

std::string TimingText(const MemoryTiming& t) {
  const std::string width =
      t.port_width() ? "port-wide" : std::to_string(t.bytes_per_cycle) + " B/cycle";
  return "latency " + std::to_string(t.latency_cycles) + ", " + width + ", " +
         std::to_string(t.max_in_flight) + " in flight";
}

Json ConfigJson(const driver::DeviceConfig& c) {
  Json j;
  driver::ForEachConfigField(c, [&](const char* name, const auto& value) { j[name] = value; });
  return j;
}

std::string Short(double v) {
  char text[32];
  if (v < 100000) {
    std::snprintf(text, sizeof text, "%.0f", v);
  } else if (v < 999950) {
    std::snprintf(text, sizeof text, "%.1fk", v / 1e3);
  } else if (v < 9.995e6) {
    std::snprintf(text, sizeof text, "%.2fM", v / 1e6);
  } else if (v < 999.95e6) {
    std::snprintf(text, sizeof text, "%.1fM", v / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%.2fG", v / 1e9);
  }
  return text;
}

BenchColumns ColumnsFor(const std::vector<BenchShape>& shapes) {
  BenchColumns c;
  for (const BenchShape& s : shapes) {
    c.name = std::max(c.name, static_cast<int>(ShownName(s.name, ShapeText(s)).size()));
    c.shape = std::max(c.shape, static_cast<int>(ShapeText(s).size()));
  }
  return c;
}

void PrintHeader(const BenchColumns& c) {
  std::printf(kRowFormat, c.name, "name", c.shape, "MxKxN", "cycles", "ideal", "bound", "%id",
              "%bnd", "read", "write", "st.dep", "st.wts", "st.fch", "st.mem", "wall s", "cyc/s");
}

void PrintRow(const Json& r, const BenchColumns& c) {
  char wall[16];
  std::snprintf(wall, sizeof wall, "%.2f", r["wall_seconds"].get<double>());
  const std::string name = ShownName(r["name"], r["shape"]);
  std::printf(kRowFormat, c.name, name.c_str(), c.shape, r["shape"].get<std::string>().c_str(),
              std::to_string(r["cycles"].get<uint64_t>()).c_str(),
              std::to_string(r["ideal_cycles"].get<uint64_t>()).c_str(),
              std::to_string(r["bound_cycles"].get<uint64_t>()).c_str(),
              Percent(r["utilization_ideal"].get<double>()).c_str(),
              Percent(r["utilization_bound"].get<double>()).c_str(),
              Short(r["dma_read_bytes"].get<double>()).c_str(),
              Short(r["dma_write_bytes"].get<double>()).c_str(),
              Short(r["stall_dependency"].get<double>()).c_str(),
              Short(r["stall_weights"].get<double>()).c_str(),
              Short(r["stall_fetch"].get<double>()).c_str(),
              Short(r["stall_memory"].get<double>()).c_str(), wall,
              Short(r["sim_cycles_per_second"].get<double>()).c_str());
  std::fflush(stdout);
}

BenchTotals SumRows(const Json& rows, bool check) {
  BenchTotals t;
  for (const Json& r : rows) {
    t.cycles += r["cycles"].get<uint64_t>();
    t.ideal += r["ideal_cycles"].get<uint64_t>();
    t.bound += r["bound_cycles"].get<uint64_t>();
    t.wall += r["wall_seconds"].get<double>();
    if (check) {
      t.checked += r["checked"].get<uint64_t>();
      t.mismatches += r["mismatches"].get<uint64_t>();
    }
  }
  return t;
}

void PrintSummary(const BenchTotals& t, size_t gemms, size_t settings, bool any_bias, bool check,
                  const std::vector<std::pair<std::string, BenchTotals>>& per_device) {
  std::printf(
      "cycles: device cycles; ideal: M*K*N / PEs; bound: max(ideal, bytes of A, B, C, bias once / "
      "bytes per cycle)\nread, write: DMA bytes; st.*: stall cycles (STALL_DEPENDENCY, "
      "STALL_WEIGHTS, STALL_FETCH, STALL_MEMORY)\n");
  if (any_bias) {
    std::printf("fwd: with the bias (and the ReLU, but on the last layer) that mxu train uses\n");
  }
  if (check) {
    std::printf("check: %llu outputs, %llu mismatches%s\n", (unsigned long long)t.checked,
                (unsigned long long)t.mismatches, t.mismatches ? ": FAILED" : ": bit-exact");
  }
  // One line for one device; a sweep's devices each their own (cycles of different arrays do
  // not add up to anything).
  const auto line = [&](const BenchTotals& d, const std::string& device) {
    std::printf(
        "summary: %zu GEMM%s x %zu memory setting%s%s%s: %llu cycles, ideal %llu (%.1f%%), bound "
        "%llu (%.1f%%), %.2f s, %s cycles/s\n",
        gemms, gemms == 1 ? "" : "s", settings, settings == 1 ? "" : "s",
        device.empty() ? "" : " on ", device.c_str(), (unsigned long long)d.cycles,
        (unsigned long long)d.ideal, 100 * d.utilization_ideal(), (unsigned long long)d.bound,
        100 * d.utilization_bound(), d.wall, Short(d.cycles_per_second()).c_str());
  };
  if (per_device.empty()) line(t, "");
  for (const auto& [device, d] : per_device) line(d, device);
  if (t.jobs > 1) {
    std::printf("elapsed: %.2f s on %d jobs, %s cycles/s\n", t.elapsed, t.jobs,
                Short(t.elapsed > 0 ? t.cycles / t.elapsed : 0).c_str());
  }
}

Json SummaryJson(const BenchTotals& t, size_t gemms, bool check) {
  Json summary;
  summary["gemms"] = gemms;
  summary["cycles"] = t.cycles;
  summary["ideal_cycles"] = t.ideal;
  summary["bound_cycles"] = t.bound;
  summary["utilization_ideal"] = t.utilization_ideal();
  summary["utilization_bound"] = t.utilization_bound();
  summary["wall_seconds"] = t.wall;
  summary["sim_cycles_per_second"] = t.cycles_per_second();
  summary["elapsed_seconds"] = t.elapsed;
  summary["jobs"] = t.jobs;
  if (check) {
    summary["checked"] = t.checked;
    summary["mismatches"] = t.mismatches;
  }
  return summary;
}

}  // namespace mxu::host
