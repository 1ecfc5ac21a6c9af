#include "backends/model/sparse_memory.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace mxu::backends::model {
namespace {

void CheckRange(uint64_t addr, size_t len, uint64_t size) {
  if (addr > size || len > size - addr) {
    throw std::out_of_range("host memory access [" + std::to_string(addr) + ", +" +
                            std::to_string(len) + ") outside the " + std::to_string(size) +
                            "-byte memory");
  }
}

}  // namespace

const SparseMemory::Page* SparseMemory::FindPage(uint64_t page) const {
  if (page == cached_index_) return cached_page_;
  const auto it = pages_.find(page);
  const Page* found = it == pages_.end() ? nullptr : it->second.get();
  if (found != nullptr) {
    cached_index_ = page;
    cached_page_ = found;
  }
  return found;
}

SparseMemory::Page& SparseMemory::GetPage(uint64_t page) {
  std::unique_ptr<Page>& slot = pages_[page];
  if (!slot) {
    slot = std::make_unique<Page>();
    slot->fill(0);
  }
  return *slot;
}

void SparseMemory::Write(uint64_t addr, const void* data, size_t len) {
  CheckRange(addr, len, size_);
  const auto* bytes = static_cast<const uint8_t*>(data);
  while (len > 0) {
    const uint64_t offset = addr % kPageBytes;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(len, kPageBytes - offset));
    std::memcpy(GetPage(addr / kPageBytes).data() + offset, bytes, n);
    addr += n;
    bytes += n;
    len -= n;
  }
}

void SparseMemory::Read(uint64_t addr, void* data, size_t len) const {
  CheckRange(addr, len, size_);
  auto* bytes = static_cast<uint8_t*>(data);
  while (len > 0) {
    const uint64_t offset = addr % kPageBytes;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(len, kPageBytes - offset));
    const Page* page = FindPage(addr / kPageBytes);
    if (page != nullptr) {
      std::memcpy(bytes, page->data() + offset, n);
    } else {
      std::memset(bytes, 0, n);
    }
    addr += n;
    bytes += n;
    len -= n;
  }
}

void SparseMemory::ReadRows(uint64_t addr, uint64_t stride, uint32_t rows, size_t row_bytes,
                            void* data, size_t data_stride) const {
  auto* out = static_cast<uint8_t*>(data);
  for (uint32_t i = 0; i < rows; ++i, addr += stride, out += data_stride) {
    const uint64_t offset = addr % kPageBytes;
    if (offset + row_bytes > kPageBytes || addr > size_ || row_bytes > size_ - addr) {
      Read(addr, out, row_bytes);  // across a page, or outside the memory (it throws)
      continue;
    }
    const uint64_t index = addr / kPageBytes;
    const Page* page = index == cached_index_ ? cached_page_ : FindPage(index);
    if (page != nullptr) {
      std::memcpy(out, page->data() + offset, row_bytes);
    } else {
      std::memset(out, 0, row_bytes);
    }
  }
}

bool SparseMemory::Fails(uint64_t addr, uint64_t len) const {
  if (addr > size_ || len > size_ - addr) return true;
  for (const auto& [begin, end] : errors_) {
    if (addr < end && begin < addr + len) return true;
  }
  return false;
}

uint16_t SparseMemory::Load16(uint64_t addr) const {
  if (addr % kPageBytes <= kPageBytes - 2) {
    const Page* page = FindPage(addr / kPageBytes);
    if (page == nullptr) return 0;
    uint16_t v;
    std::memcpy(&v, page->data() + addr % kPageBytes, 2);
    return v;
  }
  uint16_t v;
  Read(addr, &v, 2);
  return v;
}

uint32_t SparseMemory::Load32(uint64_t addr) const {
  if (addr % kPageBytes <= kPageBytes - 4) {
    const Page* page = FindPage(addr / kPageBytes);
    if (page == nullptr) return 0;
    uint32_t v;
    std::memcpy(&v, page->data() + addr % kPageBytes, 4);
    return v;
  }
  uint32_t v;
  Read(addr, &v, 4);
  return v;
}

}  // namespace mxu::backends::model
