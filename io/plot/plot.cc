// Layout (title, panels, legends, nice axis ticks) and cairo drawing for io/plot/plot.h.
#include "io/plot/plot.h"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "io/plot/cairo_draw.h"
#include "io/plot/numbers.h"

namespace mxu::plot {
namespace {

constexpr Colour kPalette[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
                               {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                               {188, 189, 34},  {23, 190, 207}};
constexpr Colour kText{30, 30, 30};
constexpr Colour kAxis{90, 90, 90};
constexpr Colour kGrid{228, 228, 228};

constexpr double kTitleSize = 16;
constexpr double kPanelTitleSize = 13;
constexpr double kTickSize = 11;
constexpr double kLegendSize = 11;
constexpr double kValueSize = 10;  // a bar's value written at its end
constexpr double kLegendRow = 16;
constexpr double kLineWidth = 2;
constexpr double kMarkerRadius = 2.5;
constexpr size_t kMaxMarkedPoints = 60;  // longer curves are drawn without point markers

using draw::Cairo;
using draw::SetColour;
using draw::SetFont;
using draw::Surface;

double TextWidth(cairo_t* cr, const std::string& text) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  return extents.x_advance;
}

enum class Align { kLeft, kCenter, kRight };

// Text with its baseline's anchor at (x, y), rotated by `angle` radians about it.
void Text(cairo_t* cr, const std::string& text, double x, double y, Align align, double angle = 0) {
  const double w = TextWidth(cr, text);
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, angle);
  cairo_move_to(cr, align == Align::kLeft ? 0 : align == Align::kCenter ? -w / 2 : -w, 0);
  cairo_show_text(cr, text.c_str());
  cairo_restore(cr);
}

// A value's position in [lo, hi] as a fraction, computed so that no intermediate overflows
// (lo and hi may be +-1e308).
double Fraction(double v, double lo, double hi) {
  const double span = hi * 0.5 - lo * 0.5;
  return span > 0 ? (v * 0.5 - lo * 0.5) / span : 0.5;
}

double NiceStep(double raw) {
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  const double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
  return nice * magnitude;
}

// Extends [lo, hi] to multiples of a nice step, about `ticks` of them.
void NiceRange(double lo, double hi, int ticks, double* out_lo, double* out_hi, double* step) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi) lo = 0, hi = 1;
  // A flat or nearly flat range gets some room around its value.
  const double scale = std::max(std::fabs(lo), std::fabs(hi));
  if (hi * 0.5 - lo * 0.5 <= scale * 1e-9) {
    const double pad = scale > 0 ? scale * 0.05 : 0.5;
    lo -= pad;
    hi += pad;
  }
  *step = NiceStep((hi * 0.5 - lo * 0.5) / (ticks * 0.5));
  const double nice_lo = std::floor(lo / *step) * *step;
  const double nice_hi = std::ceil(hi / *step) * *step;
  *out_lo = std::isfinite(nice_lo) ? nice_lo : lo;
  *out_hi = std::isfinite(nice_hi) ? nice_hi : hi;
}

// Tick values in [lo, hi] at multiples of step (at most a few dozen).
std::vector<double> Ticks(double lo, double hi, double step) {
  std::vector<double> ticks;
  if (!(step > 0)) return ticks;
  const double first = std::ceil(lo / step - 1e-9);
  for (int i = 0; i < 40; ++i) {
    const double v = (first + i) * step;
    if (v > hi + step * 1e-9 || !std::isfinite(v)) break;
    ticks.push_back(v);
  }
  return ticks;
}

// A vertical grid line across the data area at pixel column x, its tick label below unless it
// would touch the previous label (*last_right: where that one ends).
void VerticalGridLine(cairo_t* cr, const Box& d, double x, const std::string& label,
                      double* last_right) {
  const double tx = std::round(x) + 0.5;
  SetColour(cr, kGrid);
  cairo_move_to(cr, tx, d.top);
  cairo_line_to(cr, tx, d.bottom);
  cairo_stroke(cr);
  const double half = TextWidth(cr, label) / 2;
  if (tx - half < *last_right + 6) return;
  *last_right = tx + half;
  SetColour(cr, kText);
  Text(cr, label, tx, d.bottom + 16, Align::kCenter);
}

