// The input-file rule (io/input_file.h): an input is a regular file, told by its kind before it
// is opened, so that a FIFO (which would wait for a writer) or a device (which never ends) is
// refused at once, by every reader that takes its files through it: .npy, .npz. A reader that
// hangs is stopped by an alarm, which fails the test.
#include "io/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

#include "io/npy.h"
#include "io/npz.h"
#include "tests/scratch_dir.h"

namespace mxu::io {
namespace {

// The error `read` throws: it must throw, and within seconds.
std::string ErrorOf(const std::function<void()>& read) {
  alarm(20);  // a read that blocks ends the test binary: a failure, never a hung suite
  try {
    read();
  } catch (const std::runtime_error& error) {
    alarm(0);
    return error.what();
  }
  alarm(0);
  ADD_FAILURE() << "no error";
  return "";
}

class InputFileTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return scratch_.Path(name); }
  mxu::testing::ScratchDir scratch_{MXU_INPUT_FILE_TEST_TMPDIR};
};

TEST_F(InputFileTest, ReadsARegularFileAndALinkToOne) {
  const std::string path = Path("data.bin");
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::fputs("abc", file);
  std::fclose(file);
  EXPECT_EQ(ReadInputFile(path, "a file"), (std::vector<uint8_t>{'a', 'b', 'c'}));
  std::filesystem::create_symlink(path, Path("link.bin"));
  InputFile linked(Path("link.bin"), "a file");
  EXPECT_EQ(linked.size(), 3u);
  EXPECT_EQ(linked.ReadAll().size(), 3u);
}

TEST_F(InputFileTest, RefusesAFifoWithoutWaitingForAWriter) {
  const std::string fifo = Path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(ErrorOf([&] { InputFile(fifo, "a file"); }),
            fifo + ": not a regular file (inputs are files of known size)");
  // Every reader of the tool's files goes through the rule.
  EXPECT_NE(ErrorOf([&] { host::ReadNpy(fifo); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { host::ReadNpyHeader(fifo); }).find("not a regular file"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { host::ReadNpz(fifo); }).find("not a regular file"), std::string::npos);
  // A link to a FIFO too.
  std::filesystem::create_symlink(fifo, Path("link"));
  EXPECT_NE(ErrorOf([&] { InputFile(Path("link"), "a file"); }).find("not a regular file"),
            std::string::npos);
}

TEST_F(InputFileTest, RefusesDevicesDirectoriesAndMissingFiles) {
  EXPECT_EQ(ErrorOf([] { InputFile("/dev/zero", "a file"); }),
            "/dev/zero: not a regular file (inputs are files of known size)");
  EXPECT_EQ(ErrorOf([&] { InputFile(scratch_.dir().string(), "a .npy file"); }),
            scratch_.dir().string() + ": a directory, not a .npy file");
  EXPECT_EQ(ErrorOf([&] { InputFile(Path("missing"), "a file"); }),
            Path("missing") + ": cannot open for reading: No such file or directory");
}

}  // namespace
}  // namespace mxu::io
