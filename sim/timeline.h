// The instruction timeline: which instruction each engine of the device works on, cycle by
// cycle, recorded from mxu_top's observation ports (dbg_*_o) that the platform samples once per
// cycle while a timeline is on. Plain C++ (no SystemC, no Verilator): tests feed it directly.
//
// Spans, in device cycles [start, end) (docs/waves.md):
//   control       a program, from the cycle the device turns busy to the cycle it is idle again;
//                 SYNC and HALT as one-cycle spans in their dispatch cycle
//   DMA load      LOAD to UB or ACC: from its dispatch cycle through its done pulse
//   DMA weights   LOAD WEIGHTS: from its dispatch cycle through its done pulse
//   weight shift  the tile of a LOAD WEIGHTS shifting up the array's shadow registers: from the
//                 cycle the datapath takes the command while the shift logic is busy
//   compute       the cycles rows of a MATMUL enter the array (the ARRAY_BUSY counter's cycles);
//                 a MATMUL whose rows stop and resume is several spans (parts)
//   activation    ACTIVATE: dispatch through done
//   DMA store     STORE: dispatch through done
#ifndef MXU_SIM_TIMELINE_H_
#define MXU_SIM_TIMELINE_H_

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mxu::sim {

// mxu_top's observation ports in one cycle, settled before the rising edge.
struct DebugPorts {
  bool busy = false;
  bool dispatch = false;
  uint32_t pc = 0;
  std::array<uint32_t, 4> ins{};
  bool load_done = false;
  bool wload_done = false;
  bool store_done = false;
  bool matmul_done = false;
  bool activate_done = false;
  bool wshift_start = false;
  bool wshift_busy = false;
  bool array_row = false;
};

class Timeline {
 public:
  enum class Track : uint8_t {
    kControl,
    kDmaLoad,
    kDmaWeights,
    kWeightShift,
    kCompute,
    kActivation,
    kDmaStore,
  };
  static constexpr size_t kNumTracks = 7;
  static const char* TrackName(Track track);

  static constexpr uint32_t kNoIndex = UINT32_MAX;

  struct Span {
    Track track = Track::kControl;
    bool program = false;           // a whole program (control track); index is its number
    uint32_t index = kNoIndex;      // the instruction's index in its program
    uint32_t part = 0;              // compute: which piece of a MATMUL split by stalls
    std::array<uint32_t, 4> ins{};  // the instruction's encoding
    uint64_t start = 0;             // device cycles since construction of the platform
    uint64_t end = 0;               // exclusive
    std::string label;              // a program's label (SetProgramLabel), else empty
  };

  // `origin`: the cycle the recording starts (the JSON's time zero).
  explicit Timeline(uint64_t origin) : origin_(origin) {}

  // One cycle of the device.
  void Sample(uint64_t cycle, const DebugPorts& ports);
  // Names the programs that start from now on (until the next call; empty: "program N"), e.g.
  // "layer 1 forward 64x2x32".
  void SetProgramLabel(std::string label) { label_ = std::move(label); }
  // The device was reset: spans still open are dropped.
  void Abandon();

  uint64_t origin() const { return origin_; }
  // Completed spans, in the order they ended (compute spans in the order they started).
  const std::vector<Span>& spans() const { return spans_; }
  // Sum of the lengths of the completed spans of a track.
  uint64_t Cycles(Track track) const;

 private:
  struct PendingMatmul {
    uint32_t index;
    std::array<uint32_t, 4> ins;
    uint32_t rows_left;
    uint32_t parts;
  };

  void Dispatch(uint64_t cycle, const DebugPorts& ports);
  Span SpanOf(Track track, uint64_t cycle, const DebugPorts& ports);
  void Open(Track track, uint64_t cycle, const DebugPorts& ports);
  void OpenQueued(Track track, uint64_t cycle, const DebugPorts& ports);
  void CloseQueued(Track track, uint64_t cycle);
  void Close(Track track, uint64_t cycle);
  void ArrayRow(uint64_t cycle);
  void EndProgram(uint64_t cycle);

  uint64_t origin_;
  std::vector<Span> spans_;
  std::array<std::optional<Span>, kNumTracks> open_;
  std::deque<PendingMatmul> matmuls_;  // dispatched, rows still to enter the array
  std::deque<Span> weight_tiles_;      // LOAD WEIGHTS dispatched, shift not started
  // LOADs dispatched behind the one open on their track (a load engine queues up to four and
  // completes them in order): each opens when its predecessor is done.
  std::array<std::deque<Span>, kNumTracks> queued_;
  std::optional<size_t> compute_span_;  // the last compute span, in spans_
  bool busy_ = false;
  uint32_t programs_ = 0;
  std::string label_;
};

}  // namespace mxu::sim

#endif  // MXU_SIM_TIMELINE_H_
