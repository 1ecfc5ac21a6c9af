#include "io/npy.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace mxu::host {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// NumPy pads the header so that the data starts at a multiple of 64 bytes (aligned for mmap).
constexpr size_t kHeaderAlign = 64;
// How much of the header a "malformed header" message quotes.
constexpr size_t kQuoteLimit = 100;

[[noreturn]] void Fail(const std::string& name, const std::string& what) {
  throw std::runtime_error(name + ": " + what);
}

// Escapes anything but printable ASCII so that quoted file content cannot break the one-line
// error messages; truncates with "..." past max_size characters of input.
std::string Printable(std::string_view text, size_t max_size) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max_size; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c > 0x7e) {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > max_size) out += "...";
  return out;
}

// The shape as Python writes a tuple: (), (3,), (3, 4).
std::string ShapeRepr(const std::vector<size_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

bool MultiplyOverflows(size_t a, size_t b, size_t* product) {
  if (a != 0 && b > SIZE_MAX / a) return true;
  *product = a * b;
  return false;
}

// The element count of shape; false if it overflows size_t. A zero dimension makes the count 0
// however large the others are, so it is checked first.
bool ElementCount(const std::vector<size_t>& shape, size_t* count) {
  for (const size_t dim : shape) {
    if (dim == 0) {
      *count = 0;
      return true;
    }
  }
  size_t product = 1;
  for (const size_t dim : shape) {
    if (MultiplyOverflows(product, dim, &product)) return false;
  }
  *count = product;
  return true;
}

// The bytes of one element; string_length counts for kUnicode only.
size_t ItemSize(NpyArray::Dtype dtype, size_t string_length) {
  switch (dtype) {
    case NpyArray::Dtype::kInt8:
      return 1;
    case NpyArray::Dtype::kUint16:
      return 2;
    case NpyArray::Dtype::kFloat32:
    case NpyArray::Dtype::kInt32:
      return 4;
    case NpyArray::Dtype::kFloat64:
    case NpyArray::Dtype::kUint64:
    case NpyArray::Dtype::kInt64:
      return 8;
    case NpyArray::Dtype::kUnicode:
      break;
  }
  return 4 * string_length;  // the parser bounds string_length so that this cannot overflow
}

size_t ItemSize(const NpyArray& a) { return ItemSize(a.dtype, a.string_length); }

// The dtype's descr in the header, '<U<n>' for strings ('<U' when n is 0, i.e. unknown).
std::string DtypeCode(NpyArray::Dtype dtype, size_t string_length) {
  switch (dtype) {
    case NpyArray::Dtype::kFloat32:
      return "<f4";
    case NpyArray::Dtype::kFloat64:
      return "<f8";
    case NpyArray::Dtype::kUint16:
      return "<u2";
    case NpyArray::Dtype::kUint64:
      return "<u8";
    case NpyArray::Dtype::kInt32:
      return "<i4";
    case NpyArray::Dtype::kInt64:
      return "<i8";
    case NpyArray::Dtype::kInt8:
      return "|i1";
    case NpyArray::Dtype::kUnicode:
      break;
  }
  return string_length == 0 ? "<U" : "<U" + std::to_string(string_length);
}

// For messages: "float32 '<f4'", "string '<U5'".
std::string DtypeDescr(NpyArray::Dtype dtype, size_t string_length = 0) {
  const char* kind = "string";
  switch (dtype) {
    case NpyArray::Dtype::kFloat32:
      kind = "float32";
      break;
    case NpyArray::Dtype::kFloat64:
      kind = "float64";
      break;
    case NpyArray::Dtype::kUint16:
      kind = "uint16";
      break;
    case NpyArray::Dtype::kUint64:
      kind = "uint64";
      break;
    case NpyArray::Dtype::kInt32:
      kind = "int32";
      break;
    case NpyArray::Dtype::kInt64:
      kind = "int64";
      break;
    case NpyArray::Dtype::kInt8:
      kind = "int8";
      break;
    case NpyArray::Dtype::kUnicode:
      break;
  }
  return std::string(kind) + " '" + DtypeCode(dtype, string_length) + "'";
}

// The longest string element accepted, in code units: far beyond any name or tag, and small
// enough that its byte count never overflows.
constexpr size_t kMaxStringLength = size_t{1} << 24;

// n of a '<U<n>' descr, or 0 if descr is not one (n must be a positive decimal integer without
// leading zeros, at most kMaxStringLength).
size_t ParseUnicodeLength(const std::string& descr) {
  if (descr.size() < 3 || descr.compare(0, 2, "<U") != 0 || descr[2] == '0') return 0;
  size_t n = 0;
  for (size_t i = 2; i < descr.size(); ++i) {
    if (descr[i] < '0' || descr[i] > '9') return 0;
    n = 10 * n + static_cast<size_t>(descr[i] - '0');
    if (n > kMaxStringLength) return 0;
  }
  return n;
}

// Fortran (column-major) element bytes of shape, rearranged into C (row-major) order.
std::vector<uint8_t> FortranToC(const uint8_t* data, const std::vector<size_t>& shape, size_t count,
                                size_t item) {
  std::vector<uint8_t> out(count * item);
  std::vector<size_t> index(shape.size(), 0);  // the C-order multi-index of element i
  for (size_t i = 0; i < count; ++i) {
    size_t offset = 0;  // Fortran: the first index varies fastest
    for (size_t d = shape.size(); d-- > 0;) offset = offset * shape[d] + index[d];
    std::memcpy(&out[i * item], data + offset * item, item);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<size_t> shape;
};

// A recursive-descent parser for the header dict, the subset of Python literal syntax NumPy
// writes: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }, with any whitespace, key
// order and quotes, and optional trailing commas. Anything it does not understand is an error
// rather than a guess.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  Header Parse() {
    Header header;
    bool have_descr = false, have_fortran_order = false, have_shape = false;
    SkipSpace();
    Expect('{', "at the start of the header dict");
    SkipSpace();
    while (Peek() != '}') {
      if (AtEnd()) Malformed("missing closing '}'");
      const std::string key = ParseString("a quoted key");
      SkipSpace();
      Expect(':', ("after key '" + key + "'").c_str());
      SkipSpace();
      bool* seen = nullptr;
      if (key == "descr") {
        seen = &have_descr;
        if (Peek() != '\'' && Peek() != '"') {
          Malformed("'descr' must be a string such as '<f4' (structured dtypes are not supported)");
        }
        header.descr = ParseString("a string");
      } else if (key == "fortran_order") {
        seen = &have_fortran_order;
        header.fortran_order = ParseBool();
      } else if (key == "shape") {
        seen = &have_shape;
        header.shape = ParseShape();
      } else {
        Malformed("unexpected key '" + key + "'");
      }
      if (*seen) Malformed("duplicate key '" + key + "'");
      *seen = true;
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        SkipSpace();
      } else if (AtEnd()) {
        Malformed("missing closing '}'");
      } else if (Peek() != '}') {
        Malformed("expected ',' or '}' after the value of '" + key + "'");
      }
    }
    ++pos_;
    SkipSpace();
    if (!AtEnd()) Malformed("unexpected text after the closing '}'");
    if (!have_descr) Fail(name_, "header dict has no 'descr' key");
    if (!have_fortran_order) Fail(name_, "header dict has no 'fortran_order' key");
    if (!have_shape) Fail(name_, "header dict has no 'shape' key");
    return header;
  }

 private:
  [[noreturn]] void Malformed(const std::string& what) const {
    // Quote the header without its padding, which is only noise.
    std::string_view quoted = text_;
    while (!quoted.empty() && IsSpace(quoted.back())) quoted.remove_suffix(1);
    Fail(name_, "malformed header: " + what + " at offset " + std::to_string(pos_) + " in " +
                    Printable(quoted, kQuoteLimit));
  }

  // Python's whitespace; not isspace(), whose answer depends on the locale.
  static bool IsSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }

  void SkipSpace() {
    while (!AtEnd() && IsSpace(text_[pos_])) ++pos_;
  }

  void Expect(char c, const char* where) {
    if (Peek() != c) Malformed(std::string("expected '") + c + "' " + where);
    ++pos_;
  }

  // A quoted string of printable ASCII; escapes are refused since NumPy never writes them.
  std::string ParseString(const char* what) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') Malformed(std::string("expected ") + what);
    const size_t start = ++pos_;
    while (!AtEnd() && text_[pos_] != quote) {
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '\\') Malformed("escape sequences in strings are not supported");
      if (c < 0x20 || c > 0x7e) Malformed("unexpected character in a string");
      ++pos_;
    }
    if (AtEnd()) Malformed("unterminated string");
    return std::string(text_.substr(start, pos_++ - start));
  }

  // A bare word or number: everything up to whitespace or punctuation.
  std::string_view ParseToken() {
    const size_t start = pos_;
    while (!AtEnd() && !IsSpace(text_[pos_]) &&
           std::strchr(",:()[]{}'\"", text_[pos_]) == nullptr) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  bool ParseBool() {
    const size_t start = pos_;
    const std::string_view token = ParseToken();
    if (token == "True") return true;
    if (token == "False") return false;
    pos_ = start;
    Malformed("'fortran_order' must be True or False");
  }

  std::vector<size_t> ParseShape() {
    if (Peek() != '(') Malformed("'shape' must be a tuple such as (3, 4)");
    ++pos_;
    SkipSpace();
    std::vector<size_t> shape;
    bool trailing_comma = false;
    while (Peek() != ')') {
      if (AtEnd()) Malformed("missing ')' in 'shape'");
      shape.push_back(ParseDimension());
      SkipSpace();
      trailing_comma = Peek() == ',';
      if (trailing_comma) {
        ++pos_;
        SkipSpace();
      } else if (Peek() != ')') {
        Malformed("expected ',' or ')' in 'shape'");
      }
    }
    // In Python (3) is the integer 3, not a tuple.
    if (shape.size() == 1 && !trailing_comma) {
      Malformed("'shape' is not a tuple (a 1-d shape is written (n,))");
    }
    ++pos_;
    return shape;
  }

  size_t ParseDimension() {
    const std::string_view token = ParseToken();
    if (token.empty()) Malformed("expected a dimension in 'shape'");
    const bool negative = token[0] == '-';
    const std::string_view digits = negative ? token.substr(1) : token;
    // Python 3 integer literals: no leading zeros, no sign other than '-', no suffixes.
    bool valid = !digits.empty() && (digits[0] != '0' || digits.size() == 1);
    for (const char c : digits) valid = valid && c >= '0' && c <= '9';
    const std::string quoted = Printable(token, kQuoteLimit);
    if (!valid) {
      Fail(name_,
           "invalid dimension '" + quoted + "' in 'shape' (expected a non-negative integer)");
    }
    if (negative && digits != "0") Fail(name_, "negative dimension " + quoted + " in 'shape'");
    size_t value = 0;
    for (const char c : digits) {
      const size_t digit = static_cast<size_t>(c - '0');
      if (MultiplyOverflows(value, 10, &value) || value > SIZE_MAX - digit) {
        Fail(name_, "dimension " + quoted + " in 'shape' overflows size_t");
      }
      value += digit;
    }
    return value;
  }

  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
};

