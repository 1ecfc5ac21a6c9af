// gzip decompression (zlib) for the IDX loader: Fashion-MNIST and MNIST ship as .gz.
#ifndef MXU_TRAIN_DATA_GUNZIP_H_
#define MXU_TRAIN_DATA_GUNZIP_H_

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace mxu::train {

// Whether bytes start with the gzip magic 0x1F 0x8B.
bool IsGzip(const std::vector<uint8_t>& bytes);

// The decompressed contents of a whole gzip file (every member, as gunzip does). Throws
// std::runtime_error with a one-line message starting "name_for_errors: " for corrupt or
// truncated data, trailing garbage, or output beyond max_output bytes (a decompression bomb).
std::vector<uint8_t> Gunzip(const std::vector<uint8_t>& bytes, const std::string& name_for_errors,
                            size_t max_output = size_t{1} << 31);

// A gzip file decompressed as it is read, never whole in memory: the IDX reader takes the header
// first, checks the size it declares, then exactly that much. Errors as Gunzip's.
class GzipStream {
 public:
  // file: open, positioned at the gzip magic; not closed here.
  GzipStream(std::FILE* file, const std::string& name_for_errors);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // Up to size decompressed bytes into out: fewer only at the end of the data.
  size_t Read(uint8_t* out, size_t size);

 private:
  bool Refill();

  std::FILE* file_;
  std::string name_;
  z_stream stream_{};
  uint8_t input_[1 << 16];
  bool ended_ = false;  // the last member ended and no input follows
};

}  // namespace mxu::train

#endif  // MXU_TRAIN_DATA_GUNZIP_H_
