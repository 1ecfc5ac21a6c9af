// The cross backend (`--backend cross`): every CSR access, memory write and program goes to two
// devices, the reference (the RTL) and the candidate (the model), and the run stops at the first
// place they disagree, with a report a person can act on: the program, the instruction, the
// buffer row and lane, the host address and both values, and the counters that differ. The
// tools see the reference: its CSRs, its memory, its waveforms.
//
// What is compared, after each program: the outcome (STATUS, ERROR_CODE, ERROR_PC, ERROR_ADDR),
// the exact counters (ARRAY_BUSY, MACS, DMA bytes, INSTRUCTIONS), and every byte the program's
// STOREs wrote (a program that ends in an error is compared by its outcome alone: the stores in
// flight when it stopped may differ). CYCLES and the stall counters are estimates on the model
// (docs/architecture.md): their differences are summed, not failed. CSR reads other than the
// counters and the running PC are compared as they happen.
#ifndef MXU_BACKENDS_CROSS_DEVICE_H_
#define MXU_BACKENDS_CROSS_DEVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "driver/device.h"
#include "driver/tracing.h"

namespace mxu::backends {

// The two devices disagree; what() is the report (several lines).
class DivergenceError : public driver::DeviceError {
 public:
  using driver::DeviceError::DeviceError;
};

class CrossDevice : public driver::Device, public driver::Tracing {
 public:
  CrossDevice(std::unique_ptr<driver::Device> reference, std::unique_ptr<driver::Device> candidate);
  // Calls on_close with Summary() when at least one program was compared.
  ~CrossDevice() override;

  // driver::Device. Reads return the reference's answer; a different answer from the candidate
  // throws DivergenceError.
  uint32_t ReadCsr(uint32_t addr) override;
  void WriteCsr(uint32_t addr, uint32_t value) override;
  void WriteMemory(uint64_t addr, const void* data, size_t bytes) override;
  void ReadMemory(uint64_t addr, void* data, size_t bytes) override;
  uint64_t memory_size() const override;
  bool RunUntilInterrupt(uint64_t max_cycles) override;
  const char* name() const override { return "cross"; }
  // The reference's tracing, with program labels kept for the reports.
  driver::Tracing* tracing() override { return reference_tracing_ ? this : nullptr; }

  // driver::Tracing: the reference's.
  uint64_t cycle() const override;
  void SetTrace(const std::string& path, uint64_t start_cycle, uint64_t cycles,
                const driver::TraceScope& scope) override;
  void CloseTrace() override;
  bool trace_written() const override;
  void WriteTraceLayout(const std::string& gtkw_path) override;
  void StartTimeline() override;
  void WriteTimeline(const std::string& path) override;
  void StopTimeline() override;
  void SetProgramLabel(const std::string& label) override;

  driver::Device& reference() { return *reference_; }
  driver::Device& candidate() { return *candidate_; }
  uint64_t programs_compared() const { return programs_; }
  uint64_t bytes_compared() const { return bytes_compared_; }
  // Sums of CYCLES over the compared programs, on each device.
  uint64_t reference_cycles() const { return reference_cycles_; }
  uint64_t candidate_cycles() const { return candidate_cycles_; }
  // One line: programs and bytes compared, cycles on both and their difference.
  std::string Summary() const;
  // Where the tools print the summary (stderr): set by them, called by the destructor.
  std::function<void(const std::string&)> on_close;

 private:
  void CompareAfterRun();
  [[noreturn]] void Diverge(const std::string& what) const;
  std::string ProgramName() const;

  std::unique_ptr<driver::Device> reference_, candidate_;
  driver::Tracing* reference_tracing_;
  uint64_t cmd_addr_ = 0;
  uint32_t cmd_count_ = 0;
  // The program last started, as the doorbell saw it.
  uint64_t program_addr_ = 0;
  uint32_t program_count_ = 0;
  std::string label_;
  uint64_t programs_ = 0, bytes_compared_ = 0;
  uint64_t reference_cycles_ = 0, candidate_cycles_ = 0;
};

}  // namespace mxu::backends

#endif  // MXU_BACKENDS_CROSS_DEVICE_H_
