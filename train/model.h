// What the training loop trains: a classifier whose every product runs on a MatmulEngine, with
// fp32 master parameters on the host. The MLP (mlp.h) and the CNN (cnn.h) are models.
#ifndef MXU_TRAIN_MODEL_H_
#define MXU_TRAIN_MODEL_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "train/matmul_engine.h"

namespace mxu::train {

// Gradients with the layout of a model's layers: per layer a weight matrix and a bias.
struct Gradients {
  std::vector<Fp32Matrix> w;
  std::vector<std::vector<float>> b;
  // W0, b0, W1, b1, ...: the order of the model's Parameters().
  std::vector<std::vector<float>*> Tensors();
  bool AllFinite() const;
  void Scale(float factor);
};

// Inverted dropout after every hidden ReLU: an activation is zeroed with probability `rate` and
// the kept ones multiplied by 1 / (1 - rate), in training passes only. Row r's mask comes from its
// own stream, row_seeds[r] (the trainer keys it by the sample, not the batch), so the masks do not
// depend on how a step's samples are split into shards or micro-batches.
struct Dropout {
  float rate = 0;  // 0: no dropout
  std::vector<uint64_t> row_seeds;
};

// A bias's gradient: the column sums of d (rows in order), added to `start` (the sum of earlier
// micro-batches) or to zeros.
std::vector<float> BiasGradient(const Fp32Matrix& d, const std::vector<float>* start);
// dL/dX from dL/d(dropped activations) where X = Dropout(ReLU(Z)): X > 0 where the ReLU passed and
// the mask kept, the gradient there being the dropout's scale (1 without dropout), 0 elsewhere.
void ThroughDropoutAndRelu(Fp32Matrix& d, const Fp32Matrix& x, float dropout_rate);

class Model {
 public:
  virtual ~Model() = default;
  // The logits of the rows of x (one sample a row). With for_backward, keeps what Backward
  // needs; without (evaluation), keeps nothing.
  virtual Fp32Matrix Forward(MatmulEngine& engine, const Fp32Matrix& x, bool for_backward) = 0;
  // The parameters' gradients from d_logits, dLoss/dlogits of the last Forward(for_backward).
  // With `sum` (gradients of earlier micro-batches, this layout), sum + these gradients: the
  // weight gradients accumulate on the engine (C += A x B), the biases' in row order, so that
  // micro-batches give the sums of one large batch.
  virtual Gradients Backward(MatmulEngine& engine, const Fp32Matrix& d_logits,
                             const Gradients* sum = nullptr) = 0;
  // The dropout of the next Forward(for_backward = true); evaluation passes never drop.
  void SetDropout(Dropout dropout) { dropout_ = std::move(dropout); }
  // W0, b0, W1, b1, ...
  virtual std::vector<std::vector<float>*> Parameters() = 0;
  virtual size_t parameter_count() const = 0;
  // E.g. "MLP 784-128-10".
  virtual std::string Describe() const = 0;

 protected:
  Dropout dropout_;         // for the next training pass
  float pass_dropout_ = 0;  // the rate the pass Backward will use was made with
};

}  // namespace mxu::train

#endif  // MXU_TRAIN_MODEL_H_
