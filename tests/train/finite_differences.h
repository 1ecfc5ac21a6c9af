// Central finite differences against a model's analytic gradients, shared by the MLP and CNN
// tests: every element of every parameter tensor is nudged by +-h and the loss's slope compared
// with the gradient the backward pass computed.
#ifndef MXU_TESTS_TRAIN_FINITE_DIFFERENCES_H_
#define MXU_TESTS_TRAIN_FINITE_DIFFERENCES_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

namespace mxu::train {

struct FiniteDifferenceCount {
  int checked = 0;
  int nonzero = 0;  // analytic gradients above 1e-4: the check is not vacuous
};

// `loss()` is the mean loss at the current parameters. Each gradient must be within
// 2e-3 + relative_tolerance * |numeric| of the numeric slope. The step is the one fp32 can
// represent (saved + h - saved), not h itself.
template <typename Loss>
FiniteDifferenceCount ExpectGradientsMatchFiniteDifferences(
    const std::vector<std::vector<float>*>& params, const std::vector<std::vector<float>*>& grads,
    Loss loss, double relative_tolerance) {
  FiniteDifferenceCount count;
  EXPECT_EQ(params.size(), grads.size());
  for (size_t t = 0; t < params.size() && t < grads.size(); ++t) {
    EXPECT_EQ(params[t]->size(), grads[t]->size()) << "tensor " << t;
    for (size_t i = 0; i < params[t]->size() && i < grads[t]->size(); ++i) {
      float& p = (*params[t])[i];
      const float saved = p;
      const float h = 1e-3f;
      p = saved + h;
      const double up = loss();
      p = saved - h;
      const double down = loss();
      p = saved;
      const double numeric = (up - down) / (2.0 * (double(saved + h) - double(saved)));
      const double analytic = (*grads[t])[i];
      EXPECT_NEAR(analytic, numeric, 2e-3 + relative_tolerance * std::fabs(numeric))
          << "tensor " << t << " element " << i;
      ++count.checked;
      count.nonzero += std::fabs(analytic) > 1e-4;
    }
  }
  return count;
}

}  // namespace mxu::train

#endif  // MXU_TESTS_TRAIN_FINITE_DIFFERENCES_H_