uint64_t ReadLittleEndian(const uint8_t* bytes, size_t size) {
  uint64_t value = 0;
  for (size_t i = size; i-- > 0;) value = (value << 8) | bytes[i];
  return value;
}

void AppendLittleEndian(uint64_t value, size_t size, std::vector<uint8_t>* out) {
  for (size_t i = 0; i < size; ++i) out->push_back(static_cast<uint8_t>(value >> (8 * i)));
}

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

// The first code unit of a '<U' array's data above 127 (checked on reading and writing: only
// ASCII strings are exchanged); false if there is none.
bool FindNonAscii(const uint8_t* data, size_t size, size_t string_length, uint32_t* code_point,
                  size_t* element) {
  for (size_t i = 0; i + 4 <= size; i += 4) {
    const uint32_t unit = static_cast<uint32_t>(ReadLittleEndian(&data[i], 4));
    if (unit > 0x7f) {
      *code_point = unit;
      *element = i / 4 / string_length;
      return true;
    }
  }
  return false;
}

std::string CodePointRepr(uint32_t code_point) {
  char text[16];
  std::snprintf(text, sizeof(text), "U+%04X", static_cast<unsigned>(code_point));
  return text;
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

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) Fail(path, std::string("cannot open for writing: ") + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  int error = errno;
  // fclose flushes, so it can be the call that reports a full disk.
  if (std::fclose(file) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    // Only a regular file is ours to remove; a device or FIFO at path must survive.
    std::error_code ignored;
    if (std::filesystem::is_regular_file(path, ignored)) std::remove(path.c_str());
    Fail(path, std::string("write failed: ") + std::strerror(error));
  }
}

