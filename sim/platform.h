// The SystemC platform: the verilated device (mxu_top, a --cc model), its clock and reset, a
// host memory behind a pin-level <-> TLM-2.0 memory transactor, a register-port transactor for
// the driver, and windowed FST tracing.
//
// One SC_THREAD clocks the model itself (two evals per cycle) and runs up to kQuantumCycles
// cycles per wait(); every memory request becomes a b_transport call annotated with its exact
// cycle, and the delay HostMemory returns becomes the cycle its response is due. The public calls
// run from sc_main (outside any SystemC process, between sc_start() calls): each advances time with
// sc_start() until its goal is met, never calls sc_stop(), and reports errors by exceptions.
//
// sc_main must set the SystemC time resolution (sc_set_time_resolution(1, SC_PS) is what the
// tests use) before the first Config exists, since a Config holds an sc_time. SystemC elaborates
// once per process: build one Platform, Reset() it between uses.
#ifndef MXU_SIM_PLATFORM_H_
#define MXU_SIM_PLATFORM_H_

#include <tlm_utils/simple_initiator_socket.h>

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "sim/host_memory.h"
#include "sim/memory_transactor.h"
#include "sim/model_stack.h"
#include "sim/timeline.h"

// The Verilator classes stay out of this header, so that includers need neither the model's
// include order nor its macros.
class Vmxu_top;
class VerilatedContext;
class VerilatedFstC;

namespace mxu::sim {

class Platform : public sc_core::sc_module {
 public:
  struct Config {
    // Its clock_period is the device clock; its bytes per cycle kPortWidth (the default): as wide
    // as the device's memory port. config() and memory().config() hold the width resolved.
    HostMemory::Config memory;
    uint64_t watchdog_cycles = 50'000'000;  // RunUntilIrq's default limit
    // Verilator run-time options for the model, e.g. {"+verilator+rand+reset+2",
    // "+verilator+seed+7"}: the state every flop and memory holds before its first reset is
    // random (seeded) instead of zero, as in silicon. Read once, when the model is built.
    std::vector<std::string> verilator_args;
  };

  struct RunResult {
    bool completed = false;  // the goal was met (RunUntilIrq: irq_o high)
    bool timed_out = false;  // the cycle limit ran out first
    uint64_t cycles = 0;     // cycles run by this call
  };

  static constexpr uint64_t kCsrWatchdogCycles = 1000;
  // Cycles the clock thread runs per wait(): only timestamped transactions need to be exact,
  // and nothing else in the platform runs concurrently with the device.
  static constexpr uint64_t kQuantumCycles = 1024;

  // Throws std::invalid_argument for an invalid config (before anything is built). Leaves the
  // device after an asynchronous reset (zero cycles); Reset() gives it a clocked one.
  Platform(sc_core::sc_module_name name, const Config& config);
  ~Platform() override;
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  // Register port. Each drives a request for one cycle (honouring reg_req_ready_o) and runs the
  // clock until the response (one cycle with the CSR block today). Throw std::runtime_error on an
  // error response ("CSR read of 0x... answered with an error") or after kCsrWatchdogCycles.
  uint32_t ReadCsr(uint32_t addr);
  void WriteCsr(uint32_t addr, uint32_t value);

  // rst_ni low for 2 cycles; clears the memory transactor (requests in flight are dropped, stats
  // and protocol errors cleared) and the memory's timing state. Memory contents, injected errors,
  // the trace window and cycle() are kept.
  void Reset();

  // Runs until irq_o is high (checked before the first cycle and after each) or max_cycles have
  // run (0: config().watchdog_cycles); never hangs, never throws for a timeout.
  RunResult RunUntilIrq(uint64_t max_cycles = 0);
  void RunCycles(uint64_t n);

  // New memory latency, bandwidth (kPortWidth: the port's), requests in flight or size for the
  // requests issued from now on. Throws std::invalid_argument for an invalid config or a
  // different clock_period (the device clock is fixed at construction).
  void Reconfigure(const HostMemory::Config& memory);

  HostMemory& memory() { return memory_; }
  const HostMemory& memory() const { return memory_; }
  const MemoryTransactor& transactor() const { return transactor_; }
  const Config& config() const { return config_; }
  sc_core::sc_time clock_period() const { return config_.memory.clock_period; }
  uint64_t cycle() const { return cycle_; }  // clock cycles since construction
  bool irq() const;

