// `mpirun -np N mxu train`: data-parallel training across simulated chips, run as a user would
// (Open MPI's mpirun, ranks as processes on this machine). Two ranks with B samples each against
// one rank with 2B on the same data order; two runs of the same job bit for bit; the RTL and the
// model under MPI giving the same weights; a failing rank stopping the job with its message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "tests/host/mxu_cli.h"

namespace mxu::host {
namespace {

using nlohmann::json;

// mpirun as root (CI) needs Open MPI's consent; --oversubscribe lets 2 ranks share fewer cores.
CliResult Mpirun(int ranks, const std::string& args) {
  return RunShell(std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
                  MXU_MPIRUN + " --oversubscribe -np " + std::to_string(ranks) + " " + MXU_BINARY +
                  " " + args);
}

// The spirals, 6 epochs, Adam: the same 64 samples a step, cut in two or not.
const std::string kRun = "train --backend model --epochs 6 --json --quiet";

TEST(MxuTrainMpi, TwoRanksOfBMatchOneRankOf2B) {
  const json one = JsonOutput(RunMxu(kRun + " --batch 64"));
  const json two = JsonOutput(Mpirun(2, kRun + " --batch 32"));
  EXPECT_EQ(two["ranks"], 2);
  EXPECT_EQ(two["samples_per_step"], 64);
  EXPECT_EQ(two["steps"], one["steps"]);
  // The same mean gradient, summed in another order (two 32-row device GEMMs added on the host
  // against one 64-row GEMM): losses within 1%, accuracy within a point.
  const double loss1 = one["final_train_loss"], loss2 = two["final_train_loss"];
  EXPECT_LE(std::fabs(loss2 - loss1), 0.01 * loss1) << loss1 << " vs " << loss2;
  const double acc1 = one["test_accuracy"], acc2 = two["test_accuracy"];
  EXPECT_LE(std::fabs(acc2 - acc1), 0.01) << acc1 << " vs " << acc2;
  // The all-reduce of 1251 fp32 gradients on a ring of 2: 2 x (350 + ceil(2502 / 88)) cycles.
  EXPECT_EQ(two["communication_cycles_per_step"], 758.0);
  EXPECT_EQ(one["communication_cycles"], 0);
  EXPECT_LT(two["scaling_efficiency"], 1.0);
}

TEST(MxuTrainMpi, TheSameJobTwiceIsBitIdentical) {
  const std::string log_a = TempPath("mpi_a.csv"), log_b = TempPath("mpi_b.csv");
  const json a = JsonOutput(Mpirun(2, kRun + " --batch 16 --log " + log_a));
  const json b = JsonOutput(Mpirun(2, kRun + " --batch 16 --log " + log_b));
  EXPECT_EQ(a["weights_hash"], b["weights_hash"]);
  const std::string csv = ReadFile(log_a);
  EXPECT_EQ(csv, ReadFile(log_b));  // losses, accuracies, cycles and every epoch's weight hash
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7) << csv;  // header + 6 epochs
}

TEST(MxuTrainMpi, TheRtlAndTheModelGiveTheSameWeightsUnderMpi) {
  const std::string args = "train --epochs 1 --batch 32 --json --quiet";
  const json rtl = JsonOutput(Mpirun(2, args + " --backend rtl"));
  const json model = JsonOutput(Mpirun(2, args + " --backend model"));
  EXPECT_EQ(rtl["weights_hash"], model["weights_hash"]);
  EXPECT_EQ(rtl["final_train_loss"], model["final_train_loss"]);
  EXPECT_EQ(rtl["test_accuracy"], model["test_accuracy"]);
}

TEST(MxuTrainMpi, AFailingRankStopsTheJobWithItsMessage) {
  const CliResult r = Mpirun(2, "train --backend model --epochs 3 --batch 32 --inject-failure 5");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("mxu train: rank 1 of 2: injected failure at step 5"), std::string::npos)
      << r.err;
}

