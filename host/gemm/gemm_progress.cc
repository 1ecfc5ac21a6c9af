#include "host/gemm/gemm_progress.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mxu::host {

double ProgressAfterSeconds() {
  const char* text = std::getenv("MXU_PROGRESS_AFTER");
  if (text == nullptr) return 1.0;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  return end != text && *end == '\0' && seconds >= 0 ? seconds : 1.0;
}

bool ProgressDevice::RunUntilInterrupt(uint64_t max_cycles) {
  constexpr uint64_t kSlice = 2000;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t done = 0; done < max_cycles;) {
    const uint64_t slice = std::min(kSlice, max_cycles - done);
    if (device_.RunUntilInterrupt(slice)) {
      Clear();
      return true;
    }
    done += slice;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds >= show_after_ && seconds - shown_at_ >= 0.2) {
      Show(device_.ReadCsr(csr::kPc), done, seconds);
      shown_at_ = seconds;
    }
  }
  Clear();
  return false;
}

void ProgressDevice::Show(uint32_t pc, uint64_t cycles, double seconds) {
  constexpr int kWidth = 30;
  const uint32_t total = instructions_ ? instructions_ : 1;
  const int filled = static_cast<int>(std::min<uint64_t>(pc, total) * kWidth / total);
  std::fprintf(stderr, "\r%s [%s%s] instruction %u/%u, %.1f M cycles, %.0f s ", label_.c_str(),
               std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(), pc,
               instructions_, cycles / 1e6, seconds);
  std::fflush(stderr);
  shown_ = true;
}

void ProgressDevice::Clear() {
  if (shown_) std::fprintf(stderr, "\r\033[K");
  shown_ = false;
}

}  // namespace mxu::host
