// Issue 43, defects 3, 4 and 5: a checkpoint is input like any other. Its settings are checked
// with the rules of the options that set them (train/setting_rules.h), its tensors by shape, not
// element count, and its counters against each other and the data; every refusal names the file
// and the array. Each case writes a whole checkpoint, changes one array as a user with NumPy
// could, and reads it back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/npz.h"
#include "train/checkpoint.h"
#include "train/data/dataset.h"

namespace mxu::train {
namespace {

using host::MakeNpy;
using host::MakeNpyString;
using host::NpyArray;

// A run of a 2-8-3 MLP on the spirals, stopped in its second epoch.
struct Written {
  Split data = SplitDataset(MakeSpirals(60, 3, kSpiralNoise, 5), kSpiralTestFraction, 5);
  HostMatmulEngine engine;
  TrainConfig config;
  std::string path;
  host::NpzEntries arrays;

  Written(const std::string& name, const std::string& optimizer = "adam") {
    config.hidden = {8};
    config.batch_size = 16;
    config.optimizer.kind = optimizer;
    Trainer trainer(config, data.train, data.test, engine);
    Checkpoint ck;
    ck.history = {trainer.RunEpoch()};
    int steps = 0;
    trainer.stop_requested = [&] { return ++steps == 2; };
    trainer.RunEpoch();
    ck.config = config;
    ck.model = trainer.model().Describe();
    ck.numerics = "host fp32";
    ck.data = {"3-arm spirals", "", data.train.size(), data.test.size(), 2, 3, 60};
    ck.state = trainer.state();
    path = std::string(MXU_TRAIN_TEST_TMPDIR) + "/validation_" + name + ".npz";
    WriteCheckpoint(path, ck);
    arrays = host::ReadNpz(path).arrays();
  }

