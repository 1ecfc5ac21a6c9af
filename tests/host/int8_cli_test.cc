// The int8 mode from the command line, as a user runs it: `mxu gemm --dtype int8` on random and
// .npy operands (every output checked against the integer golden model), `mxu predict --int8`
// within a point of the bf16 model and equal to the host's integer arithmetic, and every kind of
// bad input (mixed dtypes, values stored in another dtype, bad scales and zero points) refused on
// one line with exit status 2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/host/mxu_cli.h"

namespace mxu::host {
namespace {

using nlohmann::json;

// A C-ordered 2-D or 1-D .npy file of `descr` ('|i1', '<i4', '<f4') holding `data` (raw bytes).
void WriteNpy(const std::string& path, const std::string& descr, const std::vector<int>& shape,
              const std::string& data) {
  std::string dims;
  for (int d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.erase(dims.size() - 2);
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = "\x93NUMPY\x01";
  bytes += '\0';
  bytes += static_cast<char>(header.size() & 0xFF);
  bytes += static_cast<char>(header.size() >> 8);
  WriteBytes(path, bytes + header + data);
}

std::string Int8Bytes(int count, int seed) {
  std::string data;
  for (int i = 0; i < count; ++i) data += static_cast<char>((i * 37 + seed * 11) % 256 - 128);
  return data;
}

TEST(MxuGemmInt8, RandomShapesAreExactOnBothBackends) {
  for (const char* backend : {"model", "rtl"}) {
    for (const char* options : {"", " --ta --tb --relu", " --out-int8 " /* path below */}) {
      std::string args = std::string("gemm --dtype int8 --check --json --m 37 --k 50 --n 29 ") +
                         "--backend " + backend + options;
      if (std::string(options) == " --out-int8 ") {
        args += TempPath("c8.npy") + " --scale 0.0007 --zero-point -5 --relu";
      }
      const json j = JsonOutput(RunMxu(args));
      EXPECT_EQ(j["dtype"], "int8");
      EXPECT_EQ(j["checked"], 37 * 29) << args;
      EXPECT_EQ(j["mismatches"], 0) << args;
    }
  }
}

TEST(MxuGemmInt8, NpyOperandsInInt32AndInt8Out) {
  const std::string a = TempPath("a8.npy"), b = TempPath("b8.npy"), bias = TempPath("bias32.npy");
  const std::string c = TempPath("c32.npy"), c8 = TempPath("c8_file.npy");
  const std::string scales = TempPath("scales.npy");
  WriteNpy(a, "|i1", {5, 7}, Int8Bytes(35, 1));
  WriteNpy(b, "|i1", {7, 3}, Int8Bytes(21, 2));
  std::string bias_bytes;
  for (int32_t v : {1000, -70000, 3}) bias_bytes.append(reinterpret_cast<char*>(&v), 4);
  WriteNpy(bias, "<i4", {3}, bias_bytes);
  std::string scale_bytes;
  for (float s : {0.01f, 0.002f, 0.5f}) scale_bytes.append(reinterpret_cast<char*>(&s), 4);
  WriteNpy(scales, "<f4", {3}, scale_bytes);
  const json j = JsonOutput(RunMxu("gemm --dtype int8 --backend model --check --json --a " + a +
                                   " --b " + b + " --bias " + bias + " --out " + c));
  EXPECT_EQ(j["mismatches"], 0);
  // C = A x B + bias by hand, against the int32 file: 15 values after a 128-byte header.
  const std::string out = ReadFile(c);
  ASSERT_EQ(out.size(), 128u + 15 * 4);
  EXPECT_NE(out.find("'descr': '<i4'"), std::string::npos);
  const std::string ab = Int8Bytes(35, 1), bb = Int8Bytes(21, 2);
  for (int i = 0; i < 5; ++i) {
    for (int n = 0; n < 3; ++n) {
      int32_t want = n == 0 ? 1000 : n == 1 ? -70000 : 3;
      for (int k = 0; k < 7; ++k) want += int8_t(ab[i * 7 + k]) * int8_t(bb[k * 3 + n]);
      int32_t got;
      std::memcpy(&got, &out[128 + 4 * (i * 3 + n)], 4);
      EXPECT_EQ(got, want) << "C[" << i << "][" << n << "]";
    }
  }
  const json q =
      JsonOutput(RunMxu("gemm --dtype int8 --backend model --check --json --a " + a + " --b " + b +
                        " --scales " + scales + " --zero-point 10 --out-int8 " + c8));
  EXPECT_EQ(q["mismatches"], 0);
  const std::string out8 = ReadFile(c8);
  EXPECT_NE(out8.find("'descr': '|i1'"), std::string::npos);
  EXPECT_EQ(out8.size(), 128u + 15);
}

TEST(MxuGemmInt8, BadInputIsOneLineAndExitTwo) {
  const std::string a8 = TempPath("bad_a8.npy"), b8 = TempPath("bad_b8.npy");
  const std::string f32 = TempPath("bad_f32.npy"), i32 = TempPath("bad_i32.npy");
  WriteNpy(a8, "|i1", {4, 4}, Int8Bytes(16, 3));
  WriteNpy(b8, "|i1", {4, 4}, Int8Bytes(16, 4));
  WriteNpy(f32, "<f4", {4, 4}, std::string(64, '\0'));
  WriteNpy(i32, "<i4", {4, 4}, std::string(64, '\0'));
  const std::string int8 = "gemm --dtype int8 --backend model ";
  // Mixed dtypes, and int8 values stored in another dtype.
  ExpectUsageError(int8 + "--a " + f32 + " --b " + b8, "not '<f4'");
  ExpectUsageError(int8 + "--a " + a8 + " --b " + i32, "not '<i4'");
  ExpectUsageError("gemm --backend model --a " + a8 + " --b " + f32, "unsupported dtype '|i1'");
  // Issue 58, item 13: a dtype the .npy reader does not know names what the int8 mode takes.
  const std::string f16 = TempPath("bad_f16.npy");
  WriteNpy(f16, "<f2", {4, 4}, std::string(32, '\0'));
  ExpectUsageError(int8 + "--a " + f16 + " --b " + b8,
                   f16 + ": unsupported dtype '<f2' (expected int8 '|i1' (the int8 mode))");
  ExpectUsageError(int8 + "--a " + a8 + " --b " + b8 + " --accumulate " + f16,
                   f16 + ": unsupported dtype '<f2' (expected int32 '<i4' (the int8 mode))");
  ExpectUsageError(int8 + "--a " + a8 + " --b " + b8 + " --accumulate " + f32, "not '<f4'");
  // Scales that are not finite and positive, zero points out of range, flags of the other mode.
  for (const char* scale : {"0", "-1", "nan", "inf", "x"}) {
    ExpectUsageError(int8 + "--scale " + scale, "--scale");
  }
  ExpectUsageError(int8 + "--scale 1e30", "--scale");
  ExpectUsageError(int8 + "--scale 0.1 --zero-point 128", "--zero-point");
  ExpectUsageError(int8 + "--scale 0.1 --zero-point -129", "--zero-point");
  ExpectUsageError(int8 + "--zero-point 3", "needs --scale");
  ExpectUsageError("gemm --backend model --scale 0.1", "need --dtype int8");
  ExpectUsageError(int8 + "--out-bf16 " + TempPath("x.npy"), "--out-bf16 is for --dtype bf16");
  ExpectUsageError("gemm --dtype int4", "--dtype");
}

// Issue 43, defect 9: a requantizing GEMM's C is int8, so --out (int32) is refused before the run,
// not after it.
TEST(MxuGemmInt8, OutWithARequantizingGemmIsRefusedBeforeTheRun) {
  const std::string c = TempPath("requantized_out.npy");
  std::remove(c.c_str());
  for (const std::string& requantize :
       {std::string("--scale 0.01"), std::string("--scale 0.01 --zero-point 3")}) {
    ExpectUsageError(
        "gemm --dtype int8 --backend model --m 20 --k 8 --n 17 " + requantize + " --out " + c,
        "--out writes the int32 C, but --scale, --scales or --zero-point");
  }
  EXPECT_FALSE(std::ifstream(c).good());
}

// Issue 43, defect 10: --scale is a decimal number as --lr and --clock-mhz take them: no hex,
// no spaces, nothing that overflows to infinity.
TEST(MxuGemmInt8, ScaleIsDecimalOnly) {
  const std::string int8 = "gemm --dtype int8 --backend model --m 4 --k 4 --n 4 --scale ";
  for (const char* scale : {"0x10", "0x1p-3", "' 0.5'", "'0.5 '", "1e400", "1,5", "infinity"}) {
    ExpectUsageError(int8 + scale, "--scale expects a decimal number");
  }
  EXPECT_EQ(RunMxu(int8 + "0.5").exit_code, 0);
  EXPECT_EQ(RunMxu(int8 + "5e-1").exit_code, 0);
}

TEST(MxuBenchInt8, ShapesRunCheckedBesideBf16) {
  const std::string path = TempPath("bench_int8.json");
  const CliResult r = RunMxu(
      "bench --backend model --check --shape 96x80x64 "
      "--shape 96x80x64:int8:tb --json " +
      path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("96x80x64:tb:int8"), std::string::npos) << r.out;
  const json j = json::parse(ReadFile(path));
  const json& rows = j["rows"];
  ASSERT_EQ(rows.size(), 2u) << j.dump();
  EXPECT_EQ(rows[0]["dtype"], "bf16");
  EXPECT_EQ(rows[1]["dtype"], "int8");
  EXPECT_EQ(rows[1]["mismatches"], 0);
  EXPECT_EQ(rows[1]["checked"], 96 * 64);
  // The least traffic counts A and B at one byte an element.
  EXPECT_EQ(rows[1]["bytes_min"], 96 * 80 + 80 * 64 + 4 * 96 * 64);
}

TEST(MxuPredictInt8, WithinOnePointOfBf16AndEqualToTheHostsIntegers) {
  const std::string ck = TempPath("int8_mlp.npz");
  const std::string data = " --data fashion-mnist --train-samples 2048 --test-samples 500";
  JsonOutput(RunMxu("train --backend model --quiet --json --hidden 64 --epochs 2" + data +
                    " --save " + ck));
  const std::string predict = "predict --json --model " + ck;
  const json bf16 = JsonOutput(RunMxu(predict + " --backend model"));
  const json int8 = JsonOutput(RunMxu(predict + " --backend model --int8 --calibration 500"));
  const json host = JsonOutput(RunMxu(predict + " --backend host --int8 --calibration 500"));
  EXPECT_NEAR(int8["test_accuracy"].get<double>(), bf16["test_accuracy"].get<double>(), 0.01);
  // The device's integer arithmetic is the host's: the same logits, so the same loss bits.
  EXPECT_EQ(int8["test_loss"], host["test_loss"]);
  EXPECT_EQ(int8["confusion"], host["confusion"]);
  EXPECT_EQ(int8["calibration_samples"], 500);
  // Half the operand bytes: the int8 run reads fewer bytes than the bf16 one.
  EXPECT_LT(int8["dma_read_bytes"].get<double>(), 0.7 * bf16["dma_read_bytes"].get<double>());
}

TEST(MxuPredictInt8, RefusesWhatItCannotQuantize) {
  ExpectUsageError("predict --backend model --calibration 10 --model x.npz", "--calibration");
  const std::string ck = TempPath("int8_cnn.npz");
  JsonOutput(
      RunMxu("train --backend model --quiet --json --model cnn --channels 2 --hidden 8 "
             "--epochs 1 --data fashion-mnist --train-samples 128 --test-samples 32 --save " +
             ck));
  ExpectUsageError("predict --backend model --int8 --model " + ck, "--int8 quantizes MLPs");
}

}  // namespace
}  // namespace mxu::host
