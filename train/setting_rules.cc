#include "train/setting_rules.h"

#include <cmath>
#include <sstream>
#include <string>

#include "train/trainer.h"

namespace mxu::train {
namespace {

// Shortest decimal text of a number: 0.9, 1e-09, 32768 (as the help prints ranges).
std::string NumberText(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// A value as given, to 9 significant digits: 0.99999999 stays itself.
std::string ValueText(double value) {
  std::ostringstream out;
  out.precision(9);
  out << value;
  return out.str();
}

// The problem with one setting, named by its key and option.
std::string Named(const char* key, const char* option, const std::string& problem) {
  return problem.empty() ? "" : "'" + std::string(key) + "' (" + option + ") " + problem;
}

std::string Check(const IntegerRule& rule, int64_t value) {
  if (value < 0) {
    return Named(rule.key, rule.option,
                 "must be in [" + std::to_string(rule.min) + ", " + std::to_string(rule.max) +
                     "], got " + std::to_string(value));
  }
  return Named(rule.key, rule.option, RuleProblem(rule, static_cast<uint64_t>(value)));
}

std::string Check(const NumberRule& rule, double value) {
  return Named(rule.key, rule.option, RuleProblem(rule, value));
}

bool PowerOfTwo(float value) {
  int exponent = 0;
  return std::isfinite(value) && value > 0 && std::frexp(value, &exponent) == 0.5f;
}

}  // namespace

std::string RuleProblem(const IntegerRule& rule, uint64_t value) {
  if (value >= rule.min && value <= rule.max) return "";
  return "must be in [" + std::to_string(rule.min) + ", " + std::to_string(rule.max) + "], got " +
         std::to_string(value);
}

std::string RangeText(const NumberRule& rule) {
  return "X in [" + NumberText(rule.min) + ", " + NumberText(rule.max) +
         (rule.max_open ? ")" : "]");
}

std::string RuleProblem(const NumberRule& rule, double value) {
  const auto outside = [&rule](double v) {
    return !std::isfinite(v) || v < rule.min || v > rule.max || (rule.max_open && v == rule.max);
  };
  const std::string range = RangeText(rule).substr(2);
  if (outside(value)) return "must be " + range + ", got " + ValueText(value);
  const double held = static_cast<float>(value);
  if (outside(held)) {
    return "must be " + range + ", got " + ValueText(value) + " (" + NumberText(held) +
           " as a float32)";
  }
  return "";
}

std::string SettingsProblem(const TrainConfig& c) {
  std::string problem;
  const auto first = [&problem](const std::string& p) {
    if (problem.empty()) problem = p;
  };
  if (c.model != "mlp" && c.model != "cnn") first("'model_kind' is '" + c.model + "'");
  for (int width : c.hidden) first(Check(kHiddenRule, width));
  if (c.model == "cnn") {
    if (c.channels.empty()) first("'channels' (--channels) is empty: the CNN needs a conv layer");
    for (int width : c.channels) first(Check(kChannelsRule, width));
  }
  first(Check(kEpochsRule, c.epochs));
  first(Check(kBatchRule, c.batch_size));
  first(Check(kAccumulateStepsRule, c.accumulate_steps));
  first(Check(kDropoutRule, c.dropout));
  first(Check(kClipNormRule, c.clip_norm));
  if (c.optimizer.kind != "adam" && c.optimizer.kind != "sgd") {
    first("'optimizer' (--optimizer) is '" + c.optimizer.kind + "', not adam or sgd");
  }
  first(Check(kLearningRateRule, c.optimizer.learning_rate));
  if (c.optimizer.kind == "sgd") first(Check(kMomentumRule, c.optimizer.momentum));
  first(Check(kLossScaleRule, c.loss_scaling.initial_scale));
  if (!PowerOfTwo(c.loss_scaling.initial_scale)) {
    first("'loss_scale_initial' (--loss-scale) must be a power of two, got " +
          NumberText(c.loss_scaling.initial_scale));
  }
  first(Check(kScaleGrowthRule, c.loss_scaling.growth_interval));
  first(Named(kLinkBytesRule.key, kLinkBytesRule.option,
              RuleProblem(kLinkBytesRule, c.interconnect.link_bytes_per_cycle)));
  first(Named(kLinkLatencyRule.key, kLinkLatencyRule.option,
              RuleProblem(kLinkLatencyRule, c.interconnect.link_latency_cycles)));
  return problem;
}

}  // namespace mxu::train