  NpyArray& Array(const std::string& name) {
    for (auto& [entry, array] : arrays) {
      if (entry == name) return array;
    }
    throw std::logic_error("no array " + name);
  }
  // Writes the changed arrays; the error reading them back (which must fail).
  std::string Error() {
    host::WriteNpz(path, arrays);
    try {
      ReadCheckpoint(path);
    } catch (const std::runtime_error& error) {
      return error.what();
    }
    return "read without an error";
  }
};

NpyArray U64(uint64_t value) { return MakeNpy(std::vector<uint64_t>{value}, {}); }
NpyArray F32(float value) { return MakeNpy(std::vector<float>{value}, {}); }

// The error names the file, then what is wrong.
void ExpectRefused(Written& w, const std::string& fragment) {
  const std::string error = w.Error();
  EXPECT_EQ(error.rfind(w.path + ": ", 0), 0u) << error;
  EXPECT_NE(error.find(fragment), std::string::npos) << error;
}

TEST(CheckpointValidation, AnUntouchedCheckpointIsRead) {
  Written w("untouched");
  EXPECT_EQ(ReadCheckpoint(w.path).config.batch_size, 16);
}

// Defect 3: a batch or an accumulation of 0 divided by zero (SIGFPE) when steps were counted.
TEST(CheckpointValidation, SettingsKeepTheirOptionsRanges) {
  const struct {
    const char* array;
    NpyArray value;
    const char* fragment;
  } cases[] = {
      {"batch", U64(0), "'batch' (--batch) must be in [1, 65535], got 0"},
      {"accumulate_steps", U64(0), "'accumulate_steps' (--accumulate-steps) must be in [1, 65535]"},
      {"epochs", U64(0), "'epochs' (--epochs) must be in [1, 100000], got 0"},
      {"learning_rate", F32(1e30f), "'learning_rate' (--lr) must be in [1e-09, 1e+06]"},
      {"learning_rate", F32(std::nanf("")), "'learning_rate' (--lr) must be in"},
      {"dropout", F32(1), "'dropout' (--dropout) must be in [0, 1), got 1"},
      {"clip_norm", F32(-1), "'clip_norm' (--clip-norm) must be in"},
      {"loss_scale_initial", F32(3), "'loss_scale_initial' (--loss-scale) must be a power of two"},
      {"scale_growth", U64(0), "'scale_growth' (--scale-growth) must be in"},
      {"link_bytes_per_cycle", U64(0), "'link_bytes_per_cycle' (--link-bytes-per-cycle)"},
      {"optimizer", MakeNpyString("rmsprop"), "'optimizer' (--optimizer) is 'rmsprop'"},
      {"ranks", U64(0), "'ranks' is 0"},
  };
  for (const auto& c : cases) {
    Written w(c.array);
    w.Array(c.array) = c.value;
    ExpectRefused(w, c.fragment);
  }
}

TEST(CheckpointValidation, SgdMomentumKeepsItsRange) {
  Written w("momentum", "sgd");
  w.Array("momentum") = F32(5);
  ExpectRefused(w, "'momentum' (--momentum) must be in [0, 1), got 5");
}

TEST(CheckpointValidation, TheOptimizerMustBeTheOneWhoseMomentsItHolds) {
  Written adam("adam_as_sgd");
  adam.Array("optimizer") = MakeNpyString("sgd");
  ExpectRefused(adam, "it holds the moments of Adam, but its optimizer is sgd");
  Written sgd("sgd_as_adam", "sgd");
  sgd.Array("optimizer") = MakeNpyString("adam");
  ExpectRefused(sgd, "it holds the moments of SGD, but its optimizer is adam");
}

// Defect 4: element counts alone took a transposed or reshaped matrix and reinterpreted it.
TEST(CheckpointValidation, TensorsAreCheckedByShape) {
  const auto reshaped = [](NpyArray array, std::vector<size_t> shape) {
    array.shape = std::move(shape);
    return array;
  };
  Written transposed("transposed");
  transposed.Array("dense1_w") = reshaped(transposed.Array("dense1_w"), {8, 2});
  ExpectRefused(transposed, "'dense1_w' is (8, 2): its columns must be the 8 outputs");
  Written flat("reshaped");
  flat.Array("dense2_w") = reshaped(flat.Array("dense2_w"), {4, 6});
  ExpectRefused(flat, "'dense2_w' is (4, 6): its columns must be the 3 outputs");
  Written moment("moment");
  moment.Array("adam_m_dense1_w") = reshaped(moment.Array("adam_m_dense1_w"), {8, 2});
  ExpectRefused(moment, "'adam_m_dense1_w' is (8, 2), 'dense1_w' (2, 8)");
  // A matrix whose shape fits its bias but not the layer before it.
  Written chained("chained");
  chained.Array("dense2_w") = MakeNpy(std::vector<float>(12, 0.5f), {4, 3});
  ExpectRefused(chained, "'dense2_w' is (4, 3), not the model's 8x3");
}

// Defect 5: values no run makes: NaN weights skip every step; counts past the steps run.
TEST(CheckpointValidation, StateIsFiniteAndCountsFitTheRun) {
  Written nan_weight("nan_weight");
  NpyArray& w1 = nan_weight.Array("dense1_w");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(w1.data.data(), &nan, sizeof nan);
  ExpectRefused(nan_weight, "'dense1_w'[0] is nan: not a finite number");
  Written skipped("skipped");
  skipped.Array("skipped_steps") = U64(UINT64_MAX);
  ExpectRefused(skipped, "more skipped or clipped steps than the");
  Written steps("optimizer_steps");
  steps.Array("step") = U64(uint64_t{1} << 63);
  ExpectRefused(steps, "'optimizer_steps'");
  Written seen("seen");
  seen.Array("epoch_correct") = MakeNpy(std::vector<uint64_t>{1000}, {1});
  ExpectRefused(seen, "the running totals of rank 0 do not fit the data");
  Written ranks("per_rank");
  ranks.Array("epoch_seen") = MakeNpy(std::vector<uint64_t>{1, 2}, {2});
  ExpectRefused(ranks, "'epoch_seen' is not 1 uint64 value(s), one per rank");
  Written history("history");
  NpyArray& rows = history.Array("history");
  const double accuracy = 7;
  std::memcpy(rows.data.data() + 2 * sizeof(double), &accuracy, sizeof accuracy);
  ExpectRefused(history, "'history' row 0 holds an accuracy outside [0, 1]");
}

// The trainer checks the position against the data: the step count follows from the epoch.
TEST(CheckpointValidation, TheTrainerChecksTheStepAgainstTheEpoch) {
  Written w("trainer_step");
  const Checkpoint ck = ReadCheckpoint(w.path);
  Trainer trainer(ck.config, w.data.train, w.data.test, w.engine);
  TrainerState state = ck.state;
  trainer.set_state(state);
  state.step += 1;
  state.optimizer.steps += 1;
  EXPECT_THROW(trainer.set_state(state), std::invalid_argument);
}

}  // namespace
}  // namespace mxu::train
