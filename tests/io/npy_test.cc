#include "io/npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/scratch_dir.h"

namespace mxu::host {
namespace {

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

Bytes FileBytes(const std::string& path) {
  Bytes bytes;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return bytes;
  int c;
  while ((c = std::fgetc(file)) != EOF) bytes.push_back(static_cast<uint8_t>(c));
  std::fclose(file);
  return bytes;
}

void WriteBytes(const std::string& path, const Bytes& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
  ASSERT_EQ(std::fclose(file), 0);
}

uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float FromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// A complete file: the preamble of `major`.0 around `header` (taken as is, no padding added),
// then `data`.
Bytes NpyFile(int major, const std::string& header, const Bytes& data = {}) {
  Bytes bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const size_t length_size = major == 1 ? 2 : 4;
  for (size_t i = 0; i < length_size; ++i) {
    bytes.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  }
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

Bytes Zeros(size_t size) { return Bytes(size, 0); }

// The error ParseNpy gives for `bytes`, checked to be one line that starts with the name.
std::string ParseError(const Bytes& bytes) {
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

std::string HeaderError(const std::string& header, const Bytes& data = {}) {
  return ParseError(NpyFile(1, header, data));
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

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

// ---- Parsing hand-written headers ----

TEST_F(NpyTest, ParsesOddSpacingKeyOrderQuotesAndCommas) {
  const Bytes data = {1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0};
  const std::string headers[] = {
      "{'descr':'<u2','fortran_order':False,'shape':(2,3)}",
      "{ \"shape\" : ( 2 , 3 , ) ,\n\t'fortran_order' :False , \"descr\":  '<u2' , }   \n",
      "\n  {'fortran_order': False, 'shape': (2,\n 3), 'descr': \"<u2\"}",
  };
  for (const std::string& header : headers) {
    const NpyArray array = ParseNpy(NpyFile(1, header, data), "x.npy");
    EXPECT_EQ(array.dtype, Dtype::kUint16) << header;
    EXPECT_EQ(array.shape, (std::vector<size_t>{2, 3})) << header;
    EXPECT_EQ(array.AsUint16(), (std::vector<uint16_t>{1, 2, 3, 4, 5, 6})) << header;
  }
}

TEST_F(NpyTest, ParsesScalarOneDimensionalAndEmptyTupleShapes) {
  const std::string prefix = "{'descr': '<f4', 'fortran_order': False, 'shape': ";
  EXPECT_TRUE(ParseNpy(NpyFile(1, prefix + "()}", Zeros(4)), "x.npy").shape.empty());
  EXPECT_TRUE(ParseNpy(NpyFile(1, prefix + "( )}", Zeros(4)), "x.npy").shape.empty());
  EXPECT_EQ(ParseNpy(NpyFile(1, prefix + "(5,)}", Zeros(20)), "x.npy").shape,
            (std::vector<size_t>{5}));
  EXPECT_EQ(ParseNpy(NpyFile(1, prefix + "(0,)}"), "x.npy").elements(), 0u);
}

TEST_F(NpyTest, ReadsFormatVersions2And3) {
  const Bytes data = {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x40};
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  for (const int major : {2, 3}) {
    const Bytes bytes = NpyFile(major, header, data);
    ASSERT_EQ(bytes[8], header.size());  // 4-byte little-endian length
    ASSERT_EQ(bytes[11], 0);
    const NpyArray array = ParseNpy(bytes, "v.npy");
    EXPECT_EQ(array.shape, (std::vector<size_t>{2}));
    EXPECT_EQ(array.AsFloat32(), (std::vector<float>{1.0f, 2.0f}));
  }
  WriteBytes(Path("v2.npy"), NpyFile(2, header, data));
  EXPECT_EQ(ReadNpy(Path("v2.npy")).AsFloat32(), (std::vector<float>{1.0f, 2.0f}));
}

// ---- Errors: preamble ----

TEST_F(NpyTest, RejectsMissingOrWrongMagic) {
  EXPECT_CONTAINS(ParseError({}), "not a .npy file");
  EXPECT_CONTAINS(ParseError({0x93, 'N', 'U'}), "not a .npy file");
  EXPECT_CONTAINS(ParseError({0x93, 'N', 'U', 'M', 'P', 'Z', 1, 0, 0, 0}), "not a .npy file");
  EXPECT_CONTAINS(ParseError({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0}), "not a .npy file");
}

TEST_F(NpyTest, RejectsUnknownVersions) {
  const std::pair<int, int> versions[] = {{0, 0}, {1, 1}, {4, 0}};
  for (const auto& [major, minor] : versions) {
    Bytes bytes = NpyFile(1, "{}");
    bytes[6] = static_cast<uint8_t>(major);
    bytes[7] = static_cast<uint8_t>(minor);
    EXPECT_CONTAINS(ParseError(bytes), "unsupported .npy format version " + std::to_string(major) +
                                           "." + std::to_string(minor));
  }
}

TEST_F(NpyTest, RejectsTruncatedHeaders) {
  EXPECT_CONTAINS(ParseError({0x93, 'N', 'U', 'M', 'P', 'Y', 1}), "truncated header");
  EXPECT_CONTAINS(ParseError({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0}),
                  "truncated header: the file is 9 bytes, shorter than the 10-byte preamble");
  EXPECT_CONTAINS(ParseError({0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0, 0, 0}),
                  "shorter than the 12-byte preamble");
}

TEST_F(NpyTest, RejectsHeaderLengthBeyondTheFile) {
  Bytes bytes = NpyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}");
  bytes[8] = 200;
  EXPECT_CONTAINS(ParseError(bytes), "header length 200 exceeds the 53 bytes after the preamble");
  Bytes v2 = NpyFile(2, "{}");
  v2[11] = 0x80;  // 2^31 + 2
  EXPECT_CONTAINS(ParseError(v2), "header length 2147483650 exceeds the 2 bytes");
}

// ---- Errors: the header dict ----

TEST_F(NpyTest, RejectsMalformedDicts) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "expected '{' at the start of the header dict"},
      {"'descr': '<f4'", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()", "missing closing '}'"},
      {"{'descr' '<f4'}", "expected ':' after key 'descr'"},
      {"{descr: '<f4'}", "expected a quoted key"},
      {"{'descr': '<f4',, }", "expected a quoted key"},
      {"{'descr': '<f4' 'fortran_order': False}", "expected ',' or '}' after the value of 'descr'"},
      {"{'descr': '<f4}", "unterminated string"},
      {"{'descr': '\\x3cf4'}", "escape sequences in strings are not supported"},
      {"{'descr': '<f\t4'}", "unexpected character in a string"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()} x", "unexpected text after"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()}}", "unexpected text after"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}",
       "'descr' must be a string"},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': ()}",
       "'fortran_order' must be True or False"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", "'fortran_order' must be True"},
      {"{'descr': '<f4', 'fortran_order': 'False', 'shape': ()}", "'fortran_order' must be"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [3]}", "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': 3}", "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3)}", "'shape' is not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4}", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,", "missing ')' in 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", "expected a dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,,)}", "expected a dimension"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}",
       "duplicate key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (), 'extra': 1}",
       "unexpected key 'extra'"},
  };
  for (const auto& [header, part] : cases) {
    const std::string message = HeaderError(header);
    EXPECT_CONTAINS(message, "malformed header: ") << header;
    EXPECT_CONTAINS(message, part) << header;
  }
}

