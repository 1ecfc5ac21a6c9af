// Ctrl-C and SIGTERM stop every command one way (host/cli/stop_signals.h): exit status 130, one
// line on stderr, and no hidden temporary of an output left behind (issue 69: `train --log`,
// `gemm --timeline` and a trace whose window had closed died by the signal, leaving
// `.l.csv.mxu-XXXXXX` and empty `.t.gtkw.mxu-XXXXXX`, one more per run). Each case starts mxu as
// a child, waits until it is at work (its handlers installed, or the file it watches there),
// signals it, and looks at what is left. A trace interrupted while its file is open is the
// platform's (tests/waves/waves_test.cc).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/host/mxu_cli.h"

namespace mxu::host {
namespace {

namespace fs = std::filesystem;

std::string ScratchDir(const std::string& name) {
  const std::string dir = TempPath(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The files in dir, hidden ones included, less the run's own stderr.
std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name != "err.txt") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string Joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += " " + name;
  return text;
}

// Whether the process catches `signal` (/proc/PID/status, SigCgt: a mask in hex, bit signal - 1).
bool Catches(pid_t pid, int signal) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("SigCgt:", 0) == 0) {
      return (std::stoull(line.substr(7), nullptr, 16) >> (signal - 1)) & 1;
    }
  }
  return false;
}

// The CPU time the process has used (/proc/PID/stat, utime + stime): a run that has used a second
// is at work, past its set-up.
double CpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t end_of_name = text.rfind(')');
  if (end_of_name == std::string::npos) return 0;
  std::istringstream fields(text.substr(end_of_name + 2));
  std::string field;
  for (int i = 3; i < 14; ++i) fields >> field;  // state .. cmajflt: fields 3 to 13
  unsigned long long user = 0, system = 0;
  fields >> user >> system;
  return double(user + system) / sysconf(_SC_CLK_TCK);
}

bool AtWork(pid_t pid) { return Catches(pid, SIGINT) && CpuSeconds(pid) >= 1.0; }

// Waits (a minute at most, then goes on: the checks after fail) until ready() holds.
void WaitFor(const std::function<bool()>& ready) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!ready() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

struct Stopped {
  bool exited;  // false: killed by the signal
  int code;
  std::string err;
};

// Runs `mxu args` (split at spaces; no shell, so the child is mxu itself) with stdout to
// /dev/null and stderr to dir/err.txt, waits for ready(pid), sends `signal` and waits for the end.
Stopped RunAndStop(const std::string& dir, const std::string& args, int signal,
                   const std::function<bool(pid_t)>& ready) {
  const std::string err = dir + "/err.txt";
  std::vector<std::string> words = {MXU_BINARY};
  std::istringstream split(args);
  for (std::string word; split >> word;) words.push_back(word);
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    std::freopen(err.c_str(), "w", stderr);
    std::freopen("/dev/null", "w", stdout);
    execv(MXU_BINARY, argv.data());
    _exit(127);
  }
  WaitFor([&] { return ready(child); });
  kill(child, signal);
  int status = 0;
  waitpid(child, &status, 0);
  return {WIFEXITED(status), WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
          ReadFile(err)};
}

// Exit 130, one line naming the command and the signal, and nothing left in dir but `kept`.
void ExpectStopped(const Stopped& r, const std::string& command, int signal, const std::string& dir,
                   const std::vector<std::string>& kept = {}) {
  ASSERT_TRUE(r.exited) << "killed by signal " << r.code << ", left:" << Joined(FilesIn(dir));
  EXPECT_EQ(r.code, 130) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  const std::string said = "mxu " + command + ": interrupted (" +
                           (signal == SIGINT ? "SIGINT" : "SIGTERM") + "); no output written";
  EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
  EXPECT_EQ(FilesIn(dir), kept) << Joined(FilesIn(dir));
}

class MxuStop : public ::testing::TestWithParam<int> {};

std::string Tag(int signal) { return signal == SIGINT ? "int" : "term"; }

// A training run on the model with its log (and plot), stopped mid-run.
TEST_P(MxuStop, TrainWithALogLeavesNothing) {
  const int signal = GetParam();
  const std::string dir = ScratchDir("train_log_" + Tag(signal));
  const Stopped r = RunAndStop(
      dir, "train --backend model --epochs 100000 --log " + dir + "/l.csv --plot " + dir + "/p.png",
      signal, AtWork);
  ExpectStopped(r, "train", signal, dir);
}

