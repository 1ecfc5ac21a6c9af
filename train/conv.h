// The host side of convolutions lowered to GEMMs (as XLA lowers them for the TPU): im2col turns
// a convolution into one product, col2im takes the input gradient back to image layout, and 2x2
// max pooling with its backward pass.
//
// Images are NHWC, one sample after another: element (b, y, x, c) of a batch of B images of
// H x W x C is at ((b * H + y) * W + x) * C + c, so a batch is a matrix of B * H * W rows by C
// columns (or B rows by H * W * C). A convolution's GEMM output [B * H * W, F] is NHWC again.
#ifndef MXU_TRAIN_CONV_H_
#define MXU_TRAIN_CONV_H_

#include <vector>

#include "driver/matrix.h"

namespace mxu::train {

using driver::Fp32Matrix;

// A batch of images and the convolution's window: a square kernel of kernel x kernel, stride 1,
// zero padding `pad` on every side (kernel 3, pad 1 keeps H x W).
struct ConvShape {
  int batch = 0, rows = 0, cols = 0, channels = 0;
  int kernel = 3, pad = 1;
  int out_rows() const { return rows + 2 * pad - kernel + 1; }
  int out_cols() const { return cols + 2 * pad - kernel + 1; }
  // The patch length: kernel * kernel * channels, in (ky, kx, c) order.
  int patch() const { return kernel * kernel * channels; }
};

// The patches of every output pixel: [B * out_rows * out_cols, patch()], row (b, oy, ox) holding
// input (b, oy + ky - pad, ox + kx - pad, c) at column (ky * kernel + kx) * C + c (0 outside the
// image). images holds B * rows * cols * channels values. Convolution with weights W
// [patch(), F] is then Im2col(X) x W.
Fp32Matrix Im2col(const Fp32Matrix& images, const ConvShape& shape);

// The adjoint of Im2col: every patch value is added back to the input pixel it came from (the
// input gradient from the patches' gradient dY x W^T). Returns [B * rows * cols, channels].
Fp32Matrix Col2im(const Fp32Matrix& patches, const ConvShape& shape);

// 2x2 max pooling, stride 2, of NHWC images (B * rows * cols values of `channels` each); an odd
// last row or column is dropped. Returns [B * (rows / 2) * (cols / 2), channels]; argmax (if not
// null) receives, per output value, the index in images.data of the maximum (the first of equals,
// scanning the window row by row).
Fp32Matrix MaxPool2(const Fp32Matrix& images, int batch, int rows, int cols, int channels,
                    std::vector<int>* argmax);

// The gradient of MaxPool2: each output gradient goes to its window's maximum, the rest of the
// input gradient is zero. Returns a matrix shaped input_rows x input_cols (of the pooled input).
Fp32Matrix MaxPool2Backward(const Fp32Matrix& d_pooled, const std::vector<int>& argmax,
                            int input_rows, int input_cols);

}  // namespace mxu::train

#endif  // MXU_TRAIN_CONV_H_
