// Tests of the PNG curve plot (host/train/plot_png.h): the file is checked with an independent
// decoder written here (chunks, CRCs, zlib inflate with its Adler-32 check, scanlines), and
// odd inputs (NaN, single points, empty series, long runs) must still give a valid image.
#include "host/train/plot_png.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace mxu::train {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Bytes FileBytes(const std::string& path) {
  Bytes bytes;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return bytes;
  int c;
  while ((c = std::fgetc(file)) != EOF) bytes.push_back(static_cast<uint8_t>(c));
  std::fclose(file);
  return bytes;
}

uint32_t BigEndian32(const Bytes& bytes, size_t at) {
  return (uint32_t{bytes[at]} << 24) | (uint32_t{bytes[at + 1]} << 16) |
         (uint32_t{bytes[at + 2]} << 8) | uint32_t{bytes[at + 3]};
}

// Bit-at-a-time CRC-32 (no table), independent of the encoder's table-driven one.
uint32_t ReferenceCrc32(const Bytes& bytes, size_t begin, size_t end) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = begin; i < end; ++i) {
    crc ^= bytes[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

struct DecodedPng {
  uint32_t width = 0, height = 0;
  Bytes rgb;  // height x width x 3, filter bytes removed
};

// Decodes a PNG as WriteCurvesPng writes it, checking every structural rule on the way with
// gtest assertions (so call it under ASSERT_NO_FATAL_FAILURE).
void DecodePng(const Bytes& png, DecodedPng* decoded) {
  const Bytes signature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  ASSERT_GE(png.size(), signature.size());
  ASSERT_EQ(Bytes(png.begin(), png.begin() + 8), signature);
  std::vector<std::string> chunk_types;
  Bytes zlib;
  size_t at = 8;
  while (at < png.size()) {
    ASSERT_LE(at + 12, png.size()) << "chunk header past the end";
    const uint32_t length = BigEndian32(png, at);
    ASSERT_LE(at + 12 + length, png.size()) << "chunk data past the end";
    const std::string type(png.begin() + at + 4, png.begin() + at + 8);
    chunk_types.push_back(type);
    EXPECT_EQ(BigEndian32(png, at + 8 + length), ReferenceCrc32(png, at + 4, at + 8 + length))
        << "CRC of chunk " << type;
    const size_t data = at + 8;
    if (type == "IHDR") {
      ASSERT_EQ(length, 13u);
      decoded->width = BigEndian32(png, data);
      decoded->height = BigEndian32(png, data + 4);
      EXPECT_EQ(png[data + 8], 8) << "bit depth";
      EXPECT_EQ(png[data + 9], 2) << "colour type RGB";
      EXPECT_EQ(png[data + 10], 0);
      EXPECT_EQ(png[data + 11], 0);
      EXPECT_EQ(png[data + 12], 0) << "interlace";
    } else if (type == "IDAT") {
      zlib.insert(zlib.end(), png.begin() + data, png.begin() + data + length);
    }
    at += 12 + length;
  }
  ASSERT_GE(chunk_types.size(), 3u);
  EXPECT_EQ(chunk_types.front(), "IHDR");
  EXPECT_EQ(chunk_types.back(), "IEND");

  // zlib: CMF/FLG header, then zlib's own inflate, which checks the Adler-32 of the result.
  ASSERT_GE(zlib.size(), 2u + 4u);
  EXPECT_EQ(zlib[0] & 0x0F, 8) << "compression method deflate";
  EXPECT_EQ((zlib[0] * 256 + zlib[1]) % 31, 0) << "zlib header check bits";
  EXPECT_EQ(zlib[1] & 0x20, 0) << "no preset dictionary";
  const size_t stride = 1 + 3 * static_cast<size_t>(decoded->width);
  Bytes inflated(decoded->height * stride + 1);  // one spare byte: a longer stream is caught
  uLongf inflated_size = static_cast<uLongf>(inflated.size());
  ASSERT_EQ(
      uncompress(inflated.data(), &inflated_size, zlib.data(), static_cast<uLong>(zlib.size())),
      Z_OK);
  inflated.resize(inflated_size);
  ASSERT_EQ(inflated.size(), decoded->height * stride);
  for (size_t y = 0; y < decoded->height; ++y) {
    ASSERT_EQ(inflated[y * stride], 0) << "filter byte of row " << y;
    decoded->rgb.insert(decoded->rgb.end(), inflated.begin() + y * stride + 1,
                        inflated.begin() + (y + 1) * stride);
  }
}

using Rgb = std::tuple<int, int, int>;

std::set<Rgb> Colours(const DecodedPng& image) {
  std::set<Rgb> colours;
  for (size_t i = 0; i + 2 < image.rgb.size(); i += 3) {
    colours.emplace(image.rgb[i], image.rgb[i + 1], image.rgb[i + 2]);
  }
  return colours;
}

// The number of pixels of one colour in the columns [x_begin, x_end).
int CountColour(const DecodedPng& image, Rgb colour, uint32_t x_begin, uint32_t x_end) {
  int count = 0;
  for (uint32_t y = 0; y < image.height; ++y) {
    for (uint32_t x = x_begin; x < x_end; ++x) {
      const size_t i = (static_cast<size_t>(y) * image.width + x) * 3;
      count += Rgb(image.rgb[i], image.rgb[i + 1], image.rgb[i + 2]) == colour;
    }
  }
  return count;
}

// The first two series colours (Tableau 10 blue and orange).
const Rgb kFirstColour{31, 119, 180};
const Rgb kSecondColour{255, 127, 14};

class PlotPngTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(MXU_TRAIN_TEST_TMPDIR) /
           ("plot." + std::string(info->test_suite_name()) + "." + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  std::string Path(const std::string& file) const { return (dir_ / file).string(); }

  // Writes the chart, decodes it and checks its size.
  void Render(const std::vector<Series>& loss, const std::vector<Series>& accuracy,
              DecodedPng* image) {
    const std::string path = Path("curves.png");
    WriteCurvesPng(path, "MXU TRAIN - SPIRALS", loss, accuracy);
    ASSERT_NO_FATAL_FAILURE(DecodePng(FileBytes(path), image));
    ASSERT_EQ(image->width, static_cast<uint32_t>(kCurvesPngWidth));
    ASSERT_EQ(image->height, static_cast<uint32_t>(kCurvesPngHeight));
  }

  fs::path dir_;
};

std::vector<double> Decaying(int epochs, double start, double end) {
  std::vector<double> values;
  for (int e = 0; e < epochs; ++e) values.push_back(end + (start - end) * std::exp(-0.25 * e));
  return values;
}

TEST_F(PlotPngTest, ValidPngWithCurvesInBothPanels) {
  DecodedPng image;
  ASSERT_NO_FATAL_FAILURE(
      Render({{"train", Decaying(20, 1.1, 0.1)}, {"test", Decaying(20, 1.2, 0.2)}},
             {{"train", Decaying(20, 0.35, 0.98)}, {"test", Decaying(20, 0.3, 0.95)}}, &image));
  EXPECT_GT(Colours(image).size(), 4u) << "expected background, text, grid and two curves";
  const uint32_t half = image.width / 2;
  // Each series colour is drawn in each panel, well beyond a legend swatch.
  EXPECT_GT(CountColour(image, kFirstColour, 0, half), 200);
  EXPECT_GT(CountColour(image, kSecondColour, 0, half), 200);
  EXPECT_GT(CountColour(image, kFirstColour, half, image.width), 200);
  EXPECT_GT(CountColour(image, kSecondColour, half, image.width), 200);
}

TEST_F(PlotPngTest, SameInputSameBytes) {
  const std::vector<Series> loss = {{"a", {3, 2, 1}}}, accuracy = {{"a", {0.2, 0.5, 0.9}}};
  WriteCurvesPng(Path("1.png"), "T", loss, accuracy);
  WriteCurvesPng(Path("2.png"), "T", loss, accuracy);
  EXPECT_EQ(FileBytes(Path("1.png")), FileBytes(Path("2.png")));
  WriteCurvesPng(Path("3.png"), "T", loss, {{"a", {0.2, 0.6, 0.9}}});
  EXPECT_NE(FileBytes(Path("1.png")), FileBytes(Path("3.png")));
}

TEST_F(PlotPngTest, NonFiniteValuesLeaveGaps) {
  DecodedPng image;
  ASSERT_NO_FATAL_FAILURE(Render({{"loss", {1.0, kNaN, 0.5, kInf, -kInf, 0.25, 1e308, -1e308}}},
                                 {{"acc", {kNaN, 0.5, kNaN}}}, &image));
  EXPECT_GT(CountColour(image, kFirstColour, 0, image.width / 2), 20);
  EXPECT_GT(CountColour(image, kFirstColour, image.width / 2, image.width), 9)
      << "a lone point between gaps is still drawn";
  ASSERT_NO_FATAL_FAILURE(Render({{"nan", {kNaN, kNaN}}}, {{"inf", {kInf}}}, &image));
}

TEST_F(PlotPngTest, SinglePointsEmptySeriesAndNoSeries) {
  DecodedPng image;
  ASSERT_NO_FATAL_FAILURE(Render({{"one", {0.7}}}, {{"one", {0.4}}}, &image));
  EXPECT_GT(CountColour(image, kFirstColour, 0, image.width / 2), 9);
  EXPECT_GT(CountColour(image, kFirstColour, image.width / 2, image.width), 9);
  ASSERT_NO_FATAL_FAILURE(Render({{"empty", {}}}, {}, &image));
  EXPECT_GT(Colours(image).size(), 1u) << "axes and labels are drawn without data";
  ASSERT_NO_FATAL_FAILURE(Render({}, {}, &image));
  EXPECT_GT(Colours(image).size(), 1u);
  // Constant values, and values far from zero with a tiny spread.
  ASSERT_NO_FATAL_FAILURE(
      Render({{"flat", {2, 2, 2}}, {"zero", {0, 0}}}, {{"big", {1e9, 1e9 + 1e-3}}}, &image));
}

TEST_F(PlotPngTest, ManyEpochsAndSeries) {
  std::vector<Series> loss, accuracy;
  for (int s = 0; s < 12; ++s) {
    loss.push_back({"series " + std::to_string(s), Decaying(500, 2.0 + s, 0.1 * s)});
    accuracy.push_back({"series " + std::to_string(s), Decaying(500, 0.1, 0.5 + 0.04 * s)});
  }
  DecodedPng image;
  ASSERT_NO_FATAL_FAILURE(Render(loss, accuracy, &image));
  EXPECT_GT(Colours(image).size(), 10u);
}

TEST_F(PlotPngTest, UnwritablePathThrowsNamingIt) {
  const std::string path = Path("no/such/dir/curves.png");
  try {
    WriteCurvesPng(path, "T", {{"a", {1}}}, {});
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
  }
  EXPECT_THROW(WriteCurvesPng(dir_.string(), "T", {}, {}), std::runtime_error);  // a directory
}

}  // namespace
}  // namespace mxu::train
