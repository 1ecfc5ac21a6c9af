// Writing .npy files: format 1.0, C order, the header padded as NumPy pads it.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "io/npy.h"
#include "io/npy_format.h"

namespace mxu::host {
namespace {

using npy_format::AppendLittleEndian;
using npy_format::CheckAsciiStrings;
using npy_format::DtypeCode;
using npy_format::DtypeDescr;
using npy_format::ElementCount;
using npy_format::EncodeLittleEndian;
using npy_format::Fail;
using npy_format::ItemSize;
using npy_format::kHeaderAlign;
using npy_format::kMagic;
using npy_format::kMagicSize;
using npy_format::kMaxStringLength;
using npy_format::MakeArray;
using npy_format::MultiplyOverflows;
using npy_format::ShapeRepr;

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

// What the reader would refuse is refused before anything is written, so that whatever is
// written reads back.
void CheckSerializable(const NpyArray& array, const std::string& name) {
  size_t count = 0;
  if (!ElementCount(array.shape, &count)) {
    Fail(name,
         "shape " + ShapeRepr(array.shape) + " is too large: the element count overflows size_t");
  }
  if (array.dtype == NpyArray::Dtype::kUnicode) {
    if (array.string_length == 0 || array.string_length > kMaxStringLength) {
      Fail(name, "string length " + std::to_string(array.string_length) +
                     " is out of range (1 to " + std::to_string(kMaxStringLength) + ")");
    }
    if (array.shape.size() > 1) {
      Fail(name, "string arrays of rank " + std::to_string(array.shape.size()) +
                     " are not supported (only 0-d and 1-d)");
    }
  }
  size_t expected = 0;
  if (MultiplyOverflows(count, ItemSize(array), &expected) || array.data.size() != expected) {
    Fail(name, std::to_string(array.data.size()) + " data bytes do not match shape " +
                   ShapeRepr(array.shape) + " of " + DtypeDescr(array.dtype, array.string_length));
  }
  if (array.dtype == NpyArray::Dtype::kUnicode) {
    CheckAsciiStrings(array.data.data(), array.data.size(), array.string_length, name);
  }
}

// The header dict of a C-ordered array, padded with spaces and a newline so that the data starts
// at a multiple of kHeaderAlign.
std::string PaddedHeader(const NpyArray& array, const std::string& name) {
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
  return header;
}

}  // namespace

std::vector<uint8_t> SerializeNpy(const NpyArray& array, const std::string& name_for_errors) {
  CheckSerializable(array, name_for_errors);
  const std::string header = PaddedHeader(array, name_for_errors);
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
