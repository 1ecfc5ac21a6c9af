#include "host/train/model.h"

#include <cmath>

namespace mxu::train {

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
