// The platform's host memory: a sparse, byte-addressed TLM-2.0 target with a loosely timed model
// of latency, bandwidth and requests in flight.
#ifndef MXU_SIM_HOST_MEMORY_H_
#define MXU_SIM_HOST_MEMORY_H_

#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/memory_timing.h"

namespace mxu::sim {

// Functional behaviour: reads and writes of any length and alignment, byte enables (on reads and
// writes, repeating when shorter than the data), reads of never-written memory return zeros, and
// only the 4 KiB pages that were written are allocated, so address spaces of many GiB cost nothing.
//
// Timing (b_transport only; it never calls wait(), so it may be called from an SC_METHOD, from a
// thread that keeps its own local time, or from sc_main between sc_start() calls): a request is
// issued at sc_time_stamp() + the incoming delay, rounded up to a clock edge. If max_in_flight
// requests are still outstanding then, it is issued when the earliest of them completes. Its data
// transfer starts at max(issue + latency, the time the shared read/write channel becomes free) and
// takes ceil(length / bytes_per_cycle) cycles; the delay returned is completion - sc_time_stamp().
// Requests are served in call order (one FIFO, like a memory controller's queue; callers are
// expected to issue in non-decreasing time), and the data is read or written at the call, not at
// completion (loosely timed). Error responses, the ignore
// command and transport_dbg take no time and leave the timing state and the delay untouched.
class HostMemory : public sc_core::sc_module {
 public:
  // Constructing a Config builds an sc_time, which fixes the SystemC time resolution: set the
  // resolution (sc_set_time_resolution) before the first Config exists.
  struct Config {
    uint64_t size_bytes = 1ull << 32;
    // Latency, bytes per cycle (one channel for reads and writes), in flight. The memory does not
    // know the port: its bytes per cycle must be given (the Platform gives kPortWidth its own).
    MemoryTiming timing;
    sc_core::sc_time clock_period = sc_core::sc_time(1, sc_core::SC_NS);
  };

  // Traffic through b_transport only: the host access API and transport_dbg are backdoors.
  struct Stats {
    uint64_t bytes_read = 0;     // data_length of each successful read (bytes over the channel)
    uint64_t bytes_written = 0;  // data_length of each successful write, byte enables or not
    uint64_t transactions = 0;   // successful reads and writes
    uint64_t errors = 0;         // b_transport calls answered with an error response
  };

  static constexpr uint64_t kPageBytes = 4096;

  tlm_utils::simple_target_socket<HostMemory> socket;

  // Throws std::invalid_argument for an invalid config, before the module is registered.
  HostMemory(sc_core::sc_module_name name, const Config& config);
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  // Throws std::invalid_argument unless bytes_per_cycle >= 1 (not kPortWidth), max_in_flight >= 1
  // and clock_period > 0.
  static void Validate(const Config& config);

  const Config& config() const { return config_; }

  // Applies a new configuration to the requests issued from now on (between runs: new latency,
  // bandwidth, requests in flight or size); contents, stats and injected errors are kept. A new
  // clock_period also forgets the timing state, whose cycles it would misread. Throws
  // std::invalid_argument for an invalid config, changing nothing.
  void Reconfigure(const Config& config);

  // Host access for the driver and tests: zero simulated time, no timing or stats effects. Throw
  // std::out_of_range if [addr, addr + len) is not inside the memory.
  void Write(uint64_t addr, const void* data, size_t len);
  void Read(uint64_t addr, void* data, size_t len) const;

  // b_transport accesses overlapping [base, base + length) get TLM_GENERIC_ERROR_RESPONSE and
  // touch nothing, until ClearInjectedErrors().
  void InjectError(uint64_t base, uint64_t length);
  void ClearInjectedErrors();

  const Stats& stats() const { return stats_; }
  void ResetStats() { stats_ = Stats(); }

  // Forgets the channel's busy time and the requests in flight; keeps the contents.
  void Reset();
  // Drops every page: all of memory reads zero again (timing state and stats untouched).
  void Clear() { pages_.clear(); }

  // Pages of backing store allocated so far (for tests of sparseness).
  size_t allocated_pages() const { return pages_.size(); }

 private:
  using Page = std::array<uint8_t, kPageBytes>;

  static const sc_core::sc_module_name& Validated(const sc_core::sc_module_name& name,
                                                  const Config& config);

  void BTransport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int TransportDbg(tlm::tlm_generic_payload& trans);

  // The response status for the checks every b_transport access passes before touching memory.
  tlm::tlm_response_status Check(const tlm::tlm_generic_payload& trans) const;
  bool InRange(uint64_t addr, uint64_t len) const;
  bool HitsInjectedError(uint64_t addr, uint64_t len) const;
  // Completion time of a request of len bytes issued at `issue`; updates the timing state.
  sc_core::sc_time Schedule(const sc_core::sc_time& issue, uint64_t len);

  // Byte enables as TLM-2.0 defines them: byte i is enabled iff be[i % be_len] != 0 (null: all).
  void CopyIn(uint64_t addr, const uint8_t* data, size_t len, const uint8_t* be, size_t be_len);
  void CopyOut(uint64_t addr, uint8_t* data, size_t len, const uint8_t* be, size_t be_len) const;

  Config config_;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;  // keyed by addr / kPageBytes
  std::vector<std::pair<uint64_t, uint64_t>> error_ranges_;    // [begin, end)
  Stats stats_;
  // Timing state, in clock cycles. Completions are non-decreasing in call order (one channel), so
  // the in-flight list is sorted and its front completes first.
  uint64_t channel_free_cycle_ = 0;
  std::deque<uint64_t> in_flight_;
};

}  // namespace mxu::sim

#endif  // MXU_SIM_HOST_MEMORY_H_
