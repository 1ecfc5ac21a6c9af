// The ring all-reduce's simulated cycles (train/interconnect.h).
#include "train/interconnect.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace mxu::train {
namespace {

TEST(RingInterconnect, OneChipNeedsNoCommunication) {
  EXPECT_EQ(RingInterconnect().AllReduceCycles(1 << 20, 1), 0u);
}

TEST(RingInterconnect, TwoDirectionsOfNMinusOneStepsEachMovingAnNth) {
  const RingInterconnect ring{100, 10};
  // 2 chips, 1000 bytes: 2 steps of 10 + 500 / 100.
  EXPECT_EQ(ring.AllReduceCycles(1000, 2), 2u * (10 + 5));
  // 4 chips: 6 steps of 10 + ceil(250 / 100).
  EXPECT_EQ(ring.AllReduceCycles(1000, 4), 6u * (10 + 3));
  // A partial chunk and a partial beat round up: 1001 bytes on 4 chips is 251 a chunk.
  EXPECT_EQ(ring.AllReduceCycles(1001, 4), 6u * (10 + 3));
  EXPECT_EQ(ring.AllReduceCycles(1201, 4), 6u * (10 + 4));
}

TEST(RingInterconnect, BandwidthTermShrinksWithChipsLatencyTermGrows) {
  const RingInterconnect ring{88, 350};
  const uint64_t bytes = 4 * 101'770;  // the 784-128-10 MLP's fp32 gradients
  uint64_t previous_transfer = UINT64_MAX;
  for (int chips : {2, 4, 8, 16}) {
    const uint64_t steps = 2 * (chips - 1);
    const uint64_t cycles = ring.AllReduceCycles(bytes, chips);
    EXPECT_EQ(cycles % steps, 0u);
    const uint64_t transfer = cycles / steps - 350;
    EXPECT_LT(transfer, previous_transfer);
    previous_transfer = transfer;
  }
}

TEST(RingInterconnect, BadParametersAreRefused) {
  EXPECT_THROW(RingInterconnect().AllReduceCycles(8, 0), std::invalid_argument);
  EXPECT_THROW((RingInterconnect{0, 1}.AllReduceCycles(8, 2)), std::invalid_argument);
}

}  // namespace
}  // namespace mxu::train
