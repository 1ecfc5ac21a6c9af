#include "train/tensor_parallel_mlp.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace mxu::train {
namespace {

// Columns [first, last) of m.
Fp32Matrix ColumnSlice(const Fp32Matrix& m, int first, int last) {
  Fp32Matrix slice(m.rows, last - first);
  for (int r = 0; r < m.rows; ++r) {
    for (int c = first; c < last; ++c) slice.at(r, c - first) = m.at(r, c);
  }
  return slice;
}

}  // namespace

std::pair<int, int> TensorParallelMlp::Columns(int width, int rank, int ranks) {
  const int64_t w = width;
  return {static_cast<int>(w * rank / ranks), static_cast<int>(w * (rank + 1) / ranks)};
}

TensorParallelMlp::TensorParallelMlp(const std::vector<int>& widths, uint64_t seed,
                                     Collective& ranks, const RingInterconnect& link)
    : widths_(widths), ranks_(ranks), link_(link) {
  for (size_t l = 1; l < widths.size(); ++l) {
    if (widths[l] < ranks.size()) {
      throw std::invalid_argument("model parallelism over " + std::to_string(ranks.size()) +
                                  " ranks needs every layer at least as wide; layer " +
                                  std::to_string(l) + " has " + std::to_string(widths[l]) +
                                  " outputs");
    }
  }
  const Mlp whole(widths, seed);  // the one-chip model's weights, then this rank's columns
  for (const DenseLayer& layer : whole.layers()) {
    const auto [first, last] = Columns(layer.w.cols, ranks.rank(), ranks.size());
    layers_.push_back({ColumnSlice(layer.w, first, last),
                       std::vector<float>(layer.b.begin() + first, layer.b.begin() + last)});
  }
}

Fp32Matrix TensorParallelMlp::GatherColumns(const Fp32Matrix& slice, int width) {
  const std::vector<float> all = ranks_.AllGather(slice.data);
  communication_cycles_ += link_.AllGatherCycles(
      static_cast<uint64_t>(slice.rows) * width * sizeof(float), ranks_.size());
  Fp32Matrix whole(slice.rows, width);
  size_t at = 0;  // rank r's block: rows x its columns, row-major
  for (int r = 0; r < ranks_.size(); ++r) {
    const auto [first, last] = Columns(width, r, ranks_.size());
    for (int row = 0; row < slice.rows; ++row) {
      for (int c = first; c < last; ++c) whole.at(row, c) = all.at(at++);
    }
  }
  return whole;
}

Fp32Matrix TensorParallelMlp::Forward(MatmulEngine& engine, const Fp32Matrix& x,
                                      bool for_backward) {
  const Dropout none;
  const Dropout& dropout = for_backward ? dropout_ : none;
  ForwardPass pass;
  pass.inputs.push_back(x);
  for (size_t l = 0; l < layers_.size(); ++l) {
    MatmulOp op;
    op.a = &pass.inputs.back();
    op.b = &layers_[l].w;
    op.bias = &layers_[l].b;
    op.relu = l + 1 < layers_.size();
    op.label = "layer " + std::to_string(l + 1) + " forward (slice)";
    Fp32Matrix y = GatherColumns(engine.Run(op), widths_[l + 1]);
    if (l + 1 == layers_.size()) {
      pass.logits = std::move(y);
    } else {
      ApplyDropout(y, dropout, static_cast<int>(l));
      pass.inputs.push_back(std::move(y));
    }
  }
  Fp32Matrix logits = pass.logits;
  pass_ = for_backward ? std::move(pass) : ForwardPass();
  pass_dropout_ = for_backward ? dropout.rate : 0.0f;
  return logits;
}

