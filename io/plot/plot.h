// Charts as PNG files, drawn with cairo: anti-aliased lines, real fonts (cairo's text API over
// fontconfig; DejaVu Sans, which cairo's own Debian dependencies install). A Figure is a title and
// one row of panels, each a line chart (training curves: a value per epoch) or a grouped bar
// chart (a value per category, e.g. utilization per GEMM shape).
//
// Series colours come from one palette (Tableau 10) by position: series i of every panel has
// SeriesColour(i), so a run's curves can be matched across panels. The same inputs give the same
// bytes.
#ifndef MXU_IO_PLOT_PLOT_H_
#define MXU_IO_PLOT_PLOT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace mxu::plot {

struct Colour {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Colour& o) const { return r == o.r && g == o.g && b == o.b; }
  bool operator!=(const Colour& o) const { return !(*this == o); }
};

// Tableau 10, cycling: distinct hues that stay apart for colour-blind readers too.
Colour SeriesColour(size_t index);
inline constexpr Colour kBackground{255, 255, 255};

// One curve or one set of bars. NaN and infinite values are left out (a gap in a line, no bar).
struct Series {
  std::string label;
  std::vector<double> y;
  std::vector<double> x = {};  // line charts: empty means 1, 2, 3, ... (y[i] at x = i + 1)
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
  bool percent = false;    // y values are fractions in [0, 1], labelled as percent
  bool integer_x = false;  // x ticks on whole numbers only (epochs)
};

// Bars grouped by category: category i shows y[i] of every series, side by side. Horizontal
// bars list the categories down the left, each label whole, and grow to the right; y_label then
// names the value axis along the bottom.
struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::string> categories;
  std::vector<Series> series;  // x is ignored
  bool percent = false;
  bool horizontal = false;
  // Each bar's value written at its end ("1,234,567", "97.6%"; io/plot/numbers.h), the data
  // area made smaller to leave room for them.
  bool values = false;
};

// Where a figure puts its panels: side by side, or one under the other.
enum class Arrange { kRow, kColumn };

// Pixel coordinates, origin top left.
struct Point {
  double x = 0, y = 0;
};
struct Box {
  double left = 0, top = 0, right = 0, bottom = 0;
};

class Figure {
 public:
  // width x height pixels, at least 120 x 100 (std::invalid_argument otherwise).
  Figure(int width, int height, std::string title = "", Arrange arrange = Arrange::kRow);

  // Panels lie left to right (kRow) or top to bottom (kColumn), equal shares, in the order added.
  void Add(LineChart chart);
  void Add(BarChart chart);

  // Throws std::runtime_error naming path when the file cannot be written.
  void WritePng(const std::string& path) const;

  int width() const { return width_; }
  int height() const { return height_; }
  size_t panels() const { return panels_.size(); }
  // Where panel `panel`'s data area lies, and the pixel a value lands on: for a line chart the
  // point (x, y), for a bar chart the top of the bar of category x (an index) of series `series`
  // (for horizontal bars its right end, at the bar's middle; nullopt when that bar or panel does
  // not exist or y is not finite).
  Box DataArea(size_t panel) const;
  std::optional<Point> PixelOf(size_t panel, double x, double y, size_t series = 0) const;

 private:
  struct Axis {
    double lo = 0, hi = 1, step = 1;
  };
  struct Panel {
    std::variant<LineChart, BarChart> chart;
    Box frame;  // the panel's share of the figure
    Box data;   // its plot area
    Axis x, y;  // x unused for bars
    int legend_rows = 0;
  };

  void Layout();
  // The data area made room for the tick labels (wide ones move it right) and the bars' values.
  void FitLabels(void* cairo, Panel* panel) const;
  void DrawValues(void* cairo, const Panel& panel) const;
  void DrawPanel(void* cairo, const Panel& panel) const;
  void DrawLegend(void* cairo, const Panel& panel) const;
  void DrawAxes(void* cairo, const Panel& panel) const;
  void DrawHorizontalAxes(void* cairo, const Panel& panel) const;
  void DrawBars(void* cairo, const Panel& panel) const;
  void DrawCurves(void* cairo, const Panel& panel) const;
  double MapX(const Panel& panel, double x) const;
  double MapY(const Panel& panel, double y) const;
  // Where value v of a bar chart lands along its value axis (x for horizontal bars, else y).
  double MapValue(const Panel& panel, double v) const;

  int width_, height_;
  Arrange arrange_;
  std::string title_;
  std::vector<Panel> panels_;
};

}  // namespace mxu::plot

#endif  // MXU_IO_PLOT_PLOT_H_
