// The simulated chips' interconnect: how many device cycles an all-reduce of the gradients takes
// on a ring of N chips. The ring all-reduce is a reduce-scatter then an all-gather, 2 (N - 1)
// steps; in each, every chip sends one N-th of the bytes to its neighbour over one link:
//   cycles = 2 (N - 1) (latency + ceil(bytes / N / bytes_per_cycle)).
// An all-gather (model parallelism's activations) is the second half alone, N - 1 such steps.
// Defaults after TPU v2's inter-chip interconnect (ICI; Norrie et al., "The Design Process for
// Google's Training Chips: TPUv2 and TPUv3", IEEE Micro 2021): 496 Gbit/s, about 62 GB/s, per
// link and direction at a 700 MHz clock, so 88 bytes per device cycle; a neighbour's latency of
// 0.5 us (350 cycles; "sub-microsecond" is all that is published, the figure is ours).
#ifndef MXU_TRAIN_INTERCONNECT_H_
#define MXU_TRAIN_INTERCONNECT_H_

#include <cstdint>

namespace mxu::train {

struct RingInterconnect {
  uint64_t link_bytes_per_cycle = 88;
  uint64_t link_latency_cycles = 350;

  // Device cycles of an all-reduce of `bytes` over `chips` chips on the ring (0 for one chip).
  uint64_t AllReduceCycles(uint64_t bytes, int chips) const;
  // Device cycles of an all-gather on the ring, every chip ending with all `bytes` (each holding
  // about bytes / chips at the start): the all-reduce's second half, N - 1 steps.
  uint64_t AllGatherCycles(uint64_t bytes, int chips) const;
};

}  // namespace mxu::train

#endif  // MXU_TRAIN_INTERCONNECT_H_
