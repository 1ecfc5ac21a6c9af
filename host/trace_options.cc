#include "host/trace_options.h"

#include <unistd.h>

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

void RunRecorder::Arm(driver::Device& device) {
  if (options_.timeline_path.empty() && options_.fst_path.empty()) return;
  driver::Tracing& tracing = TracingOf(device);
  if (!options_.timeline_path.empty()) {
    CheckWritable(options_.timeline_path, "timeline");
    tracing.StartTimeline();
  }
  if (!options_.fst_path.empty()) {
    const uint64_t now = tracing.cycle();
    const uint64_t start =
        options_.start_cycle > UINT64_MAX - now ? UINT64_MAX : now + options_.start_cycle;
    tracing.SetTrace(options_.fst_path, start, options_.cycles);
  }
}

void RunRecorder::Finish(driver::Device& device) {
  if (options_.timeline_path.empty() && options_.fst_path.empty()) return;
  driver::Tracing& tracing = TracingOf(device);
  if (!options_.fst_path.empty()) tracing.CloseTrace();
  if (!options_.timeline_path.empty()) tracing.WriteTimeline(options_.timeline_path);
}

}  // namespace mxu::host
