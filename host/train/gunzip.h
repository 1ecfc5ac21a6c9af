// In-memory gzip decompression (zlib) for the IDX loader: Fashion-MNIST and MNIST ship as .gz.
#ifndef MXU_HOST_TRAIN_GUNZIP_H_
#define MXU_HOST_TRAIN_GUNZIP_H_

#include <cstddef>
#include <cstdint>
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

}  // namespace mxu::train

#endif  // MXU_HOST_TRAIN_GUNZIP_H_
