// Softmax cross-entropy on the host, in fp32 with a max-shifted log-sum-exp.
#ifndef MXU_TRAIN_SOFTMAX_LOSS_H_
#define MXU_TRAIN_SOFTMAX_LOSS_H_

#include <vector>

#include "driver/matrix.h"

namespace mxu::train {

struct LossResult {
  double loss_sum = 0;  // summed over the rows (not averaged); NaN if a logit was not finite
  int correct = 0;      // rows whose largest logit is the label
};

// labels[r] is the class of row r. When d_logits is given it receives
// d(mean loss)/d(logits) * loss_scale: (softmax - one_hot) * (loss_scale / mean_over), the mean
// taken over mean_over samples (0: these rows; a shard or micro-batch of a larger step passes the
// step's count, so that its rows get the bits they would in one batch).
LossResult SoftmaxCrossEntropy(const driver::Fp32Matrix& logits, const std::vector<int>& labels,
                               float loss_scale, driver::Fp32Matrix* d_logits, float mean_over = 0);

}  // namespace mxu::train

#endif  // MXU_TRAIN_SOFTMAX_LOSS_H_
