// mxu._mxu.write_bar_chart: the project's own chart code (io/plot) for mxu.torch.write_report's
// picture, so that Python draws the same charts as the tool without a plotting package.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "io/plot/plot.h"
#include "python/arguments.h"

namespace mxu::python {
namespace {

using Series = std::vector<std::pair<std::string, std::vector<double>>>;

plot::BarChart MakeBarChart(const std::string& y_label, const std::vector<std::string>& categories,
                            const Series& series) {
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
  return chart;
}

// One horizontal row of bars per category would need a new chart kind; a bar chart as wide as
// its categories need (at least 640 px, 60 px a category) keeps every label readable.
int ChartWidth(size_t categories) { return std::max(640, 160 + 60 * static_cast<int>(categories)); }

void WriteBarChart(const std::string& path, const std::string& title, const std::string& y_label,
                   const std::vector<std::string>& categories, const Series& series) {
  plot::Figure figure(ChartWidth(categories.size()), 480, title);
  figure.Add(MakeBarChart(y_label, categories, series));
  figure.WritePng(path);
}

// Panels of bar charts one above the other, each (y_label, categories, series). Horizontal:
// each category's label whole at the left of its bars, the panels as tall as their bars (14 px
// a bar, 10 px between categories); values: each bar's value written at its end.
void WriteBarPanels(
    const std::string& path, const std::string& title,
    const std::vector<std::tuple<std::string, std::vector<std::string>, Series>>& panels,
    bool horizontal, bool values) {
  if (panels.empty()) throw ArgumentError("write_bar_panels: no panel");
  size_t widest = 0;
  int height = 0;
  for (const auto& [y_label, categories, series] : panels) {
    widest = std::max(widest, categories.size());
    height += horizontal
                  ? 110 + static_cast<int>(categories.size()) *
                              (14 * static_cast<int>(std::max<size_t>(1, series.size())) + 10)
                  : 360;
  }
  plot::Figure figure(horizontal ? 900 : ChartWidth(widest), std::min(30000, 40 + height), title,
                      plot::Arrange::kColumn);
  for (const auto& [y_label, categories, series] : panels) {
    plot::BarChart chart = MakeBarChart(y_label, categories, series);
    chart.horizontal = horizontal;
    chart.values = values;
    figure.Add(std::move(chart));
  }
  figure.WritePng(path);
}

}  // namespace

void RegisterPlot(py::module_& m) {
  m.def("write_bar_chart", &WriteBarChart, py::arg("path"), py::arg("title"), py::arg("y_label"),
        py::arg("categories"), py::arg("series"),
        "Writes a PNG bar chart: one group of bars per category, one bar per (label, values) "
        "series (io/plot, the tool's chart code).");
  m.def("write_bar_panels", &WriteBarPanels, py::arg("path"), py::arg("title"), py::arg("panels"),
        py::arg("horizontal") = false, py::arg("values") = false,
        "Writes a PNG of bar charts one above the other: panels a list of (y_label, categories, "
        "series), each as write_bar_chart takes them; horizontal: bars growing rightwards, each "
        "category's label whole at their left; values: each bar's value written at its end.");
}

}  // namespace mxu::python
