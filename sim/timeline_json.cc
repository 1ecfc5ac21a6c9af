#include "sim/timeline_json.h"

#include <string>

#include "common/isa.h"

namespace mxu::sim {
namespace {

using Track = Timeline::Track;

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string OpName(const std::array<uint32_t, 4>& ins) {
  switch (static_cast<isa::Opcode>(ins[0] & 0xFF)) {
    case isa::Opcode::kLoad:
      return ((ins[0] >> 8) & 3) == static_cast<uint32_t>(isa::Buffer::kWeights) ? "LOAD WEIGHTS"
                                                                                 : "LOAD";
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

}  // namespace

std::string SpanName(const Timeline::Span& span) {
  if (span.program) return "program " + std::to_string(span.index);
  if (span.index == Timeline::kNoIndex) return "unattributed";
  return OpName(span.ins) + " #" + std::to_string(span.index);
}

void WriteTimelineJson(const Timeline& timeline, std::ostream& out) {
  out << "{\"displayTimeUnit\": \"ns\",\n"
         " \"otherData\": {\"time_unit\": \"1 us = 1 device cycle\", \"origin_cycle\": "
      << timeline.origin() << "},\n \"traceEvents\": [\n";
  out << "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, "
         "\"args\": {\"name\": \"mxu device (1 us = 1 cycle)\"}}";
  for (size_t i = 0; i < Timeline::kNumTracks; ++i) {
    const char* name = Timeline::TrackName(static_cast<Track>(i));
    out << ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": " << i
        << ", \"args\": {\"name\": " << Quoted(name) << "}}";
    out << ",\n  {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 0, \"tid\": " << i
        << ", \"args\": {\"sort_index\": " << i << "}}";
  }
  for (const Timeline::Span& span : timeline.spans()) {
    out << ",\n  {\"name\": " << Quoted(SpanName(span))
        << ", \"cat\": " << Quoted(Timeline::TrackName(span.track))
        << ", \"ph\": \"X\", \"ts\": " << span.start - timeline.origin()
        << ", \"dur\": " << span.end - span.start
        << ", \"pid\": 0, \"tid\": " << static_cast<unsigned>(span.track) << ", \"args\": {";
    if (span.program) {
      out << "\"program\": " << span.index;
    } else if (span.index != Timeline::kNoIndex) {
      isa::Instruction ins;
      ins.words = span.ins;
      out << "\"index\": " << span.index << ", \"instruction\": " << Quoted(isa::Disassemble(ins));
      if (span.track == Track::kCompute) out << ", \"part\": " << span.part;
    }
    out << "}}";
  }
  out << "\n ]\n}\n";
}

}  // namespace mxu::sim
