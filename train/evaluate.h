// Inference over a data set: the model's logits in batches on the engine, then the loss, the
// accuracy, the confusion matrix and each sample's predicted class. The training loop's
// evaluation after every epoch and `mxu predict` both use it, so they give the same numbers.
#ifndef MXU_TRAIN_EVALUATE_H_
#define MXU_TRAIN_EVALUATE_H_

#include <cstddef>
#include <functional>
#include <vector>

#include "train/data/dataset.h"
#include "train/matmul_engine.h"
#include "train/model.h"

namespace mxu::train {

// Sums over the samples evaluated (not means: the ranks of a data-parallel run add theirs).
struct EvaluationSums {
  double loss_sum = 0;
  int correct = 0;
  // confusion[true class][predicted class]
  std::vector<std::vector<int>> confusion;
  // Per sample evaluated, in order: the first largest logit's class.
  std::vector<int> predictions;
};

// Samples [begin, end) of data through model (no dropout), `batch` rows a pass.
EvaluationSums EvaluateSamples(Model& model, MatmulEngine& engine, const Dataset& data,
                               size_t begin, size_t end, int batch);

// The same for any function from a batch of samples (rows) to their logits, e.g. a quantized
// model's inference in the int8 mode.
using LogitsOf = std::function<Fp32Matrix(const Fp32Matrix&)>;
EvaluationSums EvaluateSamples(const LogitsOf& logits_of, const Dataset& data, size_t begin,
                               size_t end, int batch);

}  // namespace mxu::train

#endif  // MXU_TRAIN_EVALUATE_H_
