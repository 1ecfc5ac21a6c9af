// Waveforms and the instruction timeline (docs/waves.md), through the `mxu` tool as a user runs
// it: every signal a layout of waves/ names exists in a real trace, a trace window holds only its
// window, every layout renders to a PNG headlessly, and the timeline is well-formed Chrome
// trace-event JSON whose compute spans add up to the ARRAY_BUSY counter.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/host/mxu_cli.h"
#include "tests/waves/json_value.h"
#include "tests/waves/png_check.h"

namespace mxu::testing {
namespace {

const std::vector<std::string> kLayouts = {"overview", "array", "buffers"};
// Small: every run here is a few thousand device cycles.
const std::string kGemm = "gemm --m 32 --k 32 --n 32";

using host::ReadFile;
using host::RunMxu;
using host::TempPath;
using Result = host::CliResult;

// The signals of an FST, as GTKWave names them ("scope.sub.name" and, for vectors,
// "scope.sub.name[msb:lsb]"), and its timestamps; read through fst2vcd.
struct Trace {
  std::set<std::string> signals;
  std::vector<uint64_t> times;
};

Trace ReadTrace(const std::string& fst) {
  const Result vcd = host::RunShell(std::string(MXU_FST2VCD) + " " + fst);
  EXPECT_EQ(vcd.exit_code, 0) << vcd.err;
  Trace trace;
  std::vector<std::string> scopes;
  std::istringstream lines(vcd.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word == "$scope") {
      std::string kind, name;
      words >> kind >> name;
      scopes.push_back(name);
    } else if (word == "$upscope") {
      scopes.pop_back();
    } else if (word == "$var") {
      std::string type, width, id, name, range;
      words >> type >> width >> id >> name >> range;
      std::string full;
      for (const std::string& scope : scopes) full += scope + ".";
      full += name;
      trace.signals.insert(full);
      if (!range.empty() && range[0] == '[') trace.signals.insert(full + range);
    } else if (!word.empty() && word[0] == '#') {
      trace.times.push_back(std::stoull(word.substr(1)));
    }
  }
  return trace;
}

// The signal lines of a .gtkw save file: not a comment ([*]), setting ([...]), format (@...),
// filter (^...), comment or group trace (-...) or empty.
std::vector<std::string> LayoutSignals(const std::string& gtkw) {
  std::vector<std::string> signals;
  std::istringstream lines(ReadFile(gtkw));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || std::string("[@^-*#").find(line[0]) != std::string::npos) continue;
    // "+{alias} name": a signal shown under another name.
    if (line[0] == '+') line = line.substr(line.find("} ") + 2);
    signals.push_back(line);
  }
  return signals;
}

std::string Layout(const std::string& name) {
  return std::string(MXU_SOURCE_DIR) + "/waves/" + name + ".gtkw";
}

// One traced GEMM shared by the tests of this file (each test process makes its own).
const std::string& SmallTrace() {
  static const std::string path = [] {
    const std::string fst = TempPath("small.fst");
    const Result r = RunMxu(kGemm + " --trace " + fst + " --trace-cycles 2000");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return fst;
  }();
  return path;
}

TEST(Waves, EveryLayoutSignalIsInTheTrace) {
  const Trace trace = ReadTrace(SmallTrace());
  ASSERT_GT(trace.signals.size(), 100u);
  for (const std::string& layout : kLayouts) {
    const std::vector<std::string> signals = LayoutSignals(Layout(layout));
    EXPECT_GE(signals.size(), 8u) << layout;
    for (const std::string& signal : signals) {
      EXPECT_TRUE(trace.signals.count(signal))
          << layout << ".gtkw names " << signal << ", which the trace does not hold";
    }
  }
}

TEST(Waves, LayoutsNameTheShippedFilter) {
  // A filter line names build/bin/mxu-bf16-filter, which the build makes.
  const std::string array = ReadFile(Layout("array"));
  EXPECT_NE(array.find("^>1 build/bin/mxu-bf16-filter"), std::string::npos);
  EXPECT_NE(array.find("@40020"), std::string::npos) << "no fp32 shown as a real";
}

TEST(Waves, WindowedTraceHoldsOnlyItsWindow) {
  // Times in the file: cycle c is c * 1000 ps (clock low) and c * 1000 + 500 (high).
  constexpr uint64_t kPeriod = 1000, kStart = 300, kCycles = 200;
  const std::string from0 = TempPath("w0.fst"), from300 = TempPath("w300.fst");
  ASSERT_EQ(
      RunMxu(kGemm + " --trace " + from0 + " --trace-cycles " + std::to_string(kCycles)).exit_code,
      0);
  ASSERT_EQ(RunMxu(kGemm + " --trace " + from300 + " --trace-start " + std::to_string(kStart) +
                   " --trace-cycles " + std::to_string(kCycles))
                .exit_code,
            0);
  const Trace a = ReadTrace(from0), b = ReadTrace(from300);
  for (const Trace* t : {&a, &b}) {
    ASSERT_FALSE(t->times.empty());
    const auto [lo, hi] = std::minmax_element(t->times.begin(), t->times.end());
    EXPECT_EQ(*lo % kPeriod, 0u);
    EXPECT_EQ(*hi - *lo, (kCycles - 1) * kPeriod + kPeriod / 2);
    std::set<uint64_t> cycles;
    for (uint64_t time : t->times) cycles.insert(time / kPeriod);
    EXPECT_EQ(cycles.size(), kCycles);
  }
  // The same run both times: the second window starts kStart cycles later.
  EXPECT_EQ(*std::min_element(b.times.begin(), b.times.end()) -
                *std::min_element(a.times.begin(), a.times.end()),
            kStart * kPeriod);
}

