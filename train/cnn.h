// A convolutional classifier whose convolutions are GEMMs on the engine (im2col lowering, as XLA
// does it for the TPU): per conv layer, conv 3x3 (pad 1) + bias + ReLU on the device, then 2x2
// max pooling on the host; then a dense head (an Mlp: hidden layers with ReLU, then the logits).
//
// Per conv layer and step, with P = Im2col(X) [B*H*W, 9*C] and W [9*C, F]:
//   forward  Y = ReLU(P W + b)           device (bias start, ReLU on the store path)
//   backward dW = P^T dY                  device (P transposed by the cast)
//            dP = dY W^T                  device (not for the first layer), then Col2im on the host
//            db = column sums of dY, pooling and ReLU gradients: host
#ifndef MXU_TRAIN_CNN_H_
#define MXU_TRAIN_CNN_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "train/conv.h"
#include "train/mlp.h"
#include "train/model.h"

namespace mxu::train {

struct CnnConfig {
  int image_rows = 28, image_cols = 28;  // one input channel
  std::vector<int> channels = {16, 32};  // per conv layer (each halves the image)
  std::vector<int> hidden = {128};       // dense layers before the logits
  int classes = 10;
};

struct ConvLayer {
  ConvShape shape;       // batch 0: set per forward pass
  Fp32Matrix w;          // patch (9 * in channels) x out channels
  std::vector<float> b;  // out channels
};

class Cnn : public Model {
 public:
  // He-normal weights (fan-in: the patch length), zero biases. Throws std::invalid_argument for
  // an image too small for its pooling layers or a non-positive width.
  Cnn(const CnnConfig& config, uint64_t seed);

  Fp32Matrix Forward(MatmulEngine& engine, const Fp32Matrix& x, bool for_backward) override;
  // Dropout (SetDropout) applies to the dense head's hidden layers; the conv layers do not drop.
  Gradients Backward(MatmulEngine& engine, const Fp32Matrix& d_logits,
                     const Gradients* sum = nullptr) override;
  std::vector<std::vector<float>*> Parameters() override;
  size_t parameter_count() const override;
  std::string Describe() const override;

  const std::vector<ConvLayer>& convs() const { return convs_; }
  const Mlp& head() const { return head_; }

 private:
  // What a conv layer's backward pass needs from its forward pass.
  struct Saved {
    Fp32Matrix patches;       // Im2col of the input
    Fp32Matrix activations;   // ReLU(P W + b), [B*H*W, F]
    std::vector<int> argmax;  // of the pooling
  };
  std::vector<ConvLayer> convs_;
  Mlp head_;
  int batch_ = 0;
  std::vector<Saved> saved_;
  ForwardPass head_pass_;
};

}  // namespace mxu::train

#endif  // MXU_TRAIN_CNN_H_
