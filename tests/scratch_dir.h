// A scratch folder for one test under a root the build names, so that parallel CTest runs never
// share a file: root/Suite.Test, made empty when the test starts and removed when it passes (kept
// after a failure, for inspection).
#ifndef MXU_TESTS_SCRATCH_DIR_H_
#define MXU_TESTS_SCRATCH_DIR_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace mxu::testing {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& root) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        std::filesystem::path(root) / (std::string(info->test_suite_name()) + "." + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (info && !info->result()->Failed()) std::filesystem::remove_all(dir_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string Path(const std::string& file) const { return (dir_ / file).string(); }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace mxu::testing

#endif  // MXU_TESTS_SCRATCH_DIR_H_
