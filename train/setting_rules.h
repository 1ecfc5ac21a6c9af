// The rules of the training settings, stated once: `mxu train`'s options check their values with
// them, and a checkpoint's settings (train/checkpoint.h) are checked with the same rules, so that
// a file can hold nothing the command line would refuse.
#ifndef MXU_TRAIN_SETTING_RULES_H_
#define MXU_TRAIN_SETTING_RULES_H_

#include <cstdint>
#include <string>

namespace mxu::train {

struct TrainConfig;

// A whole number in [min, max]; `option` on the command line, `key` in a checkpoint.
struct IntegerRule {
  const char* option;
  const char* key;
  uint64_t min, max;
};

// A finite number in [min, max] (max excluded when max_open), held as a float32.
struct NumberRule {
  const char* option;
  const char* key;
  double min, max;
  bool max_open;
};

inline constexpr IntegerRule kEpochsRule{"--epochs", "epochs", 1, 100000};
inline constexpr IntegerRule kBatchRule{"--batch", "batch", 1, 65535};
inline constexpr IntegerRule kAccumulateStepsRule{"--accumulate-steps", "accumulate_steps", 1,
                                                  65535};
inline constexpr IntegerRule kScaleGrowthRule{"--scale-growth", "scale_growth", 1, 1'000'000};
inline constexpr IntegerRule kLinkBytesRule{"--link-bytes-per-cycle", "link_bytes_per_cycle", 1,
                                            1 << 20};
inline constexpr IntegerRule kLinkLatencyRule{"--link-latency", "link_latency", 0, 1 << 30};
inline constexpr IntegerRule kHiddenRule{"--hidden", "hidden", 1, 4096};
inline constexpr IntegerRule kChannelsRule{"--channels", "channels", 1, 4096};
inline constexpr IntegerRule kTrainSamplesRule{"--train-samples", "train_samples", 0, 1 << 30};
inline constexpr IntegerRule kTestSamplesRule{"--test-samples", "test_samples", 0, 1 << 30};
inline constexpr IntegerRule kSamplesPerClassRule{"--samples-per-class", "samples_per_class", 10,
                                                  100000};
inline constexpr IntegerRule kClassesRule{"--classes", "classes", 2, 16};

inline constexpr NumberRule kDropoutRule{"--dropout", "dropout", 0, 1, true};
inline constexpr NumberRule kClipNormRule{"--clip-norm", "clip_norm", 0, 1e30, false};
inline constexpr NumberRule kLearningRateRule{"--lr", "learning_rate", 1e-9, 1e6, false};
inline constexpr NumberRule kMomentumRule{"--momentum", "momentum", 0, 1, true};
// A power of two besides (LossScaler's rule).
inline constexpr NumberRule kLossScaleRule{"--loss-scale", "loss_scale_initial", 1, 16777216,
                                           false};

// "" when value keeps the rule, else what is wrong: "must be in [1, 65535], got 0".
std::string RuleProblem(const IntegerRule& rule, uint64_t value);
// The same for a number as typed (double) and as held (its float32 rounding): "0.99999999"
// keeps [0, 1) but its float32, 1, does not.
std::string RuleProblem(const NumberRule& rule, double value);
// "X in [1e-09, 1e+06]", "X in [0, 1)": the rule's range for the help.
std::string RangeText(const NumberRule& rule);

// The first setting of config that breaks its rule (the ones above; an optimizer adam or sgd;
// a loss scale that is a power of two), as "'learning_rate' (--lr) must be in [1e-09, 1e+06],
// got 1e+30"; "" when every one holds. Settings the command line derives (eval_batch, the test
// hooks) are not checked.
std::string SettingsProblem(const TrainConfig& config);

}  // namespace mxu::train

#endif  // MXU_TRAIN_SETTING_RULES_H_
