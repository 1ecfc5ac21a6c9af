// The dtypes of checkpoints: integers, float64 and ASCII strings, their bytes and their limits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/npy.h"
#include "tests/io/npy_test_util.h"

namespace mxu::host::npy_test {
namespace {

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
}  // namespace mxu::host::npy_test
