// Writes a Timeline as a Chrome trace-event file (JSON object format), which Perfetto
// (ui.perfetto.dev) and chrome://tracing open: one process (the device), one thread per track,
// one complete ("X") event per span. Time: ts and dur are device cycles, written as the format's
// microseconds (1 us = 1 cycle), counted from the timeline's origin.
#ifndef MXU_SIM_TIMELINE_JSON_H_
#define MXU_SIM_TIMELINE_JSON_H_

#include <ostream>
#include <string>

#include "sim/timeline.h"

namespace mxu::sim {

void WriteTimelineJson(const Timeline& timeline, std::ostream& out);

// The span's event name, e.g. "MATMUL #12", "LOAD WEIGHTS #7", "program 0".
std::string SpanName(const Timeline::Span& span);

}  // namespace mxu::sim

#endif  // MXU_SIM_TIMELINE_JSON_H_