double SeriesX(const Series& s, size_t i) { return i < s.x.size() ? s.x[i] : double(i + 1); }

const std::vector<Series>& SeriesOf(const std::variant<LineChart, BarChart>& chart) {
  return std::visit([](const auto& c) -> const std::vector<Series>& { return c.series; }, chart);
}

const std::string& TitleOf(const std::variant<LineChart, BarChart>& chart) {
  return std::visit([](const auto& c) -> const std::string& { return c.title; }, chart);
}

}  // namespace

Colour SeriesColour(size_t index) {
  return kPalette[index % (sizeof kPalette / sizeof kPalette[0])];
}

Figure::Figure(int width, int height, std::string title, Arrange arrange)
    : width_(width), height_(height), arrange_(arrange), title_(std::move(title)) {
  if (width < 120 || height < 100) {
    throw std::invalid_argument("plot: a figure needs at least 120 x 100 pixels");
  }
}

void Figure::Add(LineChart chart) {
  Panel panel;
  panel.chart = std::move(chart);
  panels_.push_back(std::move(panel));
  Layout();
}

void Figure::Add(BarChart chart) {
  Panel panel;
  panel.chart = std::move(chart);
  panels_.push_back(std::move(panel));
  Layout();
}

void Figure::Layout() {
  // A scratch surface to measure text with.
  Surface surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1), cairo_surface_destroy);
  Cairo cr(cairo_create(surface.get()), cairo_destroy);
  const double top = title_.empty() ? 8 : 36;
  const double share = (arrange_ == Arrange::kRow ? double(width_) : height_ - top) /
                       double(std::max<size_t>(1, panels_.size()));
  for (size_t p = 0; p < panels_.size(); ++p) {
    Panel& panel = panels_[p];
    panel.frame = arrange_ == Arrange::kRow
                      ? Box{p * share, top, (p + 1) * share, double(height_)}
                      : Box{0, top + p * share, double(width_), top + (p + 1) * share};

    // Legend entries flow in rows across the panel's width.
    SetFont(cr.get(), kLegendSize);
    const double legend_width = panel.frame.right - panel.frame.left - 90;
    double x = 0;
    panel.legend_rows = 0;
    for (const Series& s : SeriesOf(panel.chart)) {
      const double w = 28 + TextWidth(cr.get(), s.label) + 16;
      if (panel.legend_rows == 0 || (x + w > legend_width && x > 0)) {
        ++panel.legend_rows;
        x = 0;
      }
      x += w;
    }
    const double header = (TitleOf(panel.chart).empty() ? 0 : 22) + panel.legend_rows * kLegendRow;
    const bool bars = std::holds_alternative<BarChart>(panel.chart);
    panel.data = {panel.frame.left + 70, panel.frame.top + header + 10, panel.frame.right - 20,
                  panel.frame.bottom - (bars ? 56 : 46)};
    if (bars && std::get<BarChart>(panel.chart).horizontal) {
      // The category labels, whole, left of the bars; the value axis and its label below.
      SetFont(cr.get(), kTickSize);
      double widest = 0;
      for (const std::string& c : std::get<BarChart>(panel.chart).categories) {
        widest = std::max(widest, TextWidth(cr.get(), c));
      }
      panel.data.left = panel.frame.left + std::max(40.0, widest + 16);
      panel.data.right = panel.frame.right - 28;
      panel.data.bottom = panel.frame.bottom - 46;
    }
    if (panel.data.bottom < panel.data.top + 10) panel.data.bottom = panel.data.top + 10;
    if (panel.data.right < panel.data.left + 10) panel.data.right = panel.data.left + 10;

    // Axis ranges from the finite data.
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    double x_lo = lo, x_hi = hi;
    for (const Series& s : SeriesOf(panel.chart)) {
      for (size_t i = 0; i < s.y.size(); ++i) {
        const double xi = SeriesX(s, i);
        if (!std::isfinite(s.y[i]) || !std::isfinite(xi)) continue;
        lo = std::min(lo, s.y[i]);
        hi = std::max(hi, s.y[i]);
        x_lo = std::min(x_lo, xi);
        x_hi = std::max(x_hi, xi);
      }
    }
    if (bars) {
      // Bars grow from zero.
      lo = std::isfinite(lo) ? std::min(lo, 0.0) : 0;
      hi = std::isfinite(hi) ? std::max(hi, 0.0) : 1;
      if (std::get<BarChart>(panel.chart).percent) hi = std::max(hi, 1.0);
    } else if (std::get<LineChart>(panel.chart).percent) {
      lo = std::isfinite(lo) ? std::min(lo, 0.0) : 0;
      hi = std::isfinite(hi) ? std::max(hi, 1.0) : 1;
    } else if (!std::isfinite(lo)) {
      lo = 0, hi = 1;
    }
    NiceRange(lo, hi, 5, &panel.y.lo, &panel.y.hi, &panel.y.step);
    FitLabels(cr.get(), &panel);
    if (!bars) {
      const bool integer_x = std::get<LineChart>(panel.chart).integer_x;
      if (!std::isfinite(x_lo)) x_lo = 1, x_hi = 1;
      if (x_hi == x_lo) x_lo -= integer_x ? 1 : 0.5, x_hi += integer_x ? 1 : 0.5;
      // x spans exactly the data; ticks at nice steps inside it.
      panel.x.lo = x_lo;
      panel.x.hi = x_hi;
      double unused_lo, unused_hi;
      NiceRange(x_lo, x_hi, 8, &unused_lo, &unused_hi, &panel.x.step);
      if (integer_x) panel.x.step = std::max(1.0, std::round(panel.x.step));
    }
  }
}