TEST_F(NpyTest, MalformedHeaderMessagesQuoteTheHeaderOnOneLine) {
  const std::string message =
      HeaderError("{'descr': '<f4',\n 'fortran_order': False \x01}" + std::string(30, ' ') + "\n");
  EXPECT_EQ(message,
            "A.npy: malformed header: expected ',' or '}' after the value of 'fortran_order' at "
            "offset 41 in {'descr': '<f4',\\n 'fortran_order': False \\x01}");
}

TEST_F(NpyTest, RejectsMissingKeys) {
  EXPECT_EQ(HeaderError("{'fortran_order': False, 'shape': ()}"),
            "A.npy: header dict has no 'descr' key");
  EXPECT_EQ(HeaderError("{'descr': '<f4', 'shape': ()}"),
            "A.npy: header dict has no 'fortran_order' key");
  EXPECT_EQ(HeaderError("{'descr': '<f4', 'fortran_order': False}"),
            "A.npy: header dict has no 'shape' key");
  EXPECT_EQ(HeaderError("{}"), "A.npy: header dict has no 'descr' key");
}

TEST_F(NpyTest, RejectsNegativeAndNonNumericDimensions) {
  const std::string prefix = "{'descr': '<f4', 'fortran_order': False, 'shape': ";
  EXPECT_EQ(HeaderError(prefix + "(3, -4)}"), "A.npy: negative dimension -4 in 'shape'");
  const char* invalid[] = {"a", "3.5", "None", "3L", "0x10", "+3", "03", "1_000", "-", "4e2"};
  for (const char* dim : invalid) {
    EXPECT_EQ(HeaderError(prefix + "(2, " + dim + ")}"),
              std::string("A.npy: invalid dimension '") + dim +
                  "' in 'shape' (expected a non-negative integer)");
  }
  EXPECT_CONTAINS(HeaderError(prefix + "(99999999999999999999999,)}"),
                  "dimension 99999999999999999999999 in 'shape' overflows size_t");
}

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

