// Options shared by the subcommands that run programs on the RTL device and can record them:
// an FST waveform window (--trace FILE.fst, --trace-start CYCLE, --trace-cycles N) and the
// instruction timeline (--timeline FILE.json, Chrome trace-event format; docs/waves.md).
#ifndef MXU_HOST_CLI_TRACE_OPTIONS_H_
#define MXU_HOST_CLI_TRACE_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "driver/device.h"
#include "host/cli/output_file.h"

namespace mxu::host {

struct TraceOptions {
  std::string fst_path;           // empty: no waveform
  uint64_t start_cycle = 0;       // counted from RunRecorder::Arm
  uint64_t cycles = 10'000;       // 0: to the end of the run
  std::string scope = "layouts";  // which signals (driver/trace_scope.h)
  std::string timeline_path;      // empty: no timeline
};

// --trace, --trace-start, --trace-cycles, --trace-scope, --timeline into options.
void AddTraceOptions(CLI::App* app, TraceOptions* options);

// Records one run: Arm() before it (the trace window counts device cycles from there), Finish()
// after it. With neither option given both do nothing, and the run costs what it did before.
//
// With a trace, Finish() also writes a GTKWave save file beside it (GtkwPath: t.fst -> t.gtkw):
// the overview layout opened on that file, with markers at the run's first weight shift, first
// compute row and first store inside the window, zoomed on the first tile (waves/run_layout.h).
// The events come from the instruction timeline, which a trace turns on (the JSON is written
// only for --timeline).
class RunRecorder {
 public:
  // The files go to temporaries of outputs, renamed into place when the whole run succeeded.
  RunRecorder(TraceOptions options, PendingOutputs* outputs)
      : options_(std::move(options)), outputs_(outputs) {}
  ~RunRecorder();
  RunRecorder(const RunRecorder&) = delete;
  RunRecorder& operator=(const RunRecorder&) = delete;

  // Starts recording; throws std::runtime_error ("cannot write ...") when the trace's temporary
  // cannot be created (the save file's and the timeline's are made by Finish, so that a stop
  // before it leaves none). An older file at a path stays until the run's own replaces it.
  // Until Finish(), SIGTERM while the trace file is open is taken as Ctrl-C (the platform closes
  // the trace whole, exit code 130).
  void Arm(driver::Device& device);
  // Closes the trace and writes the save file and the timeline; throws std::runtime_error naming
  // the file that could not be written, or saying that the trace window missed the run ("no
  // trace written: --trace-start N is past the end of the run (M cycles)"): an error, exit 1.
  void Finish(driver::Device& device);

  // The save file written beside a trace: FILE.fst -> FILE.gtkw, else FILE + ".gtkw".
  static std::string GtkwPath(const std::string& fst_path);
  // The files these options write, for CheckOutputPaths: the trace, its save file, the timeline.
  static void AddOutputs(const TraceOptions& options, std::vector<PathArg>* outputs);

 private:
  TraceOptions options_;
  PendingOutputs* outputs_;
  uint64_t armed_at_ = 0;  // the device cycle of Arm()
};

}  // namespace mxu::host

#endif  // MXU_HOST_CLI_TRACE_OPTIONS_H_
