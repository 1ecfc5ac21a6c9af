// Bookkeeping of a bit-exact check against the golden model: counts vectors, keeps the first
// mismatches and reports one summary line ("<name>: N vectors, M mismatches").
#ifndef MXU_GOLDEN_CHECK_TALLY_H_
#define MXU_GOLDEN_CHECK_TALLY_H_

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace mxu::golden {

class CheckTally {
 public:
  explicit CheckTally(std::string name) : name_(std::move(name)) {}

  // Compares one result; format (printf, two uint32_t) describes the operands in the report.
  void Compare(uint32_t got, uint32_t want, const char* format, uint32_t a, uint32_t b = 0) {
    ++vectors_;
    if (got == want) return;
    ++mismatches_;
    if (examples_.size() < kMaxExamples) {
      char line[160];
      char operands[64];
      std::snprintf(operands, sizeof operands, format, a, b);
      std::snprintf(line, sizeof line, "%s -> rtl 0x%08" PRIx32 ", host 0x%08" PRIx32, operands,
                    got, want);
      examples_.emplace_back(line);
    }
  }

  // Adds another tally of the same check (e.g. from another thread).
  void Merge(const CheckTally& other) {
    vectors_ += other.vectors_;
    mismatches_ += other.mismatches_;
    for (const std::string& example : other.examples_) {
      if (examples_.size() < kMaxExamples) examples_.push_back(example);
    }
  }

  uint64_t vectors() const { return vectors_; }
  uint64_t mismatches() const { return mismatches_; }

  // The report: the summary line and the first mismatches, for the test log.
  std::string Report() const {
    std::string report = name_ + ": " + std::to_string(vectors_) + " vectors, " +
                         std::to_string(mismatches_) + " mismatches";
    for (const std::string& example : examples_) report += "\n  " + example;
    return report;
  }

 private:
  static constexpr size_t kMaxExamples = 8;
  std::string name_;
  uint64_t vectors_ = 0;
  uint64_t mismatches_ = 0;
  std::vector<std::string> examples_;
};

}  // namespace mxu::golden

#endif  // MXU_GOLDEN_CHECK_TALLY_H_
