// Drawing for io/plot/log_chart.h: decades as ticks, points as filled circles, lines dashed.
#include "io/plot/log_chart.h"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "io/plot/cairo_draw.h"
#include "io/plot/numbers.h"
#include "io/plot/plot.h"

namespace mxu::plot {
namespace {

using draw::Cairo;
using draw::SetColour;
using draw::SetFont;
using draw::Surface;
using numbers::Decade;

constexpr Colour kText{30, 30, 30};
constexpr Colour kAxis{90, 90, 90};
constexpr Colour kGrid{228, 228, 228};

// Text centred on x (or ending at x when right) with its baseline at y, rotated by angle.
void Text(cairo_t* cr, const std::string& text, double x, double y, bool right = false,
          double angle = 0) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, angle);
  cairo_move_to(cr, right ? -extents.x_advance : -extents.x_advance / 2, 0);
  cairo_show_text(cr, text.c_str());
  cairo_restore(cr);
}

double TextWidth(cairo_t* cr, const std::string& text) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  return extents.x_advance;
}

// A box in pixels, for keeping labels apart.
struct Rect {
  double left, top, right, bottom;
  bool Overlaps(const Rect& o) const {
    return left < o.right && o.left < right && top < o.bottom && o.top < bottom;
  }
  bool Inside(const Rect& o) const {
    return left >= o.left && right <= o.right && top >= o.top && bottom <= o.bottom;
  }
};

bool Usable(const LogPoint& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && p.x > 0 && p.y > 0;
}

// The plot frame in pixels and its decades: [e_lo, e_hi] on each axis (0: x, 1: y).
struct LogFrame {
  int e_lo[2], e_hi[2];
  double left, right, top, bottom;
  double X(double x) const {
    return left + (std::log10(x) - e_lo[0]) / (e_hi[0] - e_lo[0]) * (right - left);
  }
  double Y(double y) const {
    return bottom - (std::log10(y) - e_lo[1]) / (e_hi[1] - e_lo[1]) * (bottom - top);
  }
};

// The axes span whole decades around every usable point and vertex.
LogFrame FitFrame(const LogChart& chart, int width, int height) {
  double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
  auto extend = [&](const LogPoint& p) {
    if (!Usable(p)) return;
    lo[0] = std::min(lo[0], std::log10(p.x)), hi[0] = std::max(hi[0], std::log10(p.x));
    lo[1] = std::min(lo[1], std::log10(p.y)), hi[1] = std::max(hi[1], std::log10(p.y));
  };
  for (const LogGroup& g : chart.groups) {
    for (const LogPoint& p : g.points) extend(p);
    for (const auto& line : g.lines) {
      for (const LogPoint& p : line) extend(p);
    }
  }
  LogFrame frame{{0, 0}, {0, 0}, 80, width - 20.0, 50, height - 60.0};
  for (int a = 0; a < 2; ++a) {
    if (lo[a] > hi[a]) lo[a] = 0, hi[a] = 1;
    frame.e_lo[a] = static_cast<int>(std::floor(lo[a]));
    frame.e_hi[a] = std::max(frame.e_lo[a] + 1, static_cast<int>(std::ceil(hi[a])));
  }
  return frame;
}

// Title, grid and tick labels at every decade, the frame and the axis labels.
void DrawAxes(cairo_t* cr, const LogChart& chart, const LogFrame& f, int width, int height) {
  SetColour(cr, kBackground);
  cairo_paint(cr);
  SetColour(cr, kText);
  SetFont(cr, 15, true);
  Text(cr, chart.title, width / 2.0, 28);
  SetFont(cr, 11);
  cairo_set_line_width(cr, 1);
  for (int e = f.e_lo[0]; e <= f.e_hi[0]; ++e) {
    const double x = f.X(std::pow(10.0, e));
    SetColour(cr, kGrid);
    cairo_move_to(cr, x, f.top);
    cairo_line_to(cr, x, f.bottom);
    cairo_stroke(cr);
    SetColour(cr, kText);
    Text(cr, Decade(e), x, f.bottom + 16);
  }
  for (int e = f.e_lo[1]; e <= f.e_hi[1]; ++e) {
    const double y = f.Y(std::pow(10.0, e));
    SetColour(cr, kGrid);
    cairo_move_to(cr, f.left, y);
    cairo_line_to(cr, f.right, y);
    cairo_stroke(cr);
    SetColour(cr, kText);
    Text(cr, Decade(e), f.left - 6, y + 4, true);
  }
  SetColour(cr, kAxis);
  cairo_rectangle(cr, f.left, f.top, f.right - f.left, f.bottom - f.top);
  cairo_stroke(cr);
  SetColour(cr, kText);
  SetFont(cr, 12);
  Text(cr, chart.x_label, (f.left + f.right) / 2, height - 20.0);
  Text(cr, chart.y_label, 22, (f.top + f.bottom) / 2, false, -M_PI / 2);
}

// Each group's dashed lines and its points, clipped to the frame.
void DrawSeries(cairo_t* cr, const LogChart& chart, const LogFrame& f) {
  cairo_save(cr);
  cairo_rectangle(cr, f.left, f.top, f.right - f.left, f.bottom - f.top);
  cairo_clip(cr);
  for (size_t i = 0; i < chart.groups.size(); ++i) {
    const LogGroup& g = chart.groups[i];
    SetColour(cr, SeriesColour(i));
    const double dash[] = {6, 4};
    cairo_set_dash(cr, dash, 2, 0);
    cairo_set_line_width(cr, 1.5);
    for (const auto& line : g.lines) {
      bool started = false;
      for (const LogPoint& p : line) {
        if (!Usable(p)) continue;
        if (started) {
          cairo_line_to(cr, f.X(p.x), f.Y(p.y));
        } else {
          cairo_move_to(cr, f.X(p.x), f.Y(p.y));
          started = true;
        }
      }
      cairo_stroke(cr);
    }
    cairo_set_dash(cr, nullptr, 0, 0);
    for (const LogPoint& p : g.points) {
      if (!Usable(p)) continue;
      cairo_arc(cr, f.X(p.x), f.Y(p.y), 3.5, 0, 2 * M_PI);
      cairo_fill(cr);
    }
  }
  cairo_restore(cr);
}

