#include "train/optimizer.h"

#include <cmath>
#include <stdexcept>
#include <string>

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

// A state tensor list is empty (no step yet) or one tensor per parameter, sized alike.
void CheckState(const std::vector<std::vector<float>>& state,
                const std::vector<std::vector<float>*>& params, const char* what) {
  if (state.empty()) return;
  bool ok = state.size() == params.size();
  for (size_t i = 0; ok && i < params.size(); ++i) ok = state[i].size() == params[i]->size();
  if (!ok)
    throw std::invalid_argument(std::string("the optimizer's ") + what +
                                " do not match the model's parameters");
}

}  // namespace

OptimizerState SgdMomentum::state() const {
  OptimizerState state;
  state.first = velocity_;
  return state;
}

void SgdMomentum::set_state(const OptimizerState& state,
                            const std::vector<std::vector<float>*>& params) {
  CheckState(state.first, params, "velocities");
  if (!state.second.empty()) throw std::invalid_argument("SGD keeps one moment, not two");
  velocity_ = state.first;
}

OptimizerState Adam::state() const {
  OptimizerState state;
  state.first = m_;
  state.second = v_;
  state.steps = static_cast<uint64_t>(steps_);
  return state;
}

void Adam::set_state(const OptimizerState& state, const std::vector<std::vector<float>*>& params) {
  CheckState(state.first, params, "first moments");
  CheckState(state.second, params, "second moments");
  if (state.first.empty() != state.second.empty() || state.first.empty() != (state.steps == 0) ||
      state.steps > (uint64_t{1} << 31)) {
    throw std::invalid_argument("Adam's moments and step count disagree");
  }
  m_ = state.first;
  v_ = state.second;
  steps_ = static_cast<int>(state.steps);
}

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
