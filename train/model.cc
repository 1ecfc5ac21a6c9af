#include "train/model.h"

#include <cmath>

namespace mxu::train {

std::vector<float> BiasGradient(const Fp32Matrix& d, const std::vector<float>* start) {
  std::vector<float> sums = start ? *start : std::vector<float>(static_cast<size_t>(d.cols), 0.0f);
  for (int r = 0; r < d.rows; ++r) {
    for (int c = 0; c < d.cols; ++c) sums[c] += d.at(r, c);
  }
  return sums;
}

void ThroughDropoutAndRelu(Fp32Matrix& d, const Fp32Matrix& x, float dropout_rate) {
  const float keep_scale = dropout_rate > 0.0f ? 1.0f / (1.0f - dropout_rate) : 1.0f;
  for (size_t i = 0; i < d.data.size(); ++i) {
    d.data[i] = x.data[i] > 0.0f ? d.data[i] * keep_scale : 0.0f;
  }
}

std::vector<std::vector<float>*> Gradients::Tensors() {
  std::vector<std::vector<float>*> tensors;
  for (size_t l = 0; l < w.size(); ++l) {
    tensors.push_back(&w[l].data);
    tensors.push_back(&b[l]);
  }
  return tensors;
}

bool Gradients::AllFinite() const {
  for (size_t l = 0; l < w.size(); ++l) {
    for (float g : w[l].data) {
      if (!std::isfinite(g)) return false;
    }
    for (float g : b[l]) {
      if (!std::isfinite(g)) return false;
    }
  }
  return true;
}

void Gradients::Scale(float factor) {
  for (std::vector<float>* tensor : Tensors()) {
    for (float& g : *tensor) g *= factor;
  }
}

}  // namespace mxu::train