// Lines `mxu` printed (mpirun adds its own banner when a rank exits non-zero). A rank that mpirun
// terminates once another has failed says so on a line of its own ("interrupted (SIGTERM)"),
// which depends on the timing: not counted.
size_t MxuLines(const std::string& err, const std::string& prefix = "mxu train:") {
  size_t lines = 0;
  for (size_t at = err.find(prefix); at != std::string::npos; at = err.find(prefix, at + 1)) {
    const size_t end = err.find('\n', at);
    if (err.substr(at, end - at).find(": interrupted (SIG") == std::string::npos) ++lines;
  }
  return lines;
}

// Ranks launched with different settings (mpirun A : B): once a crash, a hang or a raw MPI
// error in the first all-reduce; now every rank stops at start-up, one line names the option.
TEST(MxuTrainMpi, RanksWithDifferentOptionsStopNamingTheOption) {
  const std::string run = std::string(MXU_BINARY) + " train --backend model --epochs 1 --quiet";
  for (const auto& [a, b, option] :
       {std::tuple<std::string, std::string, std::string>{"--batch 16", "--batch 32", "--batch"},
        {"--hidden 8", "--hidden 8,8", "--hidden"}}) {
    const CliResult r = RunShell(
        std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") + MXU_MPIRUN +
        " --oversubscribe -np 1 " + run + " " + a + " : -np 1 " + run + " " + b);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(MxuLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("mxu train: " + option + " differs between the ranks"), std::string::npos)
        << r.err;
  }
}

// Issue 43, defect 13: ranks launched with different commands (mpirun A : B) left the train rank
// waiting for ever; now every rank first learns the others' commands, and all stop with one line
// naming them. A command that runs as one process refuses to run as several.
TEST(MxuTrainMpi, RanksWithDifferentCommandsStopNamingThem) {
  const std::string ck = TempPath("commands.npz");
  ASSERT_EQ(RunMxu("train --backend model --epochs 1 --quiet --save " + ck).exit_code, 0);
  const std::string train = "train --backend model --epochs 1 --quiet";
  const std::string predict = "predict --backend model --model " + ck;
  const std::string sweep = "bench --sweep 8x8 --shape 32x32x32";
  for (const auto& [a, b, names] : {std::tuple<std::string, std::string, std::string>{
                                        train, predict, "train (rank 0), predict (rank 1)"},
                                    {predict, train, "predict (rank 0), train (rank 1)"},
                                    {train, sweep, "train (rank 0), bench (rank 1)"},
                                    {sweep, "info", "bench (rank 0), info (rank 1)"}}) {
    const CliResult r = RunShell(
        std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 ") +
        MXU_MPIRUN + " --oversubscribe -np 1 " + MXU_BINARY + " " + a + " : -np 1 " + MXU_BINARY +
        " " + b);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(MxuLines(r.err, "mxu "), 1u) << r.err;
    EXPECT_NE(r.err.find("the ranks of this job run different commands: " + names),
              std::string::npos)
        << r.err;
  }
  const CliResult twice = Mpirun(2, predict);
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(MxuLines(twice.err, "mxu predict:"), 1u) << twice.err;
  EXPECT_NE(twice.err.find("runs as one process, not as the 2 ranks"), std::string::npos)
      << twice.err;
}

