#include "waves/run_layout.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace mxu::waves {
namespace {

using Track = sim::Timeline::Track;

// GTKWave's zoom for a time range shown across the layout's window (1600 pixels wide, 330 of them
// signal names): measured, the overview's -17.6 shows 1,150 ns across the wave area.
double ZoomFor(uint64_t range_ps) { return -std::log2(std::max<double>(range_ps, 1000) * 0.1727); }

std::string AbsolutePath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

}  // namespace

std::optional<uint64_t> FirstSpanStart(const sim::Timeline& timeline, Track track,
                                       uint64_t window_start, uint64_t window_end) {
  std::optional<uint64_t> first;
  for (const sim::Timeline::Span& span : timeline.spans()) {
    if (span.track != track || span.start < window_start || span.start >= window_end) continue;
    if (!first || span.start < *first) first = span.start;
  }
  return first;
}

std::string RunLayout(const std::string& fst_path, uint64_t window_start, uint64_t window_end,
                      const sim::Timeline& timeline) {
  // The first cycle of the window has no edge before it in the file: events start after it.
  const uint64_t from = window_start + 1;
  const std::optional<uint64_t> shift =
      FirstSpanStart(timeline, Track::kWeightShift, from, window_end);
  const std::optional<uint64_t> compute =
      FirstSpanStart(timeline, Track::kCompute, from, window_end);
  const std::optional<uint64_t> store =
      FirstSpanStart(timeline, Track::kDmaStore, from, window_end);
  std::vector<Marker> markers;
  if (shift) markers.push_back({EdgeBefore(*shift), "first weight shift"});
  if (compute) markers.push_back({EdgeBefore(*compute), "first compute row enters the array"});
  if (store) markers.push_back({EdgeBefore(*store), "first store dispatched"});

  // The first tile: a little before its weights shift in until its store has started (or its
  // rows have gone through the array); the whole window when nothing happened in it.
  uint64_t zoom_start = window_start, zoom_end = window_end;
  if (!markers.empty()) {
    const uint64_t first = shift ? *shift : compute ? *compute : *store;
    const uint64_t last = store ? *store + 80 : compute ? *compute + 120 : first + 200;
    zoom_start = std::max(window_start, first > 30 ? first - 30 : 0);
    zoom_end = std::min(window_end, std::max(last, zoom_start + 1));
  }

  std::ostringstream out;
  out << "[*]\n[*] mxu: GTKWave save file of one traced run (waves/overview.gtkw, markers and zoom "
         "of this run)\n[*]\n";
  out << "[dumpfile] \"" << AbsolutePath(fst_path) << "\"\n";
  out << "[timestart] " << zoom_start * 1000 << "\n";
  std::istringstream layout(OverviewLayout());
  std::string line;
  while (std::getline(layout, line)) {
    // The template's own comment, start, zoom/markers and marker names are replaced.
    if (line.rfind("[*]", 0) == 0 || line.rfind("[timestart]", 0) == 0 ||
        line.rfind("[markername]", 0) == 0 || line.rfind("[dumpfile]", 0) == 0) {
      continue;
    }
    if (!line.empty() && line[0] == '*') {
      char zoom[32];
      std::snprintf(zoom, sizeof zoom, "%.6f", ZoomFor((zoom_end - zoom_start) * 1000));
      out << "*" << zoom << " -1";
      for (size_t i = 0; i < 26; ++i) {
        out << " ";
        if (i < markers.size()) {
          out << markers[i].time_ps;
        } else {
          out << "-1";
        }
      }
      out << "\n";
      for (size_t i = 0; i < markers.size(); ++i) {
        out << "[markername] " << static_cast<char>('A' + i) << markers[i].name << "\n";
      }
      continue;
    }
    out << line << "\n";
  }
  return out.str();
}

std::vector<std::string> LayoutScopes() {
  std::vector<std::string> scopes;
  for (const std::string& layout : Layouts()) {
    std::istringstream lines(layout);
    for (std::string line; std::getline(lines, line);) {
      // A signal line: "mxu_top.a.b.sig[7:0]", or "+{alias} mxu_top.a.b.sig[7:0]".
      const size_t at = line.find("mxu_top.");
      if (at == std::string::npos || (at != 0 && line[0] != '+')) continue;
      std::string signal = line.substr(at);
      const size_t range = signal.rfind('[');
      if (range != std::string::npos && signal.find(':', range) != std::string::npos) {
        signal.erase(range);  // a vector's bit range, not a generate index
      }
      const std::string scope = signal.substr(0, signal.rfind('.'));
      if (std::find(scopes.begin(), scopes.end(), scope) == scopes.end()) scopes.push_back(scope);
    }
  }
  return scopes;
}

}  // namespace mxu::waves
