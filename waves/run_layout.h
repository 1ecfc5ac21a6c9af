// The GTKWave save file written beside a trace (`mxu gemm --trace t.fst` also writes t.gtkw): the
// overview layout (waves/overview.gtkw, built in with absolute filter paths) opened on that very
// file, with markers at the run's own first events inside the trace window and zoomed on its
// first tile, so `gtkwave t.gtkw` opens to a readable picture from any working directory.
#ifndef MXU_WAVES_RUN_LAYOUT_H_
#define MXU_WAVES_RUN_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/timeline.h"

namespace mxu::waves {

// The layouts of waves/ as built: filter paths absolute (the bf16 filter of this build).
const char* OverviewLayout();
const char* Bf16FilterPath();
// Every shipped layout (overview, array, buffers), as built.
std::vector<std::string> Layouts();
// The hierarchical scopes of every signal the shipped layouts show, each once (a trace of these
// scopes' own signals holds what the layouts show: driver::TraceScope's "layouts").
std::vector<std::string> LayoutScopes();

// The first cycle of a span on `track` that starts inside [window_start, window_end), if any.
std::optional<uint64_t> FirstSpanStart(const sim::Timeline& timeline, sim::Timeline::Track track,
                                       uint64_t window_start, uint64_t window_end);

// A named marker: the FST time (ps) of the clock edge at which the event's first cycle begins,
// (cycle x 1000 - 500: the rising edge that ends the cycle before), where its signal changes.
struct Marker {
  uint64_t time_ps;
  std::string name;
};

// Picoseconds of the rising edge before `cycle` (the FST's 1 ns cycle).
inline uint64_t EdgeBefore(uint64_t cycle) { return cycle * 1000 - 500; }

// The save file for the trace `fst_path` of cycles [window_start, window_end) of a run the
// timeline recorded: markers A (first weight shift: dbg_wshift_start_o rises), B (first compute
// row: dbg_array_row_o rises) and C (first store dispatched: dbg_dispatch_o rises), each when it
// falls inside the window; zoomed from a little before A to a little after C (or the first tile's
// compute when C is missing), clipped to the window.
std::string RunLayout(const std::string& fst_path, uint64_t window_start, uint64_t window_end,
                      const sim::Timeline& timeline);

}  // namespace mxu::waves

#endif  // MXU_WAVES_RUN_LAYOUT_H_
