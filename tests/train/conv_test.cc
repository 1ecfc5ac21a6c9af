// The im2col lowering against a direct convolution on the host: Im2col(X) x W is the
// convolution, Col2im(dY x W^T) is its input gradient, and max pooling routes gradients to the
// maxima.
#include "train/conv.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "train/data/rng.h"

namespace mxu::train {
namespace {

Fp32Matrix Random(int rows, int cols, Rng& rng) {
  Fp32Matrix m(rows, cols);
  for (float& v : m.data) v = static_cast<float>(rng.Normal());
  return m;
}

// X (NHWC) at (b, y, x, c), 0 outside the image.
double Pixel(const Fp32Matrix& x, const ConvShape& s, int b, int y, int xx, int c) {
  if (y < 0 || y >= s.rows || xx < 0 || xx >= s.cols) return 0;
  return x.data[((size_t(b) * s.rows + y) * s.cols + xx) * s.channels + c];
}

// The convolution by its definition, in double: out(b, oy, ox, f) = sum over ky, kx, c of
// X(b, oy + ky - pad, ox + kx - pad, c) * W[(ky, kx, c), f].
std::vector<double> DirectConv(const Fp32Matrix& x, const Fp32Matrix& w, const ConvShape& s) {
  const int f_count = w.cols;
  std::vector<double> out;
  for (int b = 0; b < s.batch; ++b) {
    for (int oy = 0; oy < s.out_rows(); ++oy) {
      for (int ox = 0; ox < s.out_cols(); ++ox) {
        for (int f = 0; f < f_count; ++f) {
          double sum = 0;
          for (int ky = 0; ky < s.kernel; ++ky) {
            for (int kx = 0; kx < s.kernel; ++kx) {
              for (int c = 0; c < s.channels; ++c) {
                sum += Pixel(x, s, b, oy + ky - s.pad, ox + kx - s.pad, c) *
                       w.at((ky * s.kernel + kx) * s.channels + c, f);
              }
            }
          }
          out.push_back(sum);
        }
      }
    }
  }
  return out;
}

std::vector<double> Product(const Fp32Matrix& a, const Fp32Matrix& b) {
  std::vector<double> c(size_t(a.rows) * b.cols, 0.0);
  for (int i = 0; i < a.rows; ++i) {
    for (int p = 0; p < a.cols; ++p) {
      for (int j = 0; j < b.cols; ++j) c[size_t(i) * b.cols + j] += double(a.at(i, p)) * b.at(p, j);
    }
  }
  return c;
}

class Im2colTest : public ::testing::TestWithParam<ConvShape> {};

TEST_P(Im2colTest, ProductIsTheDirectConvolution) {
  const ConvShape s = GetParam();
  Rng rng(5);
  const Fp32Matrix x = Random(s.batch * s.rows * s.cols, s.channels, rng);
  const Fp32Matrix w = Random(s.patch(), 3, rng);
  const Fp32Matrix patches = Im2col(x, s);
  ASSERT_EQ(patches.rows, s.batch * s.out_rows() * s.out_cols());
  ASSERT_EQ(patches.cols, s.patch());
  const std::vector<double> got = Product(patches, w), want = DirectConv(x, w, s);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-9) << i;
}

// The input gradient of the convolution: dX(b, y, x, c) = sum of dY(b, oy, ox, f) W[(ky, kx, c),
// f] over the outputs whose window holds (y, x). Col2im(dY W^T) must give it.
TEST_P(Im2colTest, Col2imGivesTheDirectInputGradient) {
  const ConvShape s = GetParam();
  Rng rng(6);
  const int f_count = 4;
  const Fp32Matrix w = Random(s.patch(), f_count, rng);
  const Fp32Matrix dy = Random(s.batch * s.out_rows() * s.out_cols(), f_count, rng);
  Fp32Matrix w_t(f_count, s.patch());
  for (int r = 0; r < w.rows; ++r) {
    for (int c = 0; c < w.cols; ++c) w_t.at(c, r) = w.at(r, c);
  }
  const std::vector<double> d_patches = Product(dy, w_t);
  Fp32Matrix d_patches_f(dy.rows, s.patch());
  for (size_t i = 0; i < d_patches.size(); ++i) d_patches_f.data[i] = float(d_patches[i]);
  const Fp32Matrix dx = Col2im(d_patches_f, s);
  ASSERT_EQ(dx.rows, s.batch * s.rows * s.cols);
  ASSERT_EQ(dx.cols, s.channels);
  for (int b = 0; b < s.batch; ++b) {
    for (int y = 0; y < s.rows; ++y) {
      for (int x = 0; x < s.cols; ++x) {
        for (int c = 0; c < s.channels; ++c) {
          double want = 0;
          for (int ky = 0; ky < s.kernel; ++ky) {
            for (int kx = 0; kx < s.kernel; ++kx) {
              const int oy = y - ky + s.pad, ox = x - kx + s.pad;
              if (oy < 0 || oy >= s.out_rows() || ox < 0 || ox >= s.out_cols()) continue;
              for (int f = 0; f < f_count; ++f) {
                want += double(dy.at((b * s.out_rows() + oy) * s.out_cols() + ox, f)) *
                        w.at((ky * s.kernel + kx) * s.channels + c, f);
              }
            }
          }
          ASSERT_NEAR(dx.at((b * s.rows + y) * s.cols + x, c), want, 1e-4);
        }
      }
    }
  }
}

ConvShape Shape(int batch, int rows, int cols, int channels, int kernel, int pad) {
  ConvShape s;
  s.batch = batch;
  s.rows = rows;
  s.cols = cols;
  s.channels = channels;
  s.kernel = kernel;
  s.pad = pad;
  return s;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Im2colTest,
                         ::testing::Values(Shape(2, 5, 4, 1, 3, 1), Shape(3, 6, 6, 3, 3, 1),
                                           Shape(1, 7, 5, 2, 3, 0), Shape(2, 4, 4, 2, 1, 0),
                                           Shape(1, 3, 3, 2, 5, 2)));

TEST(Im2col, RefusesMismatchedShapes) {
  const ConvShape s = Shape(2, 4, 4, 1, 3, 1);
  EXPECT_THROW(Im2col(Fp32Matrix(2, 15), s), std::invalid_argument);
  EXPECT_THROW(Col2im(Fp32Matrix(32, 8), s), std::invalid_argument);
  EXPECT_THROW(Im2col(Fp32Matrix(1, 4), Shape(1, 2, 2, 1, 5, 0)), std::invalid_argument);
}

TEST(MaxPool2, TakesEachWindowsMaximumAndRoutesItsGradient) {
  // One 4x5 image with 2 channels (the last column is dropped): channel 1 is channel 0 negated.
  const int rows = 4, cols = 5, channels = 2;
  Fp32Matrix x(rows * cols, channels);
  const float values[4][5] = {
      {1, 5, 2, 2, 9}, {3, 4, 8, 1, 9}, {0, -1, 7, 7, 9}, {-2, -3, 6, 6.5f, 9}};
  for (int y = 0; y < rows; ++y) {
    for (int c = 0; c < cols; ++c) {
      x.at(y * cols + c, 0) = values[y][c];
      x.at(y * cols + c, 1) = -values[y][c];
    }
  }
  std::vector<int> argmax;
  const Fp32Matrix pooled = MaxPool2(x, 1, rows, cols, channels, &argmax);
  ASSERT_EQ(pooled.rows, 4);
  ASSERT_EQ(pooled.cols, 2);
  EXPECT_EQ(pooled.at(0, 0), 5);
  EXPECT_EQ(pooled.at(1, 0), 8);
  EXPECT_EQ(pooled.at(2, 0), 0);
  EXPECT_EQ(pooled.at(3, 0), 7);
  EXPECT_EQ(pooled.at(0, 1), -1);
  EXPECT_EQ(pooled.at(1, 1), -1);
  EXPECT_EQ(pooled.at(3, 1), -6);
  // Equal values (7, 7 in the last window's top row): the first one scanned wins.
  EXPECT_EQ(argmax[6], (2 * cols + 2) * channels);

  Fp32Matrix d(4, 2);
  for (size_t i = 0; i < d.data.size(); ++i) d.data[i] = float(i + 1);
  const Fp32Matrix dx = MaxPool2Backward(d, argmax, x.rows, x.cols);
  double total = 0;
  for (size_t i = 0; i < dx.data.size(); ++i) {
    total += dx.data[i];
    if (dx.data[i] != 0) {
      EXPECT_NE(std::find(argmax.begin(), argmax.end(), int(i)), argmax.end());
    }
  }
  EXPECT_EQ(total, 36);                  // 1 + ... + 8, each to one place
  EXPECT_EQ(dx.at(1 * cols + 2, 0), 3);  // the 8
  EXPECT_EQ(dx.at(0 * cols + 4, 0), 0);  // the dropped column
}

}  // namespace
}  // namespace mxu::train
