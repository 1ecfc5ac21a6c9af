// Errors of files (named by their path) and of the accessors of an array in memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/npy.h"
#include "tests/io/npy_test_util.h"

namespace mxu::host::npy_test {
namespace {

// ---- Errors: files and accessors ----

TEST_F(NpyTest, ReadErrorsNameThePath) {
  const std::string missing = Path("missing.npy");
  try {
    ReadNpy(missing);
    FAIL() << "read a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(missing + ": cannot open for reading: ", 0), 0u)
        << e.what();
  }
  try {
    ReadNpy(scratch_.dir().string());
    FAIL() << "read a directory";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(scratch_.dir().string() + ": ", 0), 0u) << e.what();
  }
  WriteBytes(Path("short.npy"), NpyFile(1,
                                        "{'descr': '<u2', 'fortran_order': False, "
                                        "'shape': (2,)}",
                                        Zeros(3)));
  try {
    ReadNpy(Path("short.npy"));
    FAIL() << "read a short file";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              Path("short.npy") + ": truncated data: expected 4 bytes, found 3");
  }
}

// A version 1.0 header of 0 or 1 bytes: the first read of the preamble takes data bytes too.
TEST_F(NpyTest, AHeaderShorterThanItsLengthFieldIsMalformed) {
  for (const std::string& header : {std::string(), std::string("{")}) {
    WriteBytes(Path("short_header.npy"), NpyFile(1, header, {'A'}));
    try {
      ReadNpy(Path("short_header.npy"));
      FAIL() << "read a header of " << header.size() << " bytes";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(Path("short_header.npy") + ": malformed header: ", 0),
                0u)
          << e.what();
    }
  }
}

TEST_F(NpyTest, WriteErrorsNameThePath) {
  const std::string unwritable = Path("no/such/dir/a.npy");
  try {
    WriteNpy(unwritable, std::vector<float>{1.0f}, {1});
    FAIL() << "wrote into a missing directory";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(unwritable + ": cannot open for writing: ", 0), 0u)
        << e.what();
  }
  try {
    WriteNpy(Path("m.npy"), std::vector<uint16_t>{1, 2, 3}, {2, 2});
    FAIL() << "wrote 3 values as shape (2, 2)";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              Path("m.npy") + ": 3 values do not match shape (2, 2) (4 elements)");
  }
  EXPECT_FALSE(fs::exists(Path("m.npy")));
  EXPECT_THROW(WriteNpy(Path("o.npy"), std::vector<float>{}, {SIZE_MAX, 2}), std::runtime_error);
  // Format 1.0 stores the header length in 2 bytes: 30000 dimensions of "1, " do not fit.
  try {
    WriteNpy(Path("r.npy"), std::vector<uint16_t>{7}, std::vector<size_t>(30000, 1));
    FAIL() << "wrote a 90 kB header";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(Path("r.npy") + ": header of ", 0), 0u) << e.what();
    EXPECT_CONTAINS(std::string(e.what()), "does not fit format 1.0");
  }
}

#ifdef __linux__
TEST_F(NpyTest, FailedWritesAreReported) {
  // /dev/full accepts the open and fails the write (ENOSPC), as a full disk would.
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  try {
    WriteNpy("/dev/full", std::vector<float>(1000, 1.0f), {1000});
    FAIL() << "wrote to /dev/full";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/dev/full: write failed: ", 0), 0u) << e.what();
  }
  EXPECT_TRUE(fs::exists("/dev/full")) << "only regular files are removed after a failure";
}
#endif

TEST_F(NpyTest, AccessorsCheckDtypeAndSize) {
  NpyArray array;
  array.dtype = Dtype::kUint16;
  array.shape = {2};
  array.data = {1, 0, 2, 0};
  EXPECT_EQ(array.AsUint16(), (std::vector<uint16_t>{1, 2}));
  try {
    array.AsFloat32();
    FAIL() << "decoded uint16 as float32";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "NpyArray::AsFloat32: the array is uint16 '<u2', not float32 '<f4'");
  }
  array.dtype = Dtype::kFloat32;
  EXPECT_THROW(array.AsUint16(), std::runtime_error);
  EXPECT_THROW(array.AsFloat32(), std::runtime_error);  // 4 bytes for 2 float32 elements
  array.shape = {1};
  EXPECT_EQ(array.AsFloat32().size(), 1u);
  array.shape = {SIZE_MAX, 3};
  EXPECT_THROW(array.elements(), std::runtime_error);
}

}  // namespace
}  // namespace mxu::host::npy_test
