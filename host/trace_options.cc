#include "host/trace_options.h"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "host/cli.h"

namespace mxu::host {
namespace {

// Before a long run, not after it: the directory must take the file.
void CheckWritable(const std::string& path, const char* what) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  if (path.back() == '/' || access(dir.c_str(), W_OK) != 0) {
    throw std::runtime_error(std::string("cannot write ") + what + " file '" + path + "'");
  }
}

// Recording needs a backend that can record; the others refuse the options rather than ignore them.
driver::Tracing& TracingOf(driver::Device& device) {
  driver::Tracing* tracing = device.tracing();
  if (!tracing) {
    throw UsageError(std::string("--trace and --timeline need a backend that records (the ") +
                     device.name() + " backend does not)");
  }
  return *tracing;
}

}  // namespace

std::string RunRecorder::GtkwPath(const std::string& fst_path) {
  const std::string ext = ".fst";
  if (fst_path.size() > ext.size() &&
      fst_path.compare(fst_path.size() - ext.size(), ext.size(), ext) == 0) {
    return fst_path.substr(0, fst_path.size() - ext.size()) + ".gtkw";
  }
  return fst_path + ".gtkw";
}

void RunRecorder::Arm(driver::Device& device) {
  const bool trace = !options_.fst_path.empty();
  if (!trace && options_.timeline_path.empty()) return;
  driver::Tracing& tracing = TracingOf(device);
  if (!options_.timeline_path.empty()) CheckWritable(options_.timeline_path, "timeline");
  armed_at_ = tracing.cycle();
  if (trace) {
    const uint64_t start = options_.start_cycle > UINT64_MAX - armed_at_
                               ? UINT64_MAX
                               : armed_at_ + options_.start_cycle;
    tracing.SetTrace(options_.fst_path, start, options_.cycles);
    // SetTrace checked the directory: a file of that name now can only be an older run's.
    std::remove(options_.fst_path.c_str());
    std::remove(GtkwPath(options_.fst_path).c_str());
  }
  // A trace needs the timeline too: its save file's markers are the run's events.
  tracing.StartTimeline();
}

void RunRecorder::Finish(driver::Device& device) {
  const bool trace = !options_.fst_path.empty();
  if (!trace && options_.timeline_path.empty()) return;
  driver::Tracing& tracing = TracingOf(device);
  const uint64_t end = tracing.cycle();
  if (trace) tracing.CloseTrace();  // throws when the file could not be created
  if (!options_.timeline_path.empty()) {
    tracing.WriteTimeline(options_.timeline_path);
  } else {
    tracing.StopTimeline();
  }
  if (!trace) return;
  if (!tracing.trace_written()) {
    throw std::runtime_error(
        "no trace written: --trace-start " + std::to_string(options_.start_cycle) +
        " is past the end of the run (" + std::to_string(end - armed_at_) + " cycles)");
  }
  tracing.WriteTraceLayout(GtkwPath(options_.fst_path));
}

}  // namespace mxu::host
