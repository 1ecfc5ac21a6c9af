// Checkpoints: a trainer's state written and read back is the same state, every field; a file
// that lacks an array or holds one of the wrong kind is refused naming it.
#include "train/checkpoint.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "io/npz.h"
#include "train/data/dataset.h"

namespace mxu::train {
namespace {

std::string Scratch(const std::string& name) {
  return std::string(MXU_TRAIN_TEST_TMPDIR) + "/checkpoint_" + name;
}

struct SmallRun {
  Split data = SplitDataset(MakeSpirals(60, 3, kSpiralNoise, 5), kSpiralTestFraction, 5);
  HostMatmulEngine engine;
  TrainConfig config;
  SmallRun() {
    config.hidden = {8};
    config.batch_size = 16;
    config.accumulate_steps = 2;
    config.dropout = 0.1f;
    config.clip_norm = 1.0f;
  }
};

Checkpoint Save(Trainer& trainer, const SmallRun& run, const std::vector<EpochRecord>& history) {
  Checkpoint ck;
  ck.config = run.config;
  ck.model = trainer.model().Describe();
  ck.numerics = "host fp32";
  ck.data = {"spirals", "", run.data.train.size(), run.data.test.size(), 2, 3, 60};
  ck.state = trainer.state();
  ck.history = history;
  return ck;
}

TEST(Checkpoint, WritesAndReadsEveryField) {
  SmallRun run;
  Trainer trainer(run.config, run.data.train, run.data.test, run.engine);
  // Stop in the middle of the second epoch, so the order and the running totals matter.
  std::vector<EpochRecord> history = {trainer.RunEpoch()};
  int steps = 0;
  trainer.stop_requested = [&] { return ++steps == 2; };
  ASSERT_FALSE(trainer.RunEpoch().complete);
  const Checkpoint written = Save(trainer, run, history);
  const std::string path = Scratch("every_field.npz");
  WriteCheckpoint(path, written);
  const Checkpoint read = ReadCheckpoint(path);
  const TrainerState &a = written.state, &b = read.state;
  EXPECT_EQ(b.parameters, a.parameters);
  EXPECT_EQ(b.optimizer.first, a.optimizer.first);
  EXPECT_EQ(b.optimizer.second, a.optimizer.second);
  EXPECT_EQ(b.optimizer.steps, a.optimizer.steps);
  EXPECT_EQ(b.scaler.scale, a.scaler.scale);
  EXPECT_EQ(b.scaler.good_in_a_row, a.scaler.good_in_a_row);
  EXPECT_EQ(b.shuffle_rng, a.shuffle_rng);
  EXPECT_EQ(b.epoch, 2);
  EXPECT_EQ(b.epoch_step, 2);
  EXPECT_EQ(b.order, a.order);
  EXPECT_EQ(b.step, a.step);
  EXPECT_EQ(b.loss_sums, a.loss_sums);
  EXPECT_EQ(b.corrects, a.corrects);
  EXPECT_EQ(b.seens, a.seens);
  EXPECT_EQ(b.engine.macs, a.engine.macs);
  EXPECT_EQ(read.config.hidden, run.config.hidden);
  EXPECT_EQ(read.config.accumulate_steps, 2);
  EXPECT_EQ(read.config.dropout, 0.1f);
  EXPECT_EQ(read.config.clip_norm, 1.0f);
  EXPECT_EQ(read.model, "MLP 2-8-3");
  ASSERT_EQ(read.history.size(), 1u);
  EXPECT_EQ(read.history[0].test_accuracy, history[0].test_accuracy);
  EXPECT_EQ(read.history[0].weights_hash, history[0].weights_hash);
  EXPECT_EQ(read.history[0].confusion, history[0].confusion);

  // A second trainer given the state finishes the epoch as the first does.
  Trainer resumed(run.config, run.data.train, run.data.test, run.engine);
  resumed.set_state(read.state);
  trainer.stop_requested = nullptr;
  EXPECT_EQ(resumed.RunEpoch().weights_hash, trainer.RunEpoch().weights_hash);
}

TEST(Checkpoint, RefusesMissingAndMistypedArrays) {
  SmallRun run;
  Trainer trainer(run.config, run.data.train, run.data.test, run.engine);
  const std::string path = Scratch("refused.npz");
  WriteCheckpoint(path, Save(trainer, run, {trainer.RunEpoch()}));
  const host::NpzEntries arrays = host::ReadNpz(path).arrays();
  for (const std::string victim : {"order", "dense1_w", "format"}) {
    host::NpzEntries cut;
    for (const auto& entry : arrays) {
      if (entry.first != victim) cut.push_back(entry);
    }
    host::WriteNpz(path, cut);
    try {
      ReadCheckpoint(path);
      ADD_FAILURE() << "read without " << victim;
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what()).find(path + ": "), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(victim == "format" ? "not an mxu" : victim),
                std::string::npos)
          << error.what();
    }
  }
  host::NpzEntries retyped = arrays;
  for (auto& entry : retyped) {
    if (entry.first == "step") entry.second = host::MakeNpy(std::vector<float>{3.0f}, {});
  }
  host::WriteNpz(path, retyped);
  EXPECT_THROW(ReadCheckpoint(path), std::runtime_error);
}

TEST(Checkpoint, TheTrainerRefusesAStateOfAnotherModel) {
  SmallRun run;
  Trainer trainer(run.config, run.data.train, run.data.test, run.engine);
  TrainerState state = trainer.state();
  state.parameters[0].pop_back();
  EXPECT_THROW(trainer.set_state(state), std::invalid_argument);
  state = trainer.state();
  state.order = {1, 2, 3};
  state.epoch = 1;
  EXPECT_THROW(trainer.set_state(state), std::invalid_argument);
}

TEST(Checkpoint, ParameterNamesFollowTheLayers) {
  TrainConfig cnn;
  cnn.model = "cnn";
  cnn.channels = {4};
  cnn.hidden = {16};
  EXPECT_EQ(ParameterNames(cnn), (std::vector<std::string>{"conv1_w", "conv1_b", "dense1_w",
                                                           "dense1_b", "dense2_w", "dense2_b"}));
}

}  // namespace
}  // namespace mxu::train