// ---- Integers, float64 and strings (checkpoints) ----

TEST_F(NpyTest, IntegerAndFloat64ArraysRoundTrip) {
  const std::vector<uint64_t> u64 = {0, 1, 0x8000000000000000u, UINT64_MAX, 0x0123456789ABCDEFu,
                                     42};
  const std::vector<int32_t> i32 = {0, -1, INT32_MIN, INT32_MAX, 123456, -7};
  const std::vector<int64_t> i64 = {0, -1, INT64_MIN, INT64_MAX, -1234567890123, 5};
  const std::vector<double> f64 = {
      0.1, -0.0, 1e300, -std::numeric_limits<double>::infinity(), std::ldexp(1.0, -1074), 3.0};
  const std::pair<NpyArray, Dtype> cases[] = {
      {MakeNpy(u64, {2, 3}), Dtype::kUint64},
      {MakeNpy(i32, {6}), Dtype::kInt32},
      {MakeNpy(i64, {3, 2}), Dtype::kInt64},
      {MakeNpy(f64, {1, 6}), Dtype::kFloat64},
  };
  for (const auto& [array, dtype] : cases) {
    EXPECT_EQ(array.dtype, dtype);
    WriteNpy(Path("x.npy"), array);
    EXPECT_EQ(FileBytes(Path("x.npy")), SerializeNpy(array));
    const NpyArray back = ReadNpy(Path("x.npy"));
    EXPECT_EQ(back.dtype, dtype);
    EXPECT_EQ(back.shape, array.shape);
    EXPECT_EQ(back.data, array.data);
  }
  EXPECT_EQ(ReadNpy(Path("x.npy")).AsFloat64().size(), 6u);
  EXPECT_EQ(ParseNpy(SerializeNpy(MakeNpy(u64, {6})), "u").AsUint64(), u64);
  EXPECT_EQ(ParseNpy(SerializeNpy(MakeNpy(i32, {6})), "i").AsInt32(), i32);
  EXPECT_EQ(ParseNpy(SerializeNpy(MakeNpy(i64, {6})), "i").AsInt64(), i64);
  const std::vector<double> f64_back = ParseNpy(SerializeNpy(MakeNpy(f64, {6})), "f").AsFloat64();
  ASSERT_EQ(f64_back.size(), f64.size());
  for (size_t i = 0; i < f64.size(); ++i) {
    EXPECT_EQ(std::memcmp(&f64_back[i], &f64[i], sizeof(double)), 0) << i;
  }
  // Scalars: np.save(f, np.uint64(7)) writes shape ().
  EXPECT_EQ(ParseNpy(SerializeNpy(MakeNpy(std::vector<uint64_t>{7}, {})), "s").AsUint64(),
            std::vector<uint64_t>{7});
  // float32 widens exactly.
  EXPECT_EQ(MakeNpy(std::vector<float>{0.1f}, {1}).AsFloat64(),
            std::vector<double>{static_cast<double>(0.1f)});
}

