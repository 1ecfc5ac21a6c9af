#include "host/trace_options.h"

#include <unistd.h>

#include <stdexcept>

#include "sim/platform.h"

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

}  // namespace

void RunRecorder::Arm(driver::RtlDevice& device) {
  if (!options_.timeline_path.empty()) {
    CheckWritable(options_.timeline_path, "timeline");
    device.StartTimeline();
  }
  if (!options_.fst_path.empty()) {
    const uint64_t now = device.platform().cycle();
    const uint64_t start =
        options_.start_cycle > UINT64_MAX - now ? UINT64_MAX : now + options_.start_cycle;
    device.SetTrace(options_.fst_path, start, options_.cycles);
  }
}

void RunRecorder::Finish(driver::RtlDevice& device) {
  if (!options_.fst_path.empty()) {
    device.platform().CloseTrace();
    if (!device.platform().trace_error().empty()) {
      throw std::runtime_error(device.platform().trace_error());
    }
  }
  if (!options_.timeline_path.empty()) device.WriteTimeline(options_.timeline_path);
}

}  // namespace mxu::host
