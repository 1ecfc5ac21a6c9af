// Reads a PNG file with libpng into 8-bit RGB pixels, for the tests that check pictures the
// project draws (training curves, rendered waveforms): size, colours, and what lies where.
#ifndef MXU_TESTS_PNG_IMAGE_H_
#define MXU_TESTS_PNG_IMAGE_H_

#include <png.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace mxu::testing {

struct Rgb {
  int r = 0, g = 0, b = 0;
  bool operator<(const Rgb& o) const { return r != o.r ? r < o.r : g != o.g ? g < o.g : b < o.b; }
  bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
  bool operator!=(const Rgb& o) const { return !(*this == o); }
  // The largest difference of one channel.
  int Distance(const Rgb& o) const {
    return std::max({std::abs(r - o.r), std::abs(g - o.g), std::abs(b - o.b)});
  }
};

struct PngImage {
  bool valid = false;
  std::string error;  // why not valid (libpng's message)
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgb;  // height rows of width x 3 bytes

  Rgb At(uint32_t x, uint32_t y) const {
    const size_t i = (size_t{y} * width + x) * 3;
    return {rgb[i], rgb[i + 1], rgb[i + 2]};
  }
  std::set<Rgb> Colours() const {
    std::set<Rgb> colours;
    for (size_t i = 0; i + 2 < rgb.size(); i += 3) colours.insert({rgb[i], rgb[i + 1], rgb[i + 2]});
    return colours;
  }
  // Pixels within `tolerance` (per channel) of a colour, in the box [x0, x1) x [y0, y1).
  size_t Count(Rgb colour, int tolerance, uint32_t x0, uint32_t x1, uint32_t y0 = 0,
               uint32_t y1 = UINT32_MAX) const {
    size_t n = 0;
    for (uint32_t y = y0; y < std::min(y1, height); ++y) {
      for (uint32_t x = x0; x < std::min(x1, width); ++x)
        n += At(x, y).Distance(colour) <= tolerance;
    }
    return n;
  }
  // Whether a pixel within `radius` of (x, y) is within `tolerance` of the colour.
  bool Near(double x, double y, Rgb colour, int tolerance, int radius = 2) const {
    for (int dy = -radius; dy <= radius; ++dy) {
      for (int dx = -radius; dx <= radius; ++dx) {
        const long px = static_cast<long>(x) + dx, py = static_cast<long>(y) + dy;
        if (px < 0 || py < 0 || px >= long(width) || py >= long(height)) continue;
        if (At(uint32_t(px), uint32_t(py)).Distance(colour) <= tolerance) return true;
      }
    }
    return false;
  }
};

// Any PNG libpng reads (palette, grey, 16-bit, alpha: converted to 8-bit RGB, alpha dropped).
inline PngImage ReadPng(const std::string& path) {
  PngImage image;
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str())) {
    image.error = png.message;
    return image;
  }
  png.format = PNG_FORMAT_RGB;
  image.rgb.resize(PNG_IMAGE_SIZE(png));
  png_color background{255, 255, 255};
  if (!png_image_finish_read(&png, &background, image.rgb.data(), 0, nullptr)) {
    image.error = png.message;
    png_image_free(&png);
    return image;
  }
  image.width = png.width;
  image.height = png.height;
  image.valid = true;
  return image;
}

}  // namespace mxu::testing

#endif  // MXU_TESTS_PNG_IMAGE_H_
