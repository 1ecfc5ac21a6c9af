#include "backends/cross_device.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/csr_map.h"
#include "common/isa.h"

namespace mxu::backends {
namespace {

constexpr csr::Counter kExactCounters[] = {
    csr::Counter::kArrayBusy, csr::Counter::kMacs, csr::Counter::kDmaReadBytes,
    csr::Counter::kDmaWriteBytes, csr::Counter::kInstructions};

bool IsCounter(uint32_t addr) {
  return addr >= csr::kCounterBase &&
         addr < csr::kCounterBase + csr::kNumCounters * csr::kCounterStride;
}

uint64_t ReadCounter(driver::Device& dev, csr::Counter c) {
  const uint32_t i = static_cast<uint32_t>(c);
  return dev.ReadCsr(csr::CounterLo(i)) | uint64_t{dev.ReadCsr(csr::CounterHi(i))} << 32;
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

// An element as stored: bf16 from the unified buffer, fp32 from the accumulators; in the int8
// mode int8 (one byte) from the unified buffer, int32 from the accumulators.
std::string Element(const uint8_t* bytes, uint64_t size, bool integer) {
  uint32_t bits = 0;
  std::memcpy(&bits, bytes, size);
  if (integer) {
    char text[64];
    const long long value = size == 1 ? static_cast<int8_t>(bits) : static_cast<int32_t>(bits);
    std::snprintf(text, sizeof text, size == 1 ? "0x%02x (%lld)" : "0x%08x (%lld)", bits, value);
    return text;
  }
  const uint32_t as_fp32 = size == 2 ? bits << 16 : bits;
  float value;
  std::memcpy(&value, &as_fp32, 4);
  char text[64];
  std::snprintf(text, sizeof text, size == 2 ? "0x%04x (%.9g)" : "0x%08x (%.9g)", bits,
                static_cast<double>(value));
  return text;
}

// A STORE's destination: rows of `lanes` elements, `stride` elements apart.
struct StoreRange {
  size_t index = 0;
  isa::Instruction instruction;
  bool from_acc = false, integer = false;
  uint64_t host = 0, element_bytes = 0, bytes = 0;
  uint32_t rows = 0, lanes = 0, stride = 0, buffer_addr = 0;
};

StoreRange Decode(size_t index, const isa::Instruction& ins) {
  StoreRange s;
  s.index = index;
  s.instruction = ins;
  s.from_acc = ins.Get(isa::kTransferBuffer) == static_cast<uint64_t>(isa::Buffer::kAcc);
  s.integer = ins.Get(isa::kTransferInt8) != 0;
  s.element_bytes = s.from_acc ? 4 : s.integer ? 1 : 2;
  s.rows = static_cast<uint32_t>(ins.Get(isa::kTransferRows));
  s.lanes = static_cast<uint32_t>(ins.Get(isa::kTransferLanes));
  s.stride = static_cast<uint32_t>(ins.Get(isa::kTransferStride));
  s.buffer_addr = static_cast<uint32_t>(ins.Get(isa::kTransferBufferAddr));
  s.host = ins.Get(isa::kTransferHostAddr);
  const uint64_t elements =
      s.rows == 0 ? 0 : uint64_t{s.rows - 1} * std::max(s.stride, s.lanes) + s.lanes;
  s.bytes = elements * s.element_bytes;
  return s;
}

}  // namespace

CrossDevice::CrossDevice(std::unique_ptr<driver::Device> reference,
                         std::unique_ptr<driver::Device> candidate)
    : reference_(std::move(reference)),
      candidate_(std::move(candidate)),
      reference_tracing_(reference_->tracing()) {}

CrossDevice::~CrossDevice() {
  if (on_close && programs_ > 0) on_close(Summary());
}

std::string CrossDevice::ProgramName() const {
  std::string name = "program " + std::to_string(programs_ + 1);
  if (!label_.empty()) name += " (" + label_ + ")";
  return name + ", " + std::to_string(program_count_) + " instructions at " + Hex(program_addr_);
}

void CrossDevice::Diverge(const std::string& what) const {
  throw DivergenceError(std::string(reference_->name()) + " and " + candidate_->name() +
                        " diverge: " + what);
}

uint32_t CrossDevice::ReadCsr(uint32_t addr) {
  const uint32_t value = reference_->ReadCsr(addr);
  const uint32_t other = candidate_->ReadCsr(addr);
  if (value != other && !IsCounter(addr) && addr != csr::kPc) {
    Diverge("CSR " + Hex(addr) + " reads " + Hex(value) + " on " + reference_->name() + ", " +
            Hex(other) + " on " + candidate_->name());
  }
  return value;
}

void CrossDevice::WriteCsr(uint32_t addr, uint32_t value) {
  if (addr == csr::kCmdAddrLo) cmd_addr_ = (cmd_addr_ & ~uint64_t{0xFFFFFFFF}) | value;
  if (addr == csr::kCmdAddrHi) cmd_addr_ = (cmd_addr_ & 0xFFFFFFFF) | uint64_t{value} << 32;
  if (addr == csr::kCmdCount) cmd_count_ = value;
  if (addr == csr::kCtrl && csr::CtrlStart(value)) {
    program_addr_ = cmd_addr_;
    program_count_ = cmd_count_;
  }
  reference_->WriteCsr(addr, value);
  candidate_->WriteCsr(addr, value);
}

void CrossDevice::WriteMemory(uint64_t addr, const void* data, size_t bytes) {
  reference_->WriteMemory(addr, data, bytes);
  candidate_->WriteMemory(addr, data, bytes);
}

void CrossDevice::ReadMemory(uint64_t addr, void* data, size_t bytes) {
  reference_->ReadMemory(addr, data, bytes);
}

uint64_t CrossDevice::memory_size() const {
  return std::min(reference_->memory_size(), candidate_->memory_size());
}

bool CrossDevice::RunUntilInterrupt(uint64_t max_cycles) {
  if (!reference_->RunUntilInterrupt(max_cycles)) return false;
  // The candidate's CYCLES are an estimate: give it slack before calling it a hang.
  const uint64_t slack = max_cycles > UINT64_MAX / 2 ? UINT64_MAX : 2 * max_cycles;
  if (!candidate_->RunUntilInterrupt(slack)) {
    Diverge(ProgramName() + ": " + reference_->name() + " raised its interrupt, " +
            candidate_->name() + " did not within " + std::to_string(slack) + " cycles");
  }
  CompareAfterRun();
  ++programs_;
  return true;
}

void CrossDevice::CompareAfterRun() {
  // The outcome first: a different error says more than any byte.
  const uint32_t outcome_csrs[] = {csr::kStatus, csr::kErrorCode, csr::kErrorPc, csr::kErrorAddrLo,
                                   csr::kErrorAddrHi};
  const char* outcome_names[] = {"STATUS", "ERROR_CODE", "ERROR_PC", "ERROR_ADDR_LO",
                                 "ERROR_ADDR_HI"};
  std::string outcome;
  for (size_t i = 0; i < std::size(outcome_csrs); ++i) {
    const uint32_t r = reference_->ReadCsr(outcome_csrs[i]);
    const uint32_t c = candidate_->ReadCsr(outcome_csrs[i]);
    if (r != c) {
      outcome += std::string("\n  ") + outcome_names[i] + ": " + reference_->name() + " " + Hex(r) +
                 ", " + candidate_->name() + " " + Hex(c);
    }
  }
  const uint32_t status = reference_->ReadCsr(csr::kStatus);
  if (!outcome.empty()) {
    const uint32_t code = reference_->ReadCsr(csr::kErrorCode);
    Diverge(ProgramName() + " ends differently (" + reference_->name() + ": " +
            (csr::StatusError(status) ? csr::ErrorName(code) : "done") + ")" + outcome);
  }

  std::string counters;
  for (csr::Counter c : kExactCounters) {
    const uint64_t r = ReadCounter(*reference_, c), m = ReadCounter(*candidate_, c);
    if (r != m) {
      counters += std::string("\n  ") + csr::CounterName(c) + ": " + reference_->name() + " " +
                  std::to_string(r) + ", " + candidate_->name() + " " + std::to_string(m);
    }
  }
  const uint64_t ref_cycles = ReadCounter(*reference_, csr::Counter::kCycles);
  const uint64_t cand_cycles = ReadCounter(*candidate_, csr::Counter::kCycles);

  // The bytes every STORE wrote, for a program that ran to its HALT.
  std::string memory;
  if (csr::StatusDone(status) && !csr::StatusError(status)) {
    const uint64_t size = memory_size();
    const uint64_t count =
        program_addr_ >= size
            ? 0
            : std::min<uint64_t>(program_count_, (size - program_addr_) / isa::kInstructionBytes);
    std::vector<uint8_t> code(count * isa::kInstructionBytes);
    if (!code.empty()) reference_->ReadMemory(program_addr_, code.data(), code.size());
    std::vector<StoreRange> stores;
    for (size_t i = 0; i < count; ++i) {
      isa::Instruction ins;
      std::memcpy(ins.words.data(), &code[i * isa::kInstructionBytes], isa::kInstructionBytes);
      if (ins.opcode() == static_cast<uint8_t>(isa::Opcode::kHalt)) break;
      if (ins.opcode() == static_cast<uint8_t>(isa::Opcode::kStore)) {
        stores.push_back(Decode(i, ins));
      }
    }
    std::vector<uint8_t> r, c;
    for (const StoreRange& s : stores) {
      if (s.bytes == 0 || s.host + s.bytes > size) continue;
      r.resize(s.bytes), c.resize(s.bytes);
      reference_->ReadMemory(s.host, r.data(), r.size());
      candidate_->ReadMemory(s.host, c.data(), c.size());
      bytes_compared_ += s.bytes;
      const auto diff = std::mismatch(r.begin(), r.end(), c.begin());
      if (diff.first == r.end()) continue;
      const uint64_t addr = s.host + (diff.first - r.begin());
      // The last STORE in program order to cover the address wrote what is there.
      const StoreRange* writer = &s;
      for (const StoreRange& t : stores) {
        if (addr >= t.host && addr < t.host + t.bytes) writer = &t;
      }
      const uint64_t element = (addr - writer->host) / writer->element_bytes;
      const uint64_t pitch = std::max(writer->stride, writer->lanes);
      const uint64_t element_addr = writer->host + element * writer->element_bytes;
      uint8_t rv[4] = {}, cv[4] = {};
      reference_->ReadMemory(element_addr, rv, writer->element_bytes);
      candidate_->ReadMemory(element_addr, cv, writer->element_bytes);
      memory = "\n  instruction " + std::to_string(writer->index) + ": " +
               isa::Disassemble(writer->instruction) + "\n  " + (writer->from_acc ? "ACC" : "UB") +
               " row " + std::to_string(writer->buffer_addr + element / pitch) + ", lane " +
               std::to_string(element % pitch) + " -> host " + Hex(element_addr) + ": " +
               reference_->name() + " " + Element(rv, writer->element_bytes, writer->integer) +
               ", " + candidate_->name() + " " +
               Element(cv, writer->element_bytes, writer->integer);
      break;
    }
  }
  if (!memory.empty() || !counters.empty()) {
    std::string cycles =
        "\n  CYCLES (estimated on the model, not compared): " + std::string(reference_->name()) +
        " " + std::to_string(ref_cycles) + ", " + candidate_->name() + " " +
        std::to_string(cand_cycles);
    Diverge(ProgramName() + (memory.empty() ? ": counters differ" : ": stored values differ") +
            memory + counters + cycles);
  }
  reference_cycles_ += ref_cycles;
  candidate_cycles_ += cand_cycles;
}

std::string CrossDevice::Summary() const {
  char text[256];
  const double diff =
      reference_cycles_ == 0
          ? 0.0
          : 100.0 *
                (static_cast<double>(candidate_cycles_) - static_cast<double>(reference_cycles_)) /
                static_cast<double>(reference_cycles_);
  std::snprintf(text, sizeof text,
                "cross: %" PRIu64 " programs compared, %" PRIu64
                " stored bytes, no divergence; cycles %s %" PRIu64 ", %s %" PRIu64 " (%+.2f%%)",
                programs_, bytes_compared_, reference_->name(), reference_cycles_,
                candidate_->name(), candidate_cycles_, diff);
  return text;
}

uint64_t CrossDevice::cycle() const { return reference_tracing_->cycle(); }
void CrossDevice::SetTrace(const std::string& path, uint64_t start_cycle, uint64_t cycles,
                           const driver::TraceScope& scope) {
  reference_tracing_->SetTrace(path, start_cycle, cycles, scope);
}
void CrossDevice::CloseTrace() { reference_tracing_->CloseTrace(); }
bool CrossDevice::trace_written() const { return reference_tracing_->trace_written(); }
void CrossDevice::WriteTraceLayout(const std::string& gtkw_path) {
  reference_tracing_->WriteTraceLayout(gtkw_path);
}
void CrossDevice::StartTimeline() { reference_tracing_->StartTimeline(); }
void CrossDevice::WriteTimeline(const std::string& path) {
  reference_tracing_->WriteTimeline(path);
}
void CrossDevice::StopTimeline() { reference_tracing_->StopTimeline(); }
void CrossDevice::SetProgramLabel(const std::string& label) {
  label_ = label;
  reference_tracing_->SetProgramLabel(label);
}

}  // namespace mxu::backends
