// `mxu bench` runs each memory setting (and the RTL sample) in a child process of its own: the
// RTL backend elaborates SystemC once per process, so every run that opens a device needs a new
// one, and the bench's own process never opens a device.
#ifndef MXU_HOST_CLI_CHILD_PROCESS_H_
#define MXU_HOST_CLI_CHILD_PROCESS_H_

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace mxu::host {

// Ctrl-C (SIGINT) or SIGTERM while a child ran: the child was stopped by it (a SIGTERM to this
// process alone is passed on to the child), and nothing of its run comes back.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs work in a child process and returns what it returned. A failure in the child comes back
// as its one-line message and exit code: UsageError (and std::invalid_argument) is thrown again
// as a UsageError, anything else as a driver::DeviceError; a child that dies names `what` ("the
// run of WHAT ended abnormally"). capture_stdout: what the child prints comes back as the JSON's
// "stdout" instead of reaching stdout. Interrupted when SIGINT or SIGTERM stopped the run.
nlohmann::ordered_json RunInChild(const std::function<nlohmann::ordered_json()>& work,
                                  const std::string& what, bool capture_stdout = false);

// Runs work(0) .. work(count - 1), each in a child process of its own, at most `jobs` at once,
// started in index order; on_done(i, result) is called here as each finishes (in the order they
// finish), and on_start(i), where given, as each starts. A failure, or a signal, stops the
// children still running and is thrown as RunInChild throws it; what(i) names run i in the
// message.
void RunInChildren(size_t count, const std::function<nlohmann::ordered_json(size_t)>& work,
                   size_t jobs, const std::function<std::string(size_t)>& what,
                   const std::function<void(size_t, nlohmann::ordered_json)>& on_done,
                   bool capture_stdout = false,
                   const std::function<void(size_t)>& on_start = nullptr);

}  // namespace mxu::host

#endif  // MXU_HOST_CLI_CHILD_PROCESS_H_