// The legend, top left inside the frame; returns the places it and the points take, which no
// point's label may cover.
std::vector<Rect> DrawLegend(cairo_t* cr, const LogChart& chart, const LogFrame& f) {
  SetFont(cr, 11);
  std::vector<Rect> taken;
  const double legend_top = f.top + 8;
  for (size_t i = 0; i < chart.groups.size(); ++i) {
    const double y = legend_top + 16.0 * i;
    SetColour(cr, SeriesColour(i));
    cairo_arc(cr, f.left + 14, y + 6, 4, 0, 2 * M_PI);
    cairo_fill(cr);
    SetColour(cr, kText);
    cairo_move_to(cr, f.left + 24, y + 10);
    cairo_show_text(cr, chart.groups[i].label.c_str());
    taken.push_back(
        {f.left + 8, y - 2, f.left + 24 + TextWidth(cr, chart.groups[i].label), y + 14});
  }
  for (const LogGroup& g : chart.groups) {
    for (const LogPoint& p : g.points) {
      if (!Usable(p)) continue;
      const double px = f.X(p.x), py = f.Y(p.y);
      taken.push_back({px - 4, py - 4, px + 4, py + 4});
    }
  }
  return taken;
}

// A point's label at pixel (x, y), with how many more points share that pixel.
struct NamedPoint {
  double x, y;
  std::string label;
  size_t more;
};

// Points on the same pixel (the same layer shape, repeated) share a label: "conv2_1a +3".
std::vector<NamedPoint> NamedPoints(const LogGroup& g, const LogFrame& f) {
  std::vector<NamedPoint> named;
  for (size_t k = 0; k < g.points.size() && k < g.point_labels.size(); ++k) {
    if (!Usable(g.points[k]) || g.point_labels[k].empty()) continue;
    const double px = f.X(g.points[k].x), py = f.Y(g.points[k].y);
    auto same = std::find_if(named.begin(), named.end(), [&](const NamedPoint& n) {
      return std::fabs(n.x - px) < 1 && std::fabs(n.y - py) < 1;
    });
    if (same == named.end()) {
      named.push_back({px, py, g.point_labels[k], 0});
    } else {
      ++same->more;
    }
  }
  return named;
}

// Point labels: right of the point, else left, above or below, wherever no other label, legend
// line or point is. Returns how many found no place.
size_t DrawPointLabels(cairo_t* cr, const LogChart& chart, const LogFrame& f,
                       std::vector<Rect> taken) {
  SetFont(cr, 10);
  size_t unlabelled = 0;
  const Rect frame{f.left, f.top, f.right, f.bottom};
  for (const LogGroup& g : chart.groups) {
    for (NamedPoint& n : NamedPoints(g, f)) {
      if (n.more) n.label += " +" + std::to_string(n.more);
      const double px = n.x, py = n.y;
      const double w = TextWidth(cr, n.label), h = 10;
      const Rect places[] = {{px + 6, py - h / 2, px + 6 + w, py + h / 2},
                             {px - 6 - w, py - h / 2, px - 6, py + h / 2},
                             {px - w / 2, py - 6 - h, px + w / 2, py - 6},
                             {px - w / 2, py + 6, px + w / 2, py + 6 + h}};
      const Rect* chosen = nullptr;
      for (const Rect& place : places) {
        if (!place.Inside(frame)) continue;
        if (std::none_of(taken.begin(), taken.end(),
                         [&](const Rect& t) { return t.Overlaps(place); })) {
          chosen = &place;
          break;
        }
      }
      if (!chosen) {
        ++unlabelled;
        continue;
      }
      taken.push_back(*chosen);
      SetColour(cr, kText);
      cairo_move_to(cr, chosen->left, chosen->bottom - 1);
      cairo_show_text(cr, n.label.c_str());
    }
  }
  return unlabelled;
}

}  // namespace

void WriteLogChartPng(const LogChart& chart, int width, int height, const std::string& path) {
  if (width < 200 || height < 160) throw std::invalid_argument("a log chart of at least 200 x 160");
  const LogFrame frame = FitFrame(chart, width, height);
  Surface surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height),
                  cairo_surface_destroy);
  Cairo owner(cairo_create(surface.get()), cairo_destroy);
  cairo_t* cr = owner.get();
  DrawAxes(cr, chart, frame, width, height);
  DrawSeries(cr, chart, frame);
  const size_t unlabelled = DrawPointLabels(cr, chart, frame, DrawLegend(cr, chart, frame));
  if (unlabelled) {
    SetFont(cr, 10);
    SetColour(cr, kAxis);
    Text(cr,
         std::to_string(unlabelled) + " point label" + (unlabelled == 1 ? "" : "s") +
             " left out where they would overlap",
         frame.right, height - 6.0, true);
  }

  cairo_surface_flush(surface.get());
  const cairo_status_t status = cairo_surface_write_to_png(surface.get(), path.c_str());
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS || status != CAIRO_STATUS_SUCCESS) {
    throw std::runtime_error(
        "cannot write plot " + path + ": " +
        cairo_status_to_string(status != CAIRO_STATUS_SUCCESS ? status : cairo_status(cr)));
  }
}

}  // namespace mxu::plot
