// Timing of the host memory behind the device, in device clock cycles: the one definition of
// these settings and their defaults, shared by the simulation, the backends and the tools.
#ifndef MXU_COMMON_MEMORY_TIMING_H_
#define MXU_COMMON_MEMORY_TIMING_H_

namespace mxu {

// bytes_per_cycle's default: as wide as the device's memory port (bus=B, its bytes per beat), so
// that a wide port is not starved by a narrow memory unless asked for. Only whatever knows the
// device can resolve it (MemoryTiming::ForPort): the RTL platform, the model, the tools.
inline constexpr unsigned kPortWidth = 0;

struct MemoryTiming {
  unsigned latency_cycles = 100;  // from a request's issue to its first data
  // Width of the one data channel shared by reads and writes; kPortWidth: the port's.
  unsigned bytes_per_cycle = kPortWidth;
  unsigned max_in_flight = 8;  // requests outstanding at once

  constexpr bool port_width() const { return bytes_per_cycle == kPortWidth; }
  // This timing behind a port of bus_bytes a beat: kPortWidth becomes bus_bytes.
  constexpr MemoryTiming ForPort(unsigned bus_bytes) const {
    MemoryTiming timing = *this;
    if (timing.bytes_per_cycle == kPortWidth) timing.bytes_per_cycle = bus_bytes;
    return timing;
  }
};

}  // namespace mxu

#endif  // MXU_COMMON_MEMORY_TIMING_H_