void Figure::FitLabels(void* context, Panel* panel) const {
  cairo_t* cr = static_cast<cairo_t*>(context);
  const BarChart* bars = std::get_if<BarChart>(&panel->chart);
  const bool horizontal = bars && bars->horizontal;
  if (!horizontal) {
    // The value ticks' labels end 6 px left of the data area, clear of the axis label (rotated,
    // its baseline at frame.left + 16): the area starts further right for wide labels.
    const bool percent = bars ? bars->percent : std::get<LineChart>(panel->chart).percent;
    SetFont(cr, kTickSize);
    double widest = 0;
    for (const double tick : Ticks(panel->y.lo, panel->y.hi, panel->y.step)) {
      widest = std::max(widest, TextWidth(cr, numbers::Tick(tick, panel->y.step, percent)));
    }
    panel->data.left = std::max(panel->data.left, panel->frame.left + widest + 34);
  }
  if (bars && bars->values) {
    // Room for the values: right of the longest horizontal bar, above the tallest vertical one.
    SetFont(cr, kValueSize);
    double widest = 0;
    for (const Series& s : bars->series) {
      for (const double v : s.y) {
        if (std::isfinite(v))
          widest = std::max(widest, TextWidth(cr, numbers::Value(v, bars->percent)));
      }
    }
    if (horizontal) {
      panel->data.right -= widest + 8;
    } else {
      panel->data.top += kValueSize + 4;
    }
  }
  if (panel->data.bottom < panel->data.top + 10) panel->data.bottom = panel->data.top + 10;
  if (panel->data.right < panel->data.left + 10) panel->data.right = panel->data.left + 10;
}

double Figure::MapX(const Panel& panel, double x) const {
  return panel.data.left +
         Fraction(x, panel.x.lo, panel.x.hi) * (panel.data.right - panel.data.left);
}

double Figure::MapY(const Panel& panel, double y) const {
  return panel.data.bottom -
         Fraction(y, panel.y.lo, panel.y.hi) * (panel.data.bottom - panel.data.top);
}

double Figure::MapValue(const Panel& panel, double v) const {
  if (!std::get<BarChart>(panel.chart).horizontal) return MapY(panel, v);
  return panel.data.left +
         Fraction(v, panel.y.lo, panel.y.hi) * (panel.data.right - panel.data.left);
}

Box Figure::DataArea(size_t panel) const {
  return panel < panels_.size() ? panels_[panel].data : Box();
}

