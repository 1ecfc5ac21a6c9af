// Options shared by the subcommands that run programs on the RTL device and can record them:
// an FST waveform window (--trace FILE.fst, --trace-start CYCLE, --trace-cycles N) and the
// instruction timeline (--timeline FILE.json, Chrome trace-event format; docs/waves.md).
#ifndef MXU_HOST_TRACE_OPTIONS_H_
#define MXU_HOST_TRACE_OPTIONS_H_

#include <cstdint>
#include <string>
#include <utility>

#include "driver/device.h"

namespace mxu::host {

struct TraceOptions {
  std::string fst_path;       // empty: no waveform
  uint64_t start_cycle = 0;   // counted from RunRecorder::Arm
  uint64_t cycles = 10'000;   // 0: to the end of the run
  std::string timeline_path;  // empty: no timeline
};

// The command line fills these: AddTraceOptions (host/cli.h).

// Records one run: Arm() before it (the trace window counts device cycles from there), Finish()
// after it. With neither option given both do nothing, and the run costs what it did before.
class RunRecorder {
 public:
  explicit RunRecorder(TraceOptions options) : options_(std::move(options)) {}

  // Throws std::runtime_error ("cannot write ...") when a file's directory is not writable.
  void Arm(driver::Device& device);
  // Closes the trace and writes the timeline; throws std::runtime_error naming the file that
  // could not be written.
  void Finish(driver::Device& device);

 private:
  TraceOptions options_;
};

}  // namespace mxu::host

#endif  // MXU_HOST_TRACE_OPTIONS_H_
