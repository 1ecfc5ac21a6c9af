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

#include "host/cli/stop_signals.h"
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

// The longest file name the directory takes (255 on the usual file systems).
size_t NameMax(const fs::path& dir) {
  const long max = pathconf(dir.c_str(), _PC_NAME_MAX);
  return max > 0 ? static_cast<size_t>(max) : 255;
}

// A new empty temporary for `target`, hidden beside it (rename(2) stays on one file system and
// is atomic there), tracked so that a stop by a signal removes it. Its name is the output's,
// shortened where needed so that it and a writer's own ".hier" beside it (the FST writer's) fit
// the directory. Returns its path; "" with errno set when it cannot be created.
std::string CreateTemporary(const fs::path& target) {
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string suffix = ".mxu-XXXXXX", writers_own = ".hier";
  std::string name = target.filename().string();
  const size_t room = NameMax(dir) - 1 - suffix.size() - writers_own.size();
  if (name.size() > room) {
    name.resize(room);
    while (!name.empty() && (name.back() & 0xC0) == 0x80) name.pop_back();  // a UTF-8 tail
    if (!name.empty() && (name.back() & 0x80)) name.pop_back();             // and its lead
  }
  std::string pattern = (target.parent_path() / ("." + name + suffix)).string();
  const SignalsHeld held;  // no signal between its creation and its tracking
  const int fd = mkstemp(pattern.data());
  if (fd < 0) return "";
  TrackTemporary(pattern);
  close(fd);
  return pattern;
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
      const std::string dir = Quoted(parent.string());
      throw UsageError(name + (fs::exists(parent, ec) ? ": " + dir + " is not a directory"
                                                      : ": no such directory " + dir));
    }
    // The temporary file is created in that directory and renamed over the old file.
    if (access(parent.c_str(), W_OK | X_OK) != 0) {
      throw UsageError(name + ": the directory " + Quoted(parent.string()) + " is not writable");
    }
    if (resolves && access(out.path.c_str(), W_OK) != 0) {
      throw UsageError(name + ": the file is not writable");
    }
    const size_t name_max = NameMax(parent);
    if (target.filename().string().size() > name_max) {
      throw UsageError(name + ": the file name is too long (" +
                       std::to_string(target.filename().string().size()) + " bytes; at most " +
                       std::to_string(name_max) + " here)");
    }
    // What the run will do at its end, tried now: create the temporary (and remove it).
    const std::string probe = CreateTemporary(target);
    if (probe.empty()) throw UsageError(name + ": " + std::strerror(errno));
    std::remove(probe.c_str());
    UntrackTemporary(probe);
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
    if (e.temp.empty()) continue;
    std::remove(e.temp.c_str());
    UntrackTemporary(e.temp);
  }
}

std::string PendingOutputs::Temp(const std::string& path) {
  for (const Entry& e : entries_) {
    if (e.path == path) return e.temp;
  }
  Entry entry{path, Target(path), ""};
  entry.temp = CreateTemporary(entry.target);
  if (entry.temp.empty()) {
    throw std::runtime_error("cannot write " + Quoted(path) + ": " + std::strerror(errno));
  }
  entries_.push_back(entry);
  // mkstemp makes 0600; the output gets the old file's mode, or a new file's.
  struct stat st;
  const mode_t mode = stat(entry.target.c_str(), &st) == 0 ? (st.st_mode & 07777) : NewFileMode();
  chmod(entry.temp.c_str(), mode);
  return entry.temp;
}

void PendingOutputs::Commit() {
  // All of them or, at a signal before this, none (a signal now is taken once they are in place).
  const SignalsHeld held;
  for (Entry& e : entries_) {
    if (e.temp.empty()) continue;
    if (std::rename(e.temp.c_str(), e.target.c_str()) != 0) {
      throw std::runtime_error("cannot write " + Quoted(e.path) + ": " + std::strerror(errno));
    }
    UntrackTemporary(e.temp);
    e.temp.clear();
    NoteOutputWritten();
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
