// Timing of the host memory behind the device, in device clock cycles: the one definition of
// these settings and their defaults, shared by the simulation, the backends and the tools.
#ifndef MXU_COMMON_MEMORY_TIMING_H_
#define MXU_COMMON_MEMORY_TIMING_H_

namespace mxu {

struct MemoryTiming {
  unsigned latency_cycles = 100;  // from a request's issue to its first data
  unsigned bytes_per_cycle = 32;  // width of the one data channel shared by reads and writes
  unsigned max_in_flight = 8;     // requests outstanding at once
};

}  // namespace mxu

#endif  // MXU_COMMON_MEMORY_TIMING_H_
