// `mxu train` as a user meets it: bad data and flags give one line and exit code 2; a seed
// reproduces a run's log on the RTL device; the CSV log, the JSON summary and the PNG plot are
// written. Runs the built binary as a child process.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/host/mxu_cli.h"

namespace mxu::host {
namespace {

using nlohmann::json;

// A small IDX file: big-endian header, then the bytes.
std::string Idx(uint8_t type, const std::vector<uint32_t>& dims, size_t payload) {
  std::string bytes = {0, 0, static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes += static_cast<char>((d >> shift) & 0xFF);
  }
  for (size_t i = 0; i < payload; ++i) bytes += static_cast<char>(i % 3);
  return bytes;
}

std::string MakeDir(const std::string& name) {
  const std::string dir = TempPath(name);
  std::string command = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return dir;
}

TEST(MxuTrainCli, BadDataFilesGiveOneLineErrors) {
  ExpectUsageError("train --data " + TempPath("no_such_dir"), "no such directory");

  const std::string empty = MakeDir("idx_empty");
  ExpectUsageError("train --data " + empty, "missing training images");

  const std::string bad_magic = MakeDir("idx_bad_magic");
  WriteBytes(bad_magic + "/train-images-idx3-ubyte", "GIF89a........");
  WriteBytes(bad_magic + "/train-labels-idx1-ubyte", Idx(0x08, {4}, 4));
  ExpectUsageError("train --data " + bad_magic, "bad magic");

  const std::string truncated = MakeDir("idx_truncated");
  WriteBytes(truncated + "/train-images-idx3-ubyte", Idx(0x08, {10, 4, 4}, 100));
  WriteBytes(truncated + "/train-labels-idx1-ubyte", Idx(0x08, {10}, 10));
  ExpectUsageError("train --data " + truncated, "train-images-idx3-ubyte");

  const std::string mismatch = MakeDir("idx_mismatch");
  WriteBytes(mismatch + "/train-images-idx3-ubyte", Idx(0x08, {10, 4, 4}, 160));
  WriteBytes(mismatch + "/train-labels-idx1-ubyte", Idx(0x08, {9}, 9));
  ExpectUsageError("train --data " + mismatch, "10");

  const std::string gzipped = MakeDir("idx_gzip");
  WriteBytes(gzipped + "/train-images-idx3-ubyte", "\x1f\x8b\x08\x00 compressed");
  WriteBytes(gzipped + "/train-labels-idx1-ubyte", Idx(0x08, {4}, 4));
  ExpectUsageError("train --data " + gzipped, "train-images-idx3-ubyte: truncated gzip data");
}

TEST(MxuTrainCli, BadFlagsGiveOneLineErrors) {
  ExpectUsageError("train --backend host --hidden 32,x", "--hidden");
  ExpectUsageError("train --backend host --optimizer rmsprop", "unknown optimizer 'rmsprop'");
  ExpectUsageError("train --backend host --lr -1", "--lr");
  ExpectUsageError("train --backend host --loss-scale 1000", "powers of two");
  ExpectUsageError("train --backend host --epochs 0", "--epochs must be in");
  ExpectUsageError("train --backend host --train-samples 5", "--train-samples");
  ExpectUsageError("train --backend fpga", "unknown backend 'fpga'");
  // Values that were accepted and did nothing useful.
  ExpectUsageError("train --backend host --hidden 8,", "--hidden: '8,' is not a comma-separated");
  ExpectUsageError("train --backend host --hidden ,8", "--hidden");
  ExpectUsageError("train --backend host --hidden 8,,8", "--hidden");
  ExpectUsageError("train --backend host --optimizer sgd --momentum 5",
                   "--momentum must be in [0, 1), got 5");
  ExpectUsageError("train --backend host --optimizer sgd --momentum 1", "--momentum must be in");
  ExpectUsageError("train --backend host --momentum 0.5", "--momentum is SGD's");
  ExpectUsageError("train --backend host --inject-overflow 0", "--inject-overflow must be in");
  // 675 training spirals in batches of 64: 11 steps an epoch.
  ExpectUsageError("train --backend host --epochs 2 --inject-overflow 23",
                   "--inject-overflow must be a step in [1, 22] (2 epochs of 11 steps), got 23");
  ExpectUsageError("train --backend host --lr 0x10", "--lr expects a decimal number");
  ExpectUsageError("train --backend host --lr nan", "--lr expects a decimal number");
  // A number is held as a float32: its rounding keeps the range too, and the message says why.
  ExpectUsageError("train --backend host --dropout 0.99999999",
                   "--dropout must be in [0, 1), got 0.99999999 (1 as a float32)");
  ExpectUsageError("train --backend host --epochs 08 --epochs 8", "--epochs given twice");
  ExpectUsageError("train --backend host --classes 4 --data x", "excludes --classes");
  ExpectUsageError("train --backend host --model rnn", "unknown model 'rnn' (expected mlp or cnn)");
  ExpectUsageError("train --backend host --model cnn", "--model cnn needs image data");
  ExpectUsageError("train --backend host --channels 4", "--channels is the CNN's");
  ExpectUsageError("train --backend host --model cnn --data x --channels 4,", "--channels: '4,'");
}

// The confusion matrix of a JSON summary: classes x classes counts of the test set, rows the
// true classes; its diagonal is the accuracy.
void ExpectConfusionOfTheTestSet(const json& summary, size_t classes) {
  const json& confusion = summary["confusion"];
  ASSERT_EQ(confusion.size(), classes) << summary;
  int total = 0, diagonal = 0;
  for (size_t r = 0; r < classes; ++r) {
    ASSERT_EQ(confusion[r].size(), classes);
    for (size_t c = 0; c < classes; ++c) total += confusion[r][c].get<int>();
    diagonal += confusion[r][r].get<int>();
  }
  const int samples = summary["test_samples"].get<int>();
  EXPECT_EQ(total, samples);
  EXPECT_NEAR(diagonal, summary["test_accuracy"].get<double>() * samples, 1e-6);
}

// The installed Fashion-MNIST (scripts/setup.sh installs it), read from its .gz files, trains
// on the model backend: an MLP and a small CNN, a few steps each.
TEST(MxuTrainCli, FashionMnistTrainsOnTheModelBackend) {
  const std::string flags =
      "train --data fashion-mnist --backend model --train-samples 512 --test-samples 300 --json ";
  const CliResult mlp = RunMxu(flags + "--epochs 2 --hidden 32");
  ASSERT_EQ(mlp.exit_code, 0) << mlp.err;
  const json a = json::parse(mlp.out);
  EXPECT_EQ(a["data"], "Fashion-MNIST");
  EXPECT_EQ(a["layers"], "784-32-10");
  EXPECT_EQ(a["test_samples"], 300);
  EXPECT_EQ(a["steps"], 16);
  EXPECT_GT(a["test_accuracy"].get<double>(), 0.5) << mlp.out;  // chance is 0.1
  ExpectConfusionOfTheTestSet(a, 10);

  // Eight steps: Adam's larger step of the spirals (0.01) gets somewhere in them.
  const CliResult cnn =
      RunMxu(flags + "--epochs 1 --model cnn --channels 4,8 --hidden 16 --lr 0.01");
  ASSERT_EQ(cnn.exit_code, 0) << cnn.err;
  const json b = json::parse(cnn.out);
  EXPECT_EQ(b["model"], "CNN 28x28 conv3x3-4 pool2 conv3x3-8 pool2 dense 392-16-10");
  EXPECT_GT(b["test_accuracy"].get<double>(), 0.35) << cnn.out;  // 51%
  ExpectConfusionOfTheTestSet(b, 10);
  // One conv layer's weight gradient sums batch x 784 pixels: the batch is capped.
  ExpectUsageError("train --data fashion-mnist --backend model --model cnn --batch 84",
                   "--batch 84 with 784-pixel images is above the CNN's limit of 83");
}

// Output files are checked before training starts: a missing directory, one file for two
// outputs. Nothing is trained (no epoch line) and nothing is written.
TEST(MxuTrainCli, OutputPathsAreCheckedBeforeTraining) {
  const std::string csv = TempPath("same.csv");
  ExpectUsageError("train --backend host --epochs 1 --log " + csv + " --plot " + csv,
                   "--log and --plot name one file");
  EXPECT_EQ(ReadFile(csv), "");
  const CliResult r =
      RunMxu("train --backend host --epochs 1 --plot " + TempPath("no_dir/curves.png"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--plot: cannot write plot file"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << "training ran";
}

// A diverging run (a huge learning rate) has NaN losses: its JSON summary says null, and stays
// JSON.
TEST(MxuTrainCli, NonFiniteLossIsNullInJson) {
  const CliResult r =
      RunMxu("train --backend host --epochs 2 --optimizer sgd --lr 1000000 --quiet --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json summary = json::parse(r.out);
  EXPECT_TRUE(summary["final_train_loss"].is_null()) << r.out;
  EXPECT_TRUE(summary["final_test_loss"].is_null()) << r.out;
  EXPECT_TRUE(summary["test_accuracy"].is_number()) << r.out;
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
}

// A stray label (200 among 0..2) does not make a 201-class model: refused, naming the file.
TEST(MxuTrainCli, SparseIdxLabelsAreRefused) {
  const std::string dir = MakeDir("idx_sparse");
  WriteBytes(dir + "/train-images-idx3-ubyte", Idx(0x08, {20, 4, 4}, 320));
  std::string labels = Idx(0x08, {20}, 20);
  labels[labels.size() - 1] = static_cast<char>(200);
  WriteBytes(dir + "/train-labels-idx1-ubyte", labels);
  ExpectUsageError("train --backend host --data " + dir,
                   "train-labels-idx1-ubyte: labels run up to 200 but class 3 has no sample");
}

TEST(MxuTrainCli, IdxDataTrainsOnTheHost) {
  // 20 images of 4x4 with labels 0..2, no t10k files: an 80/20 split of the training files.
  const std::string dir = MakeDir("idx_good");
  WriteBytes(dir + "/train-images-idx3-ubyte", Idx(0x08, {20, 4, 4}, 320));
  WriteBytes(dir + "/train-labels-idx1-ubyte", Idx(0x08, {20}, 20));
  const CliResult r = RunMxu("train --backend host --data " + dir + " --epochs 2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json summary = json::parse(r.out);
  EXPECT_EQ(summary["train_samples"].get<int>() + summary["test_samples"].get<int>(), 20) << r.out;
  EXPECT_GT(summary["test_samples"].get<int>(), 0) << r.out;
  EXPECT_EQ(summary["layers"], "16-32-32-3") << r.out;  // 4x4 pixels, 3 classes
}

// Two runs with one seed on the RTL device write identical logs (device cycles included); the
// plot is a PNG; without a terminal the progress is plain lines, one per epoch.
TEST(MxuTrainCli, OneSeedGivesIdenticalLogsOnTheDevice) {
  const std::string flags = "train --epochs 2 --samples-per-class 40 --hidden 16 --seed 3";
  const std::string log_a = TempPath("a.csv"), log_b = TempPath("b.csv"), png = TempPath("c.png");
  const CliResult a = RunMxu(flags + " --log " + log_a + " --plot " + png);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const CliResult b = RunMxu(flags + " --log " + log_b);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const std::string csv = ReadFile(log_a);
  EXPECT_EQ(csv, ReadFile(log_b));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;  // header + 2 epochs
  EXPECT_EQ(csv.rfind("epoch,train_loss,", 0), 0u) << csv;
  EXPECT_EQ(a.out.find('\r'), std::string::npos);
  EXPECT_NE(a.out.find("epoch 1/2"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("epoch 2/2"), std::string::npos) << a.out;
  EXPECT_EQ(ReadFile(png).rfind("\x89PNG\r\n\x1a\n", 0), 0u);
  // Another seed gives another run.
  const std::string log_c = TempPath("c.csv");
  ASSERT_EQ(RunMxu("train --epochs 2 --samples-per-class 40 --hidden 16 --seed 4 --log " + log_c)
                .exit_code,
            0);
  EXPECT_NE(csv, ReadFile(log_c));
}

// The training run's trace window and timeline, as for `mxu gemm` (tests/waves/ checks their
// contents in depth).
TEST(MxuTrainCli, TraceWindowAndTimelineOfATrainingRun) {
  const std::string fst = TempPath("train.fst"), timeline = TempPath("train.json");
  const CliResult r = RunMxu("train --epochs 1 --samples-per-class 20 --hidden 8 --quiet --trace " +
                             fst + " --trace-start 1000 --trace-cycles 300 --timeline " + timeline);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(ReadFile(fst).size(), 0u);
  const std::string json = ReadFile(timeline);
  EXPECT_EQ(json.find('{'), 0u) << json.substr(0, 80);
  EXPECT_NE(json.find("MATMUL"), std::string::npos);
  EXPECT_NE(json.find("STORE"), std::string::npos);
  // Programs are named by layer, pass and shape (M x K x N), not numbered: the forward pass is
  // one program, each layer's dW and dX another.
  for (const char* name : {"\"layer 1 forward ", ", layer 2 forward ", "\"layer 2 dW ",
                           ", layer 2 dX ", "\"layer 1 dW "}) {
    EXPECT_NE(json.find(name), std::string::npos) << name;
  }
  EXPECT_EQ(json.find("\"program "), std::string::npos);
  // The trace's GTKWave save file, beside it.
  EXPECT_NE(ReadFile(fst.substr(0, fst.size() - 4) + ".gtkw").find("[dumpfile]"),
            std::string::npos);
  ExpectUsageError("train --backend host --timeline " + timeline, "not with --backend host");
}

TEST(MxuTrainCli, InjectedOverflowIsLogged) {
  const CliResult r = RunMxu(
      "train --backend host --epochs 1 --samples-per-class 40 --hidden 8 --inject-overflow 2 "
      "--loss-scale 1024 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("step 2: gradient holds Inf/NaN: step skipped, loss scale 1024 -> 512"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(json::parse(r.out)["skipped_steps"], 1) << r.out;
}

// The documented ranges hold (issue 30): --hidden 4095,4095 (in [1, 4096]) trains on the model
// (its chained results overflowed the unified buffer); a CNN whose dense layer would be above
// the device's GEMM limit is refused at once naming --channels (it failed after the first
// epoch's GEMMs with a message naming no flag).
TEST(MxuTrainCli, DocumentedRangesHold) {
  const CliResult wide = RunMxu(
      "train --backend model --hidden 4095,4095 --epochs 1 --samples-per-class 40 --json --quiet");
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_EQ(json::parse(wide.out)["layers"], "2-4095-4095-3");

  const std::string images = MakeDir("idx_28x28");
  WriteBytes(images + "/train-images-idx3-ubyte", Idx(0x08, {15, 28, 28}, 15 * 28 * 28));
  WriteBytes(images + "/train-labels-idx1-ubyte", Idx(0x08, {15}, 15));
  ExpectUsageError("train --backend model --model cnn --channels 4096 --data " + images,
                   "--channels 4096: the last conv layer gives 802816 features");
  ExpectUsageError("train --backend model --model cnn --channels 335 --data " + images,
                   "above the device's GEMM limit of 65535");
}

}  // namespace
}  // namespace mxu::host
