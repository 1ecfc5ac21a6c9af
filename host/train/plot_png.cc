// The training-curve chart of host/train/plot_png.h: layout, axes, rasterising and PNG encoding.
#include "host/train/plot_png.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mxu::train {
namespace {

struct Color {
  uint8_t r, g, b;
  bool operator==(const Color& other) const { return r == other.r && g == other.g && b == other.b; }
};

constexpr Color kWhite{255, 255, 255};
constexpr Color kBlack{0, 0, 0};
constexpr Color kAxisGray{90, 90, 90};
constexpr Color kGridGray{225, 225, 225};
// Tableau 10: distinct hues that stay apart for colour-blind readers too.
constexpr Color kPalette[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
                              {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                              {188, 189, 34},  {23, 190, 207}};
constexpr int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

// ---- The 5x7 font: one row per string, '#' is ink. ----

constexpr int kGlyphWidth = 5;
constexpr int kGlyphHeight = 7;
constexpr int kGlyphAdvance = 6;  // one blank column between characters

struct Glyph {
  char character;
  const char* rows[kGlyphHeight];
};

constexpr Glyph kFont[] = {
    {' ', {".....", ".....", ".....", ".....", ".....", ".....", "....."}},
    {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
    {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
    {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
    {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
    {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
    {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
    {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
    {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
    {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
    {'A', {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'B', {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}},
    {'C', {".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."}},
    {'D', {"###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."}},
    {'E', {"#####", "#....", "#....", "####.", "#....", "#....", "#####"}},
    {'F', {"#####", "#....", "#....", "####.", "#....", "#....", "#...."}},
    {'G', {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"}},
    {'H', {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'I', {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'J', {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}},
    {'K', {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"}},
    {'L', {"#....", "#....", "#....", "#....", "#....", "#....", "#####"}},
    {'M', {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"}},
    {'N', {"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"}},
    {'O', {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'P', {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."}},
    {'Q', {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"}},
    {'R', {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"}},
    {'S', {".####", "#....", "#....", ".###.", "....#", "....#", "####."}},
    {'T', {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
    {'U', {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'V', {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
    {'W', {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."}},
    {'X', {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"}},
    {'Y', {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."}},
    {'Z', {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"}},
    {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
    {'%', {"##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##"}},
    {'-', {".....", ".....", ".....", "#####", ".....", ".....", "....."}},
    {'+', {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."}},
    {'(', {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."}},
    {')', {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."}},
    {':', {".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."}},
    {'/', {".....", "....#", "...#.", "..#..", ".#...", "#....", "....."}},
    {'_', {".....", ".....", ".....", ".....", ".....", ".....", "#####"}},
    {'=', {".....", ".....", "#####", ".....", "#####", ".....", "....."}},
    {',', {".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."}},
    {'\'', {"..#..", "..#..", ".#...", ".....", ".....", ".....", "....."}},
    {'?', {".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#.."}},
};

const Glyph& GlyphFor(char c) {
  const char upper = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  for (const Glyph& glyph : kFont) {
    if (glyph.character == upper) return glyph;
  }
  return kFont[sizeof(kFont) / sizeof(kFont[0]) - 1];  // '?'
}

// ---- Rasterising ----

struct Rect {
  int left, top, right, bottom;  // inclusive
  bool Contains(int x, int y) const { return x >= left && x <= right && y >= top && y <= bottom; }
};

class Canvas {
 public:
  Canvas(int width, int height)
      : width_(width), height_(height), rgb_(static_cast<size_t>(width) * height * 3, 255) {}

  int width() const { return width_; }
  int height() const { return height_; }
  const std::vector<uint8_t>& rgb() const { return rgb_; }

  void Set(int x, int y, Color color) {
    if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
    uint8_t* pixel = &rgb_[(static_cast<size_t>(y) * width_ + x) * 3];
    pixel[0] = color.r;
    pixel[1] = color.g;
    pixel[2] = color.b;
  }

  void Fill(const Rect& rect, Color color) {
    for (int y = rect.top; y <= rect.bottom; ++y) {
      for (int x = rect.left; x <= rect.right; ++x) Set(x, y, color);
    }
  }

  void Outline(const Rect& rect, Color color) {
    for (int x = rect.left; x <= rect.right; ++x) {
      Set(x, rect.top, color);
      Set(x, rect.bottom, color);
    }
    for (int y = rect.top; y <= rect.bottom; ++y) {
      Set(rect.left, y, color);
      Set(rect.right, y, color);
    }
  }

  // A 2-pixel-wide line (Bresenham, each step a 2x2 block), drawn only inside clip.
  void ThickLine(int x0, int y0, int x1, int y1, Color color, const Rect& clip) {
    const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    const int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int error = dx + dy;
    for (;;) {
      for (int oy = 0; oy < 2; ++oy) {
        for (int ox = 0; ox < 2; ++ox) {
          if (clip.Contains(x0 + ox, y0 + oy)) Set(x0 + ox, y0 + oy, color);
        }
      }
      if (x0 == x1 && y0 == y1) break;
      const int doubled = 2 * error;
      if (doubled >= dy) {
        error += dy;
        x0 += sx;
      }
      if (doubled <= dx) {
        error += dx;
        y0 += sy;
      }
    }
  }

  // A square dot of side 2 * radius + 1 centred on (x, y), drawn only inside clip.
  void Dot(int x, int y, int radius, Color color, const Rect& clip) {
    for (int oy = -radius; oy <= radius; ++oy) {
      for (int ox = -radius; ox <= radius; ++ox) {
        if (clip.Contains(x + ox, y + oy)) Set(x + ox, y + oy, color);
      }
    }
  }

  // Text with its top-left corner at (x, y), each font pixel a scale x scale block.
  void Text(int x, int y, const std::string& text, Color color, int scale = 1) {
    for (const char c : text) {
      const Glyph& glyph = GlyphFor(c);
      for (int row = 0; row < kGlyphHeight; ++row) {
        for (int col = 0; col < kGlyphWidth; ++col) {
          if (glyph.rows[row][col] != '#') continue;
          for (int sy = 0; sy < scale; ++sy) {
            for (int sx = 0; sx < scale; ++sx) {
              Set(x + col * scale + sx, y + row * scale + sy, color);
            }
          }
        }
      }
      x += kGlyphAdvance * scale;
    }
  }

 private:
  int width_, height_;
  std::vector<uint8_t> rgb_;
};

int TextWidth(const std::string& text, int scale = 1) {
  return text.empty() ? 0 : (static_cast<int>(text.size()) * kGlyphAdvance - 1) * scale;
}

// ---- Axes ----

// Beyond this magnitude values are clamped, so spans and pixel positions stay finite.
constexpr double kMaxMagnitude = 1e300;

struct Axis {
  double lo = 0, hi = 1;
  std::vector<double> ticks;
  double step = 1;

  // The pixel coordinate of value on [pixel_lo, pixel_hi], clamped far outside so that the
  // conversion to int is always defined.
  int ToPixel(double value, int pixel_lo, int pixel_hi) const {
    const double fraction = (value - lo) / (hi - lo);
    const double pixel = pixel_lo + fraction * (pixel_hi - pixel_lo);
    return static_cast<int>(std::lround(std::clamp(pixel, -1e6, 1e6)));
  }
};

// 1, 2 or 5 times a power of ten, the smallest at least raw.
double NiceStep(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double multiple : {1.0, 2.0, 5.0, 10.0}) {
    if (multiple * power >= raw * (1 - 1e-9)) return multiple * power;
  }
  return 10 * power;
}

// An axis covering [data_lo, data_hi] (no data: data_lo > data_hi) with about target_ticks ticks
// at round numbers; the ends are rounded out to ticks.
Axis NiceAxis(double data_lo, double data_hi, int target_ticks) {
  if (data_lo > data_hi) {
    data_lo = 0;
    data_hi = 1;
  }
  const double magnitude = std::max(std::abs(data_lo), std::abs(data_hi));
  if (data_hi - data_lo <= magnitude * 1e-9) {  // (nearly) constant: give it some height
    const double pad = magnitude > 0 ? magnitude * 0.1 : 1.0;
    data_lo -= pad;
    data_hi += pad;
  }
  Axis axis;
  axis.step = NiceStep((data_hi - data_lo) / target_ticks);
  const double first = std::floor(data_lo / axis.step), last = std::ceil(data_hi / axis.step);
  axis.lo = first * axis.step;
  axis.hi = last * axis.step;
  for (double k = first; k <= last; ++k) axis.ticks.push_back(k * axis.step);
  return axis;
}

// Epochs 1..epochs with integer ticks; a single epoch is centred.
Axis EpochAxis(int epochs) {
  Axis axis;
  if (epochs <= 1) {
    axis.lo = 0.5;
    axis.hi = 1.5;
    axis.ticks = {1};
    return axis;
  }
  axis.lo = 1;
  axis.hi = epochs;
  axis.step = std::max(1.0, NiceStep((epochs - 1) / 6.0));
  axis.step = std::ceil(axis.step);
  for (double tick = axis.step; tick <= epochs; tick += axis.step) axis.ticks.push_back(tick);
  if (axis.ticks.empty() || axis.ticks.front() > 1) axis.ticks.insert(axis.ticks.begin(), 1);
  // Drop a tick that would crowd the label of 1.
  if (axis.ticks.size() > 2 && axis.ticks[1] - 1 < axis.step * 0.5) {
    axis.ticks.erase(axis.ticks.begin() + 1);
  }
  return axis;
}

std::string TickLabel(double value, double step) {
  char text[32];
  if (value == 0) return "0";
  if (std::abs(value) >= 1e6 || step < 1e-4) {
    std::snprintf(text, sizeof(text), "%.3g", value);
  } else {
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  }
  return text;
}

// ---- Panels ----

struct Panel {
  std::string title;
  std::vector<Series> series;  // already scaled for display; non-finite values are gaps
  bool values_are_percent = false;
};

// Which of the four corners of plot a legend box of the given size covers the fewest data points
// in (ties: top-right, top-left, bottom-right, bottom-left).
Rect PlaceLegend(const Rect& plot, int width, int height,
                 const std::vector<std::pair<int, int>>& points) {
  constexpr int kInset = 6;
  const Rect corners[] = {
      {plot.right - kInset - width, plot.top + kInset, plot.right - kInset,
       plot.top + kInset + height},
      {plot.left + kInset, plot.top + kInset, plot.left + kInset + width,
       plot.top + kInset + height},
      {plot.right - kInset - width, plot.bottom - kInset - height, plot.right - kInset,
       plot.bottom - kInset},
      {plot.left + kInset, plot.bottom - kInset - height, plot.left + kInset + width,
       plot.bottom - kInset},
  };
  const Rect* best = &corners[0];
  size_t best_covered = std::numeric_limits<size_t>::max();
  for (const Rect& corner : corners) {
    size_t covered = 0;
    for (const auto& [x, y] : points) covered += corner.Contains(x, y) ? 1 : 0;
    if (covered < best_covered) {
      best_covered = covered;
      best = &corner;
    }
  }
  return *best;
}

void DrawPanel(Canvas& canvas, const Rect& plot, const Panel& panel, int epochs) {
  double data_lo = std::numeric_limits<double>::infinity();
  double data_hi = -std::numeric_limits<double>::infinity();
  for (const Series& series : panel.series) {
    for (const double value : series.y) {
      if (!std::isfinite(value)) continue;
      data_lo = std::min(data_lo, value);
      data_hi = std::max(data_hi, value);
    }
  }
  Axis y_axis = NiceAxis(data_lo, data_hi, 5);
  if (panel.values_are_percent && data_lo >= 0 && data_hi <= 100) {
    // Rounding out must not run past the possible range of a percentage.
    y_axis.lo = std::max(y_axis.lo, 0.0);
    y_axis.hi = std::min(y_axis.hi, 100.0);
    if (y_axis.hi <= y_axis.lo) y_axis = NiceAxis(0, 100, 5);
    std::vector<double> kept;
    for (const double tick : y_axis.ticks) {
      if (tick >= y_axis.lo - 1e-9 && tick <= y_axis.hi + 1e-9) kept.push_back(tick);
    }
    y_axis.ticks = kept;
  }
  const Axis x_axis = EpochAxis(epochs);

  // Grid, ticks and tick labels.
  for (const double tick : y_axis.ticks) {
    const int y = y_axis.ToPixel(tick, plot.bottom, plot.top);
    for (int x = plot.left + 1; x < plot.right; ++x) canvas.Set(x, y, kGridGray);
    for (int x = plot.left - 4; x < plot.left; ++x) canvas.Set(x, y, kAxisGray);
    const std::string label = TickLabel(tick, y_axis.step);
    canvas.Text(plot.left - 7 - TextWidth(label), y - kGlyphHeight / 2, label, kBlack);
  }
  for (const double tick : x_axis.ticks) {
    const int x = x_axis.ToPixel(tick, plot.left, plot.right);
    for (int y = plot.top + 1; y < plot.bottom; ++y) canvas.Set(x, y, kGridGray);
    for (int y = plot.bottom + 1; y <= plot.bottom + 4; ++y) canvas.Set(x, y, kAxisGray);
    const std::string label = TickLabel(tick, 1);
    canvas.Text(x - TextWidth(label) / 2, plot.bottom + 8, label, kBlack);
  }
  canvas.Outline(plot, kAxisGray);
  const std::string x_title = "EPOCH";
  canvas.Text((plot.left + plot.right - TextWidth(x_title)) / 2, plot.bottom + 22, x_title,
              kAxisGray);
  canvas.Text((plot.left + plot.right - TextWidth(panel.title, 2)) / 2, plot.top - 22, panel.title,
              kBlack, 2);

  // Curves: consecutive finite values are joined; a finite value with no finite neighbour is a
  // dot, and with few epochs every value gets a marker.
  const Rect inside{plot.left + 1, plot.top + 1, plot.right - 1, plot.bottom - 1};
  const bool markers = epochs <= 30;
  std::vector<std::pair<int, int>> points;
  for (size_t s = 0; s < panel.series.size(); ++s) {
    const Color color = kPalette[s % kPaletteSize];
    const std::vector<double>& y = panel.series[s].y;
    for (size_t i = 0; i < y.size(); ++i) {
      if (!std::isfinite(y[i])) continue;
      const int px = x_axis.ToPixel(static_cast<double>(i + 1), plot.left, plot.right);
      const int py = y_axis.ToPixel(y[i], plot.bottom, plot.top);
      points.emplace_back(px, py);
      const bool next_finite = i + 1 < y.size() && std::isfinite(y[i + 1]);
      const bool previous_finite = i > 0 && std::isfinite(y[i - 1]);
      if (next_finite) {
        const int nx = x_axis.ToPixel(static_cast<double>(i + 2), plot.left, plot.right);
        const int ny = y_axis.ToPixel(y[i + 1], plot.bottom, plot.top);
        canvas.ThickLine(px, py, nx, ny, color, inside);
      }
      if (markers || (!next_finite && !previous_finite)) canvas.Dot(px, py, 2, color, inside);
    }
  }

  // Legend.
  if (panel.series.empty()) return;
  constexpr int kLineHeight = 12, kSwatch = 16, kPad = 5;
  int label_width = 0;
  for (const Series& series : panel.series) {
    label_width = std::max(label_width, TextWidth(series.label));
  }
  const int legend_width = kPad + kSwatch + 5 + label_width + kPad;
  const int legend_height = kPad * 2 + kLineHeight * static_cast<int>(panel.series.size()) - 5;
  const Rect box = PlaceLegend(plot, legend_width, legend_height, points);
  canvas.Fill(box, kWhite);
  canvas.Outline(box, kAxisGray);
  for (size_t s = 0; s < panel.series.size(); ++s) {
    const int top = box.top + kPad + kLineHeight * static_cast<int>(s);
    const Color color = kPalette[s % kPaletteSize];
    canvas.Fill({box.left + kPad, top + 2, box.left + kPad + kSwatch - 1, top + 4}, color);
    canvas.Text(box.left + kPad + kSwatch + 5, top, panel.series[s].label, kBlack);
  }
}

// ---- PNG encoding ----

uint32_t Crc32(const uint8_t* data, size_t size, uint32_t crc = 0) {
  static const std::vector<uint32_t> table = [] {
    std::vector<uint32_t> entries(256);
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      entries[n] = c;
    }
    return entries;
  }();
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

void AppendBigEndian32(std::vector<uint8_t>& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(value >> shift));
}

void AppendChunk(std::vector<uint8_t>& png, const char type[4], const std::vector<uint8_t>& data) {
  AppendBigEndian32(png, static_cast<uint32_t>(data.size()));
  const size_t type_start = png.size();
  png.insert(png.end(), type, type + 4);
  png.insert(png.end(), data.begin(), data.end());
  // The CRC covers the type and the data, not the length.
  AppendBigEndian32(png, Crc32(&png[type_start], png.size() - type_start));
}

// The zlib stream of the scanlines. Plots are mostly flat colour: deflate makes them ~50x smaller
// than the raw 1 MB, small enough to keep beside the docs.
std::vector<uint8_t> Deflate(const std::vector<uint8_t>& data) {
  uLongf size = compressBound(static_cast<uLong>(data.size()));
  std::vector<uint8_t> out(size);
  if (compress2(out.data(), &size, data.data(), static_cast<uLong>(data.size()),
                Z_BEST_COMPRESSION) != Z_OK) {
    throw std::runtime_error("PNG: zlib could not compress the image");
  }
  out.resize(size);
  return out;
}

std::vector<uint8_t> EncodePng(const Canvas& canvas) {
  const int width = canvas.width(), height = canvas.height();
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<uint8_t> header;
  AppendBigEndian32(header, static_cast<uint32_t>(width));
  AppendBigEndian32(header, static_cast<uint32_t>(height));
  header.insert(header.end(), {8, 2, 0, 0, 0});  // 8-bit RGB, deflate, adaptive, no interlace
  AppendChunk(png, "IHDR", header);
  // Each scanline starts with filter type 0 (none).
  const size_t row_bytes = static_cast<size_t>(width) * 3;
  std::vector<uint8_t> raw;
  raw.reserve(static_cast<size_t>(height) * (1 + row_bytes));
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);
    const auto row = canvas.rgb().begin() + static_cast<std::ptrdiff_t>(y * row_bytes);
    raw.insert(raw.end(), row, row + static_cast<std::ptrdiff_t>(row_bytes));
  }
  AppendChunk(png, "IDAT", Deflate(raw));
  AppendChunk(png, "IEND", {});
  return png;
}

std::vector<Series> AsPercent(const std::vector<Series>& fractions) {
  std::vector<Series> percent = fractions;
  for (Series& series : percent) {
    for (double& value : series.y) value *= 100;
  }
  return percent;
}

// Finite values beyond kMaxMagnitude are clamped to it (keeping spans finite); others are kept.
std::vector<Series> Clamped(std::vector<Series> all) {
  for (Series& series : all) {
    for (double& value : series.y) {
      if (std::isfinite(value)) value = std::clamp(value, -kMaxMagnitude, kMaxMagnitude);
    }
  }
  return all;
}

}  // namespace

void WriteCurvesPng(const std::string& path, const std::string& title,
                    const std::vector<Series>& loss, const std::vector<Series>& accuracy) {
  Canvas canvas(kCurvesPngWidth, kCurvesPngHeight);
  canvas.Text((kCurvesPngWidth - TextWidth(title, 2)) / 2, 8, title, kBlack, 2);
  size_t epochs = 0;
  for (const auto* group : {&loss, &accuracy}) {
    for (const Series& series : *group) epochs = std::max(epochs, series.y.size());
  }
  const int epoch_count = static_cast<int>(std::min<size_t>(epochs, 1000000000));
  const int half = kCurvesPngWidth / 2;
  const int top = 62, bottom = kCurvesPngHeight - 42;
  DrawPanel(canvas, {62, top, half - 16, bottom}, {"LOSS", Clamped(loss), false}, epoch_count);
  DrawPanel(canvas, {half + 62, top, kCurvesPngWidth - 16, bottom},
            {"ACCURACY (%)", Clamped(AsPercent(accuracy)), true}, epoch_count);

  const std::vector<uint8_t> png = EncodePng(canvas);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
  }
  const bool written = std::fwrite(png.data(), 1, png.size(), file) == png.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) throw std::runtime_error(path + ": write error");
}

}  // namespace mxu::train