// The element bytes of values, little-endian: T's bits as the same-sized unsigned integer.
template <typename T>
std::vector<uint8_t> EncodeLittleEndian(const std::vector<T>& values) {
  std::vector<uint8_t> bytes;
  bytes.reserve(sizeof(T) * values.size());
  for (const T& value : values) {
    uint64_t bits = 0;
    if constexpr (sizeof(T) == 1) {
      uint8_t raw;
      std::memcpy(&raw, &value, sizeof(raw));
      bits = raw;
    } else if constexpr (sizeof(T) == 2) {
      uint16_t raw;
      std::memcpy(&raw, &value, sizeof(raw));
      bits = raw;
    } else if constexpr (sizeof(T) == 4) {
      uint32_t raw;
      std::memcpy(&raw, &value, sizeof(raw));
      bits = raw;
    } else {
      static_assert(sizeof(T) == 8);
      std::memcpy(&bits, &value, sizeof(bits));
    }
    AppendLittleEndian(bits, sizeof(T), &bytes);
  }
  return bytes;
}

// An array of `values` elements already encoded in data, checked against shape.
NpyArray MakeArray(NpyArray::Dtype dtype, std::vector<uint8_t> data, size_t values,
                   const std::vector<size_t>& shape, const std::string& name) {
  size_t count = 0;
  if (!ElementCount(shape, &count)) {
    Fail(name, "shape " + ShapeRepr(shape) + " is too large: the element count overflows size_t");
  }
  if (values != count) {
    Fail(name, std::to_string(values) + " values do not match shape " + ShapeRepr(shape) + " (" +
                   std::to_string(count) + " elements)");
  }
  NpyArray array;
  array.dtype = dtype;
  array.shape = shape;
  array.data = std::move(data);
  return array;
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

std::vector<uint8_t> SerializeNpy(const NpyArray& array, const std::string& name_for_errors) {
  const std::string& name = name_for_errors;
  size_t count = 0;
  if (!ElementCount(array.shape, &count)) {
    Fail(name,
         "shape " + ShapeRepr(array.shape) + " is too large: the element count overflows size_t");
  }
  if (array.dtype == NpyArray::Dtype::kUnicode) {
    // The reader's limits, so that whatever is written reads back.
    if (array.string_length == 0 || array.string_length > kMaxStringLength) {
      Fail(name, "string length " + std::to_string(array.string_length) +
                     " is out of range (1 to " + std::to_string(kMaxStringLength) + ")");
    }
    if (array.shape.size() > 1) {
      Fail(name, "string arrays of rank " + std::to_string(array.shape.size()) +
                     " are not supported (only 0-d and 1-d)");
    }
  }
  const size_t item = ItemSize(array);
  size_t expected = 0;
  if (MultiplyOverflows(count, item, &expected) || array.data.size() != expected) {
    Fail(name, std::to_string(array.data.size()) + " data bytes do not match shape " +
                   ShapeRepr(array.shape) + " of " + DtypeDescr(array.dtype, array.string_length));
  }
  uint32_t code_point = 0;
  size_t element = 0;
  if (array.dtype == NpyArray::Dtype::kUnicode &&
      FindNonAscii(array.data.data(), array.data.size(), array.string_length, &code_point,
                   &element)) {
    Fail(name, "code point " + CodePointRepr(code_point) + " in string element " +
                   std::to_string(element) + " is not ASCII (only ASCII strings are supported)");
  }
  std::string header = "{'descr': '" + DtypeCode(array.dtype, array.string_length) +
                       "', 'fortran_order': False, 'shape': " + ShapeRepr(array.shape) + ", }";
  // Magic, version, 2-byte length, header and its terminating newline, padded to the alignment.
  const size_t unpadded = kMagicSize + 2 + 2 + header.size() + 1;
  header.append((kHeaderAlign - unpadded % kHeaderAlign) % kHeaderAlign, ' ');
  header += '\n';
  if (header.size() > UINT16_MAX) {
    Fail(name, "header of " + std::to_string(header.size()) +
                   " bytes does not fit format 1.0 (shape has too many dimensions)");
  }
  std::vector<uint8_t> bytes;
  bytes.reserve(kMagicSize + 4 + header.size() + array.data.size());
  bytes.assign(kMagic, kMagic + kMagicSize);
  bytes.push_back(1);
  bytes.push_back(0);
  AppendLittleEndian(header.size(), 2, &bytes);
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), array.data.begin(), array.data.end());
  return bytes;
}

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

