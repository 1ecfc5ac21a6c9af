// Tests of the plotting module (io/plot/plot.h) beyond the training curves: grouped bar charts
// (what `mxu bench` will draw), a line chart with explicit x values, panel layout and errors. The
// pictures are read back with libpng.
#include "io/plot/plot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "io/plot/numbers.h"
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

// Issue 58: numbers as the tables write them, never 1e+06 where plain digits fit.
TEST(Plot, NumbersArePlain) {
  EXPECT_EQ(numbers::Tick(2e6, 5e5, false), "2,000,000");
  EXPECT_EQ(numbers::Tick(12500, 2500, false), "12,500");
  EXPECT_EQ(numbers::Tick(0.75, 0.25, false), "0.75");
  EXPECT_EQ(numbers::Tick(1, 0.5, false), "1");
  EXPECT_EQ(numbers::Tick(-1e-17, 0.2, false), "0");
  EXPECT_EQ(numbers::Tick(0.00002, 0.00001, false), "0.00002");
  EXPECT_EQ(numbers::Tick(0.4, 0.2, true), "40%");
  EXPECT_EQ(numbers::Value(0.9764, true), "97.6%");
  EXPECT_EQ(numbers::Value(0.94, true), "94.0%");
  EXPECT_EQ(numbers::Value(1234567.4, false), "1,234,567");
  EXPECT_EQ(numbers::Value(12.345, false), "12.3");
  EXPECT_EQ(numbers::Value(0.4567, false), "0.457");
  EXPECT_EQ(numbers::Value(0, false), "0");
  EXPECT_EQ(numbers::Decade(-1), "0.1");
  EXPECT_EQ(numbers::Decade(-3), "0.001");
  EXPECT_EQ(numbers::Decade(0), "1");
  EXPECT_EQ(numbers::Decade(4), "10k");
  EXPECT_EQ(numbers::Decade(9), "1G");
}

// Issue 58 (a torch report's picture): wide tick labels ("1,500,000,000") move the data area
// right, clear of the rotated axis label; narrow ones leave it where it was (70 px).
TEST(Plot, WideTickLabelsClearTheAxisLabel) {
  Figure figure(640, 600, "", Arrange::kColumn);
  BarChart wide, narrow;
  wide.y_label = narrow.y_label = "device cycles";
  wide.categories = narrow.categories = {"fc1", "fc2"};
  wide.series = {{"forward", {1.5e9, 2e8}}};
  narrow.series = {{"forward", {15, 2}}};
  figure.Add(wide);
  figure.Add(narrow);
  // "1,500,000,000" in 11 px DejaVu Sans is about 80 px, the axis label's baseline at 16 px.
  EXPECT_GT(figure.DataArea(0).left, 16 + 6 + 75);
  EXPECT_EQ(figure.DataArea(1).left, 70);
}

// Issue 58: values written at the bars' ends (horizontal: right of the bar, in the room left
// beside the data area; vertical: above it).
TEST(Plot, ValuesAtTheBarsEnds) {
  Figure figure(600, 500, "", Arrange::kColumn);
  BarChart chart;
  chart.categories = {"encoder.layers.0.linear1", "head"};
  chart.series = {{"forward", {3222328, 800000}}, {"backward", {6000000, 1600000}}};
  chart.horizontal = chart.values = true;
  figure.Add(chart);
  BarChart upright = chart;
  upright.horizontal = false;
  figure.Add(upright);
  const std::string path = TempPng("values");
  figure.WritePng(path);
  const PngImage image = ReadPng(path);
  ASSERT_TRUE(image.valid) << image.error;
  const Rgb text{30, 30, 30};
  for (size_t s = 0; s < 2; ++s) {
    for (size_t i = 0; i < 2; ++i) {
      const auto end = figure.PixelOf(0, double(i), chart.series[s].y[i], s);
      ASSERT_TRUE(end);
      // Dark text pixels in the 60 px right of the bar's end, none left of it inside the bar.
      EXPECT_GT(image.Count(text, 60, uint32_t(end->x + 2), uint32_t(end->x + 62),
                            uint32_t(end->y - 5), uint32_t(end->y + 5)),
                5u)
          << s << "/" << i;
      const auto top = figure.PixelOf(1, double(i), chart.series[s].y[i], s);
      EXPECT_GT(image.Count(text, 60, uint32_t(top->x - 20), uint32_t(top->x + 20),
                            uint32_t(top->y - 14), uint32_t(top->y - 1)),
                5u)
          << s << "/" << i;
    }
  }
  // The longest bar's value fits inside the figure: room was left for it.
  const auto longest = figure.PixelOf(0, 0, 6000000, 1);
  EXPECT_LT(longest->x + 4 + 50, 600);
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
