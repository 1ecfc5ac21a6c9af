// What a backend can record of the programs it runs, for the tools: an FST waveform window and
// the instruction timeline. A backend that records nothing returns no Tracing (Device::tracing()).
#ifndef MXU_DRIVER_TRACING_H_
#define MXU_DRIVER_TRACING_H_

#include <cstdint>
#include <string>

namespace mxu::driver {

class Tracing {
 public:
  virtual ~Tracing() = default;

  // Device clock cycles since the backend was opened: trace windows are given in this count.
  virtual uint64_t cycle() const = 0;
  // FST waveform of cycles [start_cycle, start_cycle + cycles) (cycles 0: to the end). Throws
  // std::runtime_error at once when the file's directory is not writable.
  virtual void SetTrace(const std::string& path, uint64_t start_cycle, uint64_t cycles) = 0;
  // Closes the waveform; throws std::runtime_error naming the file when the window's file could
  // not be written.
  virtual void CloseTrace() = 0;
  // Instruction timeline from now on; WriteTimeline stops it and writes it as Chrome trace-event
  // JSON, throwing std::runtime_error ("cannot write timeline file '...'") on failure.
  virtual void StartTimeline() = 0;
  virtual void WriteTimeline(const std::string& path) = 0;
};

}  // namespace mxu::driver

#endif  // MXU_DRIVER_TRACING_H_