// A GEMM on the RTL recording its timeline, stopped mid-run.
TEST_P(MxuStop, GemmWithATimelineLeavesNothing) {
  const int signal = GetParam();
  const std::string dir = ScratchDir("gemm_timeline_" + Tag(signal));
  const Stopped r = RunAndStop(
      dir, "gemm --m 512 --k 512 --n 512 --timeline " + dir + "/tl.json --out " + dir + "/c.npy",
      signal, AtWork);
  ExpectStopped(r, "gemm", signal, dir);
}

// A trace whose window has not opened: its empty temporary (there from the start of the run) goes.
TEST_P(MxuStop, GemmBeforeItsTraceWindowLeavesNothing) {
  const int signal = GetParam();
  const std::string dir = ScratchDir("gemm_trace_" + Tag(signal));
  const Stopped r = RunAndStop(
      dir, "gemm --m 512 --k 512 --n 512 --trace-start 1000000000 --trace " + dir + "/t.fst",
      signal, [&](pid_t) { return !FilesIn(dir).empty(); });
  ExpectStopped(r, "gemm", signal, dir);
}

// Training on the RTL after its trace window closed: no trace, save file, log or temporary of
// them left.
TEST_P(MxuStop, TrainAfterItsTraceWindowLeavesNothing) {
  const int signal = GetParam();
  const std::string dir = ScratchDir("train_trace_" + Tag(signal));
  // The FST writer makes its .hier before it writes a byte to the trace and removes it while it
  // closes the file; the platform gives SIGINT back just after. So: a trace with bytes and no
  // .hier beside it, the same half a second later, is closed.
  const auto trace_alone = [&] {
    const std::vector<std::string> names = FilesIn(dir);
    if (names.size() != 1 || names[0].rfind(".t.fst.mxu-", 0) != 0) return uintmax_t{0};
    std::error_code ec;
    const uintmax_t size = fs::file_size(dir + "/" + names[0], ec);
    return !ec && FilesIn(dir) == names ? size : uintmax_t{0};
  };
  const auto window_closed = [&](pid_t) {
    const uintmax_t size = trace_alone();
    if (size == 0) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    return trace_alone() == size;
  };
  const Stopped r = RunAndStop(
      dir,
      "train --epochs 100000 --trace " + dir + "/t.fst --trace-cycles 100 --log " + dir + "/l.csv",
      signal, window_closed);
  ExpectStopped(r, "train", signal, dir);
}

INSTANTIATE_TEST_SUITE_P(Signals, MxuStop, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return info.param == SIGINT ? "Sigint" : "Sigterm";
                         });

// --save defers the first signal to the end of the step; a second one stops the run at once,
// as every other run stops: no temporary left, and no checkpoint before an epoch has ended.
TEST(MxuStopSave, ASecondSignalStopsAtOnce) {
  const std::string dir = ScratchDir("save_twice");
  // One step of this wide MLP takes the model tens of seconds; the signals come in the first.
  const std::string args =
      "train --backend model --hidden 4096,4096 --batch 512 --epochs 2 --save " + dir +
      "/ck.npz --log " + dir + "/l.csv";
  bool first_sent = false;
  const Stopped r = RunAndStop(dir, args, SIGTERM, [&](pid_t pid) {
    // Three seconds of work: past the set-up, in the first step (at worst the first signal comes
    // before --save's handler and stops the run by itself).
    if (!Catches(pid, SIGINT) || CpuSeconds(pid) < 3.0) return false;
    first_sent = kill(pid, SIGINT) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return true;
  });
  ASSERT_TRUE(first_sent);
  ASSERT_TRUE(r.exited) << "killed by signal " << r.code << ", left:" << Joined(FilesIn(dir));
  EXPECT_EQ(r.code, 130) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("mxu train: interrupted (SIG"), std::string::npos) << r.err;
  EXPECT_EQ(FilesIn(dir), std::vector<std::string>()) << Joined(FilesIn(dir));
}

}  // namespace
}  // namespace mxu::host
