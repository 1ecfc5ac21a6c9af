// The multi-layer perceptron being trained: fp32 master weights on the host, every product
// (forward X W, backward dY W^T and X^T dY) handed to a MatmulEngine. Hidden layers use ReLU; the
// last layer gives the logits.
#ifndef MXU_HOST_TRAIN_MLP_H_
#define MXU_HOST_TRAIN_MLP_H_

#include <cstdint>
#include <vector>

#include "host/train/matmul_engine.h"

namespace mxu::train {

struct DenseLayer {
  Fp32Matrix w;          // inputs x outputs
  std::vector<float> b;  // outputs
};

// Gradients with the layout of the layers.
struct Gradients {
  std::vector<Fp32Matrix> w;
  std::vector<std::vector<float>> b;
  // W0, b0, W1, b1, ...: the order of Mlp::Parameters().
  std::vector<std::vector<float>*> Tensors();
  bool AllFinite() const;
  void Scale(float factor);
};

// The inputs of every layer, kept for the backward pass, and the logits.
struct ForwardPass {
  std::vector<Fp32Matrix> inputs;
  Fp32Matrix logits;
};

class Mlp {
 public:
  // widths: input features, hidden widths..., classes. He-normal weights, zero biases.
  Mlp(const std::vector<int>& widths, uint64_t seed);

  ForwardPass Forward(MatmulEngine& engine, const Fp32Matrix& x) const;
  // d_logits: dLoss/dlogits (already multiplied by the loss scale). Bias gradients are column
  // sums on the host; the input layer's dX is never formed.
  Gradients Backward(MatmulEngine& engine, const ForwardPass& pass,
                     const Fp32Matrix& d_logits) const;

  // Zeros in the layout of the layers (a rank with no samples in a step contributes these).
  Gradients ZeroGradients() const;

  std::vector<std::vector<float>*> Parameters();
  const std::vector<DenseLayer>& layers() const { return layers_; }
  size_t parameter_count() const;

 private:
  std::vector<DenseLayer> layers_;
};

}  // namespace mxu::train

#endif  // MXU_HOST_TRAIN_MLP_H_
