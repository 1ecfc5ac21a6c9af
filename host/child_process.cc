#include "host/child_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "driver/device.h"
#include "host/cli.h"

namespace mxu::host {
namespace {

using Json = nlohmann::ordered_json;

// While a child runs: the signal that came, and the child to pass a SIGTERM on to (a terminal's
// Ctrl-C reaches the whole process group, the child included; a SIGTERM may come to us alone).
volatile sig_atomic_t g_signal = 0;
volatile pid_t g_child = 0;

void OnSignal(int signal) {
  g_signal = signal;
  if (g_child > 0) kill(g_child, signal);
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
    g_child = 0;
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

// Everything the child writes to fd, until it closes it.
std::string ReadAll(int fd) {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

}  // namespace

Json RunInChild(const std::function<Json()>& work, const std::string& what, bool capture_stdout) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
  ScopedSignals signals;
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
  if (pid == 0) {
    close(fds[0]);
    ChildMain(work, fds[1], capture_stdout);
  }
  g_child = pid;
  if (g_signal) kill(pid, g_signal);  // came between the fork and g_child
  close(fds[1]);
  const std::string text = ReadAll(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const bool signalled =
      WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM);
  if (g_signal || signalled) {
    throw Interrupted(
        std::string("interrupted (") +
        (g_signal == SIGTERM || (signalled && WTERMSIG(status) == SIGTERM) ? "SIGTERM" : "SIGINT") +
        ") during the run of " + what);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
    throw driver::DeviceError(
        "the run of " + what + " ended abnormally" +
        (WIFSIGNALED(status) ? " (signal " + std::to_string(WTERMSIG(status)) + ")" : ""));
  }
  Json out = Json::parse(text);
  if (out.contains("error")) {
    const std::string message = out["error"].get<std::string>();
    if (out["exit"].get<int>() == 2) throw UsageError(message);
    throw driver::DeviceError(message);
  }
  return out;
}

}  // namespace mxu::host
