// Nothing lost, nothing swallowed (host/cli/output_file.h): every output is a regular file or
// absent, checked against the inputs and the other outputs, and written whole or not at all;
// stdout's writes are checked; a flag never becomes an option's value; an input is checked against
// its size before it is read. Device nodes are made with mknod in a scratch directory (never the
// system's own); the cases that need one skip where mknod is not allowed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "io/npy.h"
#include "tests/host/mxu_cli.h"

namespace mxu::host {
namespace {

namespace fs = std::filesystem;
using Result = CliResult;

const std::string kGemm = "gemm --m 8 --k 8 --n 8";
// The model backend: no RTL needed where the recording does not matter.
const std::string kModelGemm = kGemm + " --backend model";

// A fresh scratch directory per case.
std::string ScratchDir(const std::string& name) {
  const std::string dir = TempPath(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A character device node at path (1,7 is full, 1,5 zero, 1,3 null); false where not allowed.
bool MakeNode(const std::string& path, unsigned minor) {
  return mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
}

bool IsCharDevice(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// Files left beside the outputs: the temporaries must all be gone.
std::vector<std::string> Leftovers(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".mxu-") != std::string::npos) names.push_back(name);
  }
  return names;
}

void ExpectOneLine(const Result& r, int code, const std::string& fragment) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
}

// Defect 1: --trace removed whatever was at its path and its .gtkw's before the run.
TEST(Outputs, TraceRefusesDeviceNodesAndKeepsThem) {
  const std::string dir = ScratchDir("nodes");
  if (!MakeNode(dir + "/full", 7) || !MakeNode(dir + "/null.gtkw", 3)) {
    GTEST_SKIP() << "mknod not allowed here";
  }
  ExpectUsageError(kGemm + " --trace " + dir + "/full", "not a regular file");
  ExpectUsageError(kGemm + " --trace " + dir + "/null.fst", "not a regular file");
  ExpectUsageError(kModelGemm + " --out " + dir + "/full", "not a regular file");
  EXPECT_TRUE(IsCharDevice(dir + "/full"));
  EXPECT_TRUE(IsCharDevice(dir + "/null.gtkw"));
}

TEST(Outputs, TraceSaveFileIsCheckedAgainstInputsAndOutputs) {
  const std::string dir = ScratchDir("gtkw");
  const std::string in = dir + "/in.gtkw", b = dir + "/b.npy";
  WriteNpy(in, std::vector<float>(64, 1.0f), {8, 8});
  WriteNpy(b, std::vector<float>(64, 2.0f), {8, 8});
  const std::string before = ReadFile(in);
  ExpectUsageError("gemm --a " + in + " --b " + b + " --trace " + dir + "/in.fst",
                   "--trace's save file '" + in + "' would overwrite the input --a");
  EXPECT_EQ(ReadFile(in), before);
  ExpectUsageError(kGemm + " --trace " + dir + "/t.fst --timeline " + dir + "/t.gtkw",
                   "--trace's save file and --timeline name one file");
  ExpectUsageError(kGemm + " --trace " + dir + "/t.fst --out " + dir + "/t.gtkw",
                   "--out and --trace's save file name one file");
}

// Defect 2: train's outputs were never checked against its data files.
TEST(Outputs, TrainOutputsAreCheckedAgainstTheData) {
  const std::string dir = ScratchDir("data");
  const std::string labels = dir + "/train-labels-idx1-ubyte";
  WriteBytes(labels, std::string("\0\0\x08\x01\0\0\0\x02\x00\x01", 10));
  WriteBytes(dir + "/train-images-idx3-ubyte",
             std::string("\0\0\x08\x03\0\0\0\x02\0\0\0\x01\0\0\0\x01\x10\x20", 18));
  const std::string before = ReadFile(labels);
  ExpectUsageError("train --backend host --data " + dir + " --log " + labels,
                   "would overwrite the input --data");
  ExpectUsageError(
      "train --backend host --data " + dir + " --plot " + dir + "/./train-images-idx3-ubyte",
      "would overwrite the input --data");
  EXPECT_EQ(ReadFile(labels), before);
}

// Links: a dangling one is refused; one to a file is written through (the link stays); two
// outputs that are hard links of one file are one file.
TEST(Outputs, SymbolicAndHardLinks) {
  const std::string dir = ScratchDir("links");
  fs::create_symlink(dir + "/nowhere/c.npy", dir + "/dangling.npy");
  ExpectUsageError(kModelGemm + " --out " + dir + "/dangling.npy", "a symbolic link to nothing");

  WriteBytes(dir + "/target.npy", "old");
  fs::create_symlink(dir + "/target.npy", dir + "/link.npy");
  const Result r = RunMxu(kModelGemm + " --out " + dir + "/link.npy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir + "/link.npy"));
  EXPECT_EQ(ReadNpy(dir + "/target.npy").shape, (std::vector<size_t>{8, 8}));

  WriteBytes(dir + "/one.json", "old");
  fs::create_hard_link(dir + "/one.json", dir + "/two.json");
  ExpectUsageError(kGemm + " --timeline " + dir + "/one.json --trace " + dir + "/two.json",
                   "name one file");
  EXPECT_TRUE(Leftovers(dir).empty());
}

// Defect 3: a failed run (a trace window past the end, a write over the file-size limit) leaves
// the old files as they were, and no temporary behind.
TEST(Outputs, AFailedRunKeepsTheOldFiles) {
  const std::string dir = ScratchDir("failed");
  const std::string out = dir + "/c.npy", fst = dir + "/t.fst";
  WriteBytes(out, "an older result");
  WriteBytes(fst, "an older trace");
  const Result late =
      RunMxu(kGemm + " --out " + out + " --trace " + fst + " --trace-start 100000000");
  ExpectOneLine(late, 1, "no trace written");
  EXPECT_EQ(ReadFile(out), "an older result");
  EXPECT_EQ(ReadFile(fst), "an older trace");

  // 64 x 64 fp32 is 16 KiB, over a 4 KiB limit; SIGXFSZ ignored, so the write fails (EFBIG).
  const Result big = RunShell("trap '' XFSZ; ulimit -f 4; " + std::string(MXU_BINARY) +
                              " gemm --backend model --out " + out);
  EXPECT_EQ(big.exit_code, 1) << big.err;
  EXPECT_EQ(ReadFile(out), "an older result");
  EXPECT_TRUE(Leftovers(dir).empty());
}

// Issue 69: a name the system cannot create was found only when the run had ended. Every output
// option of every command: a file name longer than the directory takes, or a path under a
// regular file, is refused on one line before anything runs (nothing printed, exit 2).
TEST(Outputs, UncreatableNamesAreRefusedBeforeTheRun) {
  const std::string dir = ScratchDir("uncreatable");
  const std::string model = dir + "/m.npz";
  ASSERT_EQ(RunMxu("train --backend model --quiet --epochs 1 --save " + model).exit_code, 0);
  WriteBytes(dir + "/file", "a regular file");
  const std::string bench = "bench --backend model --shape 32x32x32 ";
  const std::vector<std::string> commands = {kModelGemm + " --out",
                                             kModelGemm + " --out-bf16",
                                             kModelGemm + " --dtype int8 --scale 0.5 --out-int8",
                                             kGemm + " --trace",
                                             kGemm + " --timeline",
                                             "train --backend host --epochs 1 --log",
                                             "train --backend host --epochs 1 --plot",
                                             "train --backend host --epochs 1 --save",
                                             "train --epochs 1 --samples-per-class 10 --trace",
                                             "train --epochs 1 --samples-per-class 10 --timeline",
                                             "predict --backend model --model " + model + " --out",
                                             bench + "--json",
                                             bench + "--plot",
                                             bench + "--roofline"};
  for (const std::string& command : commands) {
    const Result too_long = RunMxu(command + " " + dir + "/" + std::string(300, 'x'));
    ExpectOneLine(too_long, 2, "the file name is too long (300 bytes");
    EXPECT_EQ(too_long.out, "") << command;
    const Result under_a_file = RunMxu(command + " " + dir + "/file/x");
    ExpectOneLine(under_a_file, 2, "'" + dir + "/file' is not a directory");
    EXPECT_EQ(under_a_file.out, "") << command;
  }
  EXPECT_TRUE(Leftovers(dir).empty());
}

// A name the directory takes is written, however long: its hidden temporary (".NAME.mxu-XXXXXX",
// 11 bytes more) is shortened to fit, with room for the FST writer's ".hier" beside a trace's.
TEST(Outputs, LongNamesAreWritten) {
  const std::string dir = ScratchDir("long_names");
  const std::string name = dir + "/" + std::string(250, 'y');
  Result r = RunMxu(kModelGemm + " --out " + name + ".npy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadNpy(name + ".npy").shape, (std::vector<size_t>{8, 8}));
  r = RunMxu(kGemm + " --trace " + name + ".fst --trace-cycles 100 --timeline " + name + ".json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(fs::file_size(name + ".fst"), 0u);
  EXPECT_NE(ReadFile(name + ".gtkw").find("[dumpfile] \"" + name + ".fst\""), std::string::npos);
  EXPECT_GT(fs::file_size(name + ".json"), 0u);
  EXPECT_TRUE(Leftovers(dir).empty());
}

// Two runs writing one file at once: the file is always one run's whole result.
TEST(Outputs, ConcurrentWritersLeaveOneWholeResult) {
  const std::string dir = ScratchDir("concurrent");
  const std::string out = dir + "/c.npy";
  const std::string gemm = std::string(MXU_BINARY) + " gemm --backend model --m 96 --k 96 --n 96";
  std::vector<std::string> want;
  for (const char* seed : {"1", "2"}) {
    ASSERT_EQ(RunShell(gemm + " --seed " + seed + " --out " + out).exit_code, 0);
    want.push_back(ReadFile(out));
  }
  ASSERT_NE(want[0], want[1]);
  for (int trial = 0; trial < 6; ++trial) {
    const Result r = RunShell("(" + gemm + " --seed 1 --out " + out + " & " + gemm +
                              " --seed 2 --out " + out + " & wait) >/dev/null");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string got = ReadFile(out);
    EXPECT_TRUE(got == want[0] || got == want[1]) << "trial " << trial << ": a torn file";
  }
  EXPECT_TRUE(Leftovers(dir).empty());
}

// Defect 9: a full stdout is a failed run with one line.
TEST(Outputs, WritesToStdoutAreChecked) {
  const std::string dir = ScratchDir("stdout");
  const std::string full = dir + "/full";
  if (!MakeNode(full, 7)) GTEST_SKIP() << "mknod not allowed here";
  for (const std::string& args : {std::string("info --json"), std::string("info --list"),
                                  kModelGemm + " --json", std::string("help")}) {
    const Result r = RunShell(std::string(MXU_BINARY) + " " + args + " >" + full);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("cannot write to standard output"), std::string::npos) << r.err;
  }
}

// Defect 4: an option that takes a value swallowed the flag after it.
TEST(Outputs, AFlagIsNeverAValue) {
  ExpectUsageError(kModelGemm + " --out --check", "--out needs a value, got the option '--check'");
  ExpectUsageError(kModelGemm + " --out --relu", "--out needs a value");
  ExpectUsageError("train --backend host --log --json", "--log needs a value");
  EXPECT_FALSE(fs::exists("--check"));
  // A value may still start with '-' where it is not flag-shaped: a range error, not this one.
  ExpectUsageError(kModelGemm + " --seed -1", "--seed");
}

// Defect 10: `mxu help` of an unknown command.
TEST(Outputs, HelpOfAnUnknownCommandIsAUsageError) {
  ExpectUsageError("help nosuch", "unknown command 'nosuch'");
  EXPECT_EQ(RunMxu("help gemm").exit_code, 0);
}

// Defect 10: options that would have no effect are refused, not ignored.
TEST(Outputs, OptionsWithoutEffectAreRefused) {
  ExpectUsageError("info --list --backend model", "--backend has no effect with --list");
  ExpectUsageError("info --list --mem-latency 5", "--mem-latency has no effect with --list");
  ExpectUsageError("train --backend host --mem-latency 5", "--mem-latency has no effect");
  ExpectUsageError("train --backend host --watchdog 5", "--watchdog has no effect");
  // Issue 43: --clock-mhz prices the sweep's time, and was ignored without one.
  ExpectUsageError("bench --backend model --shape 32x32x32 --clock-mhz 500",
                   "--clock-mhz has no effect without --sweep");
  EXPECT_EQ(RunMxu("info --list").exit_code, 0);
}

// Defect 7: inputs are checked against their size before they are read: a device, a header
// that declares more than the file holds. A 1 GiB address-space limit makes reading first fail.
TEST(Inputs, SizesAreCheckedBeforeReading) {
  const std::string dir = ScratchDir("inputs");
  const std::string b = dir + "/b.npy";
  WriteNpy(b, std::vector<float>(64, 2.0f), {8, 8});
  if (MakeNode(dir + "/zero", 5)) {
    ExpectUsageError("gemm --backend model --a " + dir + "/zero --b " + b, "not a regular file");
    fs::create_directories(dir + "/idx");
    ASSERT_TRUE(MakeNode(dir + "/idx/train-images-idx3-ubyte", 5));
    WriteBytes(dir + "/idx/train-labels-idx1-ubyte", std::string("\0\0\x08\x01\0\0\0\x01\0", 9));
    ExpectUsageError("train --backend host --data " + dir + "/idx", "not a regular file");
  }
  // A sparse 3 GiB file whose header declares 6.4 GB.
  const std::string big = dir + "/big.npy";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (40000, 40000), }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  WriteBytes(big, std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xFF) +
                      char(header.size() >> 8) + header);
  ASSERT_EQ(truncate(big.c_str(), off_t{3} << 30), 0);
  const Result r = RunShell("ulimit -v 1048576; " + std::string(MXU_BINARY) +
                            " gemm --backend model --a " + big + " --b " + b);
  ExpectOneLine(r, 2, "truncated data: expected 6400000000 bytes");
  fs::remove(big);
}

// Issue 43, defect 6: a FIFO in the place of any input is refused before it is opened (open()
// would wait for a writer); `timeout` turns a hang into a failure.
TEST(Inputs, FifosAreRefusedBeforeTheyAreOpened) {
  const std::string dir = ScratchDir("fifos");
  const std::string fifo = dir + "/fifo", b = dir + "/b.npy";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  WriteNpy(b, std::vector<float>(64, 2.0f), {8, 8});
  fs::create_directories(dir + "/idx");
  ASSERT_EQ(mkfifo((dir + "/idx/train-images-idx3-ubyte").c_str(), 0600), 0);
  WriteBytes(dir + "/idx/train-labels-idx1-ubyte", std::string("\0\0\x08\x01\0\0\0\x01\0", 9));
  for (const std::string& args :
       {"gemm --backend model --a " + fifo + " --b " + b,
        "gemm --backend model --a " + b + " --b " + b + " --bias " + fifo,
        "gemm --backend model --dtype int8 --m 4 --k 4 --n 4 --out-int8 " + dir +
            "/c.npy --scales " + fifo,
        "train --backend model --resume " + fifo, "predict --backend model --model " + fifo,
        "train --backend host --data " + dir + "/idx"}) {
    const Result r = RunShell("timeout 30 " + std::string(MXU_BINARY) + " " + args);
    ExpectOneLine(r, 2, "not a regular file");
  }
}

// Issue 43, defect 1: predict's --out is checked against the files of the data set it reads
// (its --data, or the one its model names), every spelling the loader looks for, plain or .gz.
TEST(Outputs, PredictNeverOverwritesItsDataSet) {
  const std::string dir = ScratchDir("predict_data");
  const std::string data = dir + "/D", ck = dir + "/m.npz";
  fs::create_directories(data);
  WriteTinyIdxData(data);
  ASSERT_EQ(
      RunMxu("train --backend model --quiet --epochs 1 --hidden 4 --data " + data + " --save " + ck)
          .exit_code,
      0);
  const std::string images = ReadFile(data + "/train-images-idx3-ubyte");
  const std::string predict = "predict --backend model --model " + ck;
  ExpectOneLine(RunMxu(predict + " --out " + data + "/train-images-idx3-ubyte"), 2,
                "would overwrite the input --model's data");
  ExpectOneLine(RunMxu(predict + " --data " + data + " --out " + data + "/t10k-labels-idx1-ubyte"),
                2, "would overwrite the input --data");
  // A file the loader would read before an existing one's .gz, or the .gz itself.
  ExpectOneLine(RunMxu(predict + " --out " + data + "/train-labels.idx1-ubyte.gz"), 2,
                "would overwrite the input");
  EXPECT_EQ(ReadFile(data + "/train-images-idx3-ubyte"), images);
  EXPECT_FALSE(fs::exists(data + "/train-labels.idx1-ubyte.gz"));
  EXPECT_EQ(RunMxu(predict + " --out " + dir + "/predictions.npy").exit_code, 0);
}

}  // namespace
}  // namespace mxu::host
