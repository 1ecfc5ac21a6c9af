// .npy files written and read back bit for bit, and the exact bytes the writer produces.
#include "io/npy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/io/npy_test_util.h"

namespace mxu::host::npy_test {
namespace {

// ---- Round trips ----

TEST_F(NpyTest, Float32RoundTripsBitExactInSeveralShapes) {
  const std::vector<std::vector<size_t>> shapes = {{}, {1}, {7}, {3, 4}, {2, 3, 5}, {2, 1, 2, 3}};
  for (const auto& shape : shapes) {
    size_t count = 1;
    for (const size_t dim : shape) count *= dim;
    std::vector<float> values(count);
    // Specials included: the bits must survive, NaN payloads and -0 too.
    const float specials[] = {-0.0f, std::numeric_limits<float>::infinity(), FromBits(0x7FC01234u),
                              FromBits(0xFF800001u), FromBits(0x00000001u)};
    for (size_t i = 0; i < count; ++i) {
      values[i] = i < 5 ? specials[i] : static_cast<float>(i) * -0.37f;
    }
    const std::string path = Path("f32_" + std::to_string(shape.size()) + ".npy");
    WriteNpy(path, values, shape);
    const NpyArray array = ReadNpy(path);
    EXPECT_EQ(array.dtype, Dtype::kFloat32);
    EXPECT_EQ(array.shape, shape);
    EXPECT_EQ(array.elements(), count);
    EXPECT_EQ(array.data.size(), 4 * count);
    const std::vector<float> back = array.AsFloat32();
    ASSERT_EQ(back.size(), count);
    for (size_t i = 0; i < count; ++i) EXPECT_EQ(Bits(back[i]), Bits(values[i])) << i;
    EXPECT_EQ(FileBytes(path).size() % 64, (4 * count) % 64) << "data starts 64-byte aligned";
  }
}

TEST_F(NpyTest, Uint16RoundTripsInSeveralShapes) {
  const std::vector<std::vector<size_t>> shapes = {{}, {5}, {4, 4}, {3, 2, 2}};
  for (const auto& shape : shapes) {
    size_t count = 1;
    for (const size_t dim : shape) count *= dim;
    std::vector<uint16_t> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = static_cast<uint16_t>(0xFFFF - 4099 * i);
    const std::string path = Path("u16_" + std::to_string(shape.size()) + ".npy");
    WriteNpy(path, values, shape);
    const NpyArray array = ReadNpy(path);
    EXPECT_EQ(array.dtype, Dtype::kUint16);
    EXPECT_EQ(array.shape, shape);
    EXPECT_EQ(array.AsUint16(), values);
  }
}

TEST_F(NpyTest, ZeroLengthDimensionsRoundTrip) {
  WriteNpy(Path("f.npy"), std::vector<float>{}, {2, 0, 3});
  const NpyArray f = ReadNpy(Path("f.npy"));
  EXPECT_EQ(f.shape, (std::vector<size_t>{2, 0, 3}));
  EXPECT_EQ(f.elements(), 0u);
  EXPECT_TRUE(f.AsFloat32().empty());

  WriteNpy(Path("u.npy"), std::vector<uint16_t>{}, {0});
  const NpyArray u = ReadNpy(Path("u.npy"));
  EXPECT_EQ(u.shape, (std::vector<size_t>{0}));
  EXPECT_TRUE(u.AsUint16().empty());
}

// ---- Exact bytes written ----

TEST_F(NpyTest, WritesFloat32ExactlyAsTheSpecSays) {
  WriteNpy(Path("a.npy"), std::vector<float>{1.0f, -2.0f, 0.5f, 0.0f, -0.0f, 3.0f}, {2, 3});
  // 10-byte preamble + 118-byte header = 128, a multiple of 64.
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  Bytes expected = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0};
  expected.insert(expected.end(), dict.begin(), dict.end());
  expected.insert(expected.end(), 118 - 1 - dict.size(), ' ');
  expected.push_back('\n');
  const Bytes data = {0x00, 0x00, 0x80, 0x3F,   // 1.0
                      0x00, 0x00, 0x00, 0xC0,   // -2.0
                      0x00, 0x00, 0x00, 0x3F,   // 0.5
                      0x00, 0x00, 0x00, 0x00,   // 0.0
                      0x00, 0x00, 0x00, 0x80,   // -0.0
                      0x00, 0x00, 0x40, 0x40};  // 3.0
  expected.insert(expected.end(), data.begin(), data.end());
  EXPECT_EQ(FileBytes(Path("a.npy")), expected);
}

TEST_F(NpyTest, WritesUint16ExactlyAsTheSpecSays) {
  WriteNpy(Path("b.npy"), std::vector<uint16_t>{0x3F80, 0x0001, 0xFFFF}, {3});
  const std::string dict = "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }";
  Bytes expected = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0};
  expected.insert(expected.end(), dict.begin(), dict.end());
  expected.insert(expected.end(), 118 - 1 - dict.size(), ' ');
  expected.push_back('\n');
  for (const uint8_t b : {0x80, 0x3F, 0x01, 0x00, 0xFF, 0xFF}) expected.push_back(b);
  const Bytes written = FileBytes(Path("b.npy"));
  EXPECT_EQ(written, expected);
  ASSERT_EQ(written.size(), 128u + 6u);
  EXPECT_EQ(written[127], '\n');
}

TEST_F(NpyTest, HeadersOfEveryLengthArePaddedToSixtyFour) {
  // Growing ranks move the header length across several multiples of 64.
  std::vector<size_t> shape;
  for (int rank = 0; rank < 40; ++rank) {
    WriteNpy(Path("p.npy"), std::vector<uint16_t>{1}, shape);
    const Bytes bytes = FileBytes(Path("p.npy"));
    ASSERT_GE(bytes.size(), 12u);
    const size_t header_size = bytes[8] | bytes[9] << 8;
    EXPECT_EQ((10 + header_size) % 64, 0u) << rank;
    EXPECT_EQ(bytes[10 + header_size - 1], '\n') << rank;
    EXPECT_EQ(bytes.size(), 10 + header_size + 2) << rank;
    EXPECT_EQ(ReadNpy(Path("p.npy")).shape, shape);
    shape.push_back(1);
  }
}

}  // namespace
}  // namespace mxu::host::npy_test
