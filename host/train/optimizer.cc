#include "host/train/optimizer.h"

#include <cmath>
#include <stdexcept>

namespace mxu::train {
namespace {

void CheckPair(const std::vector<std::vector<float>*>& params,
               const std::vector<std::vector<float>*>& grads) {
  if (params.size() != grads.size()) throw std::invalid_argument("one gradient per parameter");
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i]->size() != grads[i]->size()) {
      throw std::invalid_argument("gradient and parameter sizes differ");
    }
  }
}

// Zero state shaped like the parameters, made on the first step.
void InitState(std::vector<std::vector<float>>& state,
               const std::vector<std::vector<float>*>& params) {
  if (!state.empty()) return;
  for (const std::vector<float>* p : params) state.emplace_back(p->size(), 0.0f);
}

}  // namespace

void SgdMomentum::Step(const std::vector<std::vector<float>*>& params,
                       const std::vector<std::vector<float>*>& grads) {
  CheckPair(params, grads);
  InitState(velocity_, params);
  for (size_t t = 0; t < params.size(); ++t) {
    std::vector<float>& p = *params[t];
    const std::vector<float>& g = *grads[t];
    std::vector<float>& v = velocity_[t];
    for (size_t i = 0; i < p.size(); ++i) {
      v[i] = config_.momentum * v[i] + g[i];
      p[i] -= config_.learning_rate * v[i];
    }
  }
}

void Adam::Step(const std::vector<std::vector<float>*>& params,
                const std::vector<std::vector<float>*>& grads) {
  CheckPair(params, grads);
  InitState(m_, params);
  InitState(v_, params);
  ++steps_;
  const float correction1 = static_cast<float>(1.0 - std::pow(double{config_.beta1}, steps_));
  const float correction2 = static_cast<float>(1.0 - std::pow(double{config_.beta2}, steps_));
  for (size_t t = 0; t < params.size(); ++t) {
    std::vector<float>& p = *params[t];
    const std::vector<float>& g = *grads[t];
    for (size_t i = 0; i < p.size(); ++i) {
      float& m = m_[t][i];
      float& v = v_[t][i];
      m = config_.beta1 * m + (1.0f - config_.beta1) * g[i];
      v = config_.beta2 * v + (1.0f - config_.beta2) * g[i] * g[i];
      const float m_hat = m / correction1;
      const float v_hat = v / correction2;
      p[i] -= config_.learning_rate * m_hat / (std::sqrt(v_hat) + config_.epsilon);
    }
  }
}

std::unique_ptr<Optimizer> MakeOptimizer(const OptimizerConfig& config) {
  if (!(config.learning_rate > 0.0f) || !std::isfinite(config.learning_rate)) {
    throw std::invalid_argument("the learning rate must be a positive number");
  }
  if (config.kind == "adam") return std::make_unique<Adam>(config);
  if (config.kind == "sgd") return std::make_unique<SgdMomentum>(config);
  throw std::invalid_argument("unknown optimizer '" + config.kind + "' (expected adam or sgd)");
}

}  // namespace mxu::train
