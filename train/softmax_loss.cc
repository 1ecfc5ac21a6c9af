#include "train/softmax_loss.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace mxu::train {

LossResult SoftmaxCrossEntropy(const driver::Fp32Matrix& logits, const std::vector<int>& labels,
                               float loss_scale, driver::Fp32Matrix* d_logits, float mean_over) {
  if (static_cast<int>(labels.size()) != logits.rows) {
    throw std::invalid_argument("one label per row of logits expected");
  }
  LossResult result;
  if (d_logits) *d_logits = driver::Fp32Matrix(logits.rows, logits.cols);
  const float grad_scale =
      loss_scale / (mean_over > 0 ? mean_over : static_cast<float>(logits.rows));
  for (int r = 0; r < logits.rows; ++r) {
    const int label = labels[r];
    if (label < 0 || label >= logits.cols) throw std::invalid_argument("label out of range");
    float max = -std::numeric_limits<float>::infinity();
    int argmax = 0;
    for (int c = 0; c < logits.cols; ++c) {
      if (logits.at(r, c) > max) {
        max = logits.at(r, c);
        argmax = c;
      }
    }
    float sum = 0;
    for (int c = 0; c < logits.cols; ++c) sum += std::exp(logits.at(r, c) - max);
    result.loss_sum += static_cast<double>(std::log(sum) - (logits.at(r, label) - max));
    result.correct += argmax == label;
    if (d_logits) {
      for (int c = 0; c < logits.cols; ++c) {
        const float p = std::exp(logits.at(r, c) - max) / sum;
        d_logits->at(r, c) = (p - (c == label ? 1.0f : 0.0f)) * grad_scale;
      }
    }
  }
  return result;
}

}  // namespace mxu::train
