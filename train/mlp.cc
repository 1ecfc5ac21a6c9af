#include "train/mlp.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "train/data/rng.h"

namespace mxu::train {

Mlp::Mlp(const std::vector<int>& widths, uint64_t seed) {
  if (widths.size() < 2) throw std::invalid_argument("an MLP needs at least inputs and outputs");
  for (int width : widths) {
    if (width <= 0) throw std::invalid_argument("layer widths must be positive");
  }
  Rng rng(seed);
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    DenseLayer layer{Fp32Matrix(widths[l], widths[l + 1]),
                     std::vector<float>(static_cast<size_t>(widths[l + 1]), 0.0f)};
    // He initialisation keeps the ReLU activations' variance steady through the layers.
    const double stddev = std::sqrt(2.0 / widths[l]);
    for (float& w : layer.w.data) w = static_cast<float>(rng.Normal() * stddev);
    layers_.push_back(std::move(layer));
  }
}

void ApplyDropout(Fp32Matrix& m, const Dropout& dropout, int layer) {
  if (!(dropout.rate > 0.0f)) return;
  if (!(dropout.rate < 1.0f)) throw std::invalid_argument("the dropout rate must be below 1");
  if (dropout.row_seeds.size() != static_cast<size_t>(m.rows)) {
    throw std::invalid_argument("dropout needs one seed per row");
  }
  const float keep_scale = 1.0f / (1.0f - dropout.rate);
  for (int r = 0; r < m.rows; ++r) {
    Rng rng(MixSeed(dropout.row_seeds[r], static_cast<uint64_t>(layer)));
    float* row = &m.data[static_cast<size_t>(r) * m.cols];
    for (int c = 0; c < m.cols; ++c) {
      row[c] = rng.Uniform() < dropout.rate ? 0.0f : row[c] * keep_scale;
    }
  }
}

ForwardPass Mlp::Forward(MatmulEngine& engine, const Fp32Matrix& x, const Dropout& dropout) const {
  // One program: each layer's activations feed the next on the device.
  std::vector<MatmulOp> ops(layers_.size());
  for (size_t l = 0; l < layers_.size(); ++l) {
    MatmulOp& op = ops[l];
    if (l == 0) {
      op.a = &x;
    } else {
      op.chain_from = static_cast<int>(l) - 1;
    }
    op.b = &layers_[l].w;
    op.bias = &layers_[l].b;
    op.relu = l + 1 < layers_.size();
    op.label = "layer " + std::to_string(l + 1) + " forward";
  }
  ForwardPass pass;
  pass.inputs.push_back(x);
  if (dropout.rate > 0.0f) {
    // The masks are drawn on the host: a program per layer, each taking the dropped activations.
    for (size_t l = 0; l < ops.size(); ++l) {
      MatmulOp op = ops[l];
      op.chain_from = -1;
      op.a = &pass.inputs.back();
      Fp32Matrix y = engine.Run(op);
      if (l + 1 == ops.size()) {
        pass.logits = std::move(y);
      } else {
        ApplyDropout(y, dropout, static_cast<int>(l));
        pass.inputs.push_back(std::move(y));
      }
    }
    return pass;
  }
  std::vector<Fp32Matrix> outputs = engine.RunProgram(ops);
  for (size_t l = 0; l + 1 < outputs.size(); ++l) pass.inputs.push_back(std::move(outputs[l]));
  pass.logits = std::move(outputs.back());
  return pass;
}

Gradients Mlp::Backward(MatmulEngine& engine, const ForwardPass& pass, const Fp32Matrix& d_logits,
                        Fp32Matrix* d_input, const Gradients* sum, float dropout) const {
  const size_t n = layers_.size();
  Gradients grads;
  grads.w.resize(n);
  grads.b.resize(n);
  Fp32Matrix d_out = d_logits;  // dLoss/d(pre-activation) of layer l
  for (size_t l = n; l-- > 0;) {
    // dW = X^T dY (the device transposes X as it loads it) and dX = dY W^T: one program.
    const bool want_dx = l > 0 || d_input;
    std::vector<MatmulOp> ops(want_dx ? 2 : 1);
    MatmulOp& dw = ops[0];
    dw.a = &pass.inputs[l];
    dw.trans_a = true;
    dw.b = &d_out;
    if (sum) dw.c0 = &sum->w[l];
    dw.label = "layer " + std::to_string(l + 1) + " dW";
    if (want_dx) {
      MatmulOp& dx = ops[1];
      dx.a = &d_out;
      dx.b = &layers_[l].w;
      dx.trans_b = true;
      dx.label = "layer " + std::to_string(l + 1) + " dX";
    }
    std::vector<Fp32Matrix> outputs = engine.RunProgram(ops);
    grads.w[l] = std::move(outputs[0]);
    grads.b[l] = BiasGradient(d_out, sum ? &sum->b[l] : nullptr);
    if (l == 0) {
      if (d_input) *d_input = std::move(outputs[1]);
      break;
    }
    // dX through the dropout and the ReLU that produced X.
    Fp32Matrix d_in = std::move(outputs[1]);
    ThroughDropoutAndRelu(d_in, pass.inputs[l], dropout);
    d_out = std::move(d_in);
  }
  return grads;
}

std::vector<std::vector<float>*> Mlp::Parameters() {
  std::vector<std::vector<float>*> params;
  for (DenseLayer& layer : layers_) {
    params.push_back(&layer.w.data);
    params.push_back(&layer.b);
  }
  return params;
}

std::string Mlp::Describe() const {
  std::string text = "MLP " + std::to_string(layers_[0].w.rows);
  for (const DenseLayer& layer : layers_) text += "-" + std::to_string(layer.w.cols);
  return text;
}

Fp32Matrix Mlp::Forward(MatmulEngine& engine, const Fp32Matrix& x, bool for_backward) {
  ForwardPass pass = Forward(engine, x, for_backward ? dropout_ : Dropout());
  pass_dropout_ = for_backward ? dropout_.rate : 0.0f;
  Fp32Matrix logits = std::move(pass.logits);
  if (for_backward) {
    last_pass_ = std::move(pass);
  } else {
    last_pass_ = ForwardPass();
  }
  return logits;
}

Gradients Mlp::Backward(MatmulEngine& engine, const Fp32Matrix& d_logits, const Gradients* sum) {
  return Backward(engine, last_pass_, d_logits, nullptr, sum, pass_dropout_);
}

size_t Mlp::parameter_count() const {
  size_t count = 0;
  for (const DenseLayer& layer : layers_) count += layer.w.data.size() + layer.b.size();
  return count;
}

}  // namespace mxu::train
