#include "sim/timeline.h"

#include <algorithm>
#include <utility>

#include "common/isa.h"

namespace mxu::sim {
namespace {

using Track = Timeline::Track;

size_t Slot(Track track) { return static_cast<size_t>(track); }

}  // namespace

const char* Timeline::TrackName(Track track) {
  switch (track) {
    case Track::kControl:
      return "control";
    case Track::kDmaLoad:
      return "DMA load";
    case Track::kDmaWeights:
      return "DMA weights";
    case Track::kWeightShift:
      return "weight shift";
    case Track::kCompute:
      return "compute (array)";
    case Track::kActivation:
      return "activation";
    case Track::kDmaStore:
      return "DMA store";
  }
  return "?";
}

void Timeline::Sample(uint64_t cycle, const DebugPorts& ports) {
  if (ports.busy && !busy_) {
    Span program;
    program.track = Track::kControl;
    program.program = true;
    program.index = programs_++;
    program.start = cycle;
    program.label = label_;
    open_[Slot(Track::kControl)] = program;
  }
  // Ends before starts: an engine takes its next instruction in a later cycle than its done
  // pulse, but another engine's dispatch may share the cycle.
  if (ports.load_done) CloseQueued(Track::kDmaLoad, cycle + 1);
  if (ports.wload_done) CloseQueued(Track::kDmaWeights, cycle + 1);
  if (ports.store_done) Close(Track::kDmaStore, cycle + 1);
  if (ports.activate_done) Close(Track::kActivation, cycle + 1);
  const std::optional<Span>& shift = open_[Slot(Track::kWeightShift)];
  if (shift && (ports.wshift_start || (cycle > shift->start && !ports.wshift_busy))) {
    Close(Track::kWeightShift, cycle);
  }
  if (ports.wshift_start) {
    Span tile;
    if (!weight_tiles_.empty()) {
      tile = weight_tiles_.front();
      weight_tiles_.pop_front();
    }
    tile.track = Track::kWeightShift;
    tile.start = cycle;
    open_[Slot(Track::kWeightShift)] = tile;
  }
  if (ports.dispatch) Dispatch(cycle, ports);
  if (ports.array_row) ArrayRow(cycle);
  if (!ports.busy && busy_) EndProgram(cycle);
  busy_ = ports.busy;
}

void Timeline::Dispatch(uint64_t cycle, const DebugPorts& ports) {
  switch (isa::OpcodeOf(ports.ins)) {
    case isa::Opcode::kLoad:
      if (isa::DecodeTransfer(ports.ins).buffer == isa::Buffer::kWeights) {
        OpenQueued(Track::kDmaWeights, cycle, ports);
        weight_tiles_.push_back(SpanOf(Track::kDmaWeights, cycle, ports));
      } else {
        OpenQueued(Track::kDmaLoad, cycle, ports);
      }
      break;
    case isa::Opcode::kStore:
      Open(Track::kDmaStore, cycle, ports);
      break;
    case isa::Opcode::kActivate:
      Open(Track::kActivation, cycle, ports);
      break;
    case isa::Opcode::kMatmul:
      matmuls_.push_back({ports.pc, ports.ins, isa::DecodeMatmul(ports.ins).rows, 0});
      break;
    default: {  // SYNC, HALT: the cycle they leave the controller
      Span span;
      span.track = Track::kControl;
      span.index = ports.pc;
      span.ins = ports.ins;
      span.start = cycle;
      span.end = cycle + 1;
      spans_.push_back(span);
    }
  }
}

Timeline::Span Timeline::SpanOf(Track track, uint64_t cycle, const DebugPorts& ports) {
  Span span;
  span.track = track;
  span.index = ports.pc;
  span.ins = ports.ins;
  span.start = cycle;
  return span;
}

void Timeline::Open(Track track, uint64_t cycle, const DebugPorts& ports) {
  Close(track, cycle);  // an instruction whose done was lost (never expected)
  open_[Slot(track)] = SpanOf(track, cycle, ports);
}

void Timeline::OpenQueued(Track track, uint64_t cycle, const DebugPorts& ports) {
  if (open_[Slot(track)]) {
    queued_[Slot(track)].push_back(SpanOf(track, cycle, ports));
  } else {
    open_[Slot(track)] = SpanOf(track, cycle, ports);
  }
}

void Timeline::CloseQueued(Track track, uint64_t cycle) {
  Close(track, cycle);
  std::deque<Span>& queued = queued_[Slot(track)];
  if (!queued.empty()) {
    Span next = queued.front();
    queued.pop_front();
    next.start = std::max(next.start, cycle);
    open_[Slot(track)] = next;
  }
}

void Timeline::Close(Track track, uint64_t cycle) {
  std::optional<Span>& span = open_[Slot(track)];
  if (!span) return;
  span->end = cycle;
  spans_.push_back(*span);
  span.reset();
}

void Timeline::ArrayRow(uint64_t cycle) {
  // Rows enter in MATMUL order; a row with no MATMUL to claim it would be a device bug, and is
  // still counted (index kNoIndex) so that the compute spans always sum to ARRAY_BUSY.
  if (matmuls_.empty()) matmuls_.push_back({kNoIndex, {}, 1, 0});
  PendingMatmul& head = matmuls_.front();
  Span* last = compute_span_ ? &spans_[*compute_span_] : nullptr;
  if (last && head.parts > 0 && last->end == cycle) {  // the head's rows continue
    last->end = cycle + 1;
  } else {
    Span span;
    span.track = Track::kCompute;
    span.index = head.index;
    span.ins = head.ins;
    span.part = head.parts++;
    span.start = cycle;
    span.end = cycle + 1;
    compute_span_ = spans_.size();
    spans_.push_back(span);
  }
  if (--head.rows_left == 0) matmuls_.pop_front();
}

void Timeline::EndProgram(uint64_t cycle) {
  // After an error the engines were cleared: nothing still open will finish.
  for (size_t i = 0; i < kNumTracks; ++i) Close(static_cast<Track>(i), cycle);
  for (std::deque<Span>& queued : queued_) queued.clear();
  matmuls_.clear();
  weight_tiles_.clear();
  compute_span_.reset();
}

void Timeline::Abandon() {
  for (std::optional<Span>& span : open_) span.reset();
  for (std::deque<Span>& queued : queued_) queued.clear();
  matmuls_.clear();
  weight_tiles_.clear();
  compute_span_.reset();
  busy_ = false;
}

uint64_t Timeline::Cycles(Track track) const {
  uint64_t total = 0;
  for (const Span& span : spans_) {
    if (span.track == track) total += span.end - span.start;
  }
  return total;
}

}  // namespace mxu::sim