// Bad usage under mpirun: exit code 2 (not 1), the message once, not once per rank.
TEST(MxuTrainMpi, UsageErrorsExitTwoPrintedOnce) {
  for (const std::string& args :
       {std::string("train --backend model --epochs 1 --inject-overflow 100000"),
        std::string("train --backend model --batch 0"), std::string("train --no-such-flag")}) {
    const CliResult r = Mpirun(2, args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(MxuLines(r.err), 1u) << args << "\n" << r.err;
  }
}

// Model parallelism: each rank holds a column slice of every weight matrix and the whole batch.
// The weights start as the one-chip model's; every output column's dot product is the one chip's
// (the device sums K in the same order), only dX adds the ranks' partial products in another
// order, so the runs stay within a point of each other.
TEST(MxuTrainMpi, ModelParallelMatchesOneChipWithHalfTheWeightsPerRank) {
  const std::string run = "train --backend model --epochs 6 --hidden 64,64 --json --quiet";
  const json one = JsonOutput(RunMxu(run));
  const json two = JsonOutput(Mpirun(2, run + " --parallel model"));
  EXPECT_EQ(two["parallel"], "model");
  EXPECT_EQ(two["samples_per_step"], 64);  // the whole batch on every rank
  EXPECT_EQ(two["steps"], one["steps"]);
  const double acc1 = one["test_accuracy"], acc2 = two["test_accuracy"];
  EXPECT_LE(std::fabs(acc2 - acc1), 0.01) << acc1 << " vs " << acc2;
  // 2-64-64-3: 4547 parameters; rank 0 holds 2x32 + 32, 64x32 + 32, 64x1 + 1 of them.
  EXPECT_EQ(one["weight_bytes_per_rank"], 4547 * 4);
  EXPECT_EQ(two["weight_bytes_per_rank"], (64 + 32 + 2048 + 32 + 64 + 1) * 4);
  // Per step of B samples: the all-gathers of the Bx64, Bx64 and Bx3 fp32 activations (1 ring
  // step each: 350 + ceil(bytes / 2 / 88)) and the all-reduces of the Bx64 input gradients of
  // layers 2 and 3 (2 ring steps each). An epoch: 10 steps of 64 samples, one of 35.
  const double full = 3 * 350 + 94 + 94 + 5 + 2 * 2 * (350 + 94);
  const double last = 3 * 350 + 51 + 51 + 3 + 2 * 2 * (350 + 51);
  EXPECT_DOUBLE_EQ(two["communication_cycles_per_step"].get<double>(), (10 * full + last) / 11);
}

TEST(MxuTrainMpi, AModelParallelCheckpointPredictsOnOneChip) {
  const std::string ck = TempPath("model_parallel.npz");
  const std::string run = "train --backend model --hidden 64,64 --json --quiet";
  const json trained = JsonOutput(Mpirun(2, run + " --epochs 2 --parallel model --save " + ck));
  // The checkpoint holds the whole model, gathered from the slices: one chip's forward pass gives
  // the bits the two ranks' did (each output column summed alike).
  const json predicted = JsonOutput(RunMxu("predict --backend model --json --model " + ck));
  EXPECT_EQ(predicted["test_accuracy"], trained["test_accuracy"]);
  EXPECT_EQ(predicted["confusion"], trained["confusion"]);
  // And the two ranks resume from it bit for bit.
  const std::string half = TempPath("model_parallel_half.npz");
  JsonOutput(Mpirun(2, run + " --parallel model --epochs 1 --save " + half));
  const json resumed = JsonOutput(Mpirun(2, run + " --epochs 2 --parallel model --resume " + half));
  EXPECT_EQ(resumed["weights_hash"], trained["weights_hash"]);
  // A checkpoint of 2 ranks is refused on one.
  const CliResult one = RunMxu(run + " --epochs 3 --resume " + ck);
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("was trained on 2 rank(s), this run has 1"), std::string::npos) << one.err;
}

TEST(MxuTrainMpi, DataParallelResumesBitIdentically) {
  const std::string full = TempPath("dp_full.npz"), half = TempPath("dp_half.npz");
  const std::string run = "train --backend model --batch 32 --quiet";
  JsonOutput(Mpirun(2, run + " --epochs 3 --json --save " + full));
  JsonOutput(Mpirun(2, run + " --epochs 1 --json --save " + half));
  JsonOutput(Mpirun(2, run + " --epochs 3 --json --resume " + half + " --save " + half));
  EXPECT_EQ(ReadFile(half), ReadFile(full));
}

