#include "backends/rtl_device.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <systemc>

#include "sim/platform.h"
#include "sim/timeline_json.h"
#include "waves/run_layout.h"

namespace mxu::backends {
namespace {

sim::Platform::Config PlatformConfig(const MemoryTiming& timing) {
  // The time resolution must be set before the first sc_time exists (a Config holds one).
  static const bool resolution_set = [] {
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    return true;
  }();
  (void)resolution_set;
  sim::Platform::Config config;
  config.memory.timing = timing;
  return config;
}

}  // namespace

RtlDevice::RtlDevice(const MemoryTiming& timing)
    : platform_(std::make_unique<sim::Platform>("platform", PlatformConfig(timing))) {
  platform_->Reset();
}

RtlDevice::~RtlDevice() = default;

uint32_t RtlDevice::ReadCsr(uint32_t addr) { return platform_->ReadCsr(addr); }
void RtlDevice::WriteCsr(uint32_t addr, uint32_t value) { platform_->WriteCsr(addr, value); }

void RtlDevice::WriteMemory(uint64_t addr, const void* data, size_t bytes) {
  platform_->memory().Write(addr, data, bytes);
}

void RtlDevice::ReadMemory(uint64_t addr, void* data, size_t bytes) {
  platform_->memory().Read(addr, data, bytes);
}

uint64_t RtlDevice::memory_size() const { return platform_->memory().config().size_bytes; }

bool RtlDevice::RunUntilInterrupt(uint64_t max_cycles) {
  return platform_->RunUntilIrq(max_cycles).completed;
}

uint64_t RtlDevice::cycle() const { return platform_->cycle(); }

void RtlDevice::SetTrace(const std::string& path, uint64_t start_cycle, uint64_t cycles,
                         const driver::TraceScope& scope) {
  std::vector<std::pair<int, std::string>> scopes;  // empty: every signal
  if (scope.kind == driver::TraceScope::Kind::kLayouts) {
    for (const std::string& hier : waves::LayoutScopes()) scopes.emplace_back(1, hier);
  } else if (scope.kind == driver::TraceScope::Kind::kList) {
    scopes = scope.scopes;
  }
  platform_->SetTrace(path, start_cycle, cycles, scopes);
}

void RtlDevice::SetProgramLabel(const std::string& label) { platform_->SetProgramLabel(label); }

void RtlDevice::CloseTrace() {
  platform_->CloseTrace();
  if (!platform_->trace_error().empty()) throw std::runtime_error(platform_->trace_error());
}

bool RtlDevice::trace_written() const { return platform_->trace_written(); }

void RtlDevice::WriteTraceLayout(const std::string& gtkw_path) {
  if (!platform_->trace_written() || !platform_->timeline()) {
    throw std::logic_error("WriteTraceLayout: no trace written, or no timeline recorded");
  }
  const uint64_t end = std::min(platform_->trace_window_end(), platform_->cycle());
  std::ofstream out(gtkw_path);
  out << waves::RunLayout(platform_->trace_path(), platform_->trace_window_start(), end,
                          *platform_->timeline());
  out.close();
  if (!out) throw std::runtime_error("cannot write GTKWave save file '" + gtkw_path + "'");
}

void RtlDevice::StartTimeline() { platform_->SetTimeline(true); }

void RtlDevice::StopTimeline() { platform_->SetTimeline(false); }

void RtlDevice::WriteTimeline(const std::string& path) {
  platform_->SetTimeline(false);
  if (!platform_->timeline()) throw std::logic_error("WriteTimeline: no timeline was started");
  std::ofstream out(path);
  if (out) sim::WriteTimelineJson(*platform_->timeline(), out);
  out.close();
  if (!out) throw std::runtime_error("cannot write timeline file '" + path + "'");
}

}  // namespace mxu::backends