TEST_F(NpyTest, WritesIntegersAndStringsExactlyAsTheSpecSays) {
  const auto expect_file = [](const Bytes& written, const std::string& dict, const Bytes& data) {
    Bytes expected = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0};
    expected.insert(expected.end(), dict.begin(), dict.end());
    expected.insert(expected.end(), 118 - 1 - dict.size(), ' ');
    expected.push_back('\n');
    expected.insert(expected.end(), data.begin(), data.end());
    EXPECT_EQ(written, expected) << dict;
  };
  expect_file(SerializeNpy(MakeNpy(std::vector<int32_t>{-2}, {1})),
              "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }",
              {0xFE, 0xFF, 0xFF, 0xFF});
  expect_file(SerializeNpy(MakeNpy(std::vector<uint64_t>{0x0102030405060708u}, {})),
              "{'descr': '<u8', 'fortran_order': False, 'shape': (), }", {8, 7, 6, 5, 4, 3, 2, 1});
  expect_file(SerializeNpy(MakeNpy(std::vector<int64_t>{-1}, {})),
              "{'descr': '<i8', 'fortran_order': False, 'shape': (), }", Bytes(8, 0xFF));
  expect_file(SerializeNpy(MakeNpyString("abc")),
              "{'descr': '<U3', 'fortran_order': False, 'shape': (), }",
              {'a', 0, 0, 0, 'b', 0, 0, 0, 'c', 0, 0, 0});
  // np.array(['ab', 'c']): '<U2', the shorter string padded with NUL.
  expect_file(SerializeNpy(MakeNpyStrings({"ab", "c"})),
              "{'descr': '<U2', 'fortran_order': False, 'shape': (2,), }",
              {'a', 0, 0, 0, 'b', 0, 0, 0, 'c', 0, 0, 0, 0, 0, 0, 0});
}

TEST_F(NpyTest, StringsRoundTrip) {
  for (const std::string& text : {std::string("sgd"), std::string(""), std::string("x"),
                                  std::string("a b\tc ~!{}'\"\\"), std::string(300, 'z')}) {
    const NpyArray array = MakeNpyString(text);
    EXPECT_EQ(array.dtype, Dtype::kUnicode);
    EXPECT_EQ(array.string_length, std::max<size_t>(1, text.size()));
    EXPECT_TRUE(array.shape.empty());
    EXPECT_EQ(array.AsString(), text);
    WriteNpy(Path("s.npy"), array);
    const NpyArray back = ReadNpy(Path("s.npy"));
    EXPECT_EQ(back.dtype, Dtype::kUnicode);
    EXPECT_EQ(back.string_length, array.string_length);
    EXPECT_EQ(back.AsString(), text);
    EXPECT_EQ(back.AsStrings(), std::vector<std::string>{text});
  }
  const std::vector<std::string> texts = {"relu", "", "softmax", "a"};
  const NpyArray list = ParseNpy(SerializeNpy(MakeNpyStrings(texts)), "l.npy");
  EXPECT_EQ(list.shape, std::vector<size_t>{4});
  EXPECT_EQ(list.string_length, 7u);
  EXPECT_EQ(list.AsStrings(), texts);
  EXPECT_THROW(list.AsString(), std::runtime_error);  // not 0-d
  const NpyArray none = ParseNpy(SerializeNpy(MakeNpyStrings({})), "n.npy");
  EXPECT_EQ(none.shape, std::vector<size_t>{0});
  EXPECT_TRUE(none.AsStrings().empty());
}

TEST_F(NpyTest, StringsAreAsciiOnly) {
  try {
    MakeNpyString("caf\xc3\xa9");
    FAIL() << "made a non-ASCII string";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "MakeNpyString: byte 0xc3 at offset 3 of caf\\xc3\\xa9 is not ASCII (only ASCII "
                 "strings are supported)");
  }
  EXPECT_THROW(MakeNpyStrings({"ok", std::string("a\0b", 3)}), std::runtime_error);
  // A hand-made array with U+00E9 is refused by SerializeNpy and by the reader.
  NpyArray bad = MakeNpyString("ab");
  bad.data[4] = 0xE9;
  EXPECT_EQ(
      ParseError(NpyFile(1, "{'descr': '<U2', 'fortran_order': False, 'shape': ()}", bad.data)),
      "A.npy: code point U+00E9 in string element 0 is not ASCII (only ASCII strings are "
      "supported)");
  try {
    SerializeNpy(bad, "B.npy");
    FAIL() << "serialized a non-ASCII string";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "B.npy: code point U+00E9 in string element 0 is not ASCII (only ASCII strings "
                 "are supported)");
  }
  EXPECT_THROW(bad.AsString(), std::runtime_error);
  // The top byte of the code unit counts too: U+10041 is not 'A'.
  Bytes astral = {'A', 0, 1, 0};
  EXPECT_CONTAINS(
      ParseError(NpyFile(1, "{'descr': '<U1', 'fortran_order': False, 'shape': (1,)}", astral)),
      "code point U+10041 in string element 0");
}

