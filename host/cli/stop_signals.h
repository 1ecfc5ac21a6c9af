// Ctrl-C (SIGINT) and SIGTERM, one rule for every command (docs/cli.md, "Outputs"): the run
// stops with one line on stderr and exit status 130, and the hidden temporaries of the outputs it
// had not yet renamed into place (PendingOutputs tracks them here) are removed, so an interrupted
// run leaves every file as it was. Two kinds of run take a signal otherwise: one that stops at a
// safe point (train --save defers the first signal: DeferredStop), and one recording a trace (the
// platform catches SIGINT while the FST is open, closes it whole and keeps it: docs/waves.md).
#ifndef MXU_HOST_CLI_STOP_SIGNALS_H_
#define MXU_HOST_CLI_STOP_SIGNALS_H_

#include <signal.h>

#include <string>

namespace mxu::host {

// From now on SIGINT and SIGTERM stop the process: the tracked temporaries are removed, "mxu
// COMMAND: interrupted (SIGINT); no output written" goes to stderr (where say_so; "no output
// written" only while no output has been renamed into place) and the exit status is 130.
void StopOnSignals(const std::string& command, bool say_so);

// Stops the process as StopOnSignals says. Async-signal-safe: for handlers that pass a signal on.
[[noreturn]] void StopNow(int signal);

// While one exists, the first SIGINT or SIGTERM is only noted, for a run that stops at a safe
// point; a second one stops the process at once (StopNow). The previous handlers come back after.
class DeferredStop {
 public:
  DeferredStop();
  ~DeferredStop();
  DeferredStop(const DeferredStop&) = delete;
  DeferredStop& operator=(const DeferredStop&) = delete;

  // The signal noted, or 0.
  static int Noted();

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
  bool installed_ = false;
};

// SIGINT and SIGTERM held back in this thread for its life (delivered when it ends; a stop that
// another thread's handler takes meanwhile waits for it too): a temporary is created and tracked,
// or a run's outputs are all renamed into place, with no signal between.
class SignalsHeld {
 public:
  SignalsHeld();
  ~SignalsHeld();
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t previous_;
};

// The temporaries StopNow removes (at most 64 at once; more are removed only by their owner).
void TrackTemporary(const std::string& path);
void UntrackTemporary(const std::string& path);
// An output has been renamed into place: the line on a stop no longer says "no output written".
void NoteOutputWritten();

}  // namespace mxu::host

#endif  // MXU_HOST_CLI_STOP_SIGNALS_H_
