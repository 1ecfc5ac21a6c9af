#include "host/cli/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>

#include "host/cli/usage_error.h"

namespace mxu::host {
namespace {

namespace fs = std::filesystem;

std::string Quoted(const std::string& text) { return "'" + text + "'"; }

// The file a path names: its path with links resolved, and its inode when it exists.
struct FileId {
  std::string key;
  std::optional<std::pair<dev_t, ino_t>> inode;
  bool Same(const FileId& other) const {
    return key == other.key || (inode && other.inode && *inode == *other.inode);
  }
};

FileId Identify(const std::string& path) {
  FileId id;
  std::error_code ec;
  id.key = fs::weakly_canonical(path, ec).string();
  if (ec) id.key = fs::absolute(path, ec).lexically_normal().string();
  struct stat st;
  if (stat(path.c_str(), &st) == 0) id.inode = std::make_pair(st.st_dev, st.st_ino);
  return id;
}

// The path an output is finally written to: a symbolic link's target, so that the link stays.
std::string Target(const std::string& path) {
  std::error_code ec;
  if (!fs::is_symlink(path, ec)) return path;
  const fs::path target = fs::canonical(path, ec);
  return ec ? path : target.string();
}

// The mode a new file gets from open(2): 0666 less the umask (read once, umask has no getter).
mode_t NewFileMode() {
  static const mode_t mode = [] {
    const mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
  }();
  return mode;
}

}  // namespace

bool SamePath(const std::string& a, const std::string& b) { return Identify(a).Same(Identify(b)); }

void CheckOutputPaths(const std::vector<PathArg>& outputs, const std::vector<PathArg>& inputs) {
  std::vector<FileId> ids;
  for (const PathArg& out : outputs) {
    if (out.path.empty()) throw UsageError(out.option + " needs a file name");
    const std::map<std::string, std::string> kinds = {{"--trace", "trace"},
                                                      {"--timeline", "timeline"},
                                                      {"--log", "log"},
                                                      {"--plot", "plot"},
                                                      {"--save", "checkpoint"}};
    const auto kind = kinds.find(out.option);
    const std::string name = out.option + ": cannot write " +
                             (kind == kinds.end() ? "output" : kind->second) + " file " +
                             Quoted(out.path);
    const fs::path path(out.path);
    struct stat link_st, st;
    const bool exists = lstat(out.path.c_str(), &link_st) == 0;
    const bool resolves = stat(out.path.c_str(), &st) == 0;
    if (!path.has_filename() || (resolves && S_ISDIR(st.st_mode))) {
      throw UsageError(name + ": it is a directory");
    }
    if (exists && !resolves) throw UsageError(name + ": a symbolic link to nothing");
    if (resolves && !S_ISREG(st.st_mode)) {
      throw UsageError(name + ": not a regular file (outputs are files, written whole)");
    }
    const fs::path target(Target(out.path));
    const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    std::error_code ec;
    if (!fs::is_directory(parent, ec)) {
      throw UsageError(name + ": no such directory " + Quoted(parent.string()));
    }
    // The temporary file is created in that directory and renamed over the old file.
    if (access(parent.c_str(), W_OK | X_OK) != 0) {
      throw UsageError(name + ": the directory " + Quoted(parent.string()) + " is not writable");
    }
    if (resolves && access(out.path.c_str(), W_OK) != 0) {
      throw UsageError(name + ": the file is not writable");
    }
    ids.push_back(Identify(out.path));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (ids[i].Same(ids[j])) {
        throw UsageError(outputs[j].option + " and " + outputs[i].option + " name one file " +
                         Quoted(outputs[i].path) + ": give each output its own");
      }
    }
    for (const PathArg& in : inputs) {
      if (ids[i].Same(Identify(in.path))) {
        throw UsageError(outputs[i].option + " " + Quoted(outputs[i].path) +
                         " would overwrite the input " + in.option + " " + Quoted(in.path));
      }
    }
  }
}

PendingOutputs::~PendingOutputs() {
  for (const Entry& e : entries_) {
    if (!e.temp.empty()) std::remove(e.temp.c_str());
  }
}

std::string PendingOutputs::Temp(const std::string& path) {
  for (const Entry& e : entries_) {
    if (e.path == path) return e.temp;
  }
  Entry entry{path, Target(path), ""};
  const fs::path target(entry.target);
  // Hidden, beside the output: rename(2) stays on one file system and is atomic there.
  std::string pattern =
      (target.parent_path() / ("." + target.filename().string() + ".mxu-XXXXXX")).string();
  const int fd = mkstemp(pattern.data());
  if (fd < 0) {
    throw std::runtime_error("cannot write " + Quoted(path) + ": " + std::strerror(errno));
  }
  // mkstemp makes 0600; the output gets the old file's mode, or a new file's.
  struct stat st;
  const mode_t mode = stat(entry.target.c_str(), &st) == 0 ? (st.st_mode & 07777) : NewFileMode();
  fchmod(fd, mode);
  close(fd);
  entry.temp = pattern;
  entries_.push_back(entry);
  return entry.temp;
}

void PendingOutputs::Commit() {
  for (Entry& e : entries_) {
    if (e.temp.empty()) continue;
    if (std::rename(e.temp.c_str(), e.target.c_str()) != 0) {
      throw std::runtime_error("cannot write " + Quoted(e.path) + ": " + std::strerror(errno));
    }
    e.temp.clear();
  }
}

void FlushStdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int error = errno;
    std::clearerr(stdout);
    throw std::runtime_error(std::string("cannot write to standard output: ") +
                             (error ? std::strerror(error) : "write error"));
  }
}

}  // namespace mxu::host