std::optional<Point> Figure::PixelOf(size_t p, double x, double y, size_t series) const {
  if (p >= panels_.size() || !std::isfinite(x) || !std::isfinite(y)) return std::nullopt;
  const Panel& panel = panels_[p];
  if (const auto* bars = std::get_if<BarChart>(&panel.chart)) {
    const size_t n = bars->categories.size(), k = bars->series.size();
    if (x < 0 || x >= double(n) || series >= k) return std::nullopt;
    if (bars->horizontal) {
      const double slot = (panel.data.bottom - panel.data.top) / double(n);
      const double bar = slot * 0.8 / double(k);
      const double top = panel.data.top + std::floor(x) * slot + slot * 0.1 + series * bar;
      return Point{MapValue(panel, y), top + bar / 2};
    }
    const double slot = (panel.data.right - panel.data.left) / double(n);
    const double bar = slot * 0.8 / double(k);
    const double left = panel.data.left + std::floor(x) * slot + slot * 0.1 + series * bar;
    return Point{left + bar / 2, MapY(panel, y)};
  }
  return Point{MapX(panel, x), MapY(panel, y)};
}

// Title and legend above the data area.
void Figure::DrawLegend(void* context, const Panel& panel) const {
  cairo_t* cr = static_cast<cairo_t*>(context);
  const Box& d = panel.data;
  const bool bars = std::holds_alternative<BarChart>(panel.chart);
  const std::vector<Series>& series = SeriesOf(panel.chart);
  double y = panel.frame.top + 4;
  SetColour(cr, kText);
  if (!TitleOf(panel.chart).empty()) {
    SetFont(cr, kPanelTitleSize, true);
    Text(cr, TitleOf(panel.chart), (d.left + d.right) / 2, y + 13, Align::kCenter);
    y += 22;
  }
  SetFont(cr, kLegendSize);
  const double legend_width = panel.frame.right - panel.frame.left - 90;
  double x = 0;
  int row = 0;
  for (size_t i = 0; i < series.size(); ++i) {
    const double w = 28 + TextWidth(cr, series[i].label) + 16;
    if (row == 0 || (x + w > legend_width && x > 0)) {
      ++row;
      x = 0;
    }
    const double base_x = d.left + x, base_y = y + (row - 1) * kLegendRow + 11;
    SetColour(cr, SeriesColour(i));
    if (bars) {
      cairo_rectangle(cr, base_x, base_y - 9, 22, 10);
      cairo_fill(cr);
    } else {
      cairo_set_line_width(cr, kLineWidth);
      cairo_move_to(cr, base_x, base_y - 4);
      cairo_line_to(cr, base_x + 22, base_y - 4);
      cairo_stroke(cr);
    }
    SetColour(cr, kText);
    Text(cr, series[i].label, base_x + 28, base_y, Align::kLeft);
    x += w;
  }
}

// Grid, ticks and their labels (category labels for bars), and the axis labels.
void Figure::DrawAxes(void* context, const Panel& panel) const {
  cairo_t* cr = static_cast<cairo_t*>(context);
  const Box& d = panel.data;
  const bool bars = std::holds_alternative<BarChart>(panel.chart);
  const bool percent =
      bars ? std::get<BarChart>(panel.chart).percent : std::get<LineChart>(panel.chart).percent;
  SetFont(cr, kTickSize);
  cairo_set_line_width(cr, 1);
  if (bars && std::get<BarChart>(panel.chart).horizontal) {
    DrawHorizontalAxes(cr, panel);
    return;
  }
  for (const double tick : Ticks(panel.y.lo, panel.y.hi, panel.y.step)) {
    const double ty = std::round(MapY(panel, tick)) + 0.5;
    SetColour(cr, kGrid);
    cairo_move_to(cr, d.left, ty);
    cairo_line_to(cr, d.right, ty);
    cairo_stroke(cr);
    SetColour(cr, kText);
    Text(cr, numbers::Tick(tick, panel.y.step, percent), d.left - 6, ty + 4, Align::kRight);
  }
  // x ticks (line charts) or category labels (bars).
  if (bars) {
    const BarChart& chart = std::get<BarChart>(panel.chart);
    const double slot = (d.right - d.left) / std::max<size_t>(1, chart.categories.size());
    for (size_t i = 0; i < chart.categories.size(); ++i) {
      std::string label = chart.categories[i];
      while (label.size() > 1 && TextWidth(cr, label) > slot - 2) label.pop_back();
      Text(cr, label, d.left + (i + 0.5) * slot, d.bottom + 16, Align::kCenter);
    }
  } else {
    const LineChart& chart = std::get<LineChart>(panel.chart);
    double last_right = -1e9;
    for (const double tick : Ticks(panel.x.lo, panel.x.hi, panel.x.step)) {
      VerticalGridLine(cr, d, MapX(panel, tick), numbers::Tick(tick, panel.x.step, false),
                       &last_right);
    }
    if (!chart.x_label.empty()) {
      Text(cr, chart.x_label, (d.left + d.right) / 2, d.bottom + 34, Align::kCenter);
    }
  }
  const std::string& y_label =
      bars ? std::get<BarChart>(panel.chart).y_label : std::get<LineChart>(panel.chart).y_label;
  if (!y_label.empty()) {
    Text(cr, y_label, panel.frame.left + 16, (d.top + d.bottom) / 2, Align::kCenter, -M_PI / 2);
  }
}

