// Internal to the model backend: how the DMA engines cut a transfer into memory bursts
// (mxu_dma_load, mxu_dma_store): PlanLoad in dma_load.cc, PlanStore in dma_store.cc.
#ifndef MXU_BACKENDS_MODEL_DMA_PLAN_H_
#define MXU_BACKENDS_MODEL_DMA_PLAN_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backends/model/instruction.h"

namespace mxu::backends::model {

constexpr uint64_t kPage = 4096;    // bursts never cross 4 KiB
constexpr uint32_t kMaxBurst = 16;  // beats

struct Burst {
  uint64_t addr;
  uint32_t beats;
  bool seg_start;  // first burst of a segment (non-linear loads)
};

// The beats of the next burst from `addr` with `left` beats to go: at most kMaxBurst, and not
// past the 4 KiB page. `beat`: the bus's bytes per beat (Config::bus_bytes), a power of two.
inline uint32_t BurstBeats(uint64_t addr, uint64_t left, uint64_t beat) {
  return static_cast<uint32_t>(
      std::min<uint64_t>({left, (kPage - addr % kPage) / beat, kMaxBurst}));
}

// Appends the bursts of `beats` beats from `addr` (bus aligned); with `segment`, the first one
// starts a segment.
inline void AppendBursts(uint64_t addr, uint64_t beats, uint64_t beat, bool segment,
                         std::vector<Burst>& out) {
  bool first = segment;
  while (beats > 0) {
    const uint32_t n = BurstBeats(addr, beats, beat);
    out.push_back({addr, n, first});
    first = false;
    addr += n * beat;
    beats -= n;
  }
}

// The read bursts of a LOAD and how their beats form segments, as mxu_dma_load cuts them.
struct LoadPlan {
  std::vector<Burst> bursts;
  uint32_t trows = 0;               // transposed: buffer rows of a block
  std::vector<uint32_t> seg_beats;  // non-linear: beats of each segment in order
  bool linear = false;              // rows back to back, any length, from any address
  uint64_t lin_off = 0;             // linear: the first row's byte offset in the first beat
  uint64_t lin_row_bytes = 0;       // linear: a row's bytes
};
LoadPlan PlanLoad(const Decoded& d, uint64_t beat);

// The write bursts of a STORE and the beats of each row, as mxu_dma_store cuts them.
struct StorePlan {
  bool linear = false;
  std::vector<uint32_t> row_beats;
  std::vector<uint64_t> row_base;
  uint64_t lin_addr = 0;
  uint64_t lin_beats = 0;
};
StorePlan PlanStore(const Decoded& d, uint64_t beat);

}  // namespace mxu::backends::model

#endif  // MXU_BACKENDS_MODEL_DMA_PLAN_H_
