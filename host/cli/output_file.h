// The one rule for the files a command writes (docs/cli.md, "Outputs"): every output is a
// regular file or does not exist yet; before the run it is checked against every input and every
// other output (by path, symbolic link target and inode) and its temporary is tried; it is written
// to a temporary file in its own directory and renamed into place only when the run has
// succeeded, so that a failed or interrupted run (host/cli/stop_signals.h removes the temporaries
// at a signal), or two runs writing the same file at once, never leave a torn or emptied file.
// Writes to stdout are checked too.
#ifndef MXU_HOST_CLI_OUTPUT_FILE_H_
#define MXU_HOST_CLI_OUTPUT_FILE_H_

#include <stdexcept>
#include <string>
#include <vector>

namespace mxu::host {

// A file the command reads or writes, named by its option.
struct PathArg {
  std::string option;  // "--out"
  std::string path;
};

// Before the run: every output is a regular file or absent (a dangling symbolic link, a device
// or a directory is refused), its directory exists and is writable, its name fits there and its
// temporary can be created (made and removed now), no two outputs are one file and no output is
// also an input. Throws UsageError naming the option (both, for two).
void CheckOutputPaths(const std::vector<PathArg>& outputs, const std::vector<PathArg>& inputs);

// Whether two paths name one file (by path with links resolved, or by inode).
bool SamePath(const std::string& a, const std::string& b);

// The temporary files of one run's outputs: Temp() creates one beside each output, the command
// writes there, Commit() renames them all into place; whatever was not committed is removed
// when this goes away (a failed run).
class PendingOutputs {
 public:
  PendingOutputs() = default;
  PendingOutputs(const PendingOutputs&) = delete;
  PendingOutputs& operator=(const PendingOutputs&) = delete;
  ~PendingOutputs();

  // The path to write `path`'s content to: a new empty file in the directory of `path` (of its
  // target, for a symbolic link), tracked for a stop by a signal. Callers make it when they are
  // about to write (a trace: when recording starts), so that a stop before finds none. The same
  // path again gives the same temporary. Throws std::runtime_error when it cannot be created.
  std::string Temp(const std::string& path);
  // Calls write(Temp(path)); a std::runtime_error from it names `path`, not the temporary.
  template <typename Writer>
  void Write(const std::string& path, Writer write) {
    const std::string temp = Temp(path);
    try {
      write(temp);
    } catch (const std::runtime_error& error) {
      std::string what = error.what();
      for (size_t at; (at = what.find(temp)) != std::string::npos;)
        what.replace(at, temp.size(), path);
      throw std::runtime_error(what);
    }
  }
  // Renames every temporary into place; throws std::runtime_error naming the file that failed.
  void Commit();

 private:
  struct Entry {
    std::string path, target, temp;
  };
  std::vector<Entry> entries_;
};

// Flushes stdout; throws std::runtime_error ("cannot write to standard output: ...") when any
// write to it failed (a full disk, a closed pipe).
void FlushStdout();

}  // namespace mxu::host

#endif  // MXU_HOST_CLI_OUTPUT_FILE_H_