// Horizontal bars: the value grid and its ticks below, each category's label whole at its left.
void Figure::DrawHorizontalAxes(void* context, const Panel& panel) const {
  cairo_t* cr = static_cast<cairo_t*>(context);
  const Box& d = panel.data;
  const BarChart& chart = std::get<BarChart>(panel.chart);
  double last_right = -1e9;
  for (const double tick : Ticks(panel.y.lo, panel.y.hi, panel.y.step)) {
    VerticalGridLine(cr, d, MapValue(panel, tick), numbers::Tick(tick, panel.y.step, chart.percent),
                     &last_right);
  }
  const double slot = (d.bottom - d.top) / std::max<size_t>(1, chart.categories.size());
  for (size_t i = 0; i < chart.categories.size(); ++i) {
    Text(cr, chart.categories[i], d.left - 8, d.top + (i + 0.5) * slot + 4, Align::kRight);
  }
  if (!chart.y_label.empty()) {
    Text(cr, chart.y_label, (d.left + d.right) / 2, d.bottom + 34, Align::kCenter);
  }
}

// One bar per series in each category's slot, from zero to the value.
void Figure::DrawBars(void* context, const Panel& panel) const {
  cairo_t* cr = static_cast<cairo_t*>(context);
  const Box& d = panel.data;
  const std::vector<Series>& series = SeriesOf(panel.chart);
  const BarChart& chart = std::get<BarChart>(panel.chart);
  const double zero = MapValue(panel, 0);
  const double across = chart.horizontal ? d.bottom - d.top : d.right - d.left;
  const double w = across / chart.categories.size() * 0.8 / series.size();
  for (size_t s = 0; s < series.size(); ++s) {
    SetColour(cr, SeriesColour(s));
    for (size_t i = 0; i < series[s].y.size() && i < chart.categories.size(); ++i) {
      const std::optional<Point> end =
          PixelOf(&panel - panels_.data(), double(i), series[s].y[i], s);
      if (!end) continue;
      if (chart.horizontal) {
        cairo_rectangle(cr, std::min(end->x, zero), end->y - w / 2, std::fabs(end->x - zero), w);
      } else {
        cairo_rectangle(cr, end->x - w / 2, std::min(end->y, zero), w, std::fabs(zero - end->y));
      }
      cairo_fill(cr);
    }
  }
}

// Each bar's value beside its end (outside the data area's clip: the room FitLabels left).
void Figure::DrawValues(void* context, const Panel& panel) const {
  cairo_t* cr = static_cast<cairo_t*>(context);
  const BarChart& chart = std::get<BarChart>(panel.chart);
  const size_t p = &panel - panels_.data();
  SetFont(cr, kValueSize);
  SetColour(cr, kText);
  for (size_t s = 0; s < chart.series.size(); ++s) {
    for (size_t i = 0; i < chart.series[s].y.size() && i < chart.categories.size(); ++i) {
      const double v = chart.series[s].y[i];
      const std::optional<Point> end = PixelOf(p, double(i), v, s);
      if (!end) continue;
      const std::string text = numbers::Value(v, chart.percent);
      if (chart.horizontal) {
        const double x = std::max(end->x, MapValue(panel, 0)) + 4;
        Text(cr, text, x, end->y + kValueSize * 0.36, Align::kLeft);
      } else {
        Text(cr, text, end->x, std::min(end->y, MapValue(panel, 0)) - 3, Align::kCenter);
      }
    }
  }
}

