// Cheap checks of a PNG file for the rendering tests: the signature, the IHDR size, and whether
// the image data (inflated with zlib) varies at all. A picture of one colour inflates to a handful
// of distinct byte values (filter types and one pixel value); a waveform to many.
#ifndef MXU_TESTS_WAVES_PNG_CHECK_H_
#define MXU_TESTS_WAVES_PNG_CHECK_H_

#include <zlib.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace mxu::testing {

struct PngInfo {
  bool valid = false;
  std::string error;
  uint32_t width = 0, height = 0;
  size_t distinct_bytes = 0;  // distinct byte values in the inflated image data
};

inline PngInfo InspectPng(const std::string& file) {
  PngInfo info;
  static const std::string kSignature("\x89PNG\r\n\x1a\n", 8);
  if (file.compare(0, 8, kSignature) != 0) {
    info.error = "no PNG signature";
    return info;
  }
  const auto be32 = [&](size_t at) {
    return uint32_t{static_cast<uint8_t>(file[at])} << 24 |
           uint32_t{static_cast<uint8_t>(file[at + 1])} << 16 |
           uint32_t{static_cast<uint8_t>(file[at + 2])} << 8 | static_cast<uint8_t>(file[at + 3]);
  };
  std::string idat;
  unsigned bytes_per_pixel = 0;
  size_t at = 8;
  bool ended = false;
  while (at + 12 <= file.size() && !ended) {
    const uint32_t length = be32(at);
    const std::string type = file.substr(at + 4, 4);
    if (at + 12 + size_t{length} > file.size()) break;
    if (type == "IHDR" && length >= 13) {
      info.width = be32(at + 8);
      info.height = be32(at + 12);
      const unsigned depth = static_cast<uint8_t>(file[at + 16]);
      const unsigned colour = static_cast<uint8_t>(file[at + 17]);
      const unsigned channels = colour == 2 ? 3 : colour == 6 ? 4 : colour == 4 ? 2 : 1;
      bytes_per_pixel = channels * (depth < 8 ? 1 : depth / 8);
    } else if (type == "IDAT") {
      idat += file.substr(at + 8, length);
    } else if (type == "IEND") {
      ended = true;
    }
    at += 12 + size_t{length};
  }
  if (!ended || info.width == 0 || info.height == 0 || idat.empty()) {
    info.error = "truncated PNG, or no IHDR/IDAT";
    return info;
  }
  std::vector<uint8_t> raw(size_t{info.height} * (1 + size_t{info.width} * bytes_per_pixel));
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) !=
      Z_OK) {
    info.error = "image data does not inflate";
    return info;
  }
  info.distinct_bytes = std::set<uint8_t>(raw.begin(), raw.begin() + raw_size).size();
  info.valid = true;
  return info;
}

}  // namespace mxu::testing

#endif  // MXU_TESTS_WAVES_PNG_CHECK_H_
