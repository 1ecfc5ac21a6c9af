// The `mxu` command line as a user meets it: bad input of every kind gives a one-line message and
// exit code 2, a good run exits 0. Runs the built binary (MXU_BINARY) as a child process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/npy.h"
#include "tests/host/mxu_cli.h"

namespace mxu::host {
namespace {

using Result = CliResult;
using nlohmann::json;

// A .npy file written by hand, as NumPy writes one: header dict, padding, little-endian data.
std::string NpyBytes(const std::string& descr, bool fortran, const std::string& shape,
                     const std::string& data) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY\x01";
  bytes += '\0';
  bytes += static_cast<char>(header.size() & 0xFF);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + data;
}

template <typename T>
std::string RawBytes(const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(&bytes[0], values.data(), bytes.size());
  return bytes;
}

TEST(MxuCli, UnknownCommandAndFlags) {
  ExpectUsageError("frobnicate", "unknown command");
  ExpectUsageError("gemm --m 4 --colour blue", "unknown option '--colour'");
  ExpectUsageError("gemm stray", "unexpected argument 'stray'");
  ExpectUsageError("gemm --m", "--m needs a value");
  ExpectUsageError("gemm --m 0", "--m must be in [1, 65535]");
  ExpectUsageError("gemm --m x7", "--m expects an unsigned integer");
  ExpectUsageError("gemm --backend fpga", "unknown backend 'fpga'");
}

TEST(MxuCli, ConflictingOptions) {
  ExpectUsageError("gemm --out a.npy --out-bf16 b.npy", "--out excludes --out-bf16");
  ExpectUsageError("gemm --a x.npy", "--a requires --b");
  ExpectUsageError("gemm --a x.npy --b y.npy --m 4", "--m excludes --a");
  ExpectUsageError("gemm --a x.npy --b y.npy --seed 4", "--seed excludes --a");
  ExpectUsageError("gemm --bias x.npy --accumulate y.npy", "--bias excludes --accumulate");
  ExpectUsageError("gemm --trace-start 5", "--trace-start requires --trace");
  // All of --m --k --n or none: --m 16 --k 16 does not silently run 16 x 16 x 64.
  ExpectUsageError("gemm --m 16 --k 16", "give all of --m, --k and --n");
}

// Every command's --help lists its options with their defaults and ranges, and exits 0; `mxu
// help` lists every command's options and the exit codes.
TEST(MxuCli, HelpOfEveryCommand) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"gemm",
       {"--m N in [1, 65535] (default 64)", "--seed", "--a A.npy", "--out-bf16", "--check",
        "--backend NAME (default rtl)", "--mem-latency N in [0, 100000] (default 100)",
        "--watchdog", "--trace FILE.fst", "ready GTKWave layout (t.fst -> t.gtkw",
        "--trace-cycles N in [0, 18446744073709551615] "
        "(default 10000)",
        "--timeline", "2 GiB", "float64", "Fortran"}},
      {"train",
       {"--epochs N in [1, 100000] (default 20)", "--momentum X in [0, 1) (default 0.9)",
        "--hidden W,W,... (default 32,32)", "--inject-overflow", "--trace FILE.fst",
        "--trace-start", "--timeline", "--log FILE.csv", "--plot FILE.png",
        "--optimizer NAME (default adam)", "--loss-scale"}},
      {"info", {"--json", "--backend", "--mem-in-flight N in [1, 1024] (default 8)"}},
      {"selfcheck", {"--vectors N in [1, 4294967296] (default 200000)", "--seed", "--json"}},
  };
  const Result all = RunMxu("help");
  EXPECT_EQ(all.exit_code, 0);
  for (const auto& [command, options] : expected) {
    const Result r = RunMxu(command + " --help");
    EXPECT_EQ(r.exit_code, 0) << command;
    for (const std::string& option : options) {
      EXPECT_NE(r.out.find(option), std::string::npos) << command << ": " << option << "\n"
                                                       << r.out;
      EXPECT_NE(all.out.find(option), std::string::npos) << "mxu help: " << option;
    }
    EXPECT_NE(r.out.find("Exit codes: 0 success; 1 the run failed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("130 stopped by Ctrl-C or SIGTERM"), std::string::npos) << r.out;
    EXPECT_EQ(RunMxu("help " + command).out, r.out);
  }
  EXPECT_NE(all.out.find("2 bad usage or input"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("010 is ten"), std::string::npos) << all.out;
}

// Integers are decimal: 010 is ten (never octal), 09 is nine, 0x10 is refused.
TEST(MxuCli, IntegersAreDecimal) {
  EXPECT_EQ(JsonOutput(RunMxu("gemm --m 010 --k 8 --n 8 --json"))["m"], 10);
  EXPECT_EQ(JsonOutput(RunMxu("gemm --m 09 --k 8 --n 8 --json"))["m"], 9);
  ExpectUsageError("gemm --m 0x10 --k 8 --n 8",
                   "--m expects an unsigned integer in decimal, got "
                   "'0x10'");
  ExpectUsageError("gemm --m -3 --k 8 --n 8", "--m");
  ExpectUsageError("gemm --m 1e3 --k 8 --n 8", "expects an unsigned integer in decimal");
  ExpectUsageError("info --mem-latency 0x10",
                   "--mem-latency expects an unsigned integer in decimal");
  ExpectUsageError("selfcheck --vectors 0100000000000000000000", "--vectors");
}

TEST(MxuCli, RepeatedOptionsAreRefused) {
  ExpectUsageError("gemm --m 5 --m 6 --k 8 --n 8", "--m given twice");
  ExpectUsageError("gemm --m=5 --m 6 --k 8 --n 8", "--m given twice");
  ExpectUsageError("gemm --relu --relu", "--relu given twice");
  ExpectUsageError("info --json --json", "--json given twice");
}

// Refused from the flags, before anything is allocated or run.
TEST(MxuCli, OversizedProblemsAreRefusedUpFront) {
  ExpectUsageError("gemm --m 65535 --k 16384 --n 16384",
                   "a 65535 x 16384 x 16384 GEMM needs 6.50 GiB for A, B and C");
  ExpectUsageError("gemm --m 65535 --k 16384 --n 16384", "the limit is 2.00 GiB");
  ExpectUsageError("gemm --m 65536 --k 1 --n 1", "--m must be in [1, 65535]");
  ExpectUsageError("gemm --m 32768 --k 16384 --n 16384 --out-bf16 " + TempPath("big.npy"),
                   "the limit is 2.00 GiB");
  EXPECT_EQ(ReadFile(TempPath("big.npy")), "");
}

// Issue 43, defect 12: an int8 GEMM's operands are 1 byte an element, its int32 C 4 and its
// requantized C 1 (at 2 and 4 bytes, this A was "4.88 GiB"; tests/driver/gemm_limits_test.cc
// has the shapes that now fit).
TEST(MxuCli, Int8OperandsAreSizedAtOneByte) {
  ExpectUsageError("gemm --backend model --dtype int8 --m 65535 --k 40000 --n 1",
                   "(A 2.44 GiB, B 0.00 GiB, C 0.00 GiB)");
  ExpectUsageError("gemm --backend model --dtype int8 --m 65535 --k 1 --n 40000 --scale 0.1",
                   "(A 0.00 GiB, B 0.00 GiB, C 2.44 GiB)");
  ExpectUsageError("bench --backend model --shape 65535x40000x1:int8", "(A 2.44 GiB");
}

// Output paths are checked before the run: a missing directory, an output that is an input, two
// outputs on one path. Nothing runs and nothing is written.
TEST(MxuCli, OutputPathsAreCheckedBeforeTheRun) {
  const std::string a = TempPath("pa.npy"), b = TempPath("pb.npy");
  WriteNpy(a, std::vector<float>(6, 1.0f), {2, 3});
  WriteNpy(b, std::vector<float>(12, 2.0f), {3, 4});
  const std::string a_bytes = ReadFile(a);
  const std::string inputs = " --a " + a + " --b " + b;

  const Result missing = RunMxu("gemm" + inputs + " --out " + TempPath("no_dir/c.npy"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no such directory"), std::string::npos) << missing.err;
  EXPECT_EQ(missing.out, "") << "the run happened";
  ExpectUsageError(
      "gemm --m 8 --k 8 --n 8 --json --trace " + TempPath("no_dir/t.fst"),
      "--trace: cannot write trace file '" + TempPath("no_dir/t.fst") + "': no such directory");
  ExpectUsageError("gemm --timeline " + std::string(MXU_CLI_TMPDIR), "it is a directory");

  ExpectUsageError("gemm" + inputs + " --out " + a, "would overwrite the input --a");
  ExpectUsageError("gemm" + inputs + " --out-bf16 " + std::string(MXU_CLI_TMPDIR) + "/./" +
                       a.substr(a.rfind('/') + 1),
                   "would overwrite the input --a");
  ExpectUsageError("gemm" + inputs + " --out " + b, "would overwrite the input --b");
  EXPECT_EQ(ReadFile(a), a_bytes);
  const std::string t = TempPath("same.json");
  ExpectUsageError("gemm --m 8 --k 8 --n 8 --trace " + t + " --timeline " + t, "name one file");
}

// NumPy's defaults: float64 arrays (rounded to float32, then to bf16) and Fortran order
// (np.save(f, A.T)) give the same, golden-checked, result as the float32 C-ordered operands.
TEST(MxuCli, Float64AndFortranOrderNpyAreAccepted) {
  const int m = 5, k = 7, n = 3;
  std::vector<double> a64(m * k), b64(k * n);
  for (size_t i = 0; i < a64.size(); ++i) a64[i] = 0.1 * (i % 11) - 0.4 + 1e-9 * i;
  for (size_t i = 0; i < b64.size(); ++i) b64[i] = 0.37 * (i % 5) - 0.6 - 3e-10 * i;
  std::vector<float> a32(a64.begin(), a64.end()), b32(b64.begin(), b64.end());
  // B in Fortran order: column by column.
  std::vector<double> b64_fortran;
  for (int c = 0; c < n; ++c) {
    for (int r = 0; r < k; ++r) b64_fortran.push_back(b64[r * n + c]);
  }
  const std::string fa = TempPath("f64a.npy"), fb = TempPath("f64b.npy");
  const std::string ca = TempPath("f32a.npy"), cb = TempPath("f32b.npy");
  const std::string shape_a = "(" + std::to_string(m) + ", " + std::to_string(k) + ")";
  const std::string shape_b = "(" + std::to_string(k) + ", " + std::to_string(n) + ")";
  WriteBytes(fa, NpyBytes("<f8", false, shape_a, RawBytes(a64)));
  WriteBytes(fb, NpyBytes("<f8", true, shape_b, RawBytes(b64_fortran)));
  WriteNpy(ca, a32, {size_t(m), size_t(k)});
  WriteNpy(cb, b32, {size_t(k), size_t(n)});
  const std::string out64 = TempPath("c64.npy"), out32 = TempPath("c32.npy");
  const Result r64 =
      RunMxu("gemm --a " + fa + " --b " + fb + " --out " + out64 + " --check --json");
  EXPECT_EQ(JsonOutput(r64)["mismatches"], 0) << r64.out;
  const Result r32 = RunMxu("gemm --a " + ca + " --b " + cb + " --out " + out32 + " --check");
  ASSERT_EQ(r32.exit_code, 0) << r32.err;
  EXPECT_EQ(ReadNpy(out64).data, ReadNpy(out32).data);
  EXPECT_EQ(ReadNpy(out64).shape, (std::vector<size_t>{size_t(m), size_t(n)}));

  // A Fortran-ordered float32 A.T: stored K x M, read with --ta as op(A) = A.
  std::vector<float> at_fortran;  // A.T (K x M) in Fortran order is A's C-order bytes
  at_fortran = a32;
  const std::string fat = TempPath("f32at.npy"), out_t = TempPath("ct.npy");
  WriteBytes(fat, NpyBytes("<f4", true, "(" + std::to_string(k) + ", " + std::to_string(m) + ")",
                           RawBytes(at_fortran)));
  const Result rt = RunMxu("gemm --a " + fat + " --ta --b " + cb + " --out " + out_t + " --check");
  ASSERT_EQ(rt.exit_code, 0) << rt.err;
  EXPECT_EQ(ReadNpy(out_t).data, ReadNpy(out32).data);
}

// On a terminal (script(1) gives the run one), a GEMM longer than a second shows a progress bar on
// stderr, erased at the end; the run's cycles are those of a run without it. MXU_PROGRESS_AFTER=0
// shows it from the start, so the test holds however fast the machine simulates.
TEST(MxuCli, ProgressBarOnATerminal) {
  if (std::system("command -v script >/dev/null") != 0) GTEST_SKIP() << "no script(1)";
  const std::string gemm = std::string(MXU_BINARY) + " gemm --m 128 --k 256 --n 256";
  const Result tty = RunShell("MXU_PROGRESS_AFTER=0 script -qefc '" + gemm + "' /dev/null");
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("\rgemm ["), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("instruction "), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("\r\033[KGEMM 128 x 256 x 256"), std::string::npos) << tty.out;
  const Result plain = RunShell(gemm);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto cycles_line = [](const std::string& text) {
    const size_t at = text.find("device cycles");
    return text.substr(at, text.find('\n', at) - at);
  };
  ASSERT_NE(plain.out.find("device cycles"), std::string::npos);
  EXPECT_EQ(cycles_line(tty.out).substr(0, 40), cycles_line(plain.out).substr(0, 40));
  const Result json = RunShell("script -qefc '" + gemm + " --json' /dev/null");
  EXPECT_EQ(json.out.find("gemm ["), std::string::npos) << json.out;
}

// The progress bar is for a terminal only: never with --json, never when stderr is a file.
TEST(MxuCli, NoProgressOffATerminal) {
  const Result r = RunMxu("gemm --m 64 --k 64 --n 64");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
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

  // int32 is not accepted (float64 is: Float64AndFortranOrderNpyAreAccepted).
  std::string i4 = bytes.substr(0, bytes.size());
  const size_t at = i4.find("<f4");
  i4.replace(at, 3, "<i4");
  const std::string int32 = TempPath("int32.npy");
  WriteBytes(int32, i4);
  ExpectUsageError("gemm --a " + int32 + " --b " + b, "unsupported dtype '<i4'");

  // Issue 58, item 13: a dtype the .npy reader does not know (float16) is refused naming exactly
  // what an operand takes, not the reader's list (int32, strings...).
  std::string f2 = i4;
  f2.replace(at, 3, "<f2");
  const std::string float16 = TempPath("float16.npy");
  WriteBytes(float16, f2);
  ExpectUsageError("gemm --a " + float16 + " --b " + b,
                   float16 +
                       ": unsupported dtype '<f2' (expected float32 '<f4', float64 '<f8' or "
                       "uint16 '<u2')");
  EXPECT_EQ(RunMxu("gemm --a " + float16 + " --b " + b).err.find("int32"), std::string::npos);
  ExpectUsageError("gemm --a " + int32 + " --b " + b,
                   "(expected float32 '<f4', float64 '<f8' or uint16 '<u2')");

  ExpectUsageError("gemm --a " + TempPath("missing.npy") + " --b " + b, "missing.npy");

  const std::string bias = TempPath("bias.npy");
  WriteNpy(bias, std::vector<float>(3, 0.5f), {3});
  WriteNpy(b, std::vector<float>(8, 1.0f), {4, 2});
  ExpectUsageError("gemm --a " + a + " --b " + b + " --bias " + bias, "expected N = 2");
  ExpectUsageError("gemm --a " + a + " --b " + b + " --bias " + float16,
                   "unsupported dtype '<f2' (expected float32 '<f4' or float64 '<f8')");
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
  ExpectUsageError("gemm --m 4 --trace-cycles 10", "--trace-cycles requires --trace");
}

TEST(MxuCli, GoodRunsExitZero) {
  const Result gemm = RunMxu("gemm --m 20 --k 30 --n 17 --relu --check --json");
  const json summary = JsonOutput(gemm);  // throws on a banner or anything but one JSON object
  EXPECT_EQ(summary["mismatches"], 0) << gemm.out;
  EXPECT_EQ(summary["checked"], 20 * 17) << gemm.out;
  EXPECT_EQ(summary["macs"], 20 * 30 * 17) << gemm.out;
  EXPECT_EQ(summary["array"], json::array({16, 16})) << gemm.out;

  const std::string a = TempPath("ga.npy"), b = TempPath("gb.npy"), c = TempPath("gc.npy");
  WriteNpy(a, std::vector<uint16_t>(6, 0x3F80), {2, 3});  // raw bf16 ones
  WriteNpy(b, std::vector<float>(12, 2.0f), {3, 4});
  const Result files = RunMxu("gemm --a " + a + " --b " + b + " --out " + c + " --check");
  EXPECT_EQ(files.exit_code, 0) << files.err;
  const NpyArray out = ReadNpy(c);
  ASSERT_EQ(out.shape, (std::vector<size_t>{2, 4}));
  for (float x : out.AsFloat32()) EXPECT_EQ(x, 6.0f);

  const json info = JsonOutput(RunMxu("info --json"));
  EXPECT_EQ(info["array_rows"], 16);
  EXPECT_EQ(info["backend"], "rtl");

  // Both backends, compared after the program; the summary on stderr, the JSON alone on stdout.
  const Result cross = RunMxu("gemm --m 33 --k 20 --n 40 --tb --relu --backend cross --json");
  const json crossed = JsonOutput(cross);
  EXPECT_EQ(crossed["macs"], 33 * 20 * 40);
  // The stored bytes: C's 33 x 40 fp32 elements, rows back to back (no padding).
  EXPECT_NE(cross.err.find("cross: 1 programs compared, 5280 stored bytes, no divergence"),
            std::string::npos)
      << cross.err;

  const json selfcheck = JsonOutput(RunMxu("selfcheck --vectors 100 --json"));
  EXPECT_EQ(selfcheck["mismatches"], 0);
  ASSERT_EQ(selfcheck["units"].size(), 6u);
  EXPECT_EQ(selfcheck["units"][0]["unit"], "bf16_mul");
}

// The devices of the build (MXU_DEVICES): `info --list` names them, the default first; --device
// runs each one's executable, on the RTL and on the model, which both report that device's
// parameters; a GEMM on each is bit-exact on both backends at once (cross).
TEST(MxuCli, EveryBuiltDeviceIsReachableWithDevice) {
  const CliResult list = RunMxu("info --list --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const json devices = json::parse(list.out);
  ASSERT_GE(devices.size(), 1u);
  EXPECT_TRUE(devices[0]["default"]);
  const CliResult plain = RunMxu("info --json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(json::parse(plain.out)["device"], devices[0]["name"]);
  for (const json& device : devices) {
    const std::string name = device["name"];
    for (const char* backend : {"rtl", "model"}) {
      const CliResult r =
          RunMxu("info --json --backend " + std::string(backend) + " --device " + name);
      ASSERT_EQ(r.exit_code, 0) << name << " " << backend << "\n" << r.err;
      const json info = json::parse(r.out);
      EXPECT_EQ(info["device"], name);
      EXPECT_EQ(info["backend"], backend);
      for (const char* key : {"array_rows", "array_cols", "ub_depth", "acc_depth",
                              "weight_fifo_depth", "pe_stages", "subnormals"}) {
        EXPECT_EQ(info[key], device[key]) << name << " " << backend << " " << key;
      }
    }
    const CliResult gemm =
        RunMxu("gemm --device=" + name + " --backend cross --m 21 --k 19 --n 11 --relu --check");
    EXPECT_EQ(gemm.exit_code, 0) << name << "\n" << gemm.err;
  }
  ExpectUsageError("info --device 3x3-nonesuch", "is neither a device of this build");
  // Issue 43: a spec spelled out in full (as MXU_DEVICES writes it, with hier=1) describes a built
  // device, and the RTL runs it: it used to be refused as "not built".
  for (const json& device : devices) {
    const std::string spec = std::to_string(device["array_rows"].get<int>()) + "x" +
                             std::to_string(device["array_cols"].get<int>()) +
                             (device["subnormals"] == "flush" ? "-flush" : "") +
                             ":ub=" + std::to_string(device["ub_depth"].get<int>()) +
                             ":acc=" + std::to_string(device["acc_depth"].get<int>()) +
                             ":wfifo=" + std::to_string(device["weight_fifo_depth"].get<int>()) +
                             ":pe=" + std::to_string(device["pe_stages"].get<int>()) +
                             ":bus=" + std::to_string(device["bus_bytes"].get<int>()) + ":hier=1";
    const CliResult r = RunMxu("info --json --backend rtl --device " + spec);
    ASSERT_EQ(r.exit_code, 0) << spec << "\n" << r.err;
    EXPECT_EQ(json::parse(r.out)["array_rows"], device["array_rows"]) << spec;
    EXPECT_EQ(json::parse(r.out)["pe_stages"], device["pe_stages"]) << spec;
  }
  ExpectUsageError("info --backend rtl --device " + std::string(devices[0]["name"]) +
                       ":pe=" + std::to_string(devices[0]["pe_stages"].get<int>() % 7 + 1),
                   "is not built here");
  const CliResult text = RunMxu("info --list");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find(std::string(devices[0]["name"]) + " *"), std::string::npos) << text.out;
}

// Issue 58: on a flush device, a partial last K tile whose products sum to -0 (-1.5 x 2^-126 +
// 2^-126, flushed) gives -0 as the contract does, on the RTL and across RTL and model, alone,
// after a full tile (K = Rows + 2) and onto a -0 bias; the RTL's padded rows used to make it +0.
TEST(MxuCli, AFlushDevicesPartialTileKeepsAMinusZeroSum) {
  const CliResult list = RunMxu("info --list --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::string name;
  int rows = 0;
  for (const json& device : json::parse(list.out)) {
    if (device["subnormals"] == "flush" && device["array_rows"].get<int>() > 2) {
      name = device["name"];
      rows = device["array_rows"];
      break;
    }
  }
  if (name.empty()) GTEST_SKIP() << "no flush device with more than 2 rows is built";
  const float tiny = std::ldexp(1.0f, -126);
  const std::string fbias = TempPath("mz_bias.npy");
  WriteNpy(fbias, std::vector<float>{-0.0f}, {1});
  for (int k : {2, rows + 2}) {
    std::vector<float> b;
    for (int i = 0; i < k; ++i) b.push_back(i % 2 ? tiny : -1.5f * tiny);
    const std::string fa = TempPath("mz_a.npy"), fb = TempPath("mz_b.npy");
    const std::string out = TempPath("mz_c.npy");
    WriteNpy(fa, std::vector<float>(size_t(k), 1.0f), {1, size_t(k)});
    WriteNpy(fb, b, {size_t(k), 1});
    for (const char* backend : {"rtl", "cross"}) {
      for (bool bias : {false, true}) {
        const std::string what =
            name + " " + backend + " K " + std::to_string(k) + (bias ? " bias -0" : "");
        const Result r =
            RunMxu("gemm --device " + name + " --backend " + backend + " --a " + fa + " --b " + fb +
                   (bias ? " --bias " + fbias : "") + " --out " + out + " --check --json");
        EXPECT_EQ(JsonOutput(r)["mismatches"], 0) << what << "\n" << r.out;
        const std::vector<float> c = ReadNpy(out).AsFloat32();
        ASSERT_EQ(c.size(), 1u) << what;
        EXPECT_TRUE(c[0] == 0.0f && std::signbit(c[0])) << what << ": " << c[0];
      }
    }
  }
}

// The model backend stands for any device spec, built or not (a bit-exact GEMM on a 24 x 40
// array with 7 PE stages, a 512-byte port and small buffers); the RTL and cross backends refuse a
// device that is not built, naming the built ones; a bad spec gets its rule.
TEST(MxuCli, ModelRunsAnyDeviceSpec) {
  const std::string spec = "24x40-flush:ub=512:acc=128:pe=7:bus=512";
  const CliResult info = RunMxu("info --json --backend model --device " + spec);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const json j = json::parse(info.out);
  EXPECT_EQ(j["device"], spec);
  EXPECT_EQ(j["array_rows"], 24);
  EXPECT_EQ(j["array_cols"], 40);
  EXPECT_EQ(j["ub_depth"], 512);
  EXPECT_EQ(j["acc_depth"], 128);
  EXPECT_EQ(j["pe_stages"], 7);
  EXPECT_EQ(j["bus_bytes"], 512);
  EXPECT_EQ(j["subnormals"], "flush");
  const CliResult gemm =
      RunMxu("gemm --backend model --device " + spec + " --m 50 --k 70 --n 90 --relu --check");
  EXPECT_EQ(gemm.exit_code, 0) << gemm.err;
  for (const char* backend : {"rtl", "cross"}) {
    ExpectUsageError("info --backend " + std::string(backend) + " --device 4x4:pe=2",
                     "is not built here (built: '");
  }
  ExpectUsageError("info --backend model --device 16x16:pe=0",
                   "pe=0 must be 1 to 7 (the PE's pipeline stages)");
  ExpectUsageError("info --backend model --device 16x16:speed=1", "unknown option 'speed'");
  ExpectUsageError("info --backend model --device 16x16:bus=24",
                   "bus=24 must be a power of two from 16 to 1024");
  ExpectUsageError("info --backend model --device 16x16:bus=2048",
                   "bus=2048 must be a power of two from 16 to 1024");
}

}  // namespace
}  // namespace mxu::host