// The curves, broken at non-finite points, with markers on short curves and lone points.
void Figure::DrawCurves(void* context, const Panel& panel) const {
  cairo_t* cr = static_cast<cairo_t*>(context);
  const std::vector<Series>& series = SeriesOf(panel.chart);
  cairo_set_line_width(cr, kLineWidth);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  for (size_t s = 0; s < series.size(); ++s) {
    const Series& curve = series[s];
    SetColour(cr, SeriesColour(s));
    bool open = false;
    for (size_t i = 0; i < curve.y.size(); ++i) {
      const double xi = SeriesX(curve, i);
      if (!std::isfinite(curve.y[i]) || !std::isfinite(xi)) {
        open = false;
        continue;
      }
      const double px = MapX(panel, xi), py = MapY(panel, curve.y[i]);
      if (open) {
        cairo_line_to(cr, px, py);
      } else {
        cairo_new_sub_path(cr);
        cairo_move_to(cr, px, py);
        open = true;
      }
    }
    cairo_stroke(cr);
    // Point markers: short curves, and every lone point between gaps.
    for (size_t i = 0; i < curve.y.size(); ++i) {
      const double xi = SeriesX(curve, i);
      if (!std::isfinite(curve.y[i]) || !std::isfinite(xi)) continue;
      const bool lone = (i == 0 || !std::isfinite(curve.y[i - 1])) &&
                        (i + 1 == curve.y.size() || !std::isfinite(curve.y[i + 1]));
      if (curve.y.size() > kMaxMarkedPoints && !lone) continue;
      cairo_arc(cr, MapX(panel, xi), MapY(panel, curve.y[i]), lone ? 3.5 : kMarkerRadius, 0,
                2 * M_PI);
      cairo_fill(cr);
    }
  }
}

void Figure::DrawPanel(void* context, const Panel& panel) const {
  cairo_t* cr = static_cast<cairo_t*>(context);
  const Box& d = panel.data;
  DrawLegend(cr, panel);
  DrawAxes(cr, panel);
  // The data, clipped to its area.
  cairo_save(cr);
  cairo_rectangle(cr, d.left, d.top, d.right - d.left, d.bottom - d.top);
  cairo_clip(cr);
  if (std::holds_alternative<BarChart>(panel.chart)) {
    DrawBars(cr, panel);
  } else {
    DrawCurves(cr, panel);
  }
  cairo_restore(cr);
  const BarChart* bars = std::get_if<BarChart>(&panel.chart);
  if (bars && bars->values) DrawValues(cr, panel);

  // The frame on top.
  SetColour(cr, kAxis);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, std::round(d.left) + 0.5, std::round(d.top) + 0.5,
                  std::round(d.right) - std::round(d.left),
                  std::round(d.bottom) - std::round(d.top));
  cairo_stroke(cr);
}

void Figure::WritePng(const std::string& path) const {
  Surface surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, width_, height_),
                  cairo_surface_destroy);
  Cairo cr(cairo_create(surface.get()), cairo_destroy);
  SetColour(cr.get(), kBackground);
  cairo_paint(cr.get());
  if (!title_.empty()) {
    SetColour(cr.get(), kText);
    SetFont(cr.get(), kTitleSize, true);
    Text(cr.get(), title_, width_ / 2.0, 24, Align::kCenter);
  }
  for (const Panel& panel : panels_) DrawPanel(cr.get(), panel);
  cairo_surface_flush(surface.get());
  const cairo_status_t status = cairo_surface_write_to_png(surface.get(), path.c_str());
  if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS || status != CAIRO_STATUS_SUCCESS) {
    throw std::runtime_error(
        "cannot write plot " + path + ": " +
        cairo_status_to_string(status != CAIRO_STATUS_SUCCESS ? status : cairo_status(cr.get())));
  }
}

}  // namespace mxu::plot
