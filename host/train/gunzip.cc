#include "host/train/gunzip.h"

#include <zlib.h>

#include <climits>
#include <stdexcept>

namespace mxu::train {
namespace {

[[noreturn]] void Fail(const std::string& name, const std::string& problem) {
  throw std::runtime_error(name + ": " + problem);
}

}  // namespace

bool IsGzip(const std::vector<uint8_t>& bytes) {
  return bytes.size() >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B;
}

std::vector<uint8_t> Gunzip(const std::vector<uint8_t>& bytes, const std::string& name,
                            size_t max_output) {
  if (!IsGzip(bytes)) Fail(name, "not gzip data (no 0x1F 0x8B magic)");
  if (bytes.size() > UINT_MAX) Fail(name, "compressed file too large (4 GiB or more)");
  z_stream stream{};
  // 16 + MAX_WBITS: a gzip header and trailer (CRC and length checked), not raw zlib.
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) Fail(name, "cannot start zlib");
  stream.next_in = const_cast<Bytef*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  std::vector<uint8_t> out;
  uint8_t chunk[1 << 16];
  std::string problem;
  for (;;) {
    stream.next_out = chunk;
    stream.avail_out = sizeof(chunk);
    const int status = inflate(&stream, Z_NO_FLUSH);
    out.insert(out.end(), chunk, chunk + (sizeof(chunk) - stream.avail_out));
    if (out.size() > max_output) {
      problem = "decompresses to more than " + std::to_string(max_output) + " bytes";
      break;
    }
    if (status == Z_STREAM_END) {
      if (stream.avail_in == 0) break;
      // Another member follows (concatenated gzip files), or garbage.
      if (stream.avail_in < 2 || stream.next_in[0] != 0x1F || stream.next_in[1] != 0x8B) {
        problem = "trailing garbage after the gzip data";
        break;
      }
      inflateReset(&stream);
      continue;
    }
    if (status == Z_OK) continue;
    if (status == Z_BUF_ERROR && stream.avail_in == 0) {
      problem = "truncated gzip data (unexpected end of file)";
    } else {
      problem = std::string("corrupt gzip data: ") + (stream.msg ? stream.msg : "zlib error");
    }
    break;
  }
  inflateEnd(&stream);
  if (!problem.empty()) Fail(name, problem);
  return out;
}

}  // namespace mxu::train
