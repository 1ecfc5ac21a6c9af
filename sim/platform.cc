// Verilator's headers come before <systemc> (through sim/platform.h): the measured pitfall of
// DESIGN.md section 10.
// clang-format off
#include "Vmxu_top.h"
#include "verilated.h"
#include "verilated_fst_c.h"
#if VM_COVERAGE
#include "verilated_cov.h"
#endif
#include "sim/platform.h"
// clang-format on

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/csr_map.h"

namespace mxu::sim {
namespace {

using sc_core::sc_time;

// The device's memory port (MemBusBytes, the device's bus=B): the verilated data pins are a
// VlWide of 32-bit words, the strobes an integer or a VlWide.
constexpr unsigned kBeatWords = sizeof(Vmxu_top::mem_r_data_i) / 4;
constexpr unsigned kBusBytes = 4 * kBeatWords;
static_assert(kBusBytes <= MemoryTransactor::kMaxBusBytes, "the transactor's pins are too narrow");

// The memory behind this device's port: kPortWidth becomes the port's width.
HostMemory::Config OnPort(HostMemory::Config memory) {
  memory.timing = memory.timing.ForPort(kBusBytes);
  return memory;
}

Platform::Config OnPort(Platform::Config config) {
  config.memory = OnPort(config.memory);
  return config;
}

// Word i of a verilated signal of up to 64 bits (an integer) or wider (a VlWide).
template <typename T>
uint32_t Word(const T& value, unsigned i) {
  if constexpr (std::is_integral_v<T>) {
    return i < sizeof(T) / 4 + (sizeof(T) < 4) ? static_cast<uint32_t>(uint64_t{value} >> (32 * i))
                                               : 0u;
  } else {
    return value[i];
  }
}

// Ctrl-C while a trace file is open: the handler only sets this flag (async-signal-safe); the
// clock loop acts on it. One trace is open at a time per process (one Platform per process).
volatile std::sig_atomic_t g_interrupted = 0;
struct sigaction g_previous_sigint;
bool g_sigint_installed = false;

extern "C" void OnSigint(int) { g_interrupted = 1; }

void InstallSigint() {
  if (g_sigint_installed) return;
  struct sigaction action {};
  action.sa_handler = OnSigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  g_sigint_installed = sigaction(SIGINT, &action, &g_previous_sigint) == 0;
}

void RestoreSigint() {
  if (!g_sigint_installed) return;
  sigaction(SIGINT, &g_previous_sigint, nullptr);
  g_sigint_installed = false;
}

}  // namespace

// ---- Platform: construction ---------------------------------------------------------------------

const sc_core::sc_module_name& Platform::Validated(const sc_core::sc_module_name& name,
                                                   const Config& config) {
  HostMemory::Validate(OnPort(config.memory));
  if (config.watchdog_cycles == 0) {
    throw std::invalid_argument("Platform: watchdog_cycles must be >= 1");
  }
  return name;
}

Platform::Platform(sc_core::sc_module_name name, const Config& config)
    : sc_core::sc_module(Validated(name, config)),
      config_(OnPort(config)),
      context_(std::make_unique<VerilatedContext>()),
      memory_("memory", config_.memory),
      socket_("socket"),
      transactor_(socket_, config.memory.clock_period, kBusBytes),
      period_ticks_(config.memory.clock_period.value()) {
  // Tracing must be allowed before the model is built, or it has no trace code to call.
  Verilated::traceEverOn(true);
  context_->traceEverOn(true);
  if (!config.verilator_args.empty()) {
    std::vector<const char*> argv = {"platform"};
    for (const std::string& arg : config.verilator_args) argv.push_back(arg.c_str());
    context_->commandArgs(static_cast<int>(argv.size()), argv.data());
  }
  model_ = std::make_unique<Vmxu_top>(context_.get(), "mxu_top");
  socket_.bind(memory_.socket);

  SC_HAS_PROCESS(Platform);
  SC_THREAD(Thread);
  // The model's eval runs on this thread's stack, and Verilator keeps wide temporaries there:
  // a 128 x 128 device's overflow 4 MiB. Only the pages touched are ever committed.
  set_stack_size(kModelStackBytes);

  // Trace time in the model's precision (timeprecision() = -12: ps): two points per cycle.
  const double ticks =
      config_.memory.clock_period.to_seconds() * std::pow(10.0, -context_->timeprecision());
  trace_ticks_per_cycle_ = std::max<uint64_t>(2, static_cast<uint64_t>(std::llround(ticks)));

  // An asynchronous reset without clock edges: a defined state before the first cycle. Twice:
  // the engines' reset is rst_ni && !clear, and the controller's clear flop powers up at random
  // (+verilator+rand+reset+2), so the first pulse may find that reset already low and give it no
  // edge; the second, with clear reset, always does. Verilator applies an asynchronous reset at
  // its edge (or at a clock edge while it is low), and a gated clock may have no edge at all.
  // On the model's stack: this runs on the caller's (sim/model_stack.h).
  model_stack_.Run([this] {
    model_->clk_i = 0;
    model_->rst_ni = 1;
    DriveInputs();
    model_->eval();
    for (int pulse = 0; pulse < 2; ++pulse) {
      model_->rst_ni = 0;
      model_->eval();
      model_->rst_ni = 1;
      model_->eval();
    }
  });
}

Platform::~Platform() {
  CloseTrace();
  model_->final();
#if VM_COVERAGE
  // A coverage build (MXU_COVERAGE) writes this process's counts into $MXU_COVERAGE_DIR (or the
  // working directory), one file per platform, for verilator_coverage to merge.
  const char* dir = std::getenv("MXU_COVERAGE_DIR");
  const std::string path =
      std::string(dir && *dir ? dir : ".") + "/coverage-" + std::to_string(getpid()) + ".dat";
  context_->coveragep()->write(path.c_str());
#endif
}

bool Platform::irq() const { return model_->irq_o; }

// ---- Platform: running the clock ----------------------------------------------------------------

void Platform::Thread() {
  for (;;) {
    in_thread_ = false;
    while (goal_ == Goal::kNone) wait(work_event_);
    in_thread_ = true;
    // sc_time_stamp() stands for this cycle until the wait below; requests carry their offset.
    quantum_start_cycle_ = cycle_;
    uint64_t ran = 0;
    while (ran < kQuantumCycles && !GoalFinished()) {
      Step();
      ++ran;
    }
    in_thread_ = false;
    if (ran > 0) wait(sc_time::from_value(ran * period_ticks_));
    in_thread_ = true;
  }
}

bool Platform::GoalFinished() {
  if (goal_ == Goal::kNone) return true;
  const bool met = (goal_ == Goal::kIrq && model_->irq_o) ||
                   (goal_ == Goal::kCsr && csr_state_ == CsrState::kDone);
  if (met || result_.cycles >= goal_limit_) {
    result_.completed = met || goal_ == Goal::kCycles;
    result_.timed_out = !result_.completed;
    goal_ = Goal::kNone;
    return true;
  }
  ++result_.cycles;  // the caller runs one more
  return false;
}

Platform::RunResult Platform::Run(Goal goal, uint64_t max_cycles) {
  goal_ = goal;
  goal_limit_ = max_cycles;
  result_ = RunResult();
  // Before the first sc_start() the thread has not started; it finds the goal when it does.
  if (sc_core::sc_get_status() == sc_core::SC_PAUSED) work_event_.notify(sc_core::SC_ZERO_TIME);
  const sc_time slice = sc_time::from_value(kQuantumCycles * period_ticks_);
  while (goal_ != Goal::kNone) {
    const uint64_t cycle_before = cycle_;
    const sc_time time_before = sc_core::sc_time_stamp();
    // Returns when the thread waits for work again (starvation), or after a quantum at most.
    sc_core::sc_start(slice, sc_core::SC_EXIT_ON_STARVATION);
    if (goal_ != Goal::kNone && cycle_ == cycle_before && sc_core::sc_time_stamp() == time_before) {
      goal_ = Goal::kNone;
      throw std::logic_error(std::string(name()) +
                             ": the clock thread did not run (called from inside a SystemC "
                             "process, or after sc_stop()?)");
    }
  }
  return result_;
}

void Platform::RunCycles(uint64_t n) {
  if (n > 0) Run(Goal::kCycles, n);
}

Platform::RunResult Platform::RunUntilIrq(uint64_t max_cycles) {
  return Run(Goal::kIrq, max_cycles == 0 ? config_.watchdog_cycles : max_cycles);
}

void Platform::Settle() {
  model_->clk_i = 0;
  if (in_thread_) {
    model_->eval();
  } else {  // from the caller (a CSR access, a reset): on the model's stack
    model_stack_.Run([this] { model_->eval(); });
  }
}

void Platform::Step() {
  Vmxu_top& m = *model_;
  const uint64_t c = cycle_;

  // Cycle c's memory-port outputs, settled, before the rising edge changes them.
  const bool active = !in_reset_;
  if (active) {
    MemPortOutputs& out = mem_out_;
    out.ar_valid = m.mem_ar_valid_o;
    out.ar_addr = m.mem_ar_addr_o;
    out.ar_len = m.mem_ar_len_o;
    out.ar_id = m.mem_ar_id_o;
    out.r_ready = m.mem_r_ready_o;
    out.aw_valid = m.mem_aw_valid_o;
    out.aw_addr = m.mem_aw_addr_o;
    out.aw_len = m.mem_aw_len_o;
    out.w_valid = m.mem_w_valid_o;
    if (out.w_valid) {
      for (unsigned i = 0; i < kBeatWords; ++i) out.w_data[i] = m.mem_w_data_o[i];
      for (unsigned i = 0; i < (kBusBytes + 31) / 32; ++i) out.w_strb[i] = Word(m.mem_w_strb_o, i);
      out.w_last = m.mem_w_last_o;
    }
    out.b_ready = m.mem_b_ready_o;
  }
  const bool request_taken = m.reg_req_valid_i && m.reg_req_ready_o;
  if (timeline_on_ && active) timeline_->Sample(c, ReadDebugPorts());

  if (trace_armed_ && c >= trace_start_) TraceDump(TraceTicks(c, false));
  m.clk_i = 1;
  m.eval();
  if (trace_) {
    TraceDump(TraceTicks(c, true));
    if (g_interrupted) ExitInterrupted();
  }

  // The transactors act at cycle c (b_transport timestamps are cycle c); then cycle c + 1.
  if (active) transactor_.Edge(mem_out_, c, quantum_start_cycle_);
  if (request_taken && csr_state_ == CsrState::kRequest) csr_state_ = CsrState::kWaitResponse;
  ++cycle_;
  DriveInputs();
  Settle();

  // The response, in a cycle after the request's handshake.
  if (csr_state_ == CsrState::kWaitResponse && m.reg_rsp_valid_o) {
    csr_rdata_ = m.reg_rsp_rdata_o;
    csr_error_ = m.reg_rsp_error_o;
    csr_state_ = CsrState::kDone;
  }
  if (trace_ && cycle_ >= trace_end_) CloseTrace();
}

void Platform::DriveInputs() {
  Vmxu_top& m = *model_;
  m.rst_ni = !in_reset_;

  const MemPortInputs& in = transactor_.Present(cycle_);
  m.mem_ar_ready_i = in.ar_ready;
  m.mem_aw_ready_i = in.aw_ready;
  m.mem_w_ready_i = in.w_ready;
  m.mem_r_valid_i = in.r_valid;
  if (in.r_valid) {
    for (unsigned i = 0; i < kBeatWords; ++i) m.mem_r_data_i[i] = in.r_data[i];
  }
  m.mem_r_id_i = in.r_id;
  m.mem_r_last_i = in.r_last;
  m.mem_r_resp_i = in.r_resp;
  m.mem_b_valid_i = in.b_valid;
  m.mem_b_resp_i = in.b_resp;

  const bool request = csr_state_ == CsrState::kRequest;
  m.reg_req_valid_i = request;
  m.reg_req_write_i = request && csr_write_;
  m.reg_req_addr_i = request ? csr_addr_ : 0;
  m.reg_req_wdata_i = request ? csr_wdata_ : 0;
}

// ---- Platform: reset, configuration, registers --------------------------------------------------

void Platform::Reset() {
  transactor_.Clear();
  csr_state_ = CsrState::kIdle;
  in_reset_ = true;
  DriveInputs();
  Settle();  // the asynchronous reset takes effect here
  RunCycles(2);
  in_reset_ = false;
  transactor_.Clear();
  DriveInputs();
  Settle();
  memory_.Reset();
  if (timeline_) timeline_->Abandon();
}

void Platform::SetTimeline(bool on) {
  if (on) {
    timeline_ = std::make_unique<Timeline>(cycle_);
    timeline_->SetProgramLabel(program_label_);
  }
  timeline_on_ = on;
}

void Platform::SetProgramLabel(const std::string& label) {
  program_label_ = label;
  if (timeline_) timeline_->SetProgramLabel(label);
}

DebugPorts Platform::ReadDebugPorts() const {
  const Vmxu_top& m = *model_;
  DebugPorts p;
  p.busy = m.dbg_busy_o;
  p.dispatch = m.dbg_dispatch_o;
  p.pc = m.dbg_dispatch_pc_o;
  for (size_t i = 0; i < p.ins.size(); ++i) p.ins[i] = m.dbg_dispatch_ins_o[i];
  p.load_done = m.dbg_load_done_o;
  p.wload_done = m.dbg_wload_done_o;
  p.store_done = m.dbg_store_done_o;
  p.matmul_done = m.dbg_matmul_done_o;
  p.activate_done = m.dbg_activate_done_o;
  p.wshift_start = m.dbg_wshift_start_o;
  p.wshift_busy = m.dbg_wshift_busy_o;
  p.array_row = m.dbg_array_row_o;
  return p;
}

void Platform::Reconfigure(const HostMemory::Config& memory) {
  if (memory.clock_period != config_.memory.clock_period) {
    throw std::invalid_argument(std::string(name()) +
                                ": Reconfigure cannot change the clock period (" +
                                config_.memory.clock_period.to_string() + ")");
  }
  memory_.Reconfigure(OnPort(memory));
  config_.memory = memory_.config();
}

uint32_t Platform::ReadCsr(uint32_t addr) { return CsrAccess(false, addr, 0); }

void Platform::WriteCsr(uint32_t addr, uint32_t value) { CsrAccess(true, addr, value); }

uint32_t Platform::CsrAccess(bool write, uint32_t addr, uint32_t value) {
  csr_write_ = write;
  csr_addr_ = addr;
  csr_wdata_ = value;
  csr_state_ = CsrState::kRequest;
  DriveInputs();
  Settle();
  Run(Goal::kCsr, kCsrWatchdogCycles);
  const bool answered = csr_state_ == CsrState::kDone;
  csr_state_ = CsrState::kIdle;
  if (!answered) {
    DriveInputs();  // withdraw the request
    Settle();
    throw std::runtime_error(csr::DescribeCsr(write, addr, value) + " was not answered within " +
                             std::to_string(kCsrWatchdogCycles) + " cycles");
  }
  if (csr_error_) {
    throw std::runtime_error(csr::DescribeCsr(write, addr, value) + " answered with an error");
  }
  return csr_rdata_;
}

// ---- Platform: tracing --------------------------------------------------------------------------

void Platform::SetTrace(const std::string& fst_path, uint64_t start_cycle, uint64_t num_cycles,
                        const std::vector<std::pair<int, std::string>>& scopes) {
  CloseTrace();
  trace_error_.clear();
  // Fail here, in the caller's context, for a directory that cannot take the file.
  const size_t slash = fst_path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : fst_path.substr(0, slash + 1);
  if (fst_path.empty() || fst_path.back() == '/' || access(dir.c_str(), W_OK) != 0) {
    throw std::runtime_error("cannot write trace file '" + fst_path + "'");
  }
  trace_path_ = fst_path;
  trace_scopes_ = scopes;
  trace_written_ = false;
  trace_start_ = std::max(start_cycle, cycle_);
  trace_end_ = num_cycles == 0 || start_cycle > UINT64_MAX - num_cycles ? UINT64_MAX
                                                                        : start_cycle + num_cycles;
  trace_armed_ = trace_end_ > trace_start_;
}

void Platform::CloseTrace() {
  trace_armed_ = false;
  if (trace_) {
    trace_->close();
    trace_.reset();
    RestoreSigint();
    // A Ctrl-C that came while the clock was not running: honoured now that the file is whole.
    if (g_interrupted) ExitInterrupted();
  }
}

void Platform::ExitInterrupted() {
  const uint64_t at = cycle_;
  if (trace_) {
    trace_->close();
    trace_.reset();
  }
  RestoreSigint();
  std::fflush(stdout);
  std::fprintf(stderr, "%s: interrupted: trace %s closed at cycle %llu\n",
               program_invocation_short_name, trace_path_.c_str(), (unsigned long long)at);
  std::fflush(stderr);
  // Not exit(): the clock loop runs on a SystemC coroutine stack, where static destructors of
  // the simulation kernel must not run.
  std::_Exit(130);
}

uint64_t Platform::TraceTicks(uint64_t cycle, bool high) const {
  return cycle * trace_ticks_per_cycle_ + (high ? trace_ticks_per_cycle_ / 2 : 0);
}

void Platform::TraceDump(uint64_t time) {
  if (!trace_) {
    // Ctrl-C from the moment the file exists is caught, so it is always closed properly.
    g_interrupted = 0;
    InstallSigint();
    // The FST writer does not survive a file it cannot create: try the path first.
    std::FILE* file = std::fopen(trace_path_.c_str(), "wb");
    if (file == nullptr) {
      RestoreSigint();
      trace_armed_ = false;
      trace_error_ = "cannot create trace file " + trace_path_;
      return;
    }
    std::fclose(file);
    trace_ = std::make_unique<VerilatedFstC>();
    model_->trace(trace_.get(), 99);
    // Only these scopes' signals are declared and written (the others are still compared each
    // cycle by the verilated trace code, which costs far less than writing them).
    for (const auto& [depth, scope] : trace_scopes_) trace_->dumpvars(depth, scope);
    // The model's ports always: Verilator 5.006's FST writer crashes on a trace that declares no
    // signal at all (a scope that matches none).
    if (!trace_scopes_.empty()) trace_->dumpvars(1, "mxu_top");
    trace_->open(trace_path_.c_str());
    trace_written_ = true;
  }
  trace_->dump(time);
}

}  // namespace mxu::sim
