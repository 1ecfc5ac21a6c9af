// The shared scaffolding of the .npy tests (tests/io/npy*_test.cc, one binary): the fixture
// with its scratch folder, byte helpers and hand-made files.
#ifndef MXU_TESTS_IO_NPY_TEST_UTIL_H_
#define MXU_TESTS_IO_NPY_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/npy.h"
#include "tests/scratch_dir.h"

namespace mxu::host::npy_test {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;
using Dtype = NpyArray::Dtype;

// Scratch files live in a per-test folder under the build tree (CMake defines the root), so
// parallel CTest runs never share a file. The folder is kept when a test fails, for inspection.
class NpyTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& file) const { return scratch_.Path(file); }

  mxu::testing::ScratchDir scratch_{MXU_NPY_TEST_TMPDIR};
};

inline Bytes FileBytes(const std::string& path) {
  Bytes bytes;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return bytes;
  int c;
  while ((c = std::fgetc(file)) != EOF) bytes.push_back(static_cast<uint8_t>(c));
  std::fclose(file);
  return bytes;
}

inline void WriteBytes(const std::string& path, const Bytes& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
  ASSERT_EQ(std::fclose(file), 0);
}

inline uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float FromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// A complete file: the preamble of `major`.0 around `header` (taken as is, no padding added),
// then `data`.
inline Bytes NpyFile(int major, const std::string& header, const Bytes& data = {}) {
  Bytes bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const size_t length_size = major == 1 ? 2 : 4;
  for (size_t i = 0; i < length_size; ++i) {
    bytes.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  }
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

inline Bytes Zeros(size_t size) { return Bytes(size, 0); }

// The error ParseNpy gives for `bytes`, checked to be one line that starts with the name.
inline std::string ParseError(const Bytes& bytes) {
  try {
    ParseNpy(bytes, "A.npy");
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("A.npy: ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "ParseNpy accepted the bytes";
  return "";
}

inline std::string HeaderError(const std::string& header, const Bytes& data = {}) {
  return ParseError(NpyFile(1, header, data));
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

}  // namespace mxu::host::npy_test

#endif  // MXU_TESTS_IO_NPY_TEST_UTIL_H_
