// Optimizers over fp32 master weights and fp32 state on the host, as in mixed-precision training
// on TPUs: the device sees only the bf16 copies the matmul engine makes of the weights.
#ifndef MXU_TRAIN_OPTIMIZER_H_
#define MXU_TRAIN_OPTIMIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxu::train {

struct OptimizerConfig {
  std::string kind = "adam";  // "adam" or "sgd"
  float learning_rate = 0.01f;
  float momentum = 0.9f;                                // sgd
  float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;  // adam
};

// An optimizer's state, for checkpoints: per parameter tensor its moments (SGD: the velocity in
// `first`, nothing in `second`; Adam: m and v), empty before the first step, and the steps taken.
struct OptimizerState {
  std::vector<std::vector<float>> first, second;
  uint64_t steps = 0;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual OptimizerState state() const = 0;
  // Throws std::invalid_argument when the state's tensors do not match params in number and size.
  virtual void set_state(const OptimizerState& state,
                         const std::vector<std::vector<float>*>& params) = 0;
  // params[i] -= update(grads[i]); the tensors keep their order and sizes from call to call.
  virtual void Step(const std::vector<std::vector<float>*>& params,
                    const std::vector<std::vector<float>*>& grads) = 0;
};

// SGD with (heavy-ball) momentum: v = momentum * v + g; p -= lr * v.
class SgdMomentum : public Optimizer {
 public:
  explicit SgdMomentum(const OptimizerConfig& config) : config_(config) {}
  void Step(const std::vector<std::vector<float>*>& params,
            const std::vector<std::vector<float>*>& grads) override;
  OptimizerState state() const override;
  void set_state(const OptimizerState& state,
                 const std::vector<std::vector<float>*>& params) override;

 private:
  OptimizerConfig config_;
  std::vector<std::vector<float>> velocity_;
};

// Adam (Kingma & Ba) with bias-corrected moment estimates.
class Adam : public Optimizer {
 public:
  explicit Adam(const OptimizerConfig& config) : config_(config) {}
  void Step(const std::vector<std::vector<float>*>& params,
            const std::vector<std::vector<float>*>& grads) override;
  OptimizerState state() const override;
  void set_state(const OptimizerState& state,
                 const std::vector<std::vector<float>*>& params) override;

 private:
  OptimizerConfig config_;
  std::vector<std::vector<float>> m_, v_;
  int steps_ = 0;
};

// Throws std::invalid_argument for an unknown kind or a non-positive learning rate.
std::unique_ptr<Optimizer> MakeOptimizer(const OptimizerConfig& config);

}  // namespace mxu::train

#endif  // MXU_TRAIN_OPTIMIZER_H_