namespace {

// A header longer than this is not NumPy's (it writes a few hundred bytes): refused before it is
// read into memory.
constexpr uint64_t kMaxHeaderSize = uint64_t{1} << 20;

// What the preamble and header say, checked against the file's size.
struct Layout {
  NpyArray array;  // dtype and shape, no data
  bool fortran_order = false;
  size_t count = 0, data_start = 0, data_size = 0;
};

// Parses the preamble and header from head, the file's first bytes (all of them, or at least
// the preamble and the header it declares), checking the declared sizes against total, the
// file's size, before any data is read.
Layout ParseLayout(const uint8_t* head, size_t head_size, uint64_t total, const std::string& name) {
  if (head_size < kMagicSize || std::memcmp(head, kMagic, kMagicSize) != 0) {
    Fail(name, "not a .npy file (missing \\x93NUMPY magic)");
  }
  if (head_size < kMagicSize + 2) Fail(name, "truncated header: no format version");
  const int major = head[kMagicSize], minor = head[kMagicSize + 1];
  if (major < 1 || major > 3 || minor != 0) {
    Fail(name, "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + " (expected 1.0, 2.0 or 3.0)");
  }
  // Version 1.0 has a 2-byte header length, 2.0 and 3.0 (UTF-8 header) a 4-byte one.
  const size_t length_size = major == 1 ? 2 : 4;
  const size_t preamble = kMagicSize + 2 + length_size;
  if (total < preamble || head_size < preamble) {
    Fail(name, "truncated header: the file is " + std::to_string(total) +
                   " bytes, shorter than the " + std::to_string(preamble) + "-byte preamble");
  }
  const uint64_t header_size = ReadLittleEndian(&head[kMagicSize + 2], length_size);
  if (header_size > total - preamble) {
    Fail(name, "truncated header: header length " + std::to_string(header_size) + " exceeds the " +
                   std::to_string(total - preamble) + " bytes after the preamble");
  }
  if (header_size > kMaxHeaderSize) {
    Fail(name, "header length " + std::to_string(header_size) + " is above the limit of " +
                   std::to_string(kMaxHeaderSize) + " bytes");
  }
  if (head_size < preamble + header_size) Fail(name, "truncated header");
  const std::string_view text(reinterpret_cast<const char*>(&head[preamble]), header_size);
  const Header header = HeaderParser(text, name).Parse();

  Layout layout;
  NpyArray& array = layout.array;
  if (header.descr == "<f4") {
    array.dtype = NpyArray::Dtype::kFloat32;
  } else if (header.descr == "<f8") {
    array.dtype = NpyArray::Dtype::kFloat64;
  } else if (header.descr == "<u2") {
    array.dtype = NpyArray::Dtype::kUint16;
  } else if (header.descr == "<u8") {
    array.dtype = NpyArray::Dtype::kUint64;
  } else if (header.descr == "<i4") {
    array.dtype = NpyArray::Dtype::kInt32;
  } else if (header.descr == "<i8") {
    array.dtype = NpyArray::Dtype::kInt64;
  } else if (header.descr == "|i1" || header.descr == "<i1") {
    array.dtype = NpyArray::Dtype::kInt8;
  } else if (const size_t length = ParseUnicodeLength(header.descr); length > 0) {
    array.dtype = NpyArray::Dtype::kUnicode;
    array.string_length = length;
    if (header.shape.size() > 1) {
      Fail(name, "string arrays of rank " + std::to_string(header.shape.size()) +
                     " are not supported (only 0-d and 1-d)");
    }
  } else {
    const bool big_endian = !header.descr.empty() && header.descr[0] == '>';
    Fail(name, "unsupported dtype '" + header.descr + "' (" +
                   (big_endian ? "big-endian data is not supported; " : "") +
                   "expected float32 '<f4', float64 '<f8', uint16 '<u2', uint64 '<u8', int8 "
                   "'|i1', int32 '<i4', int64 '<i8' or ASCII strings '<U<n>')");
  }
  if (!ElementCount(header.shape, &layout.count)) {
    Fail(name,
         "shape " + ShapeRepr(header.shape) + " is too large: the element count overflows size_t");
  }
  if (MultiplyOverflows(layout.count, ItemSize(array), &layout.data_size)) {
    Fail(name,
         "shape " + ShapeRepr(header.shape) + " is too large: the byte count overflows size_t");
  }
  layout.data_start = preamble + header_size;
  const uint64_t available = total - layout.data_start;
  if (available != layout.data_size) {
    Fail(name,
         std::string(available < layout.data_size ? "truncated data" : "unexpected trailing data") +
             ": expected " + std::to_string(layout.data_size) + " bytes, found " +
             std::to_string(available));
  }
  array.shape = header.shape;
  layout.fortran_order = header.fortran_order && header.shape.size() > 1;
  return layout;
}

NpyArray WithData(Layout layout, const uint8_t* data, const std::string& name) {
  NpyArray array = std::move(layout.array);
  uint32_t code_point = 0;
  size_t element = 0;
  if (array.dtype == NpyArray::Dtype::kUnicode &&
      FindNonAscii(data, layout.data_size, array.string_length, &code_point, &element)) {
    Fail(name, "code point " + CodePointRepr(code_point) + " in string element " +
                   std::to_string(element) + " is not ASCII (only ASCII strings are supported)");
  }
  if (layout.fortran_order) {
    array.data = FortranToC(data, array.shape, layout.count, ItemSize(array));
  } else {
    array.data.assign(data, data + layout.data_size);
  }
  return array;
}

// An open .npy file whose layout has been read and checked; the data not yet.
class NpyFile {
 public:
  explicit NpyFile(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "rb");
    if (file_ == nullptr) {
      Fail(path, std::string("cannot open for reading: ") + std::strerror(errno));
    }
    // A device or a FIFO has no size to check the header against (/dev/zero never ends).
    struct stat st;
    if (fstat(fileno(file_), &st) != 0) {
      const int error = errno;
      Close();
      Fail(path, std::string("cannot read: ") + std::strerror(error));
    }
    if (!S_ISREG(st.st_mode)) {
      Close();
      Fail(path, S_ISDIR(st.st_mode) ? "a directory, not a .npy file"
                                     : "not a regular file (inputs are files of known size)");
    }
    const uint64_t total = static_cast<uint64_t>(st.st_size);
    std::vector<uint8_t> head = Read(std::min<uint64_t>(total, kMagicSize + 2 + 4));
    if (head.size() >= kMagicSize + 2 + 2 && std::memcmp(head.data(), kMagic, kMagicSize) == 0) {
      const size_t length_size = head[kMagicSize] == 1 ? 2 : 4;
      const size_t preamble = kMagicSize + 2 + length_size;
      if (head.size() >= preamble) {
        const uint64_t header_size = ReadLittleEndian(&head[kMagicSize + 2], length_size);
        const uint64_t wanted = std::min(header_size, kMaxHeaderSize);
        if (wanted <= total - preamble) {
          const std::vector<uint8_t> more = Read(preamble + wanted - head.size());
          head.insert(head.end(), more.begin(), more.end());
        }
      }
    }
    try {
      layout_ = ParseLayout(head.data(), head.size(), total, path);
    } catch (...) {
      Close();
      throw;
    }
    header_bytes_ = head.size();
  }
  ~NpyFile() { Close(); }

  const Layout& layout() const { return layout_; }
  NpyArray ReadArray() {
    const std::vector<uint8_t> skipped = Read(layout_.data_start - header_bytes_);
    const std::vector<uint8_t> data = Read(layout_.data_size);
    if (data.size() != layout_.data_size) Fail(path_, "truncated data: the file shrank");
    return WithData(layout_, data.data(), path_);
  }

 private:
  std::vector<uint8_t> Read(uint64_t bytes) {
    std::vector<uint8_t> out(bytes);
    const size_t got = std::fread(out.data(), 1, out.size(), file_);
    if (std::ferror(file_)) Fail(path_, std::string("read failed: ") + std::strerror(errno));
    out.resize(got);
    return out;
  }
  void Close() {
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  Layout layout_;
  size_t header_bytes_ = 0;
};

}  // namespace

NpyArray ParseNpy(const uint8_t* bytes, size_t size, const std::string& name_for_errors) {
  Layout layout = ParseLayout(bytes, size, size, name_for_errors);
  const size_t start = layout.data_start;
  return WithData(std::move(layout), bytes + start, name_for_errors);
}

NpyArray ParseNpy(const std::vector<uint8_t>& bytes, const std::string& name_for_errors) {
  return ParseNpy(bytes.data(), bytes.size(), name_for_errors);
}

NpyArray ReadNpy(const std::string& path) { return NpyFile(path).ReadArray(); }

NpyArray ReadNpyHeader(const std::string& path) { return NpyFile(path).layout().array; }

void WriteNpy(const std::string& path, const std::vector<float>& data,
              const std::vector<size_t>& shape) {
  WriteFile(path, SerializeNpy(MakeArray(NpyArray::Dtype::kFloat32, EncodeLittleEndian(data),
                                         data.size(), shape, path),
                               path));
}

void WriteNpy(const std::string& path, const std::vector<uint16_t>& data,
              const std::vector<size_t>& shape) {
  WriteFile(path, SerializeNpy(MakeArray(NpyArray::Dtype::kUint16, EncodeLittleEndian(data),
                                         data.size(), shape, path),
                               path));
}

void WriteNpy(const std::string& path, const NpyArray& array) {
  WriteFile(path, SerializeNpy(array, path));
}

}  // namespace mxu::host
