// Tests of the training-curve chart (train/data/curves_plot.h), read back with libpng: the size,
// a picture that is not blank, each curve's colour at the pixels its data points map to and not
// where there is no data, distinct colours for train and test, and odd inputs (NaN, single
// points, empty series, long runs) that must still give a valid image.
#include "train/data/curves_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/png_image.h"

namespace mxu::train {
namespace {

namespace fs = std::filesystem;
using testing::PngImage;
using testing::ReadPng;
using testing::Rgb;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Rgb ColourOf(size_t series) {
  const plot::Colour c = plot::SeriesColour(series);
  return {c.r, c.g, c.b};
}
const Rgb kWhite{255, 255, 255};

std::string FileBytes(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  std::string bytes;
  if (file == nullptr) return bytes;
  int c;
  while ((c = std::fgetc(file)) != EOF) bytes.push_back(static_cast<char>(c));
  std::fclose(file);
  return bytes;
}

class CurvesPlotTest : public ::testing::Test {
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

  // Writes the chart, reads it back and checks its size.
  void Render(const std::vector<Series>& loss, const std::vector<Series>& accuracy,
              PngImage* image) {
    const std::string path = Path("curves.png");
    WriteCurvesPng(path, "mxu train: spirals", loss, accuracy);
    *image = ReadPng(path);
    ASSERT_TRUE(image->valid) << image->error;
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

TEST_F(CurvesPlotTest, CurvesLieWhereTheDataSays) {
  const std::vector<Series> loss = {{"train loss", Decaying(20, 1.1, 0.1)},
                                    {"test loss", Decaying(20, 1.6, 0.6)}};
  const std::vector<Series> accuracy = {{"train", Decaying(20, 0.35, 0.98)},
                                        {"test", Decaying(20, 0.2, 0.7)}};
  PngImage image;
  ASSERT_NO_FATAL_FAILURE(Render(loss, accuracy, &image));
  // Anti-aliased lines and text: many shades, not a few flat colours.
  EXPECT_GT(image.Colours().size(), 50u);
  EXPECT_NE(ColourOf(0), ColourOf(1)) << "train and test need distinct colours";

  const plot::Figure figure = CurvesFigure("mxu train: spirals", loss, accuracy);
  ASSERT_EQ(figure.panels(), 2u);
  for (size_t panel = 0; panel < 2; ++panel) {
    const std::vector<Series>& series = panel == 0 ? loss : accuracy;
    const plot::Box area = figure.DataArea(panel);
    // The panels lie side by side, each in its half.
    EXPECT_LT(area.left, area.right);
    EXPECT_EQ(area.right <= image.width / 2.0, panel == 0);
    for (size_t s = 0; s < series.size(); ++s) {
      // Every data point is drawn in its series' colour, at the pixel its value maps to.
      for (size_t i = 0; i < series[s].y.size(); ++i) {
        const auto at = figure.PixelOf(panel, double(i + 1), series[s].y[i]);
        ASSERT_TRUE(at);
        EXPECT_TRUE(image.Near(at->x, at->y, ColourOf(s), 8, 1))
            << "panel " << panel << " series " << s << " epoch " << i + 1 << " at " << at->x << ","
            << at->y;
      }
      // And well beyond a legend swatch.
      EXPECT_GT(image.Count(ColourOf(s), 8, uint32_t(area.left), uint32_t(area.right),
                            uint32_t(area.top), uint32_t(area.bottom)),
                150u);
    }
    // Where no curve passes (loss near 2.0 at epoch 20, accuracy near 0% at epoch 20) the
    // background shows.
    const auto empty = figure.PixelOf(panel, 19.0, panel == 0 ? 1.9 : 0.02);
    ASSERT_TRUE(empty);
    EXPECT_FALSE(image.Near(empty->x, empty->y, ColourOf(0), 40, 3));
    EXPECT_FALSE(image.Near(empty->x, empty->y, ColourOf(1), 40, 3));
  }
  // Outside the data areas, above the panels: the title, in dark text, no series colour.
  EXPECT_GT(image.Count({30, 30, 30}, 40, 0, image.width, 0, 30), 50u);
  EXPECT_EQ(image.Count(ColourOf(0), 8, 0, image.width, 0, 30), 0u);
}

TEST_F(CurvesPlotTest, SameInputSameBytes) {
  const std::vector<Series> loss = {{"a", {3, 2, 1}}}, accuracy = {{"a", {0.2, 0.5, 0.9}}};
  WriteCurvesPng(Path("1.png"), "T", loss, accuracy);
  WriteCurvesPng(Path("2.png"), "T", loss, accuracy);
  EXPECT_EQ(FileBytes(Path("1.png")), FileBytes(Path("2.png")));
  WriteCurvesPng(Path("3.png"), "T", loss, {{"a", {0.2, 0.6, 0.9}}});
  EXPECT_NE(FileBytes(Path("1.png")), FileBytes(Path("3.png")));
}

TEST_F(CurvesPlotTest, NonFiniteValuesLeaveGaps) {
  PngImage image;
  const std::vector<Series> loss = {{"loss", {1.0, kNaN, 0.5, kInf, -kInf, 0.25, 1e308, -1e308}}};
  const std::vector<Series> accuracy = {{"acc", {kNaN, 0.5, kNaN}}};
  ASSERT_NO_FATAL_FAILURE(Render(loss, accuracy, &image));
  const plot::Figure figure = CurvesFigure("t", loss, accuracy);
  EXPECT_GT(image.Count(ColourOf(0), 8, 0, image.width / 2), 20u);
  // A lone point between gaps is still drawn, as a dot where its value maps to.
  const auto lone = figure.PixelOf(1, 2.0, 0.5);
  ASSERT_TRUE(lone);
  EXPECT_TRUE(image.Near(lone->x, lone->y, ColourOf(0), 8, 1));
  EXPECT_GT(image.Count(ColourOf(0), 8, image.width / 2, image.width), 9u);
  ASSERT_NO_FATAL_FAILURE(Render({{"nan", {kNaN, kNaN}}}, {{"inf", {kInf}}}, &image));
}

TEST_F(CurvesPlotTest, SinglePointsEmptySeriesAndNoSeries) {
  PngImage image;
  ASSERT_NO_FATAL_FAILURE(Render({{"one", {0.7}}}, {{"one", {0.4}}}, &image));
  EXPECT_GT(image.Count(ColourOf(0), 8, 0, image.width / 2), 9u);
  EXPECT_GT(image.Count(ColourOf(0), 8, image.width / 2, image.width), 9u);
  ASSERT_NO_FATAL_FAILURE(Render({{"empty", {}}}, {}, &image));
  EXPECT_GT(image.Colours().size(), 10u) << "axes and labels are drawn without data";
  EXPECT_GT(image.Count(kWhite, 0, 0, image.width), image.width * image.height / 2);
  ASSERT_NO_FATAL_FAILURE(Render({}, {}, &image));
  EXPECT_GT(image.Colours().size(), 10u);
  // Constant values, and values far from zero with a tiny spread.
  ASSERT_NO_FATAL_FAILURE(
      Render({{"flat", {2, 2, 2}}, {"zero", {0, 0}}}, {{"big", {1e9, 1e9 + 1e-3}}}, &image));
}

TEST_F(CurvesPlotTest, ManyEpochsAndSeries) {
  std::vector<Series> loss, accuracy;
  for (int s = 0; s < 12; ++s) {
    loss.push_back({"series " + std::to_string(s), Decaying(500, 2.0 + s, 0.1 * s)});
    accuracy.push_back({"series " + std::to_string(s), Decaying(500, 0.1, 0.5 + 0.04 * s)});
  }
  PngImage image;
  ASSERT_NO_FATAL_FAILURE(Render(loss, accuracy, &image));
  // Ten palette colours, each drawn.
  for (size_t s = 0; s < 10; ++s) EXPECT_GT(image.Count(ColourOf(s), 8, 0, image.width), 20u) << s;
}

TEST_F(CurvesPlotTest, UnwritablePathThrowsNamingIt) {
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