Gradients TensorParallelMlp::Backward(MatmulEngine& engine, const Fp32Matrix& d_logits,
                                      const Gradients* sum) {
  if (pass_.inputs.size() != layers_.size()) {
    throw std::logic_error("TensorParallelMlp::Backward without a forward");
  }
  const size_t n = layers_.size();
  Gradients grads;
  grads.w.resize(n);
  grads.b.resize(n);
  Fp32Matrix d_out = d_logits;  // the whole dLoss/d(pre-activation) of layer l, on every rank
  for (size_t l = n; l-- > 0;) {
    const auto [first, last] = Columns(widths_[l + 1], ranks_.rank(), ranks_.size());
    const Fp32Matrix d_mine = ColumnSlice(d_out, first, last);
    std::vector<MatmulOp> ops(l > 0 ? 2 : 1);
    ops[0].a = &pass_.inputs[l];
    ops[0].trans_a = true;
    ops[0].b = &d_mine;
    if (sum) ops[0].c0 = &sum->w[l];
    ops[0].label = "layer " + std::to_string(l + 1) + " dW (slice)";
    if (l > 0) {
      ops[1].a = &d_mine;
      ops[1].b = &layers_[l].w;
      ops[1].trans_b = true;
      ops[1].label = "layer " + std::to_string(l + 1) + " dX (partial)";
    }
    std::vector<Fp32Matrix> outputs = engine.RunProgram(ops);
    grads.w[l] = std::move(outputs[0]);
    grads.b[l] = BiasGradient(d_mine, sum ? &sum->b[l] : nullptr);
    if (l == 0) break;
    // dX = sum over the ranks of their partial products, in rank order.
    Fp32Matrix d_in = std::move(outputs[1]);
    ranks_.SumInRankOrder(d_in.data);
    communication_cycles_ += link_.AllReduceCycles(d_in.data.size() * sizeof(float), ranks_.size());
    ThroughDropoutAndRelu(d_in, pass_.inputs[l], pass_dropout_);
    d_out = std::move(d_in);
  }
  return grads;
}

std::vector<std::vector<float>> TensorParallelMlp::GatherWhole(
    const std::vector<std::vector<float>>& slices) {
  if (slices.size() != 2 * layers_.size()) throw std::invalid_argument("GatherWhole: 2 per layer");
  std::vector<std::vector<float>> whole;
  for (size_t l = 0; l < layers_.size(); ++l) {
    Fp32Matrix w(widths_[l], layers_[l].w.cols);
    w.data = slices[2 * l];
    // No cycles: a checkpoint is the host's business, not the chips' ring.
    const uint64_t cycles = communication_cycles_;
    whole.push_back(GatherColumns(w, widths_[l + 1]).data);
    whole.push_back(ranks_.AllGather(slices[2 * l + 1]));
    communication_cycles_ = cycles;
  }
  return whole;
}

std::vector<std::vector<float>> TensorParallelMlp::SliceOf(
    const std::vector<std::vector<float>>& whole) const {
  if (whole.size() != 2 * layers_.size()) {
    throw std::invalid_argument("expected " + std::to_string(2 * layers_.size()) +
                                " tensors, got " + std::to_string(whole.size()));
  }
  std::vector<std::vector<float>> slices;
  for (size_t l = 0; l < layers_.size(); ++l) {
    const int in = widths_[l], out = widths_[l + 1];
    if (whole[2 * l].size() != static_cast<size_t>(in) * out ||
        whole[2 * l + 1].size() != static_cast<size_t>(out)) {
      throw std::invalid_argument("layer " + std::to_string(l + 1) + "'s tensors are not " +
                                  std::to_string(in) + "x" + std::to_string(out) + " and " +
                                  std::to_string(out));
    }
    const auto [first, last] = Columns(out, ranks_.rank(), ranks_.size());
    Fp32Matrix w(in, out);
    w.data = whole[2 * l];
    slices.push_back(ColumnSlice(w, first, last).data);
    slices.emplace_back(whole[2 * l + 1].begin() + first, whole[2 * l + 1].begin() + last);
  }
  return slices;
}

std::vector<std::vector<float>*> TensorParallelMlp::Parameters() {
  std::vector<std::vector<float>*> params;
  for (DenseLayer& layer : layers_) {
    params.push_back(&layer.w.data);
    params.push_back(&layer.b);
  }
  return params;
}

size_t TensorParallelMlp::parameter_count() const {
  size_t count = 0;
  for (size_t l = 0; l + 1 < widths_.size(); ++l) {
    count += static_cast<size_t>(widths_[l]) * widths_[l + 1] + widths_[l + 1];
  }
  return count;
}

size_t TensorParallelMlp::local_parameter_count() const {
  size_t count = 0;
  for (const DenseLayer& layer : layers_) count += layer.w.data.size() + layer.b.size();
  return count;
}

std::string TensorParallelMlp::Describe() const {
  std::string text = "MLP " + std::to_string(widths_[0]);
  for (size_t l = 1; l < widths_.size(); ++l) text += "-" + std::to_string(widths_[l]);
  return text;
}

}  // namespace mxu::train
