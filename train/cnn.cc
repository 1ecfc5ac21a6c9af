#include "train/cnn.h"

#include <cmath>
#include <stdexcept>

#include "train/data/rng.h"

namespace mxu::train {
namespace {

// The conv layers' shapes (batch 0) and the flattened width the dense head takes.
std::vector<ConvShape> ConvShapes(const CnnConfig& config, int* flat) {
  std::vector<ConvShape> shapes;
  int rows = config.image_rows, cols = config.image_cols, channels = 1;
  for (int out : config.channels) {
    if (out < 1) throw std::invalid_argument("CNN channel counts must be positive");
    if (rows < 2 || cols < 2) {
      throw std::invalid_argument("the image is too small for " +
                                  std::to_string(config.channels.size()) + " pooling layers");
    }
    ConvShape s;
    s.rows = rows;
    s.cols = cols;
    s.channels = channels;
    shapes.push_back(s);
    rows /= 2;
    cols /= 2;
    channels = out;
  }
  *flat = rows * cols * channels;
  return shapes;
}

std::vector<int> HeadWidths(const CnnConfig& config) {
  int flat = 0;
  ConvShapes(config, &flat);
  std::vector<int> widths = {flat};
  widths.insert(widths.end(), config.hidden.begin(), config.hidden.end());
  widths.push_back(config.classes);
  return widths;
}

// The head draws from its own stream, so the conv layers do not shift its weights.
constexpr uint64_t kHeadStream = 0xC2B2AE3D27D4EB4Full;

}  // namespace

Cnn::Cnn(const CnnConfig& config, uint64_t seed) : head_(HeadWidths(config), seed ^ kHeadStream) {
  int flat = 0;
  const std::vector<ConvShape> shapes = ConvShapes(config, &flat);
  Rng rng(seed);
  for (size_t l = 0; l < shapes.size(); ++l) {
    ConvLayer layer{shapes[l], Fp32Matrix(shapes[l].patch(), config.channels[l]),
                    std::vector<float>(static_cast<size_t>(config.channels[l]), 0.0f)};
    const double stddev = std::sqrt(2.0 / shapes[l].patch());
    for (float& w : layer.w.data) w = static_cast<float>(rng.Normal() * stddev);
    convs_.push_back(std::move(layer));
  }
}

Fp32Matrix Cnn::Forward(MatmulEngine& engine, const Fp32Matrix& x, bool for_backward) {
  const ConvShape& first = convs_[0].shape;
  if (x.cols != first.rows * first.cols) {
    throw std::invalid_argument("CNN input has " + std::to_string(x.cols) + " features, expected " +
                                std::to_string(first.rows) + "x" + std::to_string(first.cols));
  }
  batch_ = x.rows;
  saved_.assign(convs_.size(), Saved());
  const Fp32Matrix* input = &x;
  Fp32Matrix pooled;
  for (size_t l = 0; l < convs_.size(); ++l) {
    ConvLayer& layer = convs_[l];
    layer.shape.batch = batch_;
    Fp32Matrix patches = Im2col(*input, layer.shape);
    MatmulOp op;
    op.a = &patches;
    op.b = &layer.w;
    op.bias = &layer.b;
    op.relu = true;
    op.label = "conv " + std::to_string(l + 1) + " forward";
    Fp32Matrix activations = engine.Run(op);
    Saved& saved = saved_[l];
    pooled = MaxPool2(activations, batch_, layer.shape.rows, layer.shape.cols, layer.w.cols,
                      for_backward ? &saved.argmax : nullptr);
    if (for_backward) {
      saved.patches = std::move(patches);
      saved.activations = std::move(activations);
    }
    input = &pooled;
  }
  // NHWC rows of one sample are its flattened features.
  pooled.cols = static_cast<int>(pooled.data.size() / batch_);
  pooled.rows = batch_;
  ForwardPass pass = head_.Forward(engine, pooled, for_backward ? dropout_ : Dropout());
  pass_dropout_ = for_backward ? dropout_.rate : 0.0f;
  Fp32Matrix logits = std::move(pass.logits);
  head_pass_ = for_backward ? std::move(pass) : ForwardPass();
  if (!for_backward) saved_.clear();
  return logits;
}

Gradients Cnn::Backward(MatmulEngine& engine, const Fp32Matrix& d_logits, const Gradients* sum) {
  if (saved_.size() != convs_.size()) throw std::logic_error("Cnn::Backward without a forward");
  Fp32Matrix d_pooled;
  // The head's layers follow the conv layers' in the gradients' layout.
  Gradients head_sum;
  if (sum) {
    head_sum.w.assign(sum->w.begin() + static_cast<std::ptrdiff_t>(convs_.size()), sum->w.end());
    head_sum.b.assign(sum->b.begin() + static_cast<std::ptrdiff_t>(convs_.size()), sum->b.end());
  }
  const Gradients head = head_.Backward(engine, head_pass_, d_logits, &d_pooled,
                                        sum ? &head_sum : nullptr, pass_dropout_);
  Gradients grads;
  grads.w.resize(convs_.size());
  grads.b.resize(convs_.size());
  for (size_t l = convs_.size(); l-- > 0;) {
    const ConvLayer& layer = convs_[l];
    const Saved& saved = saved_[l];
    // Through the pooling (to each window's maximum), then the ReLU (1 where Y > 0).
    Fp32Matrix d_y =
        MaxPool2Backward(d_pooled, saved.argmax, saved.activations.rows, saved.activations.cols);
    for (size_t i = 0; i < d_y.data.size(); ++i) {
      if (!(saved.activations.data[i] > 0.0f)) d_y.data[i] = 0.0f;
    }
    std::vector<MatmulOp> ops(l == 0 ? 1 : 2);
    ops[0].a = &saved.patches;
    ops[0].trans_a = true;
    ops[0].b = &d_y;
    if (sum) ops[0].c0 = &sum->w[l];
    ops[0].label = "conv " + std::to_string(l + 1) + " dW";
    if (l > 0) {
      ops[1].a = &d_y;
      ops[1].b = &layer.w;
      ops[1].trans_b = true;
      ops[1].label = "conv " + std::to_string(l + 1) + " dX";
    }
    std::vector<Fp32Matrix> outputs = engine.RunProgram(ops);
    grads.w[l] = std::move(outputs[0]);
    grads.b[l] = BiasGradient(d_y, sum ? &sum->b[l] : nullptr);
    if (l > 0) d_pooled = Col2im(outputs[1], layer.shape);
  }
  grads.w.insert(grads.w.end(), head.w.begin(), head.w.end());
  grads.b.insert(grads.b.end(), head.b.begin(), head.b.end());
  return grads;
}

std::vector<std::vector<float>*> Cnn::Parameters() {
  std::vector<std::vector<float>*> params;
  for (ConvLayer& layer : convs_) {
    params.push_back(&layer.w.data);
    params.push_back(&layer.b);
  }
  for (std::vector<float>* p : head_.Parameters()) params.push_back(p);
  return params;
}

size_t Cnn::parameter_count() const {
  size_t count = head_.parameter_count();
  for (const ConvLayer& layer : convs_) count += layer.w.data.size() + layer.b.size();
  return count;
}

std::string Cnn::Describe() const {
  std::string text =
      "CNN " + std::to_string(convs_[0].shape.rows) + "x" + std::to_string(convs_[0].shape.cols);
  for (const ConvLayer& layer : convs_) {
    text += " conv3x3-" + std::to_string(layer.w.cols) + " pool2";
  }
  const std::string head = head_.Describe();  // "MLP 1568-128-10"
  return text + " dense " + head.substr(head.find(' ') + 1);
}

}  // namespace mxu::train
