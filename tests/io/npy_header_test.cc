// Headers as NumPy and hand editing write them, and every malformed preamble or header dict
// refused with a one-line message.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/npy.h"
#include "tests/io/npy_test_util.h"

namespace mxu::host::npy_test {
namespace {

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

}  // namespace
}  // namespace mxu::host::npy_test
