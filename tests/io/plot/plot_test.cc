// Tests of the plotting module (io/plot/plot.h) beyond the training curves: grouped bar charts
// (what `mxu bench` will draw), a line chart with explicit x values, panel layout and errors. The
// pictures are read back with libpng.
#include "io/plot/plot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "tests/png_image.h"

namespace mxu::plot {
namespace {

using testing::PngImage;
using testing::ReadPng;
using testing::Rgb;

Rgb ColourOf(size_t series) {
  const Colour c = SeriesColour(series);
  return {c.r, c.g, c.b};
}

std::string TempPng(const std::string& name) {
  return std::string(MXU_PLOT_TEST_TMPDIR) + "/" + std::to_string(getpid()) + "_" + name + ".png";
}

TEST(Plot, PaletteColoursAreDistinct) {
  for (size_t i = 0; i < 10; ++i) {
    for (size_t j = i + 1; j < 10; ++j) EXPECT_GT(ColourOf(i).Distance(ColourOf(j)), 30);
    EXPECT_EQ(SeriesColour(i), SeriesColour(i + 10));
  }
}

TEST(Plot, BarsReachTheirValues) {
  Figure figure(800, 400, "utilization per shape");
  BarChart chart;
  chart.title = "utilization";
  chart.y_label = "array busy";
  chart.categories = {"64x64x64", "128x128x128", "256x256x256", "32x512x32"};
  chart.series = {{"rtl", {0.12, 0.35, 0.61, 0.2}}, {"ideal", {1, 1, 1, 1}}};
  chart.percent = true;
  figure.Add(chart);
  const std::string path = TempPng("bars");
  figure.WritePng(path);
  const PngImage image = ReadPng(path);
  ASSERT_TRUE(image.valid) << image.error;
  EXPECT_EQ(image.width, 800u);
  EXPECT_EQ(image.height, 400u);
  const Box area = figure.DataArea(0);
  for (size_t s = 0; s < chart.series.size(); ++s) {
    for (size_t i = 0; i < chart.categories.size(); ++i) {
      const auto top = figure.PixelOf(0, double(i), chart.series[s].y[i], s);
      ASSERT_TRUE(top);
      EXPECT_GT(top->x, area.left);
      EXPECT_LT(top->x, area.right);
      // Solid bar colour just below the top, none just above it (4 px either side).
      EXPECT_TRUE(image.At(uint32_t(top->x), uint32_t(top->y + 4)).Distance(ColourOf(s)) <= 2)
          << s << "/" << i;
      if (top->y - 4 > area.top) {
        EXPECT_GT(image.At(uint32_t(top->x), uint32_t(top->y - 4)).Distance(ColourOf(s)), 30)
            << s << "/" << i;
      }
      // The bar stands on zero.
      const auto zero = figure.PixelOf(0, double(i), 0.0, s);
      EXPECT_TRUE(image.At(uint32_t(zero->x), uint32_t(zero->y - 3)).Distance(ColourOf(s)) <= 2);
    }
  }
  // A taller value gives a taller bar.
  EXPECT_LT(figure.PixelOf(0, 2, 0.61)->y, figure.PixelOf(0, 0, 0.12)->y);
  EXPECT_FALSE(figure.PixelOf(0, 4, 0.5));     // no such category
  EXPECT_FALSE(figure.PixelOf(0, 0, 0.5, 2));  // no such series
}

// Horizontal bars (mxu bench --plot): each category's label whole left of the data area, bars
// from zero to their value along x; panels stacked one under the other.
TEST(Plot, HorizontalBarsInStackedPanels) {
  Figure figure(600, 500, "", Arrange::kColumn);
  BarChart chart;
  chart.categories = {"a_rather_long_layer_name_kept_whole", "fc"};
  chart.series = {{"vs ideal", {0.25, 0.9}}, {"vs bound", {0.5, 1.0}}};
  chart.percent = true;
  chart.horizontal = true;
  figure.Add(chart);
  figure.Add(chart);
  const std::string path = TempPng("hbars");
  figure.WritePng(path);
  const PngImage image = ReadPng(path);
  ASSERT_TRUE(image.valid) << image.error;
  const Box first = figure.DataArea(0), second = figure.DataArea(1);
  EXPECT_LE(first.bottom, second.top);
  EXPECT_EQ(first.left, second.left);
  EXPECT_GT(first.left, 150);  // room for the long label
  for (size_t s = 0; s < 2; ++s) {
    for (size_t i = 0; i < 2; ++i) {
      const auto end = figure.PixelOf(0, double(i), chart.series[s].y[i], s);
      const auto zero = figure.PixelOf(0, double(i), 0.0, s);
      ASSERT_TRUE(end && zero);
      EXPECT_EQ(end->y, zero->y);
      EXPECT_GT(end->y, first.top);
      EXPECT_LT(end->y, first.bottom);
      // Bar colour just inside its end, none just past it, and at zero.
      EXPECT_TRUE(image.At(uint32_t(end->x - 4), uint32_t(end->y)).Distance(ColourOf(s)) <= 2)
          << s << "/" << i;
      if (end->x + 4 < first.right) {
        EXPECT_GT(image.At(uint32_t(end->x + 4), uint32_t(end->y)).Distance(ColourOf(s)), 30);
      }
      EXPECT_TRUE(image.At(uint32_t(zero->x + 3), uint32_t(zero->y)).Distance(ColourOf(s)) <= 2);
    }
  }
  // Twice the value, twice the length.
  const double zero_x = figure.PixelOf(0, 0, 0.0)->x;
  EXPECT_NEAR(figure.PixelOf(0, 0, 0.5, 1)->x - zero_x,
              2 * (figure.PixelOf(0, 0, 0.25, 0)->x - zero_x), 0.5);
}

TEST(Plot, LineWithExplicitXAndTwoPanels) {
  Figure figure(600, 300);
  LineChart left;
  left.series = {{"cycles", {10, 40, 90}, {1, 2, 3}}};
  LineChart right;
  right.series = {{"a", {5, 5}, {-1, 1}}, {"b", {1, 9}, {-1, 1}}};
  figure.Add(left);
  figure.Add(right);
  const std::string path = TempPng("lines");
  figure.WritePng(path);
  const PngImage image = ReadPng(path);
  ASSERT_TRUE(image.valid) << image.error;
  EXPECT_LE(figure.DataArea(0).right, figure.DataArea(1).left);
  for (double x : {1.0, 2.0, 3.0}) {
    const auto p = figure.PixelOf(0, x, x * x * 10);
    EXPECT_TRUE(image.Near(p->x, p->y, ColourOf(0), 8, 1)) << x;
  }
  const auto mid_b = figure.PixelOf(1, 0.0, 5.0);  // where "a" and "b" cross, b drawn last
  EXPECT_TRUE(image.Near(mid_b->x, mid_b->y, ColourOf(1), 8, 1));
}

TEST(Plot, ErrorsNameTheProblem) {
  EXPECT_THROW(Figure(10, 10), std::invalid_argument);
  Figure figure(200, 150);
  try {
    figure.WritePng("/nonexistent-dir/x.png");
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.png"), std::string::npos);
  }
}

}  // namespace
}  // namespace mxu::plot
