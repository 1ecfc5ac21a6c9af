#include "host/cli/stop_signals.h"

#include <limits.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace mxu::host {
namespace {

// What a handler reads: fixed buffers, written before it can run or with the signals held.
struct Slot {
  volatile std::sig_atomic_t used = 0;
  char path[PATH_MAX] = {};
};
Slot g_slots[64];
char g_command[64] = "mxu";
volatile std::sig_atomic_t g_say_so = 1;
volatile std::sig_atomic_t g_newline = 0;  // stderr is a terminal: a progress bar may be on it
volatile std::sig_atomic_t g_output_written = 0;
volatile std::sig_atomic_t g_noted = 0;  // DeferredStop's

// The stop line, built without the allocating and locking functions a handler may not call.
class Line {
 public:
  Line& operator<<(const char* text) {
    for (; *text && size_ + 1 < sizeof text_; ++text) text_[size_++] = *text;
    return *this;
  }
  void Write() const {
    for (size_t done = 0; done < size_;) {
      const ssize_t n = write(STDERR_FILENO, text_ + done, size_ - done);
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
  }

 private:
  char text_[256];
  size_t size_ = 0;
};

// A signal sent to the process goes to any thread that does not hold it, so a handler may run
// while another thread holds the signals (SignalsHeld) with a temporary created and not yet
// tracked: it then leaves the stop to that thread, which stops the process as it lets go.
std::atomic<int> g_holders{0};    // threads inside a SignalsHeld
std::atomic<int> g_held_stop{0};  // the signal such a handler left to them
std::atomic<int> g_stopping{0};   // one thread stops the process; another that tries waits

void StopUnlessHeld(int signal) {
  g_held_stop.store(signal);  // before reading the holders: one of the two sides sees the other
  if (g_holders.load() > 0) return;
  StopNow(signal);
}

void OnStopSignal(int signal) { StopUnlessHeld(signal); }

void OnDeferredSignal(int signal) {
  if (g_noted) StopUnlessHeld(signal);
  g_noted = signal;
}

// The handler runs with both signals held, so that a second one cannot cut it short.
struct sigaction Action(void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  return action;
}

}  // namespace

void StopOnSignals(const std::string& command, bool say_so) {
  std::strncpy(g_command, ("mxu " + command).c_str(), sizeof g_command - 1);
  g_say_so = say_so;
  g_newline = isatty(STDERR_FILENO);
  const struct sigaction action = Action(OnStopSignal);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void StopNow(int signal) {
  if (g_stopping.exchange(1)) {
    for (;;) pause();  // another thread is stopping the process
  }
  for (Slot& slot : g_slots) {
    if (slot.used) unlink(slot.path);
  }
  if (g_say_so) {
    Line line;
    const char* name = signal == SIGTERM ? "SIGTERM" : signal == SIGINT ? "SIGINT" : "a signal";
    line << (g_newline ? "\n" : "") << g_command << ": interrupted (" << name << ")"
         << (g_output_written ? "" : "; no output written") << "\n";
    line.Write();
  }
  _exit(130);
}

DeferredStop::DeferredStop() {
  g_noted = 0;
  const struct sigaction action = Action(OnDeferredSignal);
  installed_ = sigaction(SIGINT, &action, &previous_int_) == 0 &&
               sigaction(SIGTERM, &action, &previous_term_) == 0;
}

DeferredStop::~DeferredStop() {
  if (!installed_) return;
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

int DeferredStop::Noted() { return g_noted; }

SignalsHeld::SignalsHeld() {
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGINT);
  sigaddset(&both, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &both, &previous_);
  g_holders.fetch_add(1);
}

SignalsHeld::~SignalsHeld() {
  // The temporary is tracked by now: a stop another thread's handler left here happens now.
  if (g_holders.fetch_sub(1) == 1 && g_held_stop.load() != 0) StopNow(g_held_stop.load());
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

void TrackTemporary(const std::string& path) {
  if (path.size() >= PATH_MAX) return;
  for (Slot& slot : g_slots) {
    if (slot.used) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    // The path is whole before a handler can see the slot taken.
    std::atomic_signal_fence(std::memory_order_seq_cst);
    slot.used = 1;
    return;
  }
}

void UntrackTemporary(const std::string& path) {
  for (Slot& slot : g_slots) {
    if (slot.used && path == slot.path) {
      slot.used = 0;
      return;
    }
  }
}

void NoteOutputWritten() { g_output_written = 1; }

}  // namespace mxu::host
