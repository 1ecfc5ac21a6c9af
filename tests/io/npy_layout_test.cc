// Dtypes, Fortran order and data sizes: what the reader converts and what it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "io/npy.h"
#include "tests/io/npy_test_util.h"

namespace mxu::host::npy_test {
namespace {

// ---- Errors: dtype, order, sizes ----

TEST_F(NpyTest, RejectsUnsupportedDtypes) {
  const std::string suffix = "', 'fortran_order': False, 'shape': (1,)}";
  EXPECT_EQ(HeaderError("{'descr': '<i2" + suffix, Zeros(2)),
            "A.npy: unsupported dtype '<i2' (expected float32 '<f4', float64 '<f8', uint16 "
            "'<u2', uint64 '<u8', int8 '|i1', int32 '<i4', int64 '<i8' or ASCII strings '<U<n>')");
  EXPECT_EQ(
      HeaderError("{'descr': '>f4" + suffix, Zeros(4)),
      "A.npy: unsupported dtype '>f4' (big-endian data is not supported; expected float32 "
      "'<f4', float64 '<f8', uint16 '<u2', uint64 '<u8', int8 '|i1', int32 '<i4', int64 '<i8' "
      "or ASCII strings '<U<n>')");
  EXPECT_CONTAINS(HeaderError("{'descr': '>f8" + suffix, Zeros(8)), "big-endian");
  EXPECT_CONTAINS(HeaderError("{'descr': '>u2" + suffix), "big-endian");
  EXPECT_CONTAINS(HeaderError("{'descr': '>U1" + suffix, Zeros(4)), "big-endian");
  for (const char* descr : {"|u1", "=f4", "f4", "<i2", "|u2", "<f2", "|S3", "", "<f4 ", "<u4", "<U",
                            "<U0", "<U03", "<U3x", "<U99999999999999999999", "|U3"}) {
    EXPECT_CONTAINS(HeaderError(std::string("{'descr': '") + descr + suffix, Zeros(4)),
                    std::string("unsupported dtype '") + descr + "'");
  }
}

// np.save(f, A.T) of a C-ordered A writes A's bytes with fortran_order True: read as C order.
TEST_F(NpyTest, ReadsFortranOrderAsCOrder) {
  Bytes data;
  // The 2x3 array [[1, 2, 3], [4, 5, 6]] in column-major order: 1 4 2 5 3 6.
  for (float v : {1.0f, 4.0f, 2.0f, 5.0f, 3.0f, 6.0f}) {
    for (int i = 0; i < 4; ++i) data.push_back(static_cast<uint8_t>(Bits(v) >> (8 * i)));
  }
  const NpyArray a = ParseNpy(
      NpyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", data), "A.npy");
  EXPECT_EQ(a.shape, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(a.AsFloat32(), (std::vector<float>{1, 2, 3, 4, 5, 6}));

  // Rank 3, uint16: element (i, j, k) at Fortran offset i + 2 j + 6 k holds 100 i + 10 j + k.
  Bytes data3(2 * 3 * 4 * 2);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k) {
        const size_t at = 2 * (i + 2 * j + 6 * k);
        data3[at] = static_cast<uint8_t>(100 * i + 10 * j + k);
      }
    }
  }
  const NpyArray b = ParseNpy(
      NpyFile(1, "{'descr': '<u2', 'fortran_order': True, 'shape': (2, 3, 4)}", data3), "B.npy");
  const std::vector<uint16_t> values = b.AsUint16();
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k) EXPECT_EQ(values[12 * i + 4 * j + k], 100 * i + 10 * j + k);
    }
  }
}

// float64 (NumPy's default dtype) is rounded to the nearest float32, ties to even, as
// astype(np.float32) does; too large values become Inf.
TEST_F(NpyTest, ReadsFloat64RoundedToFloat32) {
  const double tie = 1.0 + std::ldexp(1.0, -24);  // halfway between 1 and the next float32
  const double above = 1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -40);
  const std::vector<double> in = {0.1, -2.5, tie, above, 1e300, std::ldexp(1.0, -149)};
  Bytes data;
  for (double v : in) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 8; ++i) data.push_back(static_cast<uint8_t>(bits >> (8 * i)));
  }
  const NpyArray a = ParseNpy(
      NpyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", data), "A.npy");
  EXPECT_EQ(a.dtype, Dtype::kFloat64);
  const std::vector<float> got = a.AsFloat32();
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(Bits(got[0]), Bits(0.1f));
  EXPECT_EQ(got[1], -2.5f);
  EXPECT_EQ(got[2], 1.0f);  // the tie goes to the even neighbour
  EXPECT_EQ(Bits(got[3]), Bits(1.0f) + 1);
  EXPECT_TRUE(std::isinf(got[4]));
  EXPECT_EQ(Bits(got[5]), 1u);  // the smallest subnormal
  EXPECT_THROW(a.AsUint16(), std::runtime_error);
}

TEST_F(NpyTest, RejectsShortAndOverlongData) {
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
  EXPECT_EQ(HeaderError(header, Zeros(40)), "A.npy: truncated data: expected 48 bytes, found 40");
  EXPECT_EQ(HeaderError(header), "A.npy: truncated data: expected 48 bytes, found 0");
  EXPECT_EQ(HeaderError(header, Zeros(49)),
            "A.npy: unexpected trailing data: expected 48 bytes, found 49");
  EXPECT_EQ(HeaderError("{'descr': '<u2', 'fortran_order': False, 'shape': (0, 5)}", Zeros(2)),
            "A.npy: unexpected trailing data: expected 0 bytes, found 2");
}

TEST_F(NpyTest, RejectsElementCountOverflow) {
  const std::string prefix = "{'descr': '<f4', 'fortran_order': False, 'shape': ";
  EXPECT_EQ(HeaderError(prefix + "(4294967296, 4294967296)}"),
            "A.npy: shape (4294967296, 4294967296) is too large: the element count overflows "
            "size_t");
  // 2^62 elements fit, their 2^64 bytes do not.
  EXPECT_EQ(HeaderError(prefix + "(4611686018427387904,)}"),
            "A.npy: shape (4611686018427387904,) is too large: the byte count overflows size_t");
  // A zero dimension makes the array empty however large the others are.
  EXPECT_EQ(ParseNpy(NpyFile(1, prefix + "(4294967296, 4294967296, 0)}"), "x.npy").elements(), 0u);
}

}  // namespace
}  // namespace mxu::host::npy_test
