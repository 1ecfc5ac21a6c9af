// mxu._mxu.write_bar_chart: the project's own chart code (io/plot) for mxu.torch.write_report's
// picture, so that Python draws the same charts as the tool without a plotting package.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "io/plot/plot.h"
#include "python/arguments.h"

namespace mxu::python {
namespace {

// One horizontal row of bars per category would need a new chart kind; a bar chart as wide as
// its categories need (at least 640 px, 60 px a category) keeps every label readable.
void WriteBarChart(const std::string& path, const std::string& title, const std::string& y_label,
                   const std::vector<std::string>& categories,
                   const std::vector<std::pair<std::string, std::vector<double>>>& series) {
  plot::BarChart chart;
  chart.y_label = y_label;
  chart.categories = categories;
  for (const auto& [label, values] : series) {
    if (values.size() != categories.size()) {
      throw ArgumentError("write_bar_chart: series '" + label + "' has " +
                          std::to_string(values.size()) + " values for " +
                          std::to_string(categories.size()) + " categories");
    }
    chart.series.push_back({label, values});
  }
  const int width = std::max(640, 160 + 60 * static_cast<int>(categories.size()));
  plot::Figure figure(width, 480, title);
  figure.Add(std::move(chart));
  figure.WritePng(path);
}

}  // namespace

void RegisterPlot(py::module_& m) {
  m.def("write_bar_chart", &WriteBarChart, py::arg("path"), py::arg("title"), py::arg("y_label"),
        py::arg("categories"), py::arg("series"),
        "Writes a PNG bar chart: one group of bars per category, one bar per (label, values) "
        "series (io/plot, the tool's chart code).");
}

}  // namespace mxu::python
