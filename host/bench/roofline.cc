#include "host/bench/roofline.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "io/plot/log_chart.h"

namespace mxu::host {

using Json = nlohmann::ordered_json;

void WriteRoofline(const std::string& path, const Json& rows, const std::string& title) {
  plot::LogChart chart;
  chart.title = title;
  chart.x_label = "operational intensity (MACs per byte through the memory port)";
  chart.y_label = "MACs per cycle";
  // A group per device and memory setting, in the rows' order.
  std::map<std::pair<uint64_t, uint64_t>, size_t> index;
  std::vector<double> x_lo, x_hi, pes, port;
  for (const Json& r : rows) {
    const std::pair<uint64_t, uint64_t> key = {r.value("point", uint64_t{0}),
                                               r["setting"].get<uint64_t>()};
    if (!index.count(key)) {
      index[key] = chart.groups.size();
      const double p = r["array_rows"].get<double>() * r["array_cols"].get<double>();
      const double b = std::min(r["bus_bytes"].get<double>(), r["bytes_per_cycle"].get<double>());
      std::string label =
          r.contains("device_spec") ? r["device_spec"].get<std::string>() + ": " : "";
      label += r["array_rows"].dump() + " x " + r["array_cols"].dump() + ", roofs " +
               std::to_string(static_cast<uint64_t>(p)) + " MACs/cycle and " +
               std::to_string(static_cast<uint64_t>(b)) + " B/cycle x intensity";
      chart.groups.push_back({label, {}, {}});
      pes.push_back(p);
      port.push_back(b);
      x_lo.push_back(p / b);  // the ridge point is always on the chart
      x_hi.push_back(p / b);
    }
    const size_t g = index[key];
    const double bytes = r["dma_read_bytes"].get<double>() + r["dma_write_bytes"].get<double>();
    const double cycles = r["cycles"].get<double>();
    if (bytes <= 0 || cycles <= 0) continue;
    const double intensity = r["macs"].get<double>() / bytes;
    chart.groups[g].points.push_back({intensity, r["macs"].get<double>() / cycles});
    chart.groups[g].point_labels.push_back(r["name"].get<std::string>());
    x_lo[g] = std::min(x_lo[g], intensity);
    x_hi[g] = std::max(x_hi[g], intensity);
  }
  for (size_t g = 0; g < chart.groups.size(); ++g) {
    const double lo = x_lo[g] / 2, hi = x_hi[g] * 2, ridge = pes[g] / port[g];
    chart.groups[g].lines.push_back(
        {{lo, std::min(pes[g], port[g] * lo)}, {ridge, pes[g]}, {std::max(hi, ridge), pes[g]}});
  }
  plot::WriteLogChartPng(chart, 960, 640, path);
}

}  // namespace mxu::host
