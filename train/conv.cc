#include "train/conv.h"

#include <stdexcept>

namespace mxu::train {
namespace {

void CheckImages(const Fp32Matrix& m, const ConvShape& s) {
  if (s.batch < 1 || s.rows < 1 || s.cols < 1 || s.channels < 1 || s.kernel < 1 || s.pad < 0 ||
      s.out_rows() < 1 || s.out_cols() < 1) {
    throw std::invalid_argument("bad convolution shape");
  }
  if (m.data.size() != size_t(s.batch) * s.rows * s.cols * s.channels) {
    throw std::invalid_argument("image batch does not match the convolution shape");
  }
}

}  // namespace

Fp32Matrix Im2col(const Fp32Matrix& images, const ConvShape& s) {
  CheckImages(images, s);
  const int oh = s.out_rows(), ow = s.out_cols(), c = s.channels;
  Fp32Matrix patches(s.batch * oh * ow, s.patch());
  float* out = patches.data.data();
  for (int b = 0; b < s.batch; ++b) {
    const float* image = &images.data[size_t(b) * s.rows * s.cols * c];
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        for (int ky = 0; ky < s.kernel; ++ky) {
          const int y = oy + ky - s.pad;
          for (int kx = 0; kx < s.kernel; ++kx, out += c) {
            const int x = ox + kx - s.pad;
            if (y < 0 || y >= s.rows || x < 0 || x >= s.cols) continue;  // zeros already
            const float* pixel = image + (size_t(y) * s.cols + x) * c;
            for (int ch = 0; ch < c; ++ch) out[ch] = pixel[ch];
          }
        }
      }
    }
  }
  return patches;
}

Fp32Matrix Col2im(const Fp32Matrix& patches, const ConvShape& s) {
  Fp32Matrix images(s.batch * s.rows * s.cols, s.channels);
  CheckImages(images, s);
  const int oh = s.out_rows(), ow = s.out_cols(), c = s.channels;
  if (patches.rows != s.batch * oh * ow || patches.cols != s.patch()) {
    throw std::invalid_argument("patches do not match the convolution shape");
  }
  const float* in = patches.data.data();
  for (int b = 0; b < s.batch; ++b) {
    float* image = &images.data[size_t(b) * s.rows * s.cols * c];
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        for (int ky = 0; ky < s.kernel; ++ky) {
          const int y = oy + ky - s.pad;
          for (int kx = 0; kx < s.kernel; ++kx, in += c) {
            const int x = ox + kx - s.pad;
            if (y < 0 || y >= s.rows || x < 0 || x >= s.cols) continue;
            float* pixel = image + (size_t(y) * s.cols + x) * c;
            for (int ch = 0; ch < c; ++ch) pixel[ch] += in[ch];
          }
        }
      }
    }
  }
  return images;
}

Fp32Matrix MaxPool2(const Fp32Matrix& images, int batch, int rows, int cols, int channels,
                    std::vector<int>* argmax) {
  if (images.data.size() != size_t(batch) * rows * cols * channels || rows < 2 || cols < 2) {
    throw std::invalid_argument("max pooling: bad image batch");
  }
  const int ph = rows / 2, pw = cols / 2;
  Fp32Matrix pooled(batch * ph * pw, channels);
  if (argmax) argmax->assign(pooled.data.size(), 0);
  size_t o = 0;
  for (int b = 0; b < batch; ++b) {
    for (int py = 0; py < ph; ++py) {
      for (int px = 0; px < pw; ++px) {
        const size_t corner = ((size_t(b) * rows + 2 * py) * cols + 2 * px) * channels;
        const size_t offsets[4] = {0, size_t(channels), size_t(cols) * channels,
                                   size_t(cols + 1) * channels};
        for (int ch = 0; ch < channels; ++ch, ++o) {
          size_t best = corner + ch;
          for (int w = 1; w < 4; ++w) {
            const size_t at = corner + offsets[w] + ch;
            if (images.data[at] > images.data[best]) best = at;
          }
          pooled.data[o] = images.data[best];
          if (argmax) (*argmax)[o] = static_cast<int>(best);
        }
      }
    }
  }
  return pooled;
}

Fp32Matrix MaxPool2Backward(const Fp32Matrix& d_pooled, const std::vector<int>& argmax,
                            int input_rows, int input_cols) {
  if (argmax.size() != d_pooled.data.size()) {
    throw std::invalid_argument("max pooling backward: one index per gradient expected");
  }
  Fp32Matrix d_input(input_rows, input_cols);
  for (size_t i = 0; i < argmax.size(); ++i) d_input.data[argmax[i]] += d_pooled.data[i];
  return d_input;
}

}  // namespace mxu::train
