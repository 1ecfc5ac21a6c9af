#include "host/cli/child_process.h"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "driver/device.h"
#include "host/cli/cli.h"

namespace mxu::host {
namespace {

using Json = nlohmann::ordered_json;

// While children run: the signal that came, and the children to pass a SIGTERM on to (a
// terminal's Ctrl-C reaches the whole process group, the children included; a SIGTERM may come
// to us alone).
constexpr int kMaxChildren = 64;
volatile sig_atomic_t g_signal = 0;
volatile pid_t g_children[kMaxChildren] = {};

void OnSignal(int signal) {
  g_signal = signal;
  for (int i = 0; i < kMaxChildren; ++i) {
    if (g_children[i] > 0) kill(g_children[i], signal);
  }
}

// SIGINT and SIGTERM caught for its lifetime, the previous dispositions restored after.
class ScopedSignals {
 public:
  ScopedSignals() {
    g_signal = 0;
    struct sigaction action {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
  }
  ~ScopedSignals() {
    for (int i = 0; i < kMaxChildren; ++i) g_children[i] = 0;
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
  }
  ScopedSignals(const ScopedSignals&) = delete;
  ScopedSignals& operator=(const ScopedSignals&) = delete;

 private:
  struct sigaction previous_int_ {
  }, previous_term_{};
};

// The child's result, or its failure as {"error": message, "exit": code}.
Json RunCatching(const std::function<Json()>& work) {
  try {
    return work();
  } catch (const UsageError& error) {
    return {{"error", error.what()}, {"exit", 2}};
  } catch (const std::invalid_argument& error) {
    return {{"error", error.what()}, {"exit", 2}};
  } catch (const driver::DeviceError& error) {
    return {{"error", error.what()}, {"exit", 1}};
  } catch (const std::exception& error) {
    return {{"error", std::string("error: ") + error.what()}, {"exit", 1}};
  }
}

// What was written to `captured` since it was made the child's stdout.
std::string ReadCaptured(FILE* captured) {
  std::fflush(stdout);
  std::string printed;
  std::rewind(captured);
  char chunk[4096];
  for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, captured)) > 0;) printed.append(chunk, n);
  return printed;
}

// In the child: runs work, writes its JSON to fd and exits.
[[noreturn]] void ChildMain(const std::function<Json()>& work, int fd, bool capture_stdout) {
  // The child stops at a signal (the platform catches SIGINT itself while it writes a trace).
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  // Captured, what the child prints comes back in the JSON ("stdout") for the parent to print
  // in its place (the ranks of a sweep under mpirun print through rank 0, in point order).
  FILE* captured = capture_stdout ? std::tmpfile() : nullptr;
  if (captured) dup2(fileno(captured), STDOUT_FILENO);
  Json out = RunCatching(work);
  if (captured) out["stdout"] = ReadCaptured(captured);
  const std::string text = out.dump();
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(0);
}

// A child at work: its process, the pipe its JSON comes back on (-1 once closed), what it has
// written so far, its slot in g_children and its index among the works.
struct Child {
  pid_t pid = 0;
  int fd = -1;
  std::string text;
  int slot = 0;
  size_t index = 0;
};

// In a child just forked: it dies with its parent (a SIGKILL to the parent cannot be passed on,
// and an orphan would go on starting runs and printing). The parent may have died before the
// request took effect: then the child is already someone else's.
void DieWithParent(pid_t parent) {
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(1);
}

Child StartChild(const std::function<Json()>& work, bool capture_stdout, int slot) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
  }
  if (pid == 0) {
    DieWithParent(parent);
    close(fds[0]);
    ChildMain(work, fds[1], capture_stdout);
  }
  g_children[slot] = pid;
  if (g_signal) kill(pid, g_signal);  // came between the fork and g_children
  close(fds[1]);
  Child child;
  child.pid = pid, child.fd = fds[0], child.slot = slot;
  return child;
}

// Reads what the child has written; false at the end of its pipe (then closed).
bool ReadSome(Child* child) {
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(child->fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      child->text.append(buffer, static_cast<size_t>(n));
      return true;
    }
    close(child->fd);
    child->fd = -1;
    return false;
  }
}

int Reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// The child's result once its pipe has closed, or its failure thrown.
Json FinishChild(Child* child, const std::string& what) {
  const int status = Reap(child->pid);
  g_children[child->slot] = 0;
  const bool signalled =
      WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM);
  if (g_signal || signalled) {
    throw Interrupted(
        std::string("interrupted (") +
        (g_signal == SIGTERM || (signalled && WTERMSIG(status) == SIGTERM) ? "SIGTERM" : "SIGINT") +
        ") during the run of " + what);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || child->text.empty()) {
    throw driver::DeviceError(
        "the run of " + what + " ended abnormally" +
        (WIFSIGNALED(status) ? " (signal " + std::to_string(WTERMSIG(status)) + ")" : ""));
  }
  Json out = Json::parse(child->text);
  if (out.contains("error")) {
    const std::string message = out["error"].get<std::string>();
    if (out["exit"].get<int>() == 2) throw UsageError(message);
    throw driver::DeviceError(message);
  }
  return out;
}

// After a failure: the children still running are stopped and reaped.
void StopAll(std::vector<Child>* running) {
  for (Child& child : *running) {
    kill(child.pid, SIGTERM);
    if (child.fd >= 0) close(child.fd);
    Reap(child.pid);
    g_children[child.slot] = 0;
  }
  running->clear();
}

}  // namespace

void RunInChildren(size_t count, const std::function<Json(size_t)>& work, size_t jobs,
                   const std::function<std::string(size_t)>& what,
                   const std::function<void(size_t, Json)>& on_done, bool capture_stdout,
                   const std::function<void(size_t)>& on_start) {
  jobs = std::max<size_t>(1, std::min<size_t>(jobs, kMaxChildren));
  ScopedSignals signals;
  std::vector<Child> running;
  size_t next = 0;
  try {
    while (next < count || !running.empty()) {
      while (running.size() < jobs && next < count && !g_signal) {
        int slot = 0;
        while (g_children[slot] != 0) ++slot;
        const size_t index = next++;
        running.push_back(StartChild([&] { return work(index); }, capture_stdout, slot));
        running.back().index = index;
        if (on_start) on_start(index);
      }
      std::vector<pollfd> fds;
      for (const Child& child : running) fds.push_back({child.fd, POLLIN, 0});
      if (poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error("poll: " + std::string(std::strerror(errno)));
      }
      for (size_t k = 0; k < running.size();) {
        if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)) || ReadSome(&running[k])) {
          ++k;
          continue;
        }
        Child done = std::move(running[k]);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
        fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(k));
        Json out = FinishChild(&done, what(done.index));
        on_done(done.index, std::move(out));
      }
    }
  } catch (...) {
    StopAll(&running);
    throw;
  }
}

Json RunInChild(const std::function<Json()>& work, const std::string& what, bool capture_stdout) {
  Json result;
  RunInChildren(
      1, [&](size_t) { return work(); }, 1, [&](size_t) { return what; },
      [&](size_t, Json out) { result = std::move(out); }, capture_stdout);
  return result;
}

}  // namespace mxu::host
