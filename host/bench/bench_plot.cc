// mxu bench --plot (host/bench/bench_report.h): utilization per GEMM as horizontal bars.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "host/bench/bench_report.h"
#include "io/plot/plot.h"

namespace mxu::host {
namespace {

using Json = nlohmann::ordered_json;

// One run of the table: a device (a --sweep point) under a memory setting, and its rows.
struct Group {
  uint64_t point = 0, setting = 0;
  std::string device;  // a sweep point's spec; empty without --sweep
  std::vector<const Json*> rows;
};

std::vector<Group> GroupsOf(const Json& rows) {
  std::vector<Group> groups;
  for (const Json& r : rows) {
    const uint64_t point = r.value("point", uint64_t{0}), setting = r["setting"].get<uint64_t>();
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& x) { return x.point == point && x.setting == setting; });
    if (g == groups.end()) {
      groups.push_back({point, setting, r.value("device_spec", std::string()), {}});
      g = groups.end() - 1;
    }
    g->rows.push_back(&r);
  }
  return groups;
}

// One run: each GEMM's utilization vs ideal and vs bound.
plot::BarChart OneRun(const MemoryTiming& setting, const Json& rows) {
  plot::BarChart chart;
  chart.title = "memory " + TimingText(setting);
  chart.y_label = "utilization";
  chart.percent = true;
  chart.horizontal = true;
  chart.series = {{"vs ideal", {}}, {"vs bound", {}}};
  for (const Json& r : rows) {
    chart.categories.push_back(r["name"].get<std::string>());
    chart.series[0].y.push_back(r["utilization_ideal"].get<double>());
    chart.series[1].y.push_back(r["utilization_bound"].get<double>());
  }
  return chart;
}

}  // namespace

void WritePlot(const std::string& path, const std::vector<MemoryTiming>& settings, const Json& rows,
               const std::string& title) {
  const std::vector<Group> groups = GroupsOf(rows);
  if (groups.size() == 1) {
    // A page wide; the panel as tall as its rows (two bars of 9 px and a gap per GEMM).
    plot::Figure figure(960, std::min<int>(30000, 140 + 26 * static_cast<int>(rows.size())), title,
                        plot::Arrange::kColumn);
    figure.Add(OneRun(settings.at(groups[0].setting), rows));
    figure.WritePng(path);
    return;
  }
  // Several devices or memory settings: one panel, each GEMM's bars side by side, one per run,
  // its value written at its end (bars of 98.2% and 97.6% look alike). Against ideal: the bound
  // is the memory's, so it differs between the bars being compared.
  const bool devices = std::any_of(groups.begin(), groups.end(),
                                   [&](const Group& g) { return g.point != groups[0].point; });
  const bool memories = std::any_of(groups.begin(), groups.end(),
                                    [&](const Group& g) { return g.setting != groups[0].setting; });
  plot::BarChart chart;
  chart.y_label = "utilization vs ideal (M x K x N / (PEs x cycles))";
  chart.percent = chart.horizontal = chart.values = true;
  for (const Json* r : groups[0].rows) chart.categories.push_back((*r)["name"].get<std::string>());
  for (const Group& g : groups) {
    std::string label = devices ? g.device : "";
    if (memories) {
      label += (label.empty() ? "memory " : ", memory ") + TimingText(settings.at(g.setting));
    }
    plot::Series series{label, {}};
    for (const Json* r : g.rows) series.y.push_back((*r)["utilization_ideal"].get<double>());
    series.y.resize(chart.categories.size(), std::numeric_limits<double>::quiet_NaN());
    chart.series.push_back(std::move(series));
  }
  // Bars of 12 px, 10 px between GEMMs, legend rows above.
  const int per_gemm = 12 * static_cast<int>(groups.size()) + 10;
  const int height = 150 + 16 * static_cast<int>(groups.size() / 2) +
                     per_gemm * static_cast<int>(chart.categories.size());
  plot::Figure figure(960, std::min(30000, height), title, plot::Arrange::kColumn);
  figure.Add(std::move(chart));
  figure.WritePng(path);
}

}  // namespace mxu::host
