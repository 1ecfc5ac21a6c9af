// NpyArray itself: the builders of arrays from values and strings (MakeNpy, MakeNpyString) and
// the accessors that decode its element bytes (AsFloat32, AsStrings, ...). Reading and writing
// files are io/npy_read.cc and io/npy_write.cc.
#include "io/npy.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "io/npy_format.h"

namespace mxu::host {
namespace {

using npy_format::AppendLittleEndian;
using npy_format::CodePointRepr;
using npy_format::DtypeCode;
using npy_format::DtypeDescr;
using npy_format::ElementCount;
using npy_format::EncodeLittleEndian;
using npy_format::Fail;
using npy_format::FindNonAscii;
using npy_format::ItemSize;
using npy_format::kMaxStringLength;
using npy_format::kQuoteLimit;
using npy_format::MakeArray;
using npy_format::Printable;
using npy_format::ReadLittleEndian;
using npy_format::ShapeRepr;

// Checks that a's dtype is `want` and its data matches its shape, before decoding.
// AsFloat32 and AsFloat64 take either float dtype.
void CheckDecodable(const NpyArray& a, NpyArray::Dtype want, const char* caller) {
  const bool both_float =
      a.is_float() && (want == NpyArray::Dtype::kFloat32 || want == NpyArray::Dtype::kFloat64);
  if (a.dtype != want && !both_float) {
    throw std::runtime_error(std::string("NpyArray::") + caller + ": the array is " +
                             DtypeDescr(a.dtype, a.string_length) + ", not " + DtypeDescr(want));
  }
  const size_t count = a.elements();
  const size_t item = ItemSize(a);
  if (item == 0 || count > SIZE_MAX / item || a.data.size() != count * item) {
    throw std::runtime_error(std::string("NpyArray::") + caller + ": " +
                             std::to_string(a.data.size()) + " data bytes do not match shape " +
                             ShapeRepr(a.shape) + " of " + DtypeDescr(a.dtype, a.string_length));
  }
}

// The string elements of a checked '<U' array, trailing NULs removed.
std::vector<std::string> DecodeStrings(const NpyArray& a, const char* caller) {
  uint32_t code_point = 0;
  size_t element = 0;
  if (FindNonAscii(a.data.data(), a.data.size(), a.string_length, &code_point, &element)) {
    throw std::runtime_error(std::string("NpyArray::") + caller + ": code point " +
                             CodePointRepr(code_point) + " in string element " +
                             std::to_string(element) + " is not ASCII");
  }
  std::vector<std::string> strings(a.elements());
  for (size_t i = 0; i < strings.size(); ++i) {
    std::string& text = strings[i];
    for (size_t j = 0; j < a.string_length; ++j)
      text += static_cast<char>(a.data[4 * (i * a.string_length + j)]);
    while (!text.empty() && text.back() == '\0') text.pop_back();
  }
  return strings;
}

// The strings as a '<U<n>' array of the given shape, n the longest (at least 1, as NumPy's).
NpyArray MakeStrings(const std::vector<std::string>& texts, std::vector<size_t> shape,
                     const char* caller) {
  size_t length = 1;
  for (const std::string& text : texts) {
    for (size_t i = 0; i < text.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      if (c == 0 || c > 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof(hex), "0x%02x", c);
        Fail(caller, std::string("byte ") + hex + " at offset " + std::to_string(i) + " of " +
                         Printable(text, kQuoteLimit) +
                         (c == 0 ? " is NUL, which NumPy strips from strings"
                                 : " is not ASCII (only ASCII strings are supported)"));
      }
    }
    length = std::max(length, text.size());
  }
  if (length > kMaxStringLength) {
    Fail(caller, "a string of " + std::to_string(length) + " bytes is above the limit of " +
                     std::to_string(kMaxStringLength));
  }
  NpyArray array;
  array.dtype = NpyArray::Dtype::kUnicode;
  array.string_length = length;
  array.shape = std::move(shape);
  array.data.reserve(4 * length * texts.size());
  for (const std::string& text : texts) {
    for (size_t i = 0; i < length; ++i) {
      AppendLittleEndian(i < text.size() ? static_cast<unsigned char>(text[i]) : 0, 4, &array.data);
    }
  }
  return array;
}

}  // namespace

NpyArray MakeNpy(const std::vector<float>& data, const std::vector<size_t>& shape) {
  return MakeArray(NpyArray::Dtype::kFloat32, EncodeLittleEndian(data), data.size(), shape,
                   "MakeNpy");
}

NpyArray MakeNpy(const std::vector<double>& data, const std::vector<size_t>& shape) {
  return MakeArray(NpyArray::Dtype::kFloat64, EncodeLittleEndian(data), data.size(), shape,
                   "MakeNpy");
}

NpyArray MakeNpy(const std::vector<uint16_t>& data, const std::vector<size_t>& shape) {
  return MakeArray(NpyArray::Dtype::kUint16, EncodeLittleEndian(data), data.size(), shape,
                   "MakeNpy");
}

NpyArray MakeNpy(const std::vector<uint64_t>& data, const std::vector<size_t>& shape) {
  return MakeArray(NpyArray::Dtype::kUint64, EncodeLittleEndian(data), data.size(), shape,
                   "MakeNpy");
}

