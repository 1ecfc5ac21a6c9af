// The fast C++ model of the whole device (docs/architecture.md, "The model backend"): it runs a
// program from its own host memory with the instruction semantics of docs/isa.md, bit-exact with
// the RTL (the contract's arithmetic, reused from the golden model's scalar operations), and
// estimates the cycles with a simplified cycle-stepped model of the engines: instruction fetch,
// in-order dispatch with the conflict rules, DMA engines that cut transfers into the RTL's
// bursts, the host memory's latency, shared channel and requests in flight, the array streaming
// one row per cycle behind its weight shifts, the activation unit.
#ifndef MXU_BACKENDS_MODEL_CORE_H_
#define MXU_BACKENDS_MODEL_CORE_H_

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "backends/model/sparse_memory.h"
#include "common/csr_map.h"
#include "common/device_table.h"
#include "common/memory_timing.h"
#include "common/pe_pipeline.h"
#include "common/subnormals.h"

namespace mxu::backends::model {

// The build parameters of the device the model stands for: the RTL's defaults.
struct Config {
  uint32_t rows = 16;              // ArrayRows
  uint32_t cols = 16;              // ArrayCols
  uint32_t ub_depth = 8192;        // unified-buffer rows
  uint32_t acc_depth = 1024;       // accumulator rows
  uint32_t acc_banks = kAccBanks;  // accumulator banks (the top address bits)
  uint32_t wfifo_depth = 32;       // weight-FIFO rows (2 x rows)
  uint32_t bus_bytes = 32;         // the memory port's bytes per beat (MemBusBytes), 16 to 1024
  uint32_t max_in_flight = 8;      // the DMA's bursts in flight per engine (FEATURES)
  uint32_t pe_stages = 6;          // PeStages: the PE's pipeline depth (common/pe_pipeline.h)
  bool clock_gating = true;        // gate=1: the clock counters count the clocks the RTL gates on
  Subnormals subnormals = Subnormals::kIeee;
  MemoryTiming timing;  // the host memory behind the device (kPortWidth: as wide as bus_bytes)
  uint64_t memory_bytes = 1ull << 32;

  uint32_t ub_lanes() const { return rows > cols ? rows : cols; }
};

// How a program ended and what the counters say.
struct RunResult {
  bool error = false;
  uint32_t error_code = 0;
  uint32_t error_pc = 0;
  uint64_t error_addr = 0;
  uint32_t pc = 0;  // instructions dispatched
  std::array<uint64_t, csr::kNumCounters> counters{};
};

class Core {
 public:
  explicit Core(const Config& config);
  ~Core();
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  const Config& config() const { return config_; }
  SparseMemory& memory() { return memory_; }
  const SparseMemory& memory() const { return memory_; }
  // config().timing holds kPortWidth resolved to bus_bytes.
  void set_timing(const MemoryTiming& timing) {
    config_.timing = timing.ForPort(config_.bus_bytes);
  }

  // Runs the program of `count` instructions at `cmd_addr` to HALT or the first error. Buffers
  // keep their contents between programs (as the RTL's SRAMs do); weight tiles do not.
  RunResult Run(uint64_t cmd_addr, uint32_t count);

 private:
  struct Impl;
  Config config_;
  SparseMemory memory_;
  std::vector<uint16_t> ub_;   // ub_depth x ub_lanes bf16
  std::vector<uint32_t> acc_;  // acc_depth x cols fp32 bits
  friend struct Impl;
};

}  // namespace mxu::backends::model

#endif  // MXU_BACKENDS_MODEL_CORE_H_