// Issue 43, defect 2: a signal in the middle of an epoch. Each rank sums its own shards' losses
// and hits; the checkpoint keeps every rank's running totals (rank 0's alone, taken by both
// ranks, gave the resumed epoch another train loss), so the resumed log is the uninterrupted one.
TEST(MxuTrainMpi, DataParallelResumesBitIdenticallyFromTheMiddleOfAnEpoch) {
  const std::string ck = TempPath("dp_stopped.npz");
  const std::string resumed_log = TempPath("dp_resumed.csv"), straight_log = TempPath("dp.csv");
  std::remove(ck.c_str());
  // 15000 samples, 235 steps an epoch: the first checkpoint (after epoch 1) is the cue to stop.
  const std::string run =
      "train --backend model --quiet --samples-per-class 5000 --hidden 128,128 --batch 32";
  const CliResult stopped =
      RunShell(std::string("(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
               MXU_MPIRUN + " --oversubscribe -np 2 " + MXU_BINARY + " " + run +
               " --epochs 1000 --save " + ck + " & pid=$!; for i in $(seq 600); do [ -e " + ck +
               " ] && break; sleep 0.05; done; kill -TERM $pid; wait $pid)");
  ASSERT_NE(stopped.err.find("checkpoint " + ck + " written"), std::string::npos) << stopped.err;
  const CliResult resumed = Mpirun(2, run + " --epochs 3 --resume " + ck + " --log " + resumed_log);
  if (resumed.exit_code == 2 && resumed.err.find("epochs; give more") != std::string::npos) {
    GTEST_SKIP() << "the machine was too slow to stop the run within 3 epochs";
  }
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  ASSERT_EQ(Mpirun(2, run + " --epochs 3 --log " + straight_log).exit_code, 0);
  EXPECT_EQ(ReadFile(resumed_log), ReadFile(straight_log));
}

// `mxu bench --sweep` under mpirun: the points dealt out to the ranks, rank 0 printing them in
// order: what one process prints and writes, but for the wall times.
TEST(MxuBenchMpi, ASweepOverRanksIsOneProcesssSweep) {
  const std::string args = "bench --sweep 8x8,16x16,32x32 --shape 64x64x64 --shape 128x32x64";
  const std::string one_json = TempPath("sweep_one.json"), two_json = TempPath("sweep_two.json");
  const CliResult one = RunMxu(args + " --json " + one_json);
  const CliResult two = Mpirun(2, args + " --json " + two_json);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  // Lines without their wall-time fields (a row's last two columns, the summary's end).
  const auto without_times = [](const std::string& text) {
    std::string kept;
    size_t start = 0;
    for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
      std::string line = text.substr(start, end - start);
      if (line.rfind("summary:", 0) == 0) line = line.substr(0, line.find(", ideal"));
      if (line.rfind("- ", 0) == 0) {
        for (int field = 0; field < 2; ++field)
          line = line.substr(0, line.find_last_not_of(' ', line.rfind(' ')) + 1);
      }
      kept += line + "\n";
    }
    return kept;
  };
  EXPECT_EQ(without_times(two.out), without_times(one.out));
  EXPECT_NE(two.out.find("device 32x32"), std::string::npos) << two.out;
  json a = json::parse(ReadFile(one_json)), b = json::parse(ReadFile(two_json));
  for (json* j : {&a, &b}) {
    for (json& row : (*j)["rows"]) row.erase("wall_seconds"), row.erase("sim_cycles_per_second");
    for (const char* time : {"wall_seconds", "sim_cycles_per_second", "elapsed_seconds"}) {
      (*j)["summary"].erase(time);
    }
  }
  EXPECT_EQ(a["rows"], b["rows"]);
  EXPECT_EQ(a["sweep"], b["sweep"]);
  EXPECT_EQ(a["summary"], b["summary"]);
  // Without --sweep there is nothing to spread: refused once.
  const CliResult alone = Mpirun(2, "bench --backend model --shape 32x32x32");
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_EQ(MxuLines(alone.err, "mxu bench:"), 1u) << alone.err;
}

}  // namespace
}  // namespace mxu::host
