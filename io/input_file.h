// The one rule for the files a command reads (docs/cli.md, "Inputs"): an input is a regular file (a
// symbolic link to one too). Its kind is checked before it is opened, and again on the opened
// file, without waiting: opening a FIFO for reading would block until a writer came, and a
// device has no size to check a header against (/dev/zero never ends). Every reader of the tool
// takes its files through here: .npy and .npz (--a, --b, --bias, --accumulate, --scales,
// --model, --resume), IDX files of --data, topologies.
#ifndef MXU_IO_INPUT_FILE_H_
#define MXU_IO_INPUT_FILE_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace mxu::io {

// An input opened for reading. Every error is a std::runtime_error with one line that starts
// with the path: "<path>: cannot open for reading: No such file or directory", "<path>: a
// directory, not <what>", "<path>: not a regular file (inputs are files of known size)".
class InputFile {
 public:
  // what: the kind of file expected, for the directory's message ("a .npy file").
  InputFile(const std::string& path, const std::string& what);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::FILE* get() const { return file_; }
  // The size when it was opened.
  uint64_t size() const { return size_; }
  // Reads the whole file (its size when opened); throws when it shrank or a read failed.
  std::vector<uint8_t> ReadAll();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t size_ = 0;
};

// The whole content of the input at path (InputFile's checks).
std::vector<uint8_t> ReadInputFile(const std::string& path, const std::string& what);

}  // namespace mxu::io

#endif  // MXU_IO_INPUT_FILE_H_
