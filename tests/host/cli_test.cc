// The `mxu` command line as a user meets it: bad input of every kind gives a one-line message and
// exit code 2, a good run exits 0. Runs the built binary (MXU_BINARY) as a child process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "host/npy.h"
#include "tests/host/mxu_cli.h"

namespace mxu::host {
namespace {

using Result = CliResult;

TEST(MxuCli, UnknownCommandAndFlags) {
  ExpectUsageError("frobnicate", "unknown command");
  ExpectUsageError("gemm --m 4 --colour blue", "unknown option '--colour'");
  ExpectUsageError("gemm --m", "--m needs a value");
  ExpectUsageError("gemm --m 0", "--m must be in [1, 65535]");
  ExpectUsageError("gemm --m x7", "--m expects an unsigned integer");
  ExpectUsageError("gemm --backend fpga", "unknown backend 'fpga'");
}

TEST(MxuCli, ConflictingOptions) {
  ExpectUsageError("gemm --out a.npy --out-bf16 b.npy", "give one");
  ExpectUsageError("gemm --a x.npy", "--a and --b go together");
}

TEST(MxuCli, BadNpyInputs) {
  const std::string a = TempPath("a.npy"), b = TempPath("b.npy");
  WriteNpy(a, std::vector<float>(12, 1.0f), {3, 4});
  WriteNpy(b, std::vector<float>(10, 1.0f), {5, 2});
  ExpectUsageError("gemm --a " + a + " --b " + b, "inner dimensions differ");

  const std::string rank3 = TempPath("rank3.npy");
  WriteNpy(rank3, std::vector<float>(8, 1.0f), {2, 2, 2});
  ExpectUsageError("gemm --a " + rank3 + " --b " + b, "expected a 2-D array");

  const std::string garbage = TempPath("garbage.npy");
  WriteBytes(garbage, "this is not numpy");
  ExpectUsageError("gemm --a " + garbage + " --b " + b, garbage);

  // A valid header announcing more data than the file holds.
  const std::string truncated = TempPath("truncated.npy");
  WriteNpy(truncated, std::vector<float>(12, 1.0f), {3, 4});
  std::ifstream in(truncated, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  WriteBytes(truncated, bytes.substr(0, bytes.size() - 8));
  ExpectUsageError("gemm --a " + truncated + " --b " + b, "truncated");

  // float64 is not accepted.
  std::string f8 = bytes.substr(0, bytes.size());
  const size_t at = f8.find("<f4");
  f8.replace(at, 3, "<f8");
  const std::string float64 = TempPath("float64.npy");
  WriteBytes(float64, f8);
  ExpectUsageError("gemm --a " + float64 + " --b " + b, "unsupported dtype '<f8'");

  ExpectUsageError("gemm --a " + TempPath("missing.npy") + " --b " + b, "missing.npy");

  const std::string bias = TempPath("bias.npy");
  WriteNpy(bias, std::vector<float>(3, 0.5f), {3});
  WriteNpy(b, std::vector<float>(8, 1.0f), {4, 2});
  ExpectUsageError("gemm --a " + a + " --b " + b + " --bias " + bias, "expected N = 2");
}

// A trace covers its window only: a longer window makes a bigger file, no --trace no file.
TEST(MxuCli, TraceWindows) {
  const std::string small = TempPath("small.fst"), large = TempPath("large.fst");
  ASSERT_EQ(RunMxu("gemm --m 32 --k 32 --n 16 --trace " + small + " --trace-cycles 100").exit_code,
            0);
  ASSERT_EQ(RunMxu("gemm --m 32 --k 32 --n 16 --trace " + large + " --trace-cycles 0").exit_code,
            0);
  std::ifstream a(small, std::ios::binary | std::ios::ate),
      b(large, std::ios::binary | std::ios::ate);
  ASSERT_TRUE(a.good() && b.good());
  EXPECT_GT(a.tellg(), 0);
  EXPECT_LT(a.tellg(), b.tellg());
  ExpectUsageError("gemm --m 4 --trace-cycles 10", "need --trace");
}

TEST(MxuCli, GoodRunsExitZero) {
  const Result gemm = RunMxu("gemm --m 20 --k 30 --n 17 --relu --check --json");
  EXPECT_EQ(gemm.exit_code, 0) << gemm.err;
  EXPECT_NE(gemm.out.find("\"mismatches\": 0"), std::string::npos) << gemm.out;
  EXPECT_EQ(gemm.out.find("SystemC"), std::string::npos) << "banner in the JSON output";

  const std::string a = TempPath("ga.npy"), b = TempPath("gb.npy"), c = TempPath("gc.npy");
  WriteNpy(a, std::vector<uint16_t>(6, 0x3F80), {2, 3});  // raw bf16 ones
  WriteNpy(b, std::vector<float>(12, 2.0f), {3, 4});
  const Result files = RunMxu("gemm --a " + a + " --b " + b + " --out " + c + " --check");
  EXPECT_EQ(files.exit_code, 0) << files.err;
  const NpyArray out = ReadNpy(c);
  ASSERT_EQ(out.shape, (std::vector<size_t>{2, 4}));
  for (float x : out.AsFloat32()) EXPECT_EQ(x, 6.0f);

  const Result info = RunMxu("info --json");
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("\"array_rows\""), std::string::npos) << info.out;
}

}  // namespace
}  // namespace mxu::host
