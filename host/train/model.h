// What the training loop trains: a classifier whose every product runs on a MatmulEngine, with
// fp32 master parameters on the host. The MLP (mlp.h) and the CNN (cnn.h) are models.
#ifndef MXU_HOST_TRAIN_MODEL_H_
#define MXU_HOST_TRAIN_MODEL_H_

#include <cstddef>
#include <string>
#include <vector>

#include "host/train/matmul_engine.h"

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

class Model {
 public:
  virtual ~Model() = default;
  // The logits of the rows of x (one sample a row). With for_backward, keeps what Backward
  // needs; without (evaluation), keeps nothing.
  virtual Fp32Matrix Forward(MatmulEngine& engine, const Fp32Matrix& x, bool for_backward) = 0;
  // The parameters' gradients from d_logits, dLoss/dlogits of the last Forward(for_backward).
  virtual Gradients Backward(MatmulEngine& engine, const Fp32Matrix& d_logits) = 0;
  // W0, b0, W1, b1, ...
  virtual std::vector<std::vector<float>*> Parameters() = 0;
  virtual size_t parameter_count() const = 0;
  // E.g. "MLP 784-128-10".
  virtual std::string Describe() const = 0;
};

}  // namespace mxu::train

#endif  // MXU_HOST_TRAIN_MODEL_H_
