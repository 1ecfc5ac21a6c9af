// The preamble and header dict of a .npy file, parsed and checked against the file's size before
// any data is read (io/npy_read.cc). Internal to mxu_npy: io/npy.h is the interface.
#ifndef MXU_IO_NPY_HEADER_H_
#define MXU_IO_NPY_HEADER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "io/npy.h"

namespace mxu::host::npy_format {

// A header longer than this is not NumPy's (it writes a few hundred bytes): refused before it is
// read into memory.
inline constexpr uint64_t kMaxHeaderSize = uint64_t{1} << 20;

// What the preamble and header say, checked against the file's size.
struct Layout {
  NpyArray array;  // dtype and shape, no data
  bool fortran_order = false;
  size_t count = 0, data_start = 0, data_size = 0;
};

// Parses the preamble and header from head, the file's first bytes (all of them, or at least
// the preamble and the header it declares), checking the declared sizes against total, the
// file's size, before any data is read.
Layout ParseLayout(const uint8_t* head, size_t head_size, uint64_t total, const std::string& name);

}  // namespace mxu::host::npy_format

#endif  // MXU_IO_NPY_HEADER_H_
