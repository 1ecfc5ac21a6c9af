// The timeline recorder fed cycle by cycle with scripted observation ports: the span rules of
// sim/timeline.h, without the device.
#include "sim/timeline.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/isa.h"
#include "sim/timeline_json.h"

namespace mxu::sim {
namespace {

using Track = Timeline::Track;

class Script {
 public:
  // Runs `cycles` cycles with the device busy and nothing else happening.
  void Idle(int cycles) {
    for (int i = 0; i < cycles; ++i) Step(Busy());
  }
  void Step(const DebugPorts& ports) { timeline.Sample(cycle++, ports); }
  DebugPorts Busy() const {
    DebugPorts p;
    p.busy = true;
    return p;
  }
  DebugPorts Dispatch(uint32_t pc, const isa::Instruction& ins) const {
    DebugPorts p = Busy();
    p.dispatch = true;
    p.pc = pc;
    p.ins = ins.words;
    return p;
  }

  Timeline timeline{100};
  uint64_t cycle = 100;
};

std::vector<Timeline::Span> OnTrack(const Timeline& t, Track track) {
  std::vector<Timeline::Span> out;
  for (const auto& s : t.spans()) {
    if (s.track == track) out.push_back(s);
  }
  return out;
}

// A load engine queues LOADs and completes them in order: a LOAD dispatched while an earlier one
// is still open on its track starts there when the earlier one is done, so the spans of one
// track never overlap and each ends at its own done.
TEST(Timeline, QueuedLoadsFollowEachOther) {
  Script s;
  s.Idle(1);                                                             // 100
  s.Step(s.Dispatch(0, isa::Load(isa::Buffer::kUb, 4, 16, 0, 0, 16)));   // 101
  s.Step(s.Dispatch(1, isa::Load(isa::Buffer::kUb, 4, 16, 4, 64, 16)));  // 102: queued
  s.Idle(2);                                                             // 103, 104
  DebugPorts p = s.Busy();
  p.load_done = true;  // 105: LOAD #0 done
  s.Step(p);
  s.Idle(1);  // 106
  s.Step(p);  // 107: LOAD #1 done
  const auto loads = OnTrack(s.timeline, Track::kDmaLoad);
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].index, 0u);
  EXPECT_EQ(loads[0].start, 101u);
  EXPECT_EQ(loads[0].end, 106u);
  EXPECT_EQ(loads[1].index, 1u);
  EXPECT_EQ(loads[1].start, 106u);
  EXPECT_EQ(loads[1].end, 108u);
}

TEST(Timeline, SpansFollowThePorts) {
  Script s;
  s.Idle(1);                                                            // 100: program starts
  s.Step(s.Dispatch(0, isa::Load(isa::Buffer::kUb, 4, 16, 0, 0, 16)));  // 101
  s.Step(s.Dispatch(1, isa::Load(isa::Buffer::kWeights, 16, 16, 0, 0x1000, 16)));  // 102
  DebugPorts p = s.Dispatch(2, isa::Matmul(4, 16, 0, 0, false, true));             // 103
  p.wshift_start = true;  // weights #1 shift
  s.Step(p);
  p = s.Busy();
  p.wshift_busy = true;
  p.load_done = true;  // 104: LOAD #0 done
  s.Step(p);
  p = s.Busy();
  p.wshift_busy = true;
  p.wload_done = true;  // 105
  s.Step(p);
  p = s.Busy();  // 106: shift over
  p.array_row = true;
  s.Step(p);  // MATMUL rows: 106, 107, stall 108, 109, 110
  s.Step(p);
  s.Step(s.Busy());
  s.Step(p);
  s.Step(p);
  s.Step(s.Dispatch(3, isa::Halt()));  // 111
  DebugPorts idle;
  s.Step(idle);  // 112: idle again

  const Timeline& t = s.timeline;
  ASSERT_EQ(OnTrack(t, Track::kDmaLoad).size(), 1u);
  EXPECT_EQ(OnTrack(t, Track::kDmaLoad)[0].start, 101u);
  EXPECT_EQ(OnTrack(t, Track::kDmaLoad)[0].end, 105u);
  ASSERT_EQ(OnTrack(t, Track::kDmaWeights).size(), 1u);
  EXPECT_EQ(OnTrack(t, Track::kDmaWeights)[0].end, 106u);
  const auto shift = OnTrack(t, Track::kWeightShift);
  ASSERT_EQ(shift.size(), 1u);
  EXPECT_EQ(shift[0].index, 1u);  // the LOAD WEIGHTS that brought the tile
  EXPECT_EQ(shift[0].start, 103u);
  EXPECT_EQ(shift[0].end, 106u);
  // A stall splits the MATMUL into two parts; their cycles are the array-busy cycles.
  const auto compute = OnTrack(t, Track::kCompute);
  ASSERT_EQ(compute.size(), 2u);
  EXPECT_EQ(compute[0].start, 106u);
  EXPECT_EQ(compute[0].end, 108u);
  EXPECT_EQ(compute[1].start, 109u);
  EXPECT_EQ(compute[1].end, 111u);
  EXPECT_EQ(compute[1].part, 1u);
  EXPECT_EQ(compute[1].index, 2u);
  EXPECT_EQ(t.Cycles(Track::kCompute), 4u);
  // Control: HALT in its cycle, the program from busy to idle.
  const auto control = OnTrack(t, Track::kControl);
  ASSERT_EQ(control.size(), 2u);
  EXPECT_EQ(SpanName(control[0]), "HALT #3");
  EXPECT_EQ(SpanName(control[1]), "program 0");
  EXPECT_EQ(control[1].start, 100u);
  EXPECT_EQ(control[1].end, 112u);

  std::ostringstream text;
  WriteTimelineJson(t, text);
  const nlohmann::json json = nlohmann::json::parse(text.str());
  // 1 ns per cycle: ts and dur are microseconds, cycle / 1000, on the platform's own cycle count
  // (the origin is cycle 100); names carry the instruction.
  EXPECT_EQ(json.at("displayTimeUnit"), "ns");
  EXPECT_EQ(json.at("otherData").at("origin_cycle"), 100);
  bool found = false;
  for (const auto& e : json.at("traceEvents")) {
    if (e.at("name") != "MATMUL #2" || e.at("cat") != "compute (array)") continue;
    EXPECT_EQ(e.at("ph"), "X");
    EXPECT_DOUBLE_EQ(e.at("dur").get<double>(), 0.002);
    if (e.at("args").at("part") == 0) {
      EXPECT_DOUBLE_EQ(e.at("ts").get<double>(), 0.106);
      EXPECT_EQ(e.at("args").at("instruction"), "MATMUL rows=4 k_rows=16 ub=0 acc=0 new_weights");
      found = true;
    }
  }
  EXPECT_TRUE(found) << text.str();
}

