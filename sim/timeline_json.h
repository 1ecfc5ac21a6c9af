// Writes a Timeline as a Chrome trace-event file (JSON object format, written with nlohmann-json),
// which Perfetto (ui.perfetto.dev) and chrome://tracing open: one process (the device), one
// thread per track, one complete ("X") event per span.
//
// Time: 1 ns per device cycle, the same scale and origin as the platform's FST traces. The
// format's ts and dur are microseconds, so ts = cycle / 1000 and dur = cycles / 1000, where cycle
// counts from the construction of the platform (not from the timeline's origin): a span that
// starts at ts 0.422 (422 ns) starts in cycle 422, which an FST of the same run shows from 422 ns
// (clock low) to its rising edge at 422.5 ns. displayTimeUnit is "ns". Non-finite numbers, were
// there any, would be written as null.
#ifndef MXU_SIM_TIMELINE_JSON_H_
#define MXU_SIM_TIMELINE_JSON_H_

#include <ostream>
#include <string>

#include "sim/timeline.h"

namespace mxu::sim {

void WriteTimelineJson(const Timeline& timeline, std::ostream& out);

// The span's event name, e.g. "MATMUL #12", "LOAD WEIGHTS #7", "program 0", or a program's
// label ("layer 1 forward 64x2x32").
std::string SpanName(const Timeline::Span& span);

}  // namespace mxu::sim

#endif  // MXU_SIM_TIMELINE_JSON_H_
