// A small, strict reader and writer of NumPy .npy files, for exchanging float32 and uint16
// (bf16 bit patterns) arrays with NumPy without a Python dependency.
//
// Reading accepts format versions 1.0, 2.0 and 3.0 with dtype '<f4', '<f8' or '<u2' exactly, in C
// or Fortran order (NumPy's defaults: np.save of a float64 array, or of a transposed view, A.T);
// a Fortran-ordered array is rearranged into C order on reading. Anything else (other dtypes,
// big-endian, malformed headers, short or over-long data) is rejected. Writing produces format 1.0
// with the header padded to a multiple of 64 bytes, as NumPy does. Element bytes are little-endian
// whatever the host's byte order.
//
// Every error is a std::runtime_error with a one-line message that starts with the file name
// (the path, or ParseNpy's name_for_errors), e.g.
//   "A.npy: truncated data: expected 48 bytes, found 40".
#ifndef MXU_HOST_NPY_H_
#define MXU_HOST_NPY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mxu::host {

struct NpyArray {
  enum class Dtype { kFloat32, kUint16, kFloat64 };

  Dtype dtype = Dtype::kFloat32;
  // Empty for a 0-d (scalar) array, which holds one element.
  std::vector<size_t> shape;
  // Raw element bytes, little-endian, C (row-major) order (whatever the file's order was).
  std::vector<uint8_t> data;

  // The product of shape (1 for a 0-d array). Throws if it overflows size_t.
  size_t elements() const;
  bool is_float() const { return dtype == Dtype::kFloat32 || dtype == Dtype::kFloat64; }
  // The elements decoded from data. Throw if dtype differs or data does not match shape.
  // AsFloat32 takes float64 too, rounded to the nearest float32 as NumPy's astype(np.float32).
  std::vector<float> AsFloat32() const;
  std::vector<uint16_t> AsUint16() const;
};

// Reads and parses the .npy file at path: a regular file whose header is checked against its
// size before the data is read.
NpyArray ReadNpy(const std::string& path);
// The dtype and shape of the .npy file at path (no data), checked as ReadNpy does.
NpyArray ReadNpyHeader(const std::string& path);
// Parses the bytes of a whole .npy file; name_for_errors starts every error message.
NpyArray ParseNpy(const std::vector<uint8_t>& bytes, const std::string& name_for_errors);

// Writes data as a C-ordered .npy file (format 1.0) of dtype '<f4' or '<u2' and the given shape
// (any rank; empty for a 0-d array). Throws if data.size() differs from the shape's element count
// or the file cannot be written; a partially written file is removed.
void WriteNpy(const std::string& path, const std::vector<float>& data,
              const std::vector<size_t>& shape);
void WriteNpy(const std::string& path, const std::vector<uint16_t>& data,
              const std::vector<size_t>& shape);

}  // namespace mxu::host

#endif  // MXU_HOST_NPY_H_
