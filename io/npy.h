// A small, strict reader and writer of NumPy .npy files, for exchanging arrays (float32, bf16 bit
// patterns as uint16, checkpoint counters and short strings) with NumPy without a Python
// dependency.
//
// Reading accepts format versions 1.0, 2.0 and 3.0 with dtype '<f4', '<f8', '<u2', '<u8', '|i1',
// '<i4',
// '<i8' or '<U<n>' (n >= 1 UTF-32LE code units per element, 0-d or 1-d only, ASCII only) exactly,
// in C or Fortran order (NumPy's defaults: np.save of a float64 array, or of a transposed view,
// A.T); a Fortran-ordered array is rearranged into C order on reading. Anything else (other
// dtypes, big-endian, non-ASCII strings, malformed headers, short or over-long data) is rejected.
// Writing produces format 1.0 with the header padded to a multiple of 64 bytes, as NumPy does.
// Element bytes are little-endian whatever the host's byte order.
//
// Every error is a std::runtime_error with a one-line message that starts with the file name
// (the path, or ParseNpy's name_for_errors), e.g.
//   "A.npy: truncated data: expected 48 bytes, found 40".
#ifndef MXU_IO_NPY_H_
#define MXU_IO_NPY_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mxu::host {

struct NpyArray {
  // kUnicode is NumPy's '<U<n>' with n = string_length.
  enum class Dtype { kFloat32, kUint16, kFloat64, kUint64, kInt32, kInt64, kUnicode, kInt8 };

  Dtype dtype = Dtype::kFloat32;
  // kUnicode only: the code units per element (n of '<U<n>'), each 4 bytes of data.
  size_t string_length = 0;
  // Empty for a 0-d (scalar) array, which holds one element.
  std::vector<size_t> shape;
  // Raw element bytes, little-endian, C (row-major) order (whatever the file's order was).
  std::vector<uint8_t> data;

  // The product of shape (1 for a 0-d array). Throws if it overflows size_t.
  size_t elements() const;
  bool is_float() const { return dtype == Dtype::kFloat32 || dtype == Dtype::kFloat64; }
  // The dtype as the header's 'descr' writes it: "<f4", "<U5".
  std::string descr() const;
  // The elements decoded from data. Throw if dtype differs or data does not match shape.
  // AsFloat32 takes float64 too, rounded to the nearest float32 as NumPy's astype(np.float32);
  // AsFloat64 takes float32 too (exactly).
  std::vector<float> AsFloat32() const;
  std::vector<double> AsFloat64() const;
  std::vector<uint16_t> AsUint16() const;
  std::vector<uint64_t> AsUint64() const;
  std::vector<int32_t> AsInt32() const;
  std::vector<int64_t> AsInt64() const;
  std::vector<int8_t> AsInt8() const;
  // The string of a 0-d '<U' array, or each string of a '<U' array in C order, with the trailing
  // NULs that pad shorter strings removed (as NumPy does). Throw for non-ASCII code units.
  std::string AsString() const;
  std::vector<std::string> AsStrings() const;
};

// Builders of C-ordered arrays of the given shape (any rank; empty for 0-d). Throw if
// data.size() differs from the shape's element count.
NpyArray MakeNpy(const std::vector<float>& data, const std::vector<size_t>& shape);
NpyArray MakeNpy(const std::vector<double>& data, const std::vector<size_t>& shape);
NpyArray MakeNpy(const std::vector<uint16_t>& data, const std::vector<size_t>& shape);
NpyArray MakeNpy(const std::vector<uint64_t>& data, const std::vector<size_t>& shape);
NpyArray MakeNpy(const std::vector<int32_t>& data, const std::vector<size_t>& shape);
NpyArray MakeNpy(const std::vector<int64_t>& data, const std::vector<size_t>& shape);
NpyArray MakeNpy(const std::vector<int8_t>& data, const std::vector<size_t>& shape);
// A 0-d '<U<n>' array (n = text.size(), at least 1, as np.array(text)), or a 1-d one of the
// strings (n = the longest). Throw for bytes outside ASCII and for NUL, which NumPy would strip.
NpyArray MakeNpyString(const std::string& text);
NpyArray MakeNpyStrings(const std::vector<std::string>& texts);

// A .npy file of a dtype the reader does not know: its descr comes with the message, so that a
// caller taking fewer dtypes can name its own instead of the reader's whole list.
struct NpyUnsupportedDtype : std::runtime_error {
  NpyUnsupportedDtype(const std::string& message, std::string descr_in)
      : std::runtime_error(message), descr(std::move(descr_in)) {}
  std::string descr;
};

// Reads and parses the .npy file at path: a regular file whose header is checked against its
// size before the data is read.
NpyArray ReadNpy(const std::string& path);
// The dtype and shape of the .npy file at path (no data), checked as ReadNpy does.
NpyArray ReadNpyHeader(const std::string& path);
// Parses the bytes of a whole .npy file; name_for_errors starts every error message.
NpyArray ParseNpy(const std::vector<uint8_t>& bytes, const std::string& name_for_errors);
NpyArray ParseNpy(const uint8_t* bytes, size_t size, const std::string& name_for_errors);

// The bytes of a C-ordered .npy file (format 1.0) holding array. Throws if the data does not
// match the dtype and shape, or a string is not ASCII; name_for_errors starts every message.
std::vector<uint8_t> SerializeNpy(const NpyArray& array,
                                  const std::string& name_for_errors = "SerializeNpy");

// Writes data as a C-ordered .npy file (format 1.0) of dtype '<f4' or '<u2' and the given shape
// (any rank; empty for a 0-d array), or array as SerializeNpy does. Throws if data.size() differs
// from the shape's element count or the file cannot be written; a partially written file is
// removed.
void WriteNpy(const std::string& path, const std::vector<float>& data,
              const std::vector<size_t>& shape);
void WriteNpy(const std::string& path, const std::vector<uint16_t>& data,
              const std::vector<size_t>& shape);
void WriteNpy(const std::string& path, const NpyArray& array);

}  // namespace mxu::host

#endif  // MXU_IO_NPY_H_
