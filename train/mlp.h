// The multi-layer perceptron being trained: fp32 master weights on the host, every product
// (forward X W, backward dY W^T and X^T dY) handed to a MatmulEngine. Hidden layers use ReLU; the
// last layer gives the logits.
#ifndef MXU_TRAIN_MLP_H_
#define MXU_TRAIN_MLP_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "train/matmul_engine.h"
#include "train/model.h"

namespace mxu::train {

struct DenseLayer {
  Fp32Matrix w;          // inputs x outputs
  std::vector<float> b;  // outputs
};

// The inputs of every layer, kept for the backward pass, and the logits.
struct ForwardPass {
  std::vector<Fp32Matrix> inputs;
  Fp32Matrix logits;
};

class Mlp : public Model {
 public:
  // widths: input features, hidden widths..., classes. He-normal weights, zero biases.
  Mlp(const std::vector<int>& widths, uint64_t seed);

  // The forward pass as one device program, the layers chained on chip; with dropout, a program
  // per layer (the masks are applied on the host between them).
  ForwardPass Forward(MatmulEngine& engine, const Fp32Matrix& x,
                      const Dropout& dropout = Dropout()) const;
  // d_logits: dLoss/dlogits (already multiplied by the loss scale). Bias gradients are column
  // sums on the host. The input layer's dX is formed only for d_input (a CNN's dense head).
  // `sum`: as Model::Backward; dropout: the rate of the pass (its kept activations are scaled).
  Gradients Backward(MatmulEngine& engine, const ForwardPass& pass, const Fp32Matrix& d_logits,
                     Fp32Matrix* d_input = nullptr, const Gradients* sum = nullptr,
                     float dropout = 0) const;

  // Model.
  Fp32Matrix Forward(MatmulEngine& engine, const Fp32Matrix& x, bool for_backward) override;
  Gradients Backward(MatmulEngine& engine, const Fp32Matrix& d_logits,
                     const Gradients* sum = nullptr) override;
  std::vector<std::vector<float>*> Parameters() override;
  size_t parameter_count() const override;
  std::string Describe() const override;

  const std::vector<DenseLayer>& layers() const { return layers_; }

 private:
  std::vector<DenseLayer> layers_;
  ForwardPass last_pass_;
};

// Zeroes each element of row r of m with probability rate (row_seeds[r]'s stream) and scales the
// others by 1 / (1 - rate). Throws std::invalid_argument when the seeds do not match m's rows.
void ApplyDropout(Fp32Matrix& m, const Dropout& dropout, int layer);

}  // namespace mxu::train

#endif  // MXU_TRAIN_MLP_H_
