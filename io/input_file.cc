#include "io/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace mxu::io {
namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what);
}

// Refuses anything but a regular file, by its mode.
void CheckKind(const std::string& path, const struct stat& st, const std::string& what) {
  if (S_ISDIR(st.st_mode)) Fail(path, "a directory, not " + what);
  if (!S_ISREG(st.st_mode)) Fail(path, "not a regular file (inputs are files of known size)");
}

}  // namespace

InputFile::InputFile(const std::string& path, const std::string& what) : path_(path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    Fail(path, std::string("cannot open for reading: ") + std::strerror(errno));
  }
  CheckKind(path, st, what);
  // O_NONBLOCK: should a FIFO take the file's place after stat(), open() must not wait for a
  // writer; fstat() below then refuses it.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) Fail(path, std::string("cannot open for reading: ") + std::strerror(errno));
  if (fstat(fd, &st) != 0) {
    const int error = errno;
    close(fd);
    Fail(path, std::string("cannot read: ") + std::strerror(error));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    CheckKind(path, st, what);
  }
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  file_ = fdopen(fd, "rb");
  if (file_ == nullptr) {
    const int error = errno;
    close(fd);
    Fail(path, std::string("cannot open for reading: ") + std::strerror(error));
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (file_ != nullptr) std::fclose(file_);
}

std::vector<uint8_t> InputFile::ReadAll() {
  std::vector<uint8_t> bytes(static_cast<size_t>(size_));
  const size_t got = std::fread(bytes.data(), 1, bytes.size(), file_);
  if (std::ferror(file_)) Fail(path_, std::string("read failed: ") + std::strerror(errno));
  if (got != bytes.size()) Fail(path_, "truncated: the file shrank while it was read");
  return bytes;
}

std::vector<uint8_t> ReadInputFile(const std::string& path, const std::string& what) {
  return InputFile(path, what).ReadAll();
}

}  // namespace mxu::io
