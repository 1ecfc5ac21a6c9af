// The model's MATMUL kernels: every vector path the CPU has gives the scalar path's bits, for
// every width (a vector's tail), tile extent, accumulate, both subnormal modes and operands full
// of zeros, subnormals, infinities and NaNs.
#include "backends/model/matmul_kernels.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "common/bf16.h"
#include "golden/numerics.h"

namespace mxu::backends::model {
namespace {

// A bf16 drawn to hit the contract's corners often.
uint16_t Operand(std::mt19937& rng) {
  static const uint16_t kSpecial[] = {0x0000, 0x8000, 0x0001, 0x8055, 0x007F, 0x7F80,
                                      0xFF80, 0x7FC0, 0x7F81, 0x0080, 0x7F7F, 0x3F80};
  const uint32_t pick = rng() % 8;
  if (pick == 0) return kSpecial[rng() % (sizeof kSpecial / sizeof kSpecial[0])];
  if (pick == 1) return static_cast<uint16_t>(rng() & 0x80FF);  // subnormal or tiny
  return static_cast<uint16_t>(rng());
}

// Runs `kernel` on the forced path and returns the accumulator words.
template <typename W, typename Kernel>
std::vector<uint32_t> RunOn(MatmulPath path, Kernel kernel, const MatmulRows<W>& m,
                            const std::vector<uint32_t>& acc0) {
  ForceMatmulPath(path);
  std::vector<uint32_t> acc = acc0;
  MatmulRows<W> copy = m;
  copy.acc = acc.data();
  kernel(copy);
  ForceMatmulPath(MatmulPath::kAvx2);
  return acc;
}

class MatmulKernels : public ::testing::TestWithParam<Subnormals> {};

TEST_P(MatmulKernels, FloatPathsAgree) {
  golden::ScopedFpMode mode(GetParam());
  std::mt19937 rng(7);
  for (uint32_t C : {1u, 3u, 4u, 8u, 9u, 16u, 17u, 31u, 40u, 128u}) {
    for (int trial = 0; trial < 6; ++trial) {
      const uint32_t k = 1 + rng() % 20, n = 1 + rng() % C, rows = 1 + rng() % 9, lanes = k + 3;
      std::vector<float> w(size_t{k} * C);
      for (float& x : w) x = Bf16ToFloat(Operand(rng));
      std::vector<uint16_t> in(size_t{rows} * lanes);
      for (uint16_t& x : in) x = Operand(rng);
      std::vector<uint32_t> acc0(size_t{rows} * C);
      for (uint32_t& x : acc0) x = uint32_t{Operand(rng)} << 16 | (rng() & 0xFFFF);
      const MatmulRows<float> m{w.data(), k, C, n, in.data(), lanes, nullptr, rows, trial % 2 == 1};
      EXPECT_EQ(RunOn(MatmulPath::kScalar, MatmulFloatRows, m, acc0),
                RunOn(MatmulPath::kAvx2, MatmulFloatRows, m, acc0))
          << "C=" << C << " k=" << k << " n=" << n;
    }
  }
}

TEST_P(MatmulKernels, IntPathsAgree) {
  std::mt19937 rng(11);
  for (uint32_t C : {1u, 4u, 7u, 16u, 33u, 128u}) {
    for (int trial = 0; trial < 6; ++trial) {
      const uint32_t k = 1 + rng() % 20, n = 1 + rng() % C, rows = 1 + rng() % 9, lanes = k + 2;
      std::vector<int32_t> w(size_t{k} * C);
      for (int32_t& x : w) x = static_cast<int8_t>(rng());
      std::vector<uint16_t> in(size_t{rows} * lanes);
      for (uint16_t& x : in) x = static_cast<uint16_t>(rng());
      std::vector<uint32_t> acc0(size_t{rows} * C);
      for (uint32_t& x : acc0) x = static_cast<uint32_t>(rng());
      const MatmulRows<int32_t> m{w.data(),      k, C, n, in.data(), lanes, nullptr, rows,
                                  trial % 2 == 1};
      EXPECT_EQ(RunOn(MatmulPath::kScalar, MatmulIntRows, m, acc0),
                RunOn(MatmulPath::kAvx2, MatmulIntRows, m, acc0))
          << "C=" << C << " k=" << k << " n=" << n;
    }
  }
}

// A product large enough to run on two threads: the second half's rows in the caller's mode.
TEST_P(MatmulKernels, LargeProductsOnBothCoresAgree) {
  golden::ScopedFpMode mode(GetParam());
  std::mt19937 rng(13);
  const uint32_t C = 128, k = 128, n = 100, rows = 257;
  std::vector<float> w(size_t{k} * C);
  for (float& x : w) x = Bf16ToFloat(Operand(rng));
  std::vector<uint16_t> in(size_t{rows} * k);
  for (uint16_t& x : in) x = Operand(rng);
  std::vector<uint32_t> acc0(size_t{rows} * C);
  for (uint32_t& x : acc0) x = uint32_t{Operand(rng)} << 16;
  const MatmulRows<float> m{w.data(), k, C, n, in.data(), k, nullptr, rows, true};
  EXPECT_EQ(RunOn(MatmulPath::kScalar, MatmulFloatRows, m, acc0),
            RunOn(MatmulPath::kAvx2, MatmulFloatRows, m, acc0));
  std::vector<int32_t> wi(size_t{k} * C);
  for (int32_t& x : wi) x = static_cast<int8_t>(rng());
  const MatmulRows<int32_t> mi{wi.data(), k, C, n, in.data(), k, nullptr, rows, true};
  EXPECT_EQ(RunOn(MatmulPath::kScalar, MatmulIntRows, mi, acc0),
            RunOn(MatmulPath::kAvx2, MatmulIntRows, mi, acc0));
}

TEST(MatmulKernelsPath, ScalarCanBeForced) {
  ForceMatmulPath(MatmulPath::kScalar);
  EXPECT_EQ(ActiveMatmulPath(), MatmulPath::kScalar);
  ForceMatmulPath(MatmulPath::kAvx2);  // the best the CPU has
}

INSTANTIATE_TEST_SUITE_P(Modes, MatmulKernels,
                         ::testing::Values(Subnormals::kIeee, Subnormals::kFlush));

}  // namespace
}  // namespace mxu::backends::model
