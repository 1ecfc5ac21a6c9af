#include "train/data/gunzip.h"

#include <zlib.h>

#include <algorithm>
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

GzipStream::GzipStream(std::FILE* file, const std::string& name) : file_(file), name_(name) {
  if (inflateInit2(&stream_, 16 + MAX_WBITS) != Z_OK) Fail(name, "cannot start zlib");
}

GzipStream::~GzipStream() { inflateEnd(&stream_); }

bool GzipStream::Refill() {
  const size_t got = std::fread(input_, 1, sizeof(input_), file_);
  if (std::ferror(file_)) Fail(name_, "read error");
  stream_.next_in = input_;
  stream_.avail_in = static_cast<uInt>(got);
  return got > 0;
}

size_t GzipStream::Read(uint8_t* out, size_t size) {
  size_t done = 0;
  while (done < size && !ended_) {
    if (stream_.avail_in == 0 && !Refill()) {
      Fail(name_, "truncated gzip data (unexpected end of file)");
    }
    const size_t want = std::min<size_t>(size - done, UINT_MAX);
    stream_.next_out = out + done;
    stream_.avail_out = static_cast<uInt>(want);
    const int status = inflate(&stream_, Z_NO_FLUSH);
    done += want - stream_.avail_out;
    if (status == Z_STREAM_END) {
      // Another member follows (concatenated gzip files), or garbage, or the end.
      if (stream_.avail_in == 0 && !Refill()) {
        ended_ = true;
        break;
      }
      if (stream_.next_in[0] != 0x1F ||
          (stream_.avail_in >= 2 ? stream_.next_in[1] != 0x8B : std::fgetc(file_) != 0x8B)) {
        Fail(name_, "trailing garbage after the gzip data");
      }
      if (stream_.avail_in < 2) {  // the second magic byte was read apart: put it back
        input_[0] = 0x1F;
        input_[1] = 0x8B;
        stream_.next_in = input_;
        stream_.avail_in = 2;
      }
      inflateReset(&stream_);
      continue;
    }
    if (status == Z_OK || (status == Z_BUF_ERROR && stream_.avail_in == 0)) continue;
    Fail(name_, std::string("corrupt gzip data: ") + (stream_.msg ? stream_.msg : "zlib error"));
  }
  return done;
}

}  // namespace mxu::train
