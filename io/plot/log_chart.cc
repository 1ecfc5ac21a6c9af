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

}  // namespace

void WriteLogChartPng(const LogChart& chart, int width, int height, const std::string& path) {
  if (width < 200 || height < 160) throw std::invalid_argument("a log chart of at least 200 x 160");
  // The axes span whole decades around every usable point and vertex.
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
  int e_lo[2], e_hi[2];
  for (int a = 0; a < 2; ++a) {
    if (lo[a] > hi[a]) lo[a] = 0, hi[a] = 1;
    e_lo[a] = static_cast<int>(std::floor(lo[a]));
    e_hi[a] = std::max(e_lo[a] + 1, static_cast<int>(std::ceil(hi[a])));
  }
  const double left = 80, right = width - 20.0, top = 50, bottom = height - 60.0;
  const double legend_top = top + 8;
  auto map_x = [&](double x) {
    return left + (std::log10(x) - e_lo[0]) / (e_hi[0] - e_lo[0]) * (right - left);
  };
  auto map_y = [&](double y) {
    return bottom - (std::log10(y) - e_lo[1]) / (e_hi[1] - e_lo[1]) * (bottom - top);
  };

  Surface surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height),
                  cairo_surface_destroy);
  Cairo owner(cairo_create(surface.get()), cairo_destroy);
  cairo_t* cr = owner.get();
  SetColour(cr, kBackground);
  cairo_paint(cr);
  SetColour(cr, kText);
  SetFont(cr, 15, true);
  Text(cr, chart.title, width / 2.0, 28);

  // Grid and tick labels at every decade.
  SetFont(cr, 11);
  cairo_set_line_width(cr, 1);
  for (int e = e_lo[0]; e <= e_hi[0]; ++e) {
    const double x = map_x(std::pow(10.0, e));
    SetColour(cr, kGrid);
    cairo_move_to(cr, x, top);
    cairo_line_to(cr, x, bottom);
    cairo_stroke(cr);
    SetColour(cr, kText);
    Text(cr, Decade(e), x, bottom + 16);
  }
  for (int e = e_lo[1]; e <= e_hi[1]; ++e) {
    const double y = map_y(std::pow(10.0, e));
    SetColour(cr, kGrid);
    cairo_move_to(cr, left, y);
    cairo_line_to(cr, right, y);
    cairo_stroke(cr);
    SetColour(cr, kText);
    Text(cr, Decade(e), left - 6, y + 4, true);
  }
  SetColour(cr, kAxis);
  cairo_rectangle(cr, left, top, right - left, bottom - top);
  cairo_stroke(cr);
  SetColour(cr, kText);
  SetFont(cr, 12);
  Text(cr, chart.x_label, (left + right) / 2, height - 20.0);
  Text(cr, chart.y_label, 22, (top + bottom) / 2, false, -M_PI / 2);

  cairo_save(cr);
  cairo_rectangle(cr, left, top, right - left, bottom - top);
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
          cairo_line_to(cr, map_x(p.x), map_y(p.y));
        } else {
          cairo_move_to(cr, map_x(p.x), map_y(p.y));
          started = true;
        }
      }
      cairo_stroke(cr);
    }
    cairo_set_dash(cr, nullptr, 0, 0);
    for (const LogPoint& p : g.points) {
      if (!Usable(p)) continue;
      cairo_arc(cr, map_x(p.x), map_y(p.y), 3.5, 0, 2 * M_PI);
      cairo_fill(cr);
    }
  }
  cairo_restore(cr);

  // The legend, top left inside the frame; its lines are taken before any point's label.
  SetFont(cr, 11);
  std::vector<Rect> taken;
  for (size_t i = 0; i < chart.groups.size(); ++i) {
    const double y = legend_top + 16.0 * i;
    SetColour(cr, SeriesColour(i));
    cairo_arc(cr, left + 14, y + 6, 4, 0, 2 * M_PI);
    cairo_fill(cr);
    SetColour(cr, kText);
    cairo_move_to(cr, left + 24, y + 10);
    cairo_show_text(cr, chart.groups[i].label.c_str());
    taken.push_back({left + 8, y - 2, left + 24 + TextWidth(cr, chart.groups[i].label), y + 14});
  }

  // Point labels: right of the point, else left, above or below, wherever no other label, legend
  // line or point is.
  for (const LogGroup& g : chart.groups) {
    for (const LogPoint& p : g.points) {
      if (!Usable(p)) continue;
      const double px = map_x(p.x), py = map_y(p.y);
      taken.push_back({px - 4, py - 4, px + 4, py + 4});
    }
  }
  SetFont(cr, 10);
  size_t unlabelled = 0;
  const Rect frame{left, top, right, bottom};
  for (const LogGroup& g : chart.groups) {
    // Points on the same pixel (the same layer shape, repeated) share a label: "conv2_1a +3".
    struct Named {
      double x, y;
      std::string label;
      size_t more;
    };
    std::vector<Named> named;
    for (size_t k = 0; k < g.points.size() && k < g.point_labels.size(); ++k) {
      if (!Usable(g.points[k]) || g.point_labels[k].empty()) continue;
      const double px = map_x(g.points[k].x), py = map_y(g.points[k].y);
      auto same = std::find_if(named.begin(), named.end(), [&](const Named& n) {
        return std::fabs(n.x - px) < 1 && std::fabs(n.y - py) < 1;
      });
      if (same == named.end()) {
        named.push_back({px, py, g.point_labels[k], 0});
      } else {
        ++same->more;
      }
    }
    for (Named& n : named) {
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
  if (unlabelled) {
    SetFont(cr, 10);
    SetColour(cr, kAxis);
    Text(cr,
         std::to_string(unlabelled) + " point label" + (unlabelled == 1 ? "" : "s") +
             " left out where they would overlap",
         right, height - 6.0, true);
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
