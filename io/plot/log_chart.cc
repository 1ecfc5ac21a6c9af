// Drawing for io/plot/log_chart.h: decades as ticks, points as filled circles, lines dashed.
#include "io/plot/log_chart.h"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "io/plot/cairo_draw.h"
#include "io/plot/plot.h"

namespace mxu::plot {
namespace {

using draw::Cairo;
using draw::SetColour;
using draw::SetFont;
using draw::Surface;

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

bool Usable(const LogPoint& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && p.x > 0 && p.y > 0;
}

// "0.1", "1", "1k", "1M": a power of ten, short.
std::string Decade(int e) {
  if (e < 0) return "1e" + std::to_string(e);
  static const char* suffix[] = {"", "k", "M", "G", "T"};
  if (e / 3 < 5) return std::to_string(e % 3 == 0 ? 1 : e % 3 == 1 ? 10 : 100) + suffix[e / 3];
  return "1e" + std::to_string(e);
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

  // The legend, top left inside the frame.
  SetFont(cr, 11);
  for (size_t i = 0; i < chart.groups.size(); ++i) {
    const double y = legend_top + 16.0 * i;
    SetColour(cr, SeriesColour(i));
    cairo_arc(cr, left + 14, y + 6, 4, 0, 2 * M_PI);
    cairo_fill(cr);
    SetColour(cr, kText);
    cairo_move_to(cr, left + 24, y + 10);
    cairo_show_text(cr, chart.groups[i].label.c_str());
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
