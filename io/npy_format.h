// The pieces of the .npy format that its reader and writer share (io/npy_*.cc): the preamble's
// constants, dtype codes and sizes, shape arithmetic, little-endian bytes, ASCII checks of string
// data, and the one-line errors. Internal to mxu_npy: io/npy.h is the interface.
#ifndef MXU_IO_NPY_FORMAT_H_
#define MXU_IO_NPY_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "io/npy.h"

namespace mxu::host::npy_format {

inline constexpr char kMagic[] = "\x93NUMPY";
inline constexpr size_t kMagicSize = 6;
// NumPy pads the header so that the data starts at a multiple of 64 bytes (aligned for mmap).
inline constexpr size_t kHeaderAlign = 64;
// How much of the header a "malformed header" message quotes.
inline constexpr size_t kQuoteLimit = 100;
// The longest string element accepted, in code units: far beyond any name or tag, and small
// enough that its byte count never overflows.
inline constexpr size_t kMaxStringLength = size_t{1} << 24;

// Throws std::runtime_error("name: what").
[[noreturn]] void Fail(const std::string& name, const std::string& what);

// Escapes anything but printable ASCII so that quoted file content cannot break the one-line
// error messages; truncates with "..." past max_size characters of input.
std::string Printable(std::string_view text, size_t max_size);

// The shape as Python writes a tuple: (), (3,), (3, 4).
std::string ShapeRepr(const std::vector<size_t>& shape);

bool MultiplyOverflows(size_t a, size_t b, size_t* product);

// The element count of shape; false if it overflows size_t.
bool ElementCount(const std::vector<size_t>& shape, size_t* count);

// The bytes of one element; string_length counts for kUnicode only.
size_t ItemSize(NpyArray::Dtype dtype, size_t string_length);
size_t ItemSize(const NpyArray& a);

// The dtype's descr in the header, '<U<n>' for strings ('<U' when n is 0, i.e. unknown).
std::string DtypeCode(NpyArray::Dtype dtype, size_t string_length);

// For messages: "float32 '<f4'", "string '<U5'".
std::string DtypeDescr(NpyArray::Dtype dtype, size_t string_length = 0);

uint64_t ReadLittleEndian(const uint8_t* bytes, size_t size);
void AppendLittleEndian(uint64_t value, size_t size, std::vector<uint8_t>* out);

// The first code unit of a '<U' array's data above 127 (checked on reading and writing: only
// ASCII strings are exchanged); false if there is none.
bool FindNonAscii(const uint8_t* data, size_t size, size_t string_length, uint32_t* code_point,
                  size_t* element);

// "U+00E9".
std::string CodePointRepr(uint32_t code_point);

// Throws "name: code point U+.... in string element i is not ASCII ..." for the first
// non-ASCII code unit of a '<U' array's data.
void CheckAsciiStrings(const uint8_t* data, size_t size, size_t string_length,
                       const std::string& name);

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

// An array of `values` elements already encoded in data, checked against shape; errors start
// with name.
NpyArray MakeArray(NpyArray::Dtype dtype, std::vector<uint8_t> data, size_t values,
                   const std::vector<size_t>& shape, const std::string& name);

}  // namespace mxu::host::npy_format

#endif  // MXU_IO_NPY_FORMAT_H_
