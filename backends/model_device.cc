#include "backends/model_device.h"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "common/csr_map.h"
#include "common/pe_pipeline.h"

namespace mxu::backends {
namespace {

constexpr uint64_t kAddrMask = (uint64_t{1} << 48) - 1;

uint32_t Log2(uint32_t power_of_two) {
  uint32_t log = 0;
  while ((1u << log) < power_of_two) ++log;
  return log;
}

model::Config WithTiming(const MemoryTiming& timing) {
  model::Config config;
  config.timing = timing;
  return config;
}

}  // namespace

ModelDevice::ModelDevice(const MemoryTiming& timing) : ModelDevice(WithTiming(timing)) {}

ModelDevice::ModelDevice(const model::Config& config) : core_(config) {}

uint32_t ModelDevice::ReadCsr(uint32_t addr) {
  const model::Config& c = core_.config();
  switch (addr) {
    case csr::kId:
      return csr::kDeviceId;
    case csr::kVersion:
      return csr::kDeviceVersion;
    case csr::kArray:
      return (c.cols << 16) | c.rows;
    case csr::kUbDepth:
      return c.ub_depth;
    case csr::kAccDepth:
      return c.acc_depth;
    case csr::kWfifoDepth:
      return c.wfifo_depth;
    case csr::kFeatures:
      return Log2(c.bus_bytes) |
             (c.subnormals == Subnormals::kFlush ? csr::kFeaturesFlushSubnormals : 0u) |
             csr::kFeaturesInt8 |  // the integer mode: every device has it, as the RTL
             (c.clock_gating ? csr::kFeaturesClockGating : 0u) | (c.ub_lanes() & 0xFF) << 16 |
             (c.max_in_flight & 0xFF) << 24;
    case csr::kPipeline: {
      const PePipeline pe = PePipelineOf(c.pe_stages);
      return pe.stages | pe.mul_cycles << 8 | pe.add_cycles << 16;
    }
    case csr::kCtrl:
      return irq_enable_ ? csr::kCtrlIrqEnable : 0u;
    case csr::kStatus:
      return (busy_ ? csr::kStatusBusy : 0u) | (done_ ? csr::kStatusDone : 0u) |
             (error_ ? csr::kStatusError : 0u) | (irq_pending_ ? csr::kStatusIrqPending : 0u);
    case csr::kErrorCode:
      return error_code_;
    case csr::kErrorPc:
      return error_pc_;
    case csr::kErrorAddrLo:
      return static_cast<uint32_t>(error_addr_);
    case csr::kErrorAddrHi:
      return static_cast<uint32_t>(error_addr_ >> 32);
    case csr::kCmdAddrLo:
      return static_cast<uint32_t>(cmd_addr_);
    case csr::kCmdAddrHi:
      return static_cast<uint32_t>(cmd_addr_ >> 32);
    case csr::kCmdCount:
      return cmd_count_;
    case csr::kPc:
      return pc_;
    default:
      break;
  }
  for (uint32_t i = 0; i < csr::kNumCounters; ++i) {
    if (addr == csr::CounterLo(i)) return static_cast<uint32_t>(counters_[i]);
    if (addr == csr::CounterHi(i)) return static_cast<uint32_t>(counters_[i] >> 32);
  }
  throw std::runtime_error(csr::DescribeCsr(false, addr, 0) + " answered with an error");
}

void ModelDevice::WriteCsr(uint32_t addr, uint32_t value) {
  switch (addr) {
    case csr::kCtrl: {
      const bool start = csr::CtrlStart(value) && !busy_;
      const bool soft_reset = csr::CtrlSoftReset(value);
      irq_enable_ = csr::CtrlIrqEnable(value);
      if (start || soft_reset) {
        done_ = error_ = false;
        error_code_ = error_pc_ = 0;
        error_addr_ = 0;
        counters_.fill(0);
      }
      if (soft_reset) {
        // A soft reset abandons the program silently (what it already wrote stays written).
        busy_ = false;
        irq_pending_ = false;
        remaining_ = 0;
      }
      if (start) Start();
      return;
    }
    case csr::kIrqClear:
      if (csr::IrqClearPending(value)) irq_pending_ = false;
      return;
    case csr::kCmdAddrLo:
      cmd_addr_ = (cmd_addr_ & ~uint64_t{0xFFFFFFFF}) | value;
      return;
    case csr::kCmdAddrHi:
      cmd_addr_ = ((cmd_addr_ & 0xFFFFFFFF) | uint64_t{value} << 32) & kAddrMask;
      return;
    case csr::kCmdCount:
      cmd_count_ = value;
      return;
    default:
      throw std::runtime_error(csr::DescribeCsr(true, addr, value) + " answered with an error");
  }
}

void ModelDevice::Start() {
  // The program runs to its end at once; the device looks busy for the cycles it would take.
  result_ = core_.Run(cmd_addr_, cmd_count_);
  busy_ = true;
  pc_ = 0;
  remaining_ = result_.counters[static_cast<uint32_t>(csr::Counter::kCycles)];
}

void ModelDevice::Finish() {
  busy_ = false;
  pc_ = result_.pc;
  counters_ = result_.counters;
  if (result_.error) {
    error_ = true;
    error_code_ = result_.error_code;
    error_pc_ = result_.error_pc;
    error_addr_ = result_.error_addr & kAddrMask;
  } else {
    done_ = true;
  }
  irq_pending_ = true;
}

void ModelDevice::WriteMemory(uint64_t addr, const void* data, size_t bytes) {
  core_.memory().Write(addr, data, bytes);
}

void ModelDevice::ReadMemory(uint64_t addr, void* data, size_t bytes) {
  core_.memory().Read(addr, data, bytes);
}

bool ModelDevice::RunUntilInterrupt(uint64_t max_cycles) {
  const auto irq = [this] { return irq_pending_ && irq_enable_; };
  if (irq()) return true;
  if (busy_ && remaining_ <= max_cycles) {
    const uint64_t ran = remaining_;
    cycle_ += ran;
    remaining_ = 0;
    Finish();
    if (irq()) return true;
    cycle_ += max_cycles - ran;  // no interrupt enabled: the rest pass without one
    return false;
  }
  if (busy_) remaining_ -= max_cycles;
  cycle_ += max_cycles;
  return false;
}

}  // namespace mxu::backends