TEST_F(NpyTest, RejectsStringArraysOfRankTwoAndBadSizes) {
  EXPECT_EQ(HeaderError("{'descr': '<U2', 'fortran_order': False, 'shape': (1, 1)}", Zeros(8)),
            "A.npy: string arrays of rank 2 are not supported (only 0-d and 1-d)");
  EXPECT_EQ(HeaderError("{'descr': '<U2', 'fortran_order': False, 'shape': (3,)}", Zeros(20)),
            "A.npy: truncated data: expected 24 bytes, found 20");
  // 2^24 code units per element is the limit: a huge n or count cannot overflow the byte count.
  EXPECT_CONTAINS(HeaderError("{'descr': '<U16777217', 'fortran_order': False, 'shape': ()}"),
                  "unsupported dtype '<U16777217'");
  EXPECT_EQ(HeaderError("{'descr': '<U16777216', 'fortran_order': False, 'shape': "
                        "(1152921504606846976,)}"),
            "A.npy: shape (1152921504606846976,) is too large: the byte count overflows size_t");
  NpyArray rank2 = MakeNpyStrings({"a", "b"});
  rank2.shape = {1, 2};
  EXPECT_THROW(SerializeNpy(rank2), std::runtime_error);
  NpyArray empty_length = MakeNpyString("a");
  empty_length.string_length = 0;
  EXPECT_THROW(SerializeNpy(empty_length), std::runtime_error);
}

TEST_F(NpyTest, BuildersAndSerializeCheckShapes) {
  try {
    MakeNpy(std::vector<int32_t>{1, 2, 3}, {2, 2});
    FAIL() << "made 3 values of shape (2, 2)";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "MakeNpy: 3 values do not match shape (2, 2) (4 elements)");
  }
  NpyArray array = MakeNpy(std::vector<uint64_t>{1, 2}, {2});
  array.data.pop_back();
  try {
    SerializeNpy(array, "ckpt.npz: array 'step'");
    FAIL() << "serialized 15 bytes as two uint64";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "ckpt.npz: array 'step': 15 data bytes do not match shape (2,) of uint64 '<u8'");
  }
  EXPECT_THROW(WriteNpy(Path("w.npy"), array), std::runtime_error);
  EXPECT_FALSE(fs::exists(Path("w.npy")));
}

TEST_F(NpyTest, NewAccessorsCheckDtype) {
  const NpyArray u64 = MakeNpy(std::vector<uint64_t>{1}, {1});
  const NpyArray i32 = MakeNpy(std::vector<int32_t>{1}, {1});
  const NpyArray text = MakeNpyString("abcde");
  try {
    u64.AsInt64();
    FAIL() << "decoded uint64 as int64";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "NpyArray::AsInt64: the array is uint64 '<u8', not int64 '<i8'");
  }
  try {
    text.AsUint64();
    FAIL() << "decoded a string as uint64";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "NpyArray::AsUint64: the array is string '<U5', not uint64 '<u8'");
  }
  try {
    i32.AsString();
    FAIL() << "decoded int32 as a string";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "NpyArray::AsString: the array is int32 '<i4', not string '<U'");
  }
  EXPECT_THROW(i32.AsInt64(), std::runtime_error);
  EXPECT_THROW(i32.AsFloat32(), std::runtime_error);
  EXPECT_THROW(u64.AsFloat64(), std::runtime_error);
  EXPECT_THROW(text.AsFloat32(), std::runtime_error);
  EXPECT_EQ(i32.AsInt32(), std::vector<int32_t>{1});
}

}  // namespace
}  // namespace mxu::host
