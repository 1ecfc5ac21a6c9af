#include "io/npy_header.h"

#include <cstring>
#include <string_view>
#include <vector>

#include "io/npy_format.h"

namespace mxu::host::npy_format {
namespace {

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

// The header dict's text after the preamble; *preamble is the preamble's size.
std::string_view HeaderText(const uint8_t* head, size_t head_size, uint64_t total,
                            const std::string& name, size_t* preamble_size) {
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
  *preamble_size = preamble;
  return std::string_view(reinterpret_cast<const char*>(&head[preamble]), header_size);
}

// The array's dtype (and string length) as the header's descr names it.
NpyArray ArrayOfDescr(const Header& header, const std::string& name) {
  NpyArray array;
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
    throw NpyUnsupportedDtype(
        name + ": unsupported dtype '" + header.descr + "' (" +
            (big_endian ? "big-endian data is not supported; " : "") +
            "expected float32 '<f4', float64 '<f8', uint16 '<u2', uint64 '<u8', int8 "
            "'|i1', int32 '<i4', int64 '<i8' or ASCII strings '<U<n>')",
        header.descr);
  }
  return array;
}

}  // namespace

Layout ParseLayout(const uint8_t* head, size_t head_size, uint64_t total, const std::string& name) {
  size_t preamble = 0;
  const std::string_view text = HeaderText(head, head_size, total, name, &preamble);
  const Header header = HeaderParser(text, name).Parse();
  Layout layout;
  layout.array = ArrayOfDescr(header, name);
  if (!ElementCount(header.shape, &layout.count)) {
    Fail(name,
         "shape " + ShapeRepr(header.shape) + " is too large: the element count overflows size_t");
  }
  if (MultiplyOverflows(layout.count, ItemSize(layout.array), &layout.data_size)) {
    Fail(name,
         "shape " + ShapeRepr(header.shape) + " is too large: the byte count overflows size_t");
  }
  layout.data_start = preamble + text.size();
  const uint64_t available = total - layout.data_start;
  if (available != layout.data_size) {
    Fail(name,
         std::string(available < layout.data_size ? "truncated data" : "unexpected trailing data") +
             ": expected " + std::to_string(layout.data_size) + " bytes, found " +
             std::to_string(available));
  }
  layout.array.shape = header.shape;
  layout.fortran_order = header.fortran_order && header.shape.size() > 1;
  return layout;
}

}  // namespace mxu::host::npy_format
