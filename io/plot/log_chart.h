// A log-log chart as a PNG of its own (cairo): scattered points and straight-line segments on
// axes that are powers of ten, e.g. a roofline (operational intensity against achieved
// throughput, with the roofs). Colours follow plot.h's palette: group i (its points and its
// lines) has SeriesColour(i). The same inputs give the same bytes.
#ifndef MXU_IO_PLOT_LOG_CHART_H_
#define MXU_IO_PLOT_LOG_CHART_H_

#include <string>
#include <vector>

namespace mxu::plot {

struct LogPoint {
  double x = 0, y = 0;
};

// One group: its points (marked) and its lines (each a polyline, drawn dashed). Points or line
// vertices that are not finite and positive are left out. point_labels, when given, name the
// points (one each, in order): a label is written beside its point where it overlaps no other
// label and no legend line; the chart says how many it had to leave out.
struct LogGroup {
  std::string label;
  std::vector<LogPoint> points;
  std::vector<std::vector<LogPoint>> lines;
  std::vector<std::string> point_labels = {};
};

struct LogChart {
  std::string title;
  std::string x_label, y_label;
  std::vector<LogGroup> groups;
};

// width x height pixels, at least 200 x 160 (std::invalid_argument otherwise); throws
// std::runtime_error naming path when the file cannot be written.
void WriteLogChartPng(const LogChart& chart, int width, int height, const std::string& path);

}  // namespace mxu::plot

#endif  // MXU_IO_PLOT_LOG_CHART_H_
