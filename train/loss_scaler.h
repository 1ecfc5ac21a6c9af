// Dynamic loss scaling: the loss (and so every gradient) is multiplied by a power of two so that
// small gradients keep their bits through bf16 operands; when a step's gradients hold Inf or NaN
// the step is skipped and the scale halved, and after a run of good steps the scale doubles.
#ifndef MXU_TRAIN_LOSS_SCALER_H_
#define MXU_TRAIN_LOSS_SCALER_H_

#include <cstdint>

namespace mxu::train {

struct LossScalerConfig {
  float initial_scale = 32768.0f;  // 2^15
  int growth_interval = 100;       // good steps in a row before the scale doubles
  float min_scale = 1.0f;
  float max_scale = 16777216.0f;  // 2^24
};

class LossScaler {
 public:
  explicit LossScaler(const LossScalerConfig& config);

  float scale() const { return scale_; }
  // Records the outcome of a step; returns whether its update may be applied.
  bool Update(bool gradients_finite);
  uint64_t skipped_steps() const { return skipped_; }

  // What a checkpoint keeps of the scaler.
  struct State {
    float scale = 0;
    int good_in_a_row = 0;
    uint64_t skipped = 0;
  };
  State state() const { return {scale_, good_in_a_row_, skipped_}; }
  // Throws std::invalid_argument for a scale that is not a power of two within the limits.
  void set_state(const State& state);

 private:
  LossScalerConfig config_;
  float scale_;
  int good_in_a_row_ = 0;
  uint64_t skipped_ = 0;
};

}  // namespace mxu::train

#endif  // MXU_TRAIN_LOSS_SCALER_H_