NpyArray MakeNpy(const std::vector<int32_t>& data, const std::vector<size_t>& shape) {
  return MakeArray(NpyArray::Dtype::kInt32, EncodeLittleEndian(data), data.size(), shape,
                   "MakeNpy");
}

NpyArray MakeNpy(const std::vector<int8_t>& data, const std::vector<size_t>& shape) {
  return MakeArray(NpyArray::Dtype::kInt8, EncodeLittleEndian(data), data.size(), shape, "MakeNpy");
}

NpyArray MakeNpy(const std::vector<int64_t>& data, const std::vector<size_t>& shape) {
  return MakeArray(NpyArray::Dtype::kInt64, EncodeLittleEndian(data), data.size(), shape,
                   "MakeNpy");
}

NpyArray MakeNpyString(const std::string& text) { return MakeStrings({text}, {}, "MakeNpyString"); }

NpyArray MakeNpyStrings(const std::vector<std::string>& texts) {
  return MakeStrings(texts, {texts.size()}, "MakeNpyStrings");
}

size_t NpyArray::elements() const {
  size_t count = 0;
  if (!ElementCount(shape, &count)) {
    throw std::runtime_error("NpyArray::elements: the element count of shape " + ShapeRepr(shape) +
                             " overflows size_t");
  }
  return count;
}

std::string NpyArray::descr() const { return DtypeCode(dtype, string_length); }

std::vector<float> NpyArray::AsFloat32() const {
  CheckDecodable(*this, Dtype::kFloat32, "AsFloat32");
  if (dtype == Dtype::kFloat64) {
    // As NumPy's astype(np.float32): round to nearest, ties to even (overflow gives Inf).
    std::vector<float> values(data.size() / 8);
    for (size_t i = 0; i < values.size(); ++i) {
      const uint64_t bits = ReadLittleEndian(&data[8 * i], 8);
      double value;
      std::memcpy(&value, &bits, sizeof(bits));
      values[i] = static_cast<float>(value);
    }
    return values;
  }
  std::vector<float> values(data.size() / 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t bits = static_cast<uint32_t>(ReadLittleEndian(&data[4 * i], 4));
    std::memcpy(&values[i], &bits, sizeof(bits));
  }
  return values;
}

std::vector<double> NpyArray::AsFloat64() const {
  CheckDecodable(*this, Dtype::kFloat64, "AsFloat64");
  if (dtype == Dtype::kFloat32) {
    const std::vector<float> narrow = AsFloat32();
    return std::vector<double>(narrow.begin(), narrow.end());
  }
  std::vector<double> values(data.size() / 8);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint64_t bits = ReadLittleEndian(&data[8 * i], 8);
    std::memcpy(&values[i], &bits, sizeof(bits));
  }
  return values;
}

std::vector<uint16_t> NpyArray::AsUint16() const {
  CheckDecodable(*this, Dtype::kUint16, "AsUint16");
  std::vector<uint16_t> values(data.size() / 2);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<uint16_t>(ReadLittleEndian(&data[2 * i], 2));
  }
  return values;
}

std::vector<uint64_t> NpyArray::AsUint64() const {
  CheckDecodable(*this, Dtype::kUint64, "AsUint64");
  std::vector<uint64_t> values(data.size() / 8);
  for (size_t i = 0; i < values.size(); ++i) values[i] = ReadLittleEndian(&data[8 * i], 8);
  return values;
}

std::vector<int32_t> NpyArray::AsInt32() const {
  CheckDecodable(*this, Dtype::kInt32, "AsInt32");
  std::vector<int32_t> values(data.size() / 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t bits = static_cast<uint32_t>(ReadLittleEndian(&data[4 * i], 4));
    std::memcpy(&values[i], &bits, sizeof(bits));  // two's complement, without a narrowing cast
  }
  return values;
}

std::vector<int8_t> NpyArray::AsInt8() const {
  CheckDecodable(*this, Dtype::kInt8, "AsInt8");
  std::vector<int8_t> values(data.size());
  std::memcpy(values.data(), data.data(), data.size());  // two's complement bytes
  return values;
}

std::vector<int64_t> NpyArray::AsInt64() const {
  CheckDecodable(*this, Dtype::kInt64, "AsInt64");
  std::vector<int64_t> values(data.size() / 8);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint64_t bits = ReadLittleEndian(&data[8 * i], 8);
    std::memcpy(&values[i], &bits, sizeof(bits));
  }
  return values;
}

std::string NpyArray::AsString() const {
  CheckDecodable(*this, Dtype::kUnicode, "AsString");
  if (!shape.empty()) {
    throw std::runtime_error("NpyArray::AsString: the array has shape " + ShapeRepr(shape) +
                             ", not () (AsStrings decodes string arrays)");
  }
  return DecodeStrings(*this, "AsString")[0];
}

std::vector<std::string> NpyArray::AsStrings() const {
  CheckDecodable(*this, Dtype::kUnicode, "AsStrings");
  return DecodeStrings(*this, "AsStrings");
}

}  // namespace mxu::host
