#include "train/evaluate.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "train/softmax_loss.h"

namespace mxu::train {

EvaluationSums EvaluateSamples(Model& model, MatmulEngine& engine, const Dataset& data,
                               size_t begin, size_t end, int batch) {
  return EvaluateSamples(
      [&](const Fp32Matrix& x) { return model.Forward(engine, x, /*for_backward=*/false); }, data,
      begin, end, batch);
}

EvaluationSums EvaluateSamples(const LogitsOf& logits_of, const Dataset& data, size_t begin,
                               size_t end, int batch) {
  if (batch < 1 || begin > end || end > static_cast<size_t>(data.size())) {
    throw std::invalid_argument("EvaluateSamples: bad range or batch");
  }
  EvaluationSums sums;
  sums.confusion.assign(static_cast<size_t>(data.classes),
                        std::vector<int>(static_cast<size_t>(data.classes), 0));
  std::vector<int> labels;
  // In batches: the products stay within the device's limits and the host's memory (a CNN's
  // patches), and are still large enough to keep the array busy.
  for (size_t first = begin; first < end; first += static_cast<size_t>(batch)) {
    const size_t last = std::min(end, first + static_cast<size_t>(batch));
    Fp32Matrix x(static_cast<int>(last - first), data.features);
    std::copy(data.x.begin() + static_cast<std::ptrdiff_t>(first * data.features),
              data.x.begin() + static_cast<std::ptrdiff_t>(last * data.features), x.data.begin());
    labels.assign(data.labels.begin() + static_cast<std::ptrdiff_t>(first),
                  data.labels.begin() + static_cast<std::ptrdiff_t>(last));
    const Fp32Matrix logits = logits_of(x);
    const LossResult loss = SoftmaxCrossEntropy(logits, labels, 1.0f, nullptr);
    sums.loss_sum += loss.loss_sum;
    sums.correct += loss.correct;
    for (int r = 0; r < logits.rows; ++r) {
      // The first largest logit, as SoftmaxCrossEntropy counts a correct row.
      const float* row = &logits.data[static_cast<size_t>(r) * logits.cols];
      float max = -std::numeric_limits<float>::infinity();
      int predicted = 0;
      for (int c = 0; c < logits.cols; ++c) {
        if (row[c] > max) {
          max = row[c];
          predicted = c;
        }
      }
      ++sums.confusion[labels[r]][predicted];
      sums.predictions.push_back(predicted);
    }
  }
  return sums;
}

}  // namespace mxu::train
