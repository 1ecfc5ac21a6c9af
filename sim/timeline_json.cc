#include "sim/timeline_json.h"

#include <nlohmann/json.hpp>
#include <string>

#include "common/isa.h"

namespace mxu::sim {
namespace {

using Track = Timeline::Track;
using Json = nlohmann::ordered_json;

std::string OpName(const std::array<uint32_t, 4>& ins) {
  switch (isa::OpcodeOf(ins)) {
    case isa::Opcode::kLoad:
      return isa::DecodeTransfer(ins).buffer == isa::Buffer::kWeights ? "LOAD WEIGHTS" : "LOAD";
    case isa::Opcode::kStore:
      return "STORE";
    case isa::Opcode::kMatmul:
      return "MATMUL";
    case isa::Opcode::kActivate:
      return "ACTIVATE";
    case isa::Opcode::kSync:
      return "SYNC";
    case isa::Opcode::kHalt:
      return "HALT";
  }
  return "?";
}

// Device cycles as the format's microseconds: 1 cycle = 1 ns.
double Microseconds(uint64_t cycles) { return static_cast<double>(cycles) / 1000.0; }

}  // namespace

std::string SpanName(const Timeline::Span& span) {
  if (span.program)
    return span.label.empty() ? "program " + std::to_string(span.index) : span.label;
  if (span.index == Timeline::kNoIndex) return "unattributed";
  return OpName(span.ins) + " #" + std::to_string(span.index);
}

void WriteTimelineJson(const Timeline& timeline, std::ostream& out) {
  Json events = Json::array();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 0},
                    {"tid", 0},
                    {"args", {{"name", "mxu device (1 ns = 1 cycle)"}}}});
  for (size_t i = 0; i < Timeline::kNumTracks; ++i) {
    const char* name = Timeline::TrackName(static_cast<Track>(i));
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", i}, {"args", {{"name", name}}}});
    events.push_back({{"name", "thread_sort_index"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", i},
                      {"args", {{"sort_index", i}}}});
  }
  for (const Timeline::Span& span : timeline.spans()) {
    Json args = Json::object();
    if (span.program) {
      args["program"] = span.index;
      if (!span.label.empty()) args["label"] = span.label;
    } else if (span.index != Timeline::kNoIndex) {
      isa::Instruction ins;
      ins.words = span.ins;
      args["index"] = span.index;
      args["instruction"] = isa::Disassemble(ins);
      if (span.track == Track::kCompute) args["part"] = span.part;
    }
    events.push_back({{"name", SpanName(span)},
                      {"cat", Timeline::TrackName(span.track)},
                      {"ph", "X"},
                      {"ts", Microseconds(span.start)},
                      {"dur", Microseconds(span.end - span.start)},
                      {"pid", 0},
                      {"tid", static_cast<unsigned>(span.track)},
                      {"args", std::move(args)}});
  }
  const Json other = {{"time_unit", "1 ns = 1 device cycle; ts = cycle / 1000 (us)"},
                      {"origin_cycle", timeline.origin()}};
  // The object's members by hand, one event per line: readable, and much smaller than an
  // indented dump; every value is nlohmann's.
  out << "{\"displayTimeUnit\": \"ns\",\n \"otherData\": " << other.dump()
      << ",\n \"traceEvents\": [";
  for (size_t i = 0; i < events.size(); ++i) out << (i ? ",\n  " : "\n  ") << events[i].dump();
  out << "\n ]\n}\n";
}

}  // namespace mxu::sim
