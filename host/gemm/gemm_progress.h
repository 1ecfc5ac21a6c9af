// The progress line of a long GEMM on a terminal (`mxu gemm`, each GEMM of `mxu bench`): the
// controller's instruction pointer against the program length, on stderr.
#ifndef MXU_HOST_GEMM_GEMM_PROGRESS_H_
#define MXU_HOST_GEMM_GEMM_PROGRESS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "common/csr_map.h"
#include "driver/device.h"

namespace mxu::host {

// Seconds a run goes before its progress shows: 1, or MXU_PROGRESS_AFTER (tests set it).
double ProgressAfterSeconds();

// Wraps a device: runs it in slices and, once the run has taken show_after seconds, shows the
// progress on stderr, cleared when the run ends. The device runs the same cycles as without it
// (the program counter is read while the program runs on).
class ProgressDevice : public driver::Device {
 public:
  // label: what the line names ("gemm"; a bench row's name).
  explicit ProgressDevice(driver::Device& device, double show_after = 1.0,
                          std::string label = "gemm")
      : device_(device), show_after_(show_after), label_(std::move(label)) {}
  ~ProgressDevice() override { Clear(); }

  uint32_t ReadCsr(uint32_t addr) override { return device_.ReadCsr(addr); }
  void WriteCsr(uint32_t addr, uint32_t value) override {
    if (addr == csr::kCmdCount) instructions_ = value;
    device_.WriteCsr(addr, value);
  }
  void WriteMemory(uint64_t addr, const void* data, size_t bytes) override {
    device_.WriteMemory(addr, data, bytes);
  }
  void ReadMemory(uint64_t addr, void* data, size_t bytes) override {
    device_.ReadMemory(addr, data, bytes);
  }
  uint64_t memory_size() const override { return device_.memory_size(); }
  const char* name() const override { return device_.name(); }

  bool RunUntilInterrupt(uint64_t max_cycles) override;

 private:
  void Show(uint32_t pc, uint64_t cycles, double seconds);
  void Clear();

  driver::Device& device_;
  double show_after_;
  std::string label_;
  uint32_t instructions_ = 0;
  double shown_at_ = -1;  // when last shown: the first time waits for show_after_ only
  bool shown_ = false;
};

}  // namespace mxu::host

#endif  // MXU_HOST_GEMM_GEMM_PROGRESS_H_
