#include "train/loss_scaler.h"

#include <cmath>
#include <stdexcept>

namespace mxu::train {
namespace {

bool IsPowerOfTwo(float x) {
  int exponent;
  return x > 0 && std::isfinite(x) && std::frexp(x, &exponent) == 0.5f;
}

}  // namespace

LossScaler::LossScaler(const LossScalerConfig& config)
    : config_(config), scale_(config.initial_scale) {
  // Powers of two make scaling and unscaling exact: the scale changes no gradient's bits.
  if (!IsPowerOfTwo(config.initial_scale) || !IsPowerOfTwo(config.min_scale) ||
      !IsPowerOfTwo(config.max_scale) || config.min_scale > config.initial_scale ||
      config.initial_scale > config.max_scale) {
    throw std::invalid_argument("loss scales must be powers of two with min <= initial <= max");
  }
  if (config.growth_interval < 1) throw std::invalid_argument("growth interval must be >= 1");
}

bool LossScaler::Update(bool gradients_finite) {
  if (!gradients_finite) {
    ++skipped_;
    good_in_a_row_ = 0;
    if (scale_ > config_.min_scale) scale_ *= 0.5f;
    return false;
  }
  if (++good_in_a_row_ >= config_.growth_interval) {
    good_in_a_row_ = 0;
    if (scale_ < config_.max_scale) scale_ *= 2.0f;
  }
  return true;
}

void LossScaler::set_state(const State& state) {
  if (!IsPowerOfTwo(state.scale) || state.scale < config_.min_scale ||
      state.scale > config_.max_scale || state.good_in_a_row < 0 ||
      state.good_in_a_row >= config_.growth_interval) {
    throw std::invalid_argument("loss scaler state out of range");
  }
  scale_ = state.scale;
  good_in_a_row_ = state.good_in_a_row;
  skipped_ = state.skipped;
}

}  // namespace mxu::train