TEST(Timeline, ProgramLabelsNameTheProgramsThatFollow) {
  Script s;
  s.Step(s.Dispatch(0, isa::Halt()));
  s.Step(DebugPorts());
  s.timeline.SetProgramLabel("layer 1 forward 64x2x32");
  s.Step(s.Dispatch(0, isa::Halt()));
  s.Step(DebugPorts());
  s.Step(s.Dispatch(0, isa::Halt()));
  s.Step(DebugPorts());
  s.timeline.SetProgramLabel("");
  s.Step(s.Dispatch(0, isa::Halt()));
  s.Step(DebugPorts());
  std::vector<std::string> names;
  for (const auto& span : s.timeline.spans()) {
    if (span.program) names.push_back(SpanName(span));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"program 0", "layer 1 forward 64x2x32",
                                             "layer 1 forward 64x2x32", "program 3"}));
  std::ostringstream text;
  WriteTimelineJson(s.timeline, text);
  const nlohmann::json json = nlohmann::json::parse(text.str());
  int labelled = 0;
  for (const auto& e : json.at("traceEvents")) {
    if (e.at("name") == "layer 1 forward 64x2x32") {
      EXPECT_EQ(e.at("args").at("label"), "layer 1 forward 64x2x32");
      ++labelled;
    }
  }
  EXPECT_EQ(labelled, 2);
}

TEST(Timeline, BackToBackMatmulsStaySeparate) {
  Script s;
  s.Step(s.Dispatch(0, isa::Matmul(2, 16, 0, 0, false, false)));
  s.Step(s.Dispatch(1, isa::Matmul(3, 16, 0, 0, false, false)));
  DebugPorts row = s.Busy();
  row.array_row = true;
  for (int i = 0; i < 5; ++i) s.Step(row);
  const auto compute = OnTrack(s.timeline, Track::kCompute);
  ASSERT_EQ(compute.size(), 2u);
  EXPECT_EQ(compute[0].end - compute[0].start, 2u);
  EXPECT_EQ(compute[1].end - compute[1].start, 3u);
  EXPECT_EQ(compute[0].end, compute[1].start);
  EXPECT_EQ(compute[1].part, 0u);
}

TEST(Timeline, ErrorEndsOpenSpansWithTheProgram) {
  Script s;
  s.Step(s.Dispatch(0, isa::Store(isa::Buffer::kAcc, 1, 16, 0, 0, 16)));
  s.Idle(3);
  s.Step(DebugPorts());  // idle after an error: the store never reported done
  const auto store = OnTrack(s.timeline, Track::kDmaStore);
  ASSERT_EQ(store.size(), 1u);
  EXPECT_EQ(store[0].end, s.cycle - 1);
}

}  // namespace
}  // namespace mxu::sim
