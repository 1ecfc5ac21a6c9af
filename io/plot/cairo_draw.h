// What every chart drawn with cairo shares: owning handles, the font, colour and font setting.
// Internal to io/plot/ (plot.cc, log_chart.cc).
#ifndef MXU_IO_PLOT_CAIRO_DRAW_H_
#define MXU_IO_PLOT_CAIRO_DRAW_H_

#include <cairo.h>

#include <memory>

#include "io/plot/plot.h"

namespace mxu::plot::draw {

using Cairo = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;
using Surface = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;

inline constexpr const char* kFont = "DejaVu Sans";

inline void SetColour(cairo_t* cr, Colour c) {
  cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

inline void SetFont(cairo_t* cr, double size, bool bold = false) {
  cairo_select_font_face(cr, kFont, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

}  // namespace mxu::plot::draw

#endif  // MXU_IO_PLOT_CAIRO_DRAW_H_