TEST(Waves, EveryLayoutRendersToAPng) {
  for (const std::string& layout : kLayouts) {
    const std::string png = TempPath(layout + ".png");
    const Result r = host::RunShell(std::string(MXU_SOURCE_DIR) + "/scripts/render_waves.sh " +
                                    Layout(layout) + " " + SmallTrace() + " " + png + " 0 400000");
    ASSERT_EQ(r.exit_code, 0) << layout << ": " << r.err;
    const PngInfo info = InspectPng(ReadFile(png));
    EXPECT_TRUE(info.valid) << layout << ": " << info.error;
    EXPECT_GT(info.width, 0u);
    EXPECT_GT(info.height, 0u);
    EXPECT_GT(info.distinct_bytes, 16u) << layout << ": a blank picture";
  }
}

TEST(Waves, Bf16FilterShowsNumbers) {
  const std::string in = TempPath("filter_in.txt");
  std::ofstream(in) << "3F80\nc000\n0000\n7fc0\nxxxx\n";
  const Result r = host::RunShell(std::string(MXU_BF16_FILTER) + " < " + in);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "1\n-2\n0\nnan\nxxxx\n");
}

// ---- the timeline ----

struct Span {
  std::string name, track;
  uint64_t start, end;
  int64_t index;  // -1: none
};

std::vector<Span> ReadTimeline(const std::string& path) {
  const JsonValue root = JsonParser::Parse(ReadFile(path));
  std::map<double, std::string> tracks;
  for (const JsonValue& e : root.at("traceEvents").array) {
    if (e.at("ph").string == "M" && e.at("name").string == "thread_name") {
      tracks[e.at("tid").number] = e.at("args").at("name").string;
    }
  }
  std::vector<Span> spans;
  for (const JsonValue& e : root.at("traceEvents").array) {
    if (e.at("ph").string != "X") continue;
    Span s;
    s.name = e.at("name").string;
    s.track = tracks.at(e.at("tid").number);
    s.start = static_cast<uint64_t>(e.at("ts").number);
    s.end = s.start + static_cast<uint64_t>(e.at("dur").number);
    const JsonValue& args = e.at("args");
    s.index = args.has("index") ? static_cast<int64_t>(args.at("index").number) : -1;
    spans.push_back(s);
  }
  return spans;
}

TEST(WavesTimeline, ComputeSpansAddUpToArrayBusy) {
  const std::string json = TempPath("timeline.json");
  // Two shapes: one with fp32 output; one with several K tiles and bf16 output through
  // ACTIVATE.
  const std::string bf16_out = TempPath("c_bf16.npy");
  for (const std::string& shape :
       {kGemm, "gemm --m 100 --k 48 --n 20 --relu --out-bf16 " + bf16_out}) {
    const Result r = RunMxu(shape + " --json --timeline " + json);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const JsonValue stats = JsonParser::Parse(r.out);
    const std::vector<Span> spans = ReadTimeline(json);

    std::map<std::string, uint64_t> cycles;
    std::map<std::string, std::vector<Span>> by_track;
    std::set<int64_t> indices;
    for (const Span& s : spans) {
      EXPECT_GT(s.end, s.start) << s.name;
      cycles[s.track] += s.end - s.start;
      by_track[s.track].push_back(s);
      indices.insert(s.index);
    }
    EXPECT_EQ(cycles["compute (array)"], stats.at("array_busy_cycles").number) << shape;
    EXPECT_GT(cycles["DMA load"], 0u);
    EXPECT_GT(cycles["DMA weights"], 0u);
    EXPECT_GT(cycles["weight shift"], 0u);
    EXPECT_GT(cycles["DMA store"], 0u);
    EXPECT_EQ(cycles["activation"] > 0, shape.find("--out-bf16") != std::string::npos) << shape;
    // Every instruction of the program shows up on some track.
    for (int64_t i = 0; i < static_cast<int64_t>(stats.at("instructions").number); ++i) {
      EXPECT_TRUE(indices.count(i)) << shape << ": instruction " << i << " has no span";
    }
    // One engine per track: its spans never overlap (the control track nests SYNC and HALT
    // inside the program).
    for (auto& [track, list] : by_track) {
      if (track == "control") continue;
      std::sort(list.begin(), list.end(),
                [](const Span& a, const Span& b) { return a.start < b.start; });
      for (size_t i = 1; i < list.size(); ++i) {
        EXPECT_LE(list[i - 1].end, list[i].start)
            << track << ": " << list[i - 1].name << " / " << list[i].name;
      }
    }
    // The program span is the CYCLES counter: busy from start to done.
    ASSERT_FALSE(by_track["control"].empty());
    const auto program = std::find_if(by_track["control"].begin(), by_track["control"].end(),
                                      [](const Span& s) { return s.index < 0; });
    ASSERT_NE(program, by_track["control"].end());
    EXPECT_EQ(program->end - program->start, stats.at("cycles").number);
  }
}

TEST(WavesTimeline, UnwritableFileIsAOneLineError) {
  const Result r = RunMxu(kGemm + " --timeline /nonexistent-dir/t.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;  // bad input, found before the run
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("cannot write timeline file"), std::string::npos) << r.err;
  const Result empty = RunMxu(kGemm + " --timeline=");
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
}

}  // namespace
}  // namespace mxu::testing
