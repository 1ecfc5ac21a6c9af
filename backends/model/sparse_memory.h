// The model backend's host memory: a sparse, byte-addressed store of 4 KiB pages (never-written
// memory reads zero), with the RTL platform's error injection: device accesses (the model's DMA
// bursts and instruction fetch) that overlap an injected range or leave the memory answer with
// an error and touch nothing. Host accesses (Read/Write) are backdoors.
#ifndef MXU_BACKENDS_MODEL_SPARSE_MEMORY_H_
#define MXU_BACKENDS_MODEL_SPARSE_MEMORY_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mxu::backends::model {

class SparseMemory {
 public:
  static constexpr uint64_t kPageBytes = 4096;

  explicit SparseMemory(uint64_t size_bytes) : size_(size_bytes) {}

  uint64_t size() const { return size_; }

  // Throw std::out_of_range unless [addr, addr + len) lies inside the memory.
  void Write(uint64_t addr, const void* data, size_t len);
  void Read(uint64_t addr, void* data, size_t len) const;
  // `rows` reads of `row_bytes`, from addr + i * stride to data + i * data_stride: a LOAD's rows,
  // without a call and a range check of the general Read each.
  void ReadRows(uint64_t addr, uint64_t stride, uint32_t rows, size_t row_bytes, void* data,
                size_t data_stride) const;

  // Device accesses overlapping [base, base + length) fail until ClearInjectedErrors().
  void InjectError(uint64_t base, uint64_t length) { errors_.push_back({base, base + length}); }
  void ClearInjectedErrors() { errors_.clear(); }

  // Whether a device access of [addr, addr + len) would be answered with an error.
  bool Fails(uint64_t addr, uint64_t len) const;

  // Device-side element access without range checks (the caller checked Fails()).
  uint16_t Load16(uint64_t addr) const;
  uint32_t Load32(uint64_t addr) const;

 private:
  using Page = std::array<uint8_t, kPageBytes>;
  const Page* FindPage(uint64_t page) const;
  Page& GetPage(uint64_t page);

  uint64_t size_;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
  std::vector<std::pair<uint64_t, uint64_t>> errors_;  // [begin, end)
  mutable uint64_t cached_index_ = ~uint64_t{0};
  mutable const Page* cached_page_ = nullptr;
};

}  // namespace mxu::backends::model

#endif  // MXU_BACKENDS_MODEL_SPARSE_MEMORY_H_
