// Reading .npy files: from bytes in memory (ParseNpy) or a regular file (io/input_file.h) whose
// header is checked against its size before the data is read (ReadNpy, ReadNpyHeader).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "io/input_file.h"
#include "io/npy.h"
#include "io/npy_format.h"
#include "io/npy_header.h"

namespace mxu::host {
namespace {

using npy_format::CheckAsciiStrings;
using npy_format::Fail;
using npy_format::ItemSize;
using npy_format::kMagic;
using npy_format::kMagicSize;
using npy_format::kMaxHeaderSize;
using npy_format::Layout;
using npy_format::ParseLayout;
using npy_format::ReadLittleEndian;

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

NpyArray WithData(Layout layout, const uint8_t* data, const std::string& name) {
  NpyArray array = std::move(layout.array);
  if (array.dtype == NpyArray::Dtype::kUnicode) {
    CheckAsciiStrings(data, layout.data_size, array.string_length, name);
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
  explicit NpyFile(const std::string& path) : path_(path), input_(path, "a .npy file") {
    const uint64_t total = input_.size();
    std::vector<uint8_t> head = ReadHead(total);
    layout_ = ParseLayout(head.data(), head.size(), total, path);
    header_bytes_ = head.size();
  }

  const Layout& layout() const { return layout_; }
  NpyArray ReadArray() {
    const std::vector<uint8_t> skipped = Read(layout_.data_start - header_bytes_);
    const std::vector<uint8_t> data = Read(layout_.data_size);
    if (data.size() != layout_.data_size) Fail(path_, "truncated data: the file shrank");
    return WithData(layout_, data.data(), path_);
  }

 private:
  // The preamble and as much of the header as it declares (up to kMaxHeaderSize and the file's
  // end): what ParseLayout needs, and no more.
  std::vector<uint8_t> ReadHead(uint64_t total) {
    std::vector<uint8_t> head = Read(std::min<uint64_t>(total, kMagicSize + 2 + 4));
    if (head.size() >= kMagicSize + 2 + 2 && std::memcmp(head.data(), kMagic, kMagicSize) == 0) {
      const size_t length_size = head[kMagicSize] == 1 ? 2 : 4;
      const size_t preamble = kMagicSize + 2 + length_size;
      if (head.size() >= preamble) {
        const uint64_t header_size = ReadLittleEndian(&head[kMagicSize + 2], length_size);
        const uint64_t wanted = std::min(header_size, kMaxHeaderSize);
        if (preamble + wanted < head.size()) {
          // A version 1.0 header shorter than 2 bytes: the first read took data bytes too. Give
          // them back, so that the data is read from its start.
          head.resize(preamble + wanted);
          if (std::fseek(input_.get(), static_cast<long>(head.size()), SEEK_SET) != 0) {
            Fail(path_, std::string("cannot read: ") + std::strerror(errno));
          }
        } else if (wanted <= total - preamble) {
          const std::vector<uint8_t> more = Read(preamble + wanted - head.size());
          head.insert(head.end(), more.begin(), more.end());
        }
      }
    }
    return head;
  }

  std::vector<uint8_t> Read(uint64_t bytes) {
    std::vector<uint8_t> out(bytes);
    const size_t got = std::fread(out.data(), 1, out.size(), input_.get());
    if (std::ferror(input_.get())) {
      Fail(path_, std::string("read failed: ") + std::strerror(errno));
    }
    out.resize(got);
    return out;
  }
  std::string path_;
  io::InputFile input_;  // checked to be a regular file before it was opened
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

}  // namespace mxu::host
