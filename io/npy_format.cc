#include "io/npy_format.h"

#include <cstdio>
#include <stdexcept>
#include <utility>

namespace mxu::host::npy_format {

void Fail(const std::string& name, const std::string& what) {
  throw std::runtime_error(name + ": " + what);
}

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

// A zero dimension makes the count 0 however large the others are, so it is checked first.
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

std::string DtypeDescr(NpyArray::Dtype dtype, size_t string_length) {
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

uint64_t ReadLittleEndian(const uint8_t* bytes, size_t size) {
  uint64_t value = 0;
  for (size_t i = size; i-- > 0;) value = (value << 8) | bytes[i];
  return value;
}

void AppendLittleEndian(uint64_t value, size_t size, std::vector<uint8_t>* out) {
  for (size_t i = 0; i < size; ++i) out->push_back(static_cast<uint8_t>(value >> (8 * i)));
}

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

void CheckAsciiStrings(const uint8_t* data, size_t size, size_t string_length,
                       const std::string& name) {
  uint32_t code_point = 0;
  size_t element = 0;
  if (FindNonAscii(data, size, string_length, &code_point, &element)) {
    Fail(name, "code point " + CodePointRepr(code_point) + " in string element " +
                   std::to_string(element) + " is not ASCII (only ASCII strings are supported)");
  }
}

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

}  // namespace mxu::host::npy_format
