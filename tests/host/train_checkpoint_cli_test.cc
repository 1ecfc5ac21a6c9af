// `mxu train --save / --resume`, `mxu predict` and the training options around them (dropout,
// gradient accumulation, clipping), run as a user would: resuming is bit for bit the run that was
// not stopped, a signal leaves a whole checkpoint of the last finished step, accumulation equals
// one larger batch, predict equals the training run's final evaluation, and bad input is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/npy.h"
#include "io/npz.h"
#include "tests/host/mxu_cli.h"

namespace mxu::host {
namespace {

using nlohmann::json;

// The spirals on the fast model backend: 11 steps an epoch at the default batch of 64.
const std::string kTrain = "train --backend model --quiet";

// A column of a CSV log, one value per epoch.
std::vector<std::string> Column(const std::string& csv, int column) {
  std::vector<std::string> values;
  size_t line = csv.find('\n') + 1;  // past the header
  while (line < csv.size()) {
    const size_t end = csv.find('\n', line);
    std::string row = csv.substr(line, end - line);
    for (int c = 0; c < column; ++c) row = row.substr(row.find(',') + 1);
    values.push_back(row.substr(0, row.find(',')));
    line = end + 1;
  }
  return values;
}
constexpr int kTestAccuracyColumn = 4, kWeightsHashColumn = 12;

TEST(MxuTrainCheckpoint, TwoEpochsThenResumeToFourIsFourInOneRun) {
  const std::string full_log = TempPath("full.csv"), full_ck = TempPath("full.npz");
  const std::string half_log = TempPath("half.csv"), half_ck = TempPath("half.npz");
  ASSERT_EQ(RunMxu(kTrain + " --epochs 4 --log " + full_log + " --save " + full_ck).exit_code, 0);
  ASSERT_EQ(RunMxu(kTrain + " --epochs 2 --save " + half_ck).exit_code, 0);
  const CliResult resumed = RunMxu(kTrain + " --epochs 4 --resume " + half_ck + " --save " +
                                   half_ck + " --log " + half_log);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  // Every log line (the resumed run writes the history it resumed from too) and the final
  // checkpoint (weights, Adam's moments and step, loss scale, data order, counters) bit for bit.
  EXPECT_EQ(ReadFile(half_log), ReadFile(full_log));
  EXPECT_EQ(Column(ReadFile(full_log), 0).size(), 4u);
  EXPECT_EQ(ReadFile(half_ck), ReadFile(full_ck));
}

// A resumed run's rates per second count only the steps it made: 2 epochs of 11 steps resumed
// to 4 made 22 steps in its wall time, not 44. Its device totals (the checkpoint's on) cover 44.
TEST(MxuTrainCheckpoint, AResumedRunsRatesCountItsOwnSteps) {
  const std::string ck = TempPath("rates.npz");
  const std::string run = "train --backend model --quiet --json";
  const json whole = JsonOutput(RunMxu(run + " --epochs 2"));
  ASSERT_EQ(RunMxu(kTrain + " --epochs 2 --save " + ck).exit_code, 0);
  const json resumed = JsonOutput(RunMxu(run + " --epochs 4 --resume " + ck));
  EXPECT_EQ(resumed["steps"], 44);
  EXPECT_EQ(resumed["steps_run"], 22);
  EXPECT_EQ(whole["steps_run"], whole["steps"]);
  const double wall = resumed["wall_seconds"], rate = resumed["steps_per_second"];
  EXPECT_NEAR(rate * wall, 22.0, 1e-6 * 22);
  const double samples_rate = resumed["samples_per_second"];
  EXPECT_NEAR(samples_rate * wall, 22.0 * 64, 1e-6 * 22 * 64);
  // Every step has the same shapes, so the same cycles on the model: per step over all 44.
  EXPECT_EQ(resumed["cycles_per_step"], whole["cycles_per_step"]);
}

TEST(MxuTrainCheckpoint, SgdAndAccumulationResumeBitIdentically) {
  const std::string full = TempPath("sgd_full.npz"), half = TempPath("sgd_half.npz");
  const std::string run = kTrain + " --optimizer sgd --batch 16 --accumulate-steps 2";
  ASSERT_EQ(RunMxu(run + " --epochs 3 --save " + full).exit_code, 0);
  ASSERT_EQ(RunMxu(run + " --epochs 1 --save " + half).exit_code, 0);
  ASSERT_EQ(RunMxu(kTrain + " --epochs 3 --resume " + half + " --save " + half).exit_code, 0);
  EXPECT_EQ(ReadFile(half), ReadFile(full));
}

// SIGINT or SIGTERM in the middle of an epoch: the step being run finishes, the checkpoint of
// that step is written whole, the exit code is 128 + the signal; resuming from it gives the run
// that was never stopped.
void InterruptAndResume(const std::string& signal, int expected_code) {
  const std::string ck = TempPath("stopped_" + signal + ".npz");
  const std::string log = TempPath("stopped_" + signal + ".csv");
  std::remove(ck.c_str());
  // 45000 samples, 704 steps an epoch: the first checkpoint (after epoch 1) is the cue to stop.
  const std::string run = kTrain + " --samples-per-class 15000 --batch 48";
  const CliResult stopped =
      RunShell("(" + std::string(MXU_BINARY) + " " + run + " --epochs 1000 --save " + ck +
               " & pid=$!; for i in $(seq 600); do [ -e " + ck +
               " ] && break; sleep 0.05; done; kill -" + signal + " $pid; wait $pid; echo $?)");
  ASSERT_EQ(stopped.out, std::to_string(expected_code) + "\n") << stopped.err;
  EXPECT_NE(stopped.err.find("checkpoint " + ck + " written"), std::string::npos) << stopped.err;
  // Stopped after some step of epoch 2 or later; resume to the end of the epoch it was in.
  const json at = JsonOutput(RunMxu("predict --backend model --json --model " + ck));
  EXPECT_GT(at["test_accuracy"].get<double>(), 0.5);
  const CliResult again = RunMxu(kTrain +
                                 " --samples-per-class 15000 --batch 48 --epochs 3 "
                                 "--resume " +
                                 ck + " --log " + log);
  if (again.exit_code == 2 && again.err.find("has finished 3 epochs") != std::string::npos) {
    GTEST_SKIP() << "the machine was too slow to stop the run within 3 epochs";
  }
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const std::string straight = TempPath("straight_" + signal + ".csv");
  ASSERT_EQ(RunMxu(run + " --epochs 3 --log " + straight).exit_code, 0);
  EXPECT_EQ(ReadFile(log), ReadFile(straight));
}

TEST(MxuTrainCheckpoint, SigintLeavesTheLastFinishedStep) { InterruptAndResume("INT", 130); }
TEST(MxuTrainCheckpoint, SigtermLeavesTheLastFinishedStep) { InterruptAndResume("TERM", 143); }

// A CNN's checkpoint: conv and dense weights by name, predict and resume as for the MLP (the
// installed Fashion-MNIST, 256 training images, on the model backend).
TEST(MxuTrainCheckpoint, ACnnPredictsAndResumes) {
  const std::string run =
      "train --backend model --quiet --json --model cnn --channels 4 "
      "--hidden 16 --data fashion-mnist --train-samples 256 --test-samples 100";
  const std::string ck = TempPath("cnn.npz");
  const json one = JsonOutput(RunMxu(run + " --epochs 1 --save " + ck));
  const json predicted = JsonOutput(RunMxu("predict --backend model --json --model " + ck));
  EXPECT_EQ(predicted["test_accuracy"], one["test_accuracy"]);
  EXPECT_EQ(predicted["confusion"], one["confusion"]);
  EXPECT_EQ(predicted["model"], "CNN 28x28 conv3x3-4 pool2 dense 784-16-10");
  const json resumed = JsonOutput(RunMxu(run + " --epochs 2 --resume " + ck));
  const json straight = JsonOutput(RunMxu(run + " --epochs 2"));
  EXPECT_EQ(resumed["weights_hash"], straight["weights_hash"]);
  ExpectUsageError(
      "train --backend model --model cnn --channels 8 --hidden 16 --data "
      "fashion-mnist --train-samples 256 --test-samples 100 --epochs 2 --resume " +
          ck,
      "trained with --channels 4, the command line gives 8");
}

TEST(MxuTrainCheckpoint, NumpyReadsTheDocumentedArrays) {
  const std::string ck = TempPath("numpy.npz");
  ASSERT_EQ(RunMxu(kTrain + " --epochs 2 --save " + ck).exit_code, 0);
  const CliResult r =
      RunShell(std::string(MXU_PYTHON) + " -c \"import numpy as np; z = np.load('" + ck +
               "', allow_pickle=False); print(z['model'], z['dense1_w'].shape, "
               "z['adam_v_dense3_b'].shape, int(z['step']), int(z['epoch']), "
               "z['history'].shape, z['loss_scale'].dtype)\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "MLP 2-32-32-3 (2, 32) (3,) 22 2 (2, 12) float32\n");
}

TEST(MxuPredict, EqualsTheTrainingRunsFinalEvaluation) {
  const std::string ck = TempPath("predict.npz"), out = TempPath("predictions.npy");
  const json trained = JsonOutput(RunMxu(kTrain + " --json --epochs 3 --save " + ck));
  const json predicted =
      JsonOutput(RunMxu("predict --backend model --json --model " + ck + " --out " + out));
  EXPECT_EQ(predicted["test_accuracy"], trained["test_accuracy"]);
  EXPECT_EQ(predicted["test_loss"], trained["final_test_loss"]);
  EXPECT_EQ(predicted["confusion"], trained["confusion"]);
  EXPECT_EQ(predicted["samples"], trained["test_samples"]);
  // One int32 class per sample: the .npy header, then 225 x 4 bytes.
  const std::string npy = ReadFile(out);
  EXPECT_NE(npy.find("'descr': '<i4'"), std::string::npos);
  EXPECT_NE(npy.find("(225,)"), std::string::npos);
  EXPECT_EQ(npy.size() % 64, 900u % 64);
}

TEST(MxuTrainAccumulation, MicroBatchesOfTheArraysRowsEqualOneLargeBatch) {
  // 16 rows a micro-batch on the 16x16 array: the K tiles of dW = X^T dY fall where they fall in
  // one 64-row batch, and C += A x B adds them in the same order: the same bits.
  const json large = JsonOutput(RunMxu(kTrain + " --json --epochs 3 --batch 64"));
  const json micro =
      JsonOutput(RunMxu(kTrain + " --json --epochs 3 --batch 16 --accumulate-steps 4"));
  EXPECT_EQ(micro["weights_hash"], large["weights_hash"]);
  EXPECT_EQ(micro["test_accuracy"], large["test_accuracy"]);
  EXPECT_EQ(micro["steps"], large["steps"]);
  EXPECT_EQ(micro["samples_per_step"], 64);
  EXPECT_GT(micro["gemms"].get<int>(), large["gemms"].get<int>());  // 4 micro-batches a step
  // 8 rows a micro-batch split a K tile: the sums round differently (close, not equal).
  const json split =
      JsonOutput(RunMxu(kTrain + " --json --epochs 3 --batch 8 --accumulate-steps 8"));
  EXPECT_NE(split["weights_hash"], large["weights_hash"]);
  EXPECT_NEAR(split["test_accuracy"].get<double>(), large["test_accuracy"].get<double>(), 0.03);
}

TEST(MxuTrainAccumulation, OnTheHostAnyMicroBatchEqualsOneLargeBatch) {
  const std::string host = "train --backend host --quiet --json --epochs 2";
  const json large = JsonOutput(RunMxu(host + " --batch 60"));
  const json micro = JsonOutput(RunMxu(host + " --batch 12 --accumulate-steps 5"));
  EXPECT_EQ(micro["weights_hash"], large["weights_hash"]);
}

TEST(MxuTrainDropout, ChangesTrainingAndKeepsEvaluationDeterministic) {
  const json plain = JsonOutput(RunMxu(kTrain + " --json --epochs 3"));
  const json a = JsonOutput(RunMxu(kTrain + " --json --epochs 3 --dropout 0.2"));
  const json b = JsonOutput(RunMxu(kTrain + " --json --epochs 3 --dropout 0.2"));
  EXPECT_NE(a["weights_hash"], plain["weights_hash"]);
  EXPECT_EQ(a["weights_hash"], b["weights_hash"]);  // masks from the seed
  const json other_seed = JsonOutput(RunMxu(kTrain + " --json --epochs 3 --dropout 0.2 --seed 2"));
  EXPECT_NE(other_seed["weights_hash"], a["weights_hash"]);
  // The masks are keyed by the sample: accumulation still equals the large batch.
  const json micro = JsonOutput(
      RunMxu(kTrain + " --json --epochs 3 --dropout 0.2 --batch 16 --accumulate-steps 4"));
  EXPECT_EQ(micro["weights_hash"], a["weights_hash"]);
}

// The RTL draws no masks of its own: with the host's masks, the verilated array computes the model
// backend's bits, dropout or not, and takes up a model backend's checkpoint as its own.
TEST(MxuTrainRtl, DropoutAndResumeGiveTheModelsBits) {
  const std::string run = "train --quiet --json --dropout 0.2 --samples-per-class 100";
  const json rtl = JsonOutput(RunMxu(run + " --backend rtl --epochs 1"));
  const json model = JsonOutput(RunMxu(run + " --backend model --epochs 1"));
  EXPECT_EQ(rtl["weights_hash"], model["weights_hash"]);
  EXPECT_EQ(rtl["final_train_loss"], model["final_train_loss"]);
  const std::string ck = TempPath("model_for_rtl.npz");
  ASSERT_EQ(RunMxu(run + " --backend model --epochs 1 --save " + ck).exit_code, 0);
  const json resumed = JsonOutput(RunMxu(run + " --backend rtl --epochs 2 --resume " + ck));
  const json straight = JsonOutput(RunMxu(run + " --backend model --epochs 2"));
  EXPECT_EQ(resumed["weights_hash"], straight["weights_hash"]);
  EXPECT_EQ(resumed["test_accuracy"], straight["test_accuracy"]);
}

TEST(MxuTrainClipping, ClipsEveryAppliedStepAndNoSkippedOne) {
  // A norm far below the gradients': every applied step is clipped; the poisoned step is skipped
  // untouched.
  const json clipped =
      JsonOutput(RunMxu(kTrain + " --json --epochs 2 --clip-norm 0.001 --inject-overflow 3"));
  EXPECT_EQ(clipped["skipped_steps"], 1);
  EXPECT_EQ(clipped["clipped_steps"], clipped["steps"].get<int>() - 1);
  // A norm far above them changes nothing.
  const json loose = JsonOutput(RunMxu(kTrain + " --json --epochs 2 --clip-norm 1e6"));
  const json plain = JsonOutput(RunMxu(kTrain + " --json --epochs 2"));
  EXPECT_EQ(loose["clipped_steps"], 0);
  EXPECT_EQ(loose["weights_hash"], plain["weights_hash"]);
  EXPECT_NE(clipped["weights_hash"], plain["weights_hash"]);
}

TEST(MxuTrainCheckpoint, RefusesWhatDoesNotMatch) {
  const std::string ck = TempPath("refuse.npz");
  ASSERT_EQ(RunMxu(kTrain + " --epochs 2 --save " + ck).exit_code, 0);
  ExpectUsageError(kTrain + " --epochs 4 --resume " + ck + " --hidden 16",
                   "trained with --hidden 32,32, the command line gives 16");
  ExpectUsageError(kTrain + " --epochs 4 --resume " + ck + " --classes 4",
                   "was trained on 3-arm spirals (675 train / 225 test samples");
  ExpectUsageError("train --backend host --quiet --epochs 4 --resume " + ck,
                   "computed with bf16 x bf16 -> fp32 on a 16x16 array, subnormals ieee, this run "
                   "with host fp32");
  ExpectUsageError(kTrain + " --epochs 2 --resume " + ck, "has finished 2 epochs; give more");
  ExpectUsageError(kTrain + " --epochs 4 --resume " + TempPath("missing.npz"),
                   "cannot open for reading");
  // Truncated anywhere, or a byte flipped in an array: refused on one line, never a crash.
  const std::string bytes = ReadFile(ck), cut = TempPath("cut.npz");
  for (size_t length : {size_t{0}, size_t{30}, bytes.size() / 2, bytes.size() - 1}) {
    WriteBytes(cut, bytes.substr(0, length));
    ExpectUsageError(kTrain + " --epochs 4 --resume " + cut, "--resume " + cut + ":");
  }
  std::string flipped = bytes;
  flipped[bytes.size() / 3] ^= 0x40;
  WriteBytes(cut, flipped);
  ExpectUsageError("predict --backend model --model " + cut, "--model " + cut + ":");
  const std::string not_ck = TempPath("not_ck.npy");
  WriteBytes(not_ck, "\x93NUMPY");
  ExpectUsageError("predict --backend model --model " + not_ck, "--model " + not_ck);
}

TEST(MxuTrainCheckpoint, RefusesBadOptions) {
  ExpectUsageError(kTrain + " --dropout 1", "--dropout");
  ExpectUsageError(kTrain + " --dropout -0.1", "--dropout");
  ExpectUsageError(kTrain + " --accumulate-steps 0", "--accumulate-steps");
  ExpectUsageError(kTrain + " --clip-norm -1", "--clip-norm");
  ExpectUsageError(kTrain + " --parallel model", "run it under mpirun");
  ExpectUsageError(kTrain + " --parallel tensor", "unknown --parallel 'tensor'");
  ExpectUsageError(kTrain + " --save " + TempPath("no/such/dir/ck.npz"), "--save");
  ExpectUsageError(kTrain + " --save " + std::string(MXU_CLI_TMPDIR), "it is a directory");
  ExpectUsageError("predict --backend model", "--model is required");
  ExpectUsageError("predict --backend model --model " + TempPath("missing.npz"),
                   "cannot open for reading");
}

TEST(MxuTrainCheckpoint, AFailedRunLeavesTheLastWholeCheckpoint) {
  // A run that fails after its first epoch: the checkpoint of epoch 1 stays, whole, and no
  // temporary file is left beside it.
  const std::string dir = TempPath("failing_dir");
  ASSERT_EQ(RunShell("rm -rf " + dir + " && mkdir " + dir).exit_code, 0);
  const std::string ck = dir + "/ck.npz";
  const CliResult r =
      RunMxu(kTrain + " --epochs 3 --inject-failure 15 --save " + ck);  // step 15: epoch 2
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json at = JsonOutput(RunMxu("predict --backend model --json --model " + ck));
  EXPECT_EQ(RunShell("ls " + dir).out, "ck.npz\n");
  const CliResult resumed = RunMxu(kTrain + " --epochs 3 --json --resume " + ck);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

// Issue 43 (minor): a checkpoint keeps --data's directory by its absolute path, so predict finds
// the model's own data from any folder (it read whatever the relative path named there); an
// empty --data is refused, not taken for the spirals.
TEST(MxuPredict, FindsTheModelsDataFromAnyFolder) {
  const std::string dir = TempPath("relative"), data = dir + "/data", elsewhere = dir + "/other";
  ASSERT_EQ(RunShell("rm -rf " + dir + " && mkdir -p " + data + " " + elsewhere).exit_code, 0);
  WriteTinyIdxData(data);
  const json trained = JsonOutput(
      RunShell("cd " + dir + " && " + MXU_BINARY +
               " train --backend model --quiet --json --epochs 1 --hidden 4 --data data --save "
               "ck.npz"));
  // Another folder, with a data/ of its own that is not the model's.
  ASSERT_EQ(RunShell("mkdir " + elsewhere + "/data").exit_code, 0);
  const CliResult there = RunShell("cd " + elsewhere + " && " + MXU_BINARY +
                                   " predict --backend model --model ../ck.npz");
  ASSERT_EQ(there.exit_code, 0) << there.err;
  EXPECT_NE(there.out.find("(the same)"), std::string::npos) << there.out;
  // The same directory by another path is the model's data too: its split and its evaluation.
  const json by_path = JsonOutput(RunMxu("predict --backend model --json --model " + dir +
                                         "/ck.npz --data " + elsewhere + "/../data"));
  EXPECT_EQ(by_path["trained_test_accuracy"], trained["test_accuracy"]);
  ExpectUsageError("predict --backend model --model " + dir + "/ck.npz --data ''",
                   "--data needs a directory of IDX files or fashion-mnist, got ''");
  ExpectUsageError("train --backend model --data ''", "--data needs a directory");
}

// Issue 43, defects 3 to 5: a checkpoint changed with NumPy is refused on one line naming the
// file and the array, exit 2, by resume and predict alike (the unit tests,
// tests/train/checkpoint_validation_test.cc, go through every array).
class TamperedCheckpoint : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(RunMxu(kTrain + " --epochs 2 --save " + Base()).exit_code, 0);
  }
  static std::string Base() { return TempPath("tamper_base.npz"); }
  // The base checkpoint with one array replaced, at its own path.
  static std::string With(const std::string& name, const NpyArray& value) {
    NpzEntries arrays = ReadNpz(Base()).arrays();
    for (auto& entry : arrays) {
      if (entry.first == name) entry.second = value;
    }
    const std::string path = TempPath("tamper_" + name + ".npz");
    WriteNpz(path, arrays);
    return path;
  }
};

// Defect 3: a batch or an accumulation of 0 was a SIGFPE (exit 136) before the first step.
TEST_F(TamperedCheckpoint, ABatchOfZeroIsRefusedNotDividedBy) {
  const NpyArray zero = MakeNpy(std::vector<uint64_t>{0}, {});
  const std::string batch = With("batch", zero), steps = With("accumulate_steps", zero);
  ExpectUsageError(kTrain + " --epochs 3 --resume " + batch,
                   "--resume " + batch + ": 'batch' (--batch) must be in [1, 65535], got 0");
  ExpectUsageError(kTrain + " --epochs 3 --resume " + steps,
                   "--resume " + steps + ": 'accumulate_steps' (--accumulate-steps) must be in");
  ExpectUsageError("predict --backend model --model " + batch, "--model " + batch + ": 'batch'");
}

// Defect 4: a transposed weight matrix was taken by its element count.
TEST_F(TamperedCheckpoint, ATransposedMatrixIsRefusedByResumeAndPredict) {
  NpyArray transposed = ReadNpz(Base()).Get("dense1_w");
  ASSERT_EQ(transposed.shape, (std::vector<size_t>{2, 32}));
  transposed.shape = {32, 2};
  const std::string path = With("dense1_w", transposed);
  ExpectUsageError("predict --backend model --model " + path,
                   "--model " + path + ": 'dense1_w' is (32, 2): its columns must be the 32");
  ExpectUsageError(kTrain + " --epochs 3 --resume " + path, "--resume " + path + ": 'dense1_w'");
}

// Defect 5: a setting outside its option's range is refused naming the file, not trained with.
TEST_F(TamperedCheckpoint, SettingsOutOfRangeNameTheFile) {
  const std::string lr = With("learning_rate", MakeNpy(std::vector<float>{1e30f}, {}));
  ExpectUsageError(kTrain + " --epochs 3 --resume " + lr,
                   "--resume " + lr + ": 'learning_rate' (--lr) must be in [1e-09, 1e+06]");
  const std::string optimizer = With("optimizer", MakeNpyString("sgd"));
  ExpectUsageError(kTrain + " --epochs 3 --resume " + optimizer,
                   "it holds the moments of Adam, but its optimizer is sgd");
}

}  // namespace
}  // namespace mxu::host
