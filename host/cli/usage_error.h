// The tool's one error type for bad usage or input, below everything else in host/ so that every
// room (and the command line itself) can throw it.
#ifndef MXU_HOST_CLI_USAGE_ERROR_H_
#define MXU_HOST_CLI_USAGE_ERROR_H_

#include <stdexcept>

namespace mxu::host {

// Bad usage or input: a one-line message, exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace mxu::host

#endif  // MXU_HOST_CLI_USAGE_ERROR_H_
