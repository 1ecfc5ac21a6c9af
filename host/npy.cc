#include "host/npy.h"

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

size_t ItemSize(NpyArray::Dtype dtype) {
  switch (dtype) {
    case NpyArray::Dtype::kFloat32:
      return 4;
    case NpyArray::Dtype::kFloat64:
      return 8;
    case NpyArray::Dtype::kUint16:
      break;
  }
  return 2;
}

const char* DtypeDescr(NpyArray::Dtype dtype) {
  switch (dtype) {
    case NpyArray::Dtype::kFloat32:
      return "float32 '<f4'";
    case NpyArray::Dtype::kFloat64:
      return "float64 '<f8'";
    case NpyArray::Dtype::kUint16:
      break;
  }
  return "uint16 '<u2'";
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
void CheckDecodable(const NpyArray& a, NpyArray::Dtype want, const char* caller) {
  if (a.dtype != want && !(want == NpyArray::Dtype::kFloat32 && a.is_float())) {
    throw std::runtime_error(std::string("NpyArray::") + caller + ": the array is " +
                             DtypeDescr(a.dtype) + ", not " + DtypeDescr(want));
  }
  const size_t count = a.elements();
  const size_t item = ItemSize(a.dtype);
  if (count > SIZE_MAX / item || a.data.size() != count * item) {
    throw std::runtime_error(std::string("NpyArray::") + caller + ": " +
                             std::to_string(a.data.size()) + " data bytes do not match shape " +
                             ShapeRepr(a.shape) + " of " + DtypeDescr(a.dtype));
  }
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

// Serializes a format 1.0 file whose element bytes are already little-endian.
void WriteNpyBytes(const std::string& path, NpyArray::Dtype dtype, const std::vector<uint8_t>& data,
                   size_t values, const std::vector<size_t>& shape) {
  size_t count = 0;
  if (!ElementCount(shape, &count)) {
    Fail(path, "shape " + ShapeRepr(shape) + " is too large: the element count overflows size_t");
  }
  if (values != count) {
    Fail(path, std::to_string(values) + " values do not match shape " + ShapeRepr(shape) + " (" +
                   std::to_string(count) + " elements)");
  }
  const char* descr = dtype == NpyArray::Dtype::kFloat32 ? "<f4" : "<u2";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + ShapeRepr(shape) + ", }";
  // Magic, version, 2-byte length, header and its terminating newline, padded to the alignment.
  const size_t unpadded = kMagicSize + 2 + 2 + header.size() + 1;
  header.append((kHeaderAlign - unpadded % kHeaderAlign) % kHeaderAlign, ' ');
  header += '\n';
  if (header.size() > UINT16_MAX) {
    Fail(path, "header of " + std::to_string(header.size()) +
                   " bytes does not fit format 1.0 (shape has too many dimensions)");
  }
  std::vector<uint8_t> bytes(kMagic, kMagic + kMagicSize);
  bytes.push_back(1);
  bytes.push_back(0);
  AppendLittleEndian(header.size(), 2, &bytes);
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  WriteFile(path, bytes);
}

}  // namespace

size_t NpyArray::elements() const {
  size_t count = 0;
  if (!ElementCount(shape, &count)) {
    throw std::runtime_error("NpyArray::elements: the element count of shape " + ShapeRepr(shape) +
                             " overflows size_t");
  }
  return count;
}

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

std::vector<uint16_t> NpyArray::AsUint16() const {
  CheckDecodable(*this, Dtype::kUint16, "AsUint16");
  std::vector<uint16_t> values(data.size() / 2);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<uint16_t>(ReadLittleEndian(&data[2 * i], 2));
  }
  return values;
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
  } else {
    const bool big_endian = !header.descr.empty() && header.descr[0] == '>';
    Fail(name, "unsupported dtype '" + header.descr + "' (" +
                   (big_endian ? "big-endian data is not supported; " : "") +
                   "expected float32 '<f4', float64 '<f8' or uint16 '<u2')");
  }
  if (!ElementCount(header.shape, &layout.count)) {
    Fail(name,
         "shape " + ShapeRepr(header.shape) + " is too large: the element count overflows size_t");
  }
  if (MultiplyOverflows(layout.count, ItemSize(array.dtype), &layout.data_size)) {
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

NpyArray WithData(Layout layout, const uint8_t* data) {
  NpyArray array = std::move(layout.array);
  if (layout.fortran_order) {
    array.data = FortranToC(data, array.shape, layout.count, ItemSize(array.dtype));
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
    return WithData(layout_, data.data());
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

NpyArray ParseNpy(const std::vector<uint8_t>& bytes, const std::string& name_for_errors) {
  Layout layout = ParseLayout(bytes.data(), bytes.size(), bytes.size(), name_for_errors);
  const size_t start = layout.data_start;
  return WithData(std::move(layout), bytes.data() + start);
}

NpyArray ReadNpy(const std::string& path) { return NpyFile(path).ReadArray(); }

NpyArray ReadNpyHeader(const std::string& path) { return NpyFile(path).layout().array; }

void WriteNpy(const std::string& path, const std::vector<float>& data,
              const std::vector<size_t>& shape) {
  std::vector<uint8_t> bytes;
  bytes.reserve(4 * data.size());
  for (const float value : data) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    AppendLittleEndian(bits, 4, &bytes);
  }
  WriteNpyBytes(path, NpyArray::Dtype::kFloat32, bytes, data.size(), shape);
}

void WriteNpy(const std::string& path, const std::vector<uint16_t>& data,
              const std::vector<size_t>& shape) {
  std::vector<uint8_t> bytes;
  bytes.reserve(2 * data.size());
  for (const uint16_t value : data) AppendLittleEndian(value, 2, &bytes);
  WriteNpyBytes(path, NpyArray::Dtype::kUint16, bytes, data.size(), shape);
}

}  // namespace mxu::host