  // FST trace of cycles [start_cycle, start_cycle + num_cycles) (num_cycles 0: to the end),
  // every signal, or with `scopes` the signals of each (depth, hierarchical scope) as Verilator's
  // dumpvars takes them (depth 1: the scope's own signals). The file is opened when the window
  // starts (now, if start_cycle has passed) and closed when it ends, by CloseTrace() or by the
  // destructor; a new SetTrace closes the current one. Time in the file: cycle c is clock low at c
  // * period and rises at c * period + period / 2, in the model's time precision (ps). Signals the
  // platform drives change with the falling edge. Without a window there is no trace object and no
  // dump call. Throws std::runtime_error at once when the file's directory is not writable.
  //
  // Ctrl-C: while a file is open, SIGINT is caught (the previous disposition is restored when it
  // closes). The handler only sets a flag; the clock loop checks it once per traced cycle and
  // then closes the file properly (a complete FST, no .hier file left), writes one line to
  // stderr ("<program>: interrupted: trace FILE closed at cycle N") and ends the process with
  // exit status 130.
  void SetTrace(const std::string& fst_path, uint64_t start_cycle, uint64_t num_cycles,
                const std::vector<std::pair<int, std::string>>& scopes = {});
  void CloseTrace();
  bool tracing() const { return trace_ != nullptr; }
  // Why the last window produced no file (it could not be created when it opened); else empty.
  const std::string& trace_error() const { return trace_error_; }
  // Whether the last window opened its file (false while it has not started, and for a window
  // that started after the run ended).
  bool trace_written() const { return trace_written_; }
  // The last window: its file, first cycle, and end (exclusive; UINT64_MAX: to the end).
  const std::string& trace_path() const { return trace_path_; }
  uint64_t trace_window_start() const { return trace_start_; }
  uint64_t trace_window_end() const { return trace_end_; }

  // Instruction timeline (sim/timeline.h): on, a new empty one records from this cycle (its
  // origin); off, recording stops and what was recorded stays readable. While off the clock
  // loop pays one test per cycle. Reset() drops the spans still open.
  void SetTimeline(bool on);
  bool timeline_on() const { return timeline_on_; }
  // Names the timeline's programs from now on (Timeline::SetProgramLabel), in this timeline and
  // in those started later.
  void SetProgramLabel(const std::string& label);
  // The last timeline started (nullptr before the first SetTimeline(true)).
  const Timeline* timeline() const { return timeline_.get(); }

 private:
  enum class Goal { kNone, kCycles, kIrq, kCsr };
  enum class CsrState { kIdle, kRequest, kWaitResponse, kDone };

  static const sc_core::sc_module_name& Validated(const sc_core::sc_module_name& name,
                                                  const Config& config);

  void Thread();
  // Ends the goal when it is met or its limit is reached; true when no goal is left.
  bool GoalFinished();
  // Runs the clock thread until the goal ends (sc_main context).
  RunResult Run(Goal goal, uint64_t max_cycles);
  // Drives a register request and runs until its response; throws as ReadCsr says.
  uint32_t CsrAccess(bool write, uint32_t addr, uint32_t value);

  // One clock cycle from a settled state (cycle c's inputs applied, clk low, evaluated) to the
  // settled state of cycle c + 1.
  void Step();
  void DriveInputs();
  void Settle();  // clk low, eval

  DebugPorts ReadDebugPorts() const;
  void TraceDump(uint64_t time);
  // The SIGINT path: closes the trace, says so, exits 130.
  [[noreturn]] void ExitInterrupted();
  uint64_t TraceTicks(uint64_t cycle, bool high) const;

  Config config_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Vmxu_top> model_;
  ModelStack model_stack_;  // evaluations outside the SystemC thread run on it
  bool in_thread_ = false;  // the SystemC thread is running (its stack is the model's)
  HostMemory memory_;
  tlm_utils::simple_initiator_socket<Platform> socket_;
  MemoryTransactor transactor_;
  sc_core::sc_event work_event_;
  uint64_t period_ticks_;  // clock period in SystemC resolution units

  uint64_t cycle_ = 0;
  uint64_t quantum_start_cycle_ = 0;  // the cycle sc_time_stamp() stands for in the thread
  bool in_reset_ = false;
  MemPortOutputs mem_out_;

  Goal goal_ = Goal::kNone;
  uint64_t goal_limit_ = 0;
  RunResult result_;

  CsrState csr_state_ = CsrState::kIdle;
  bool csr_write_ = false;
  uint32_t csr_addr_ = 0;
  uint32_t csr_wdata_ = 0;
  uint32_t csr_rdata_ = 0;
  bool csr_error_ = false;

  // Trace window; trace_ exists only while the window is open.
  std::unique_ptr<VerilatedFstC> trace_;
  bool trace_armed_ = false;
  std::string trace_path_;
  std::vector<std::pair<int, std::string>> trace_scopes_;
  std::string trace_error_;
  bool trace_written_ = false;
  uint64_t trace_start_ = 0;
  uint64_t trace_end_ = 0;  // exclusive; UINT64_MAX: to the end
  uint64_t trace_ticks_per_cycle_ = 0;

  std::unique_ptr<Timeline> timeline_;
  bool timeline_on_ = false;
  std::string program_label_;
};

}  // namespace mxu::sim

#endif  // MXU_SIM_PLATFORM_H_
