// What a backend can record of the programs it runs, for the tools: an FST waveform window and
// the instruction timeline. A backend that records nothing returns no Tracing (Device::tracing()).
#ifndef MXU_DRIVER_TRACING_H_
#define MXU_DRIVER_TRACING_H_

#include <cstdint>
#include <string>

#include "driver/trace_scope.h"

namespace mxu::driver {

class Tracing {
 public:
  virtual ~Tracing() = default;

  // Device clock cycles since the backend was opened: trace windows are given in this count.
  virtual uint64_t cycle() const = 0;
  // FST waveform of cycles [start_cycle, start_cycle + cycles) (cycles 0: to the end), holding the
  // signals of `scope` (driver/trace_scope.h). Throws std::runtime_error at once when the file's
  // directory is not writable.
  virtual void SetTrace(const std::string& path, uint64_t start_cycle, uint64_t cycles,
                        const TraceScope& scope) = 0;
  // Closes the waveform; throws std::runtime_error naming the file when the window's file could
  // not be written.
  virtual void CloseTrace() = 0;
  // Whether the last window opened its file: false for a window that started after the run
  // ended (no file was written).
  virtual bool trace_written() const = 0;
  // Writes a GTKWave save file for the last window's file: the overview layout opened on it, with
  // markers at the first weight shift, compute row and store inside the window and zoomed on the
  // first tile; the events come from the timeline, which must have recorded the window. Throws
  // std::runtime_error naming the file when it cannot be written.
  virtual void WriteTraceLayout(const std::string& gtkw_path) = 0;
  // Instruction timeline from now on; WriteTimeline stops it and writes it as Chrome trace-event
  // JSON, throwing std::runtime_error ("cannot write timeline file '...'") on failure.
  virtual void StartTimeline() = 0;
  virtual void WriteTimeline(const std::string& path) = 0;
  // Stops the timeline without writing it.
  virtual void StopTimeline() = 0;
  // Names the timeline's programs from now on, e.g. "layer 1 forward 64x2x32" (empty:
  // "program N"), in this timeline and the ones started later.
  virtual void SetProgramLabel(const std::string& label) = 0;
};

}  // namespace mxu::driver

#endif  // MXU_DRIVER_TRACING_H_
