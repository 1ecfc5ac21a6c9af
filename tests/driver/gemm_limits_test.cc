// The size limit of one GEMM (driver/gemm_limits.h) at each mode's element sizes: bf16 operands
// take 2 bytes, int8 operands 1; C 4 bytes (fp32, int32), 2 (bf16) or 1 (int8).
#include "driver/gemm_limits.h"

#include <gtest/gtest.h>

#include <string>

namespace mxu::driver {
namespace {

// Issue 43, defect 12: int8 operands were counted at 2 bytes and int8 C at 4.
TEST(GemmLimits, Int8OperandsTakeOneByteAnElement) {
  // A 1.22 GiB int8 A fits; the same shape in bf16 (2.44 GiB) does not.
  EXPECT_EQ(GemmSizeProblem(65535, 20000, 1, Int8ElementBytes(false), false), "");
  const std::string bf16 = GemmSizeProblem(65535, 20000, 1, Bf16ElementBytes(false), false);
  EXPECT_NE(bf16.find("(A 2.44 GiB"), std::string::npos) << bf16;
  const std::string int8 = GemmSizeProblem(65535, 40000, 1, Int8ElementBytes(false), false);
  EXPECT_NE(int8.find("(A 2.44 GiB"), std::string::npos) << int8;
  // C: int32 4 bytes an element, requantized int8 1.
  const std::string int32_c = GemmSizeProblem(65535, 1, 10000, Int8ElementBytes(false), false);
  EXPECT_NE(int32_c.find("C 2.44 GiB"), std::string::npos) << int32_c;
  EXPECT_EQ(GemmSizeProblem(65535, 1, 10000, Int8ElementBytes(true), false), "");
}

TEST(GemmLimits, Bf16SizesAreUnchanged) {
  EXPECT_EQ(GemmSizeProblem(65535, 16384, 16384, true, false),
            GemmSizeProblem(65535, 16384, 16384, Bf16ElementBytes(true), false));
  EXPECT_NE(GemmSizeProblem(65535, 16384, 16384, false, false).find("needs 6.50 GiB"),
            std::string::npos);
  // C0 (accumulate) takes 4 bytes an element in both modes.
  EXPECT_EQ(GemmSizeProblem(16384, 1, 16384, Int8ElementBytes(true), false), "");
  EXPECT_NE(GemmSizeProblem(32768, 1, 16384, Int8ElementBytes(true), true), "");
}

}  // namespace
}  // namespace mxu::driver
