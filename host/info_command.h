// `mxu info`: the device configuration read from its CSRs.
#ifndef MXU_HOST_INFO_COMMAND_H_
#define MXU_HOST_INFO_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace mxu::host {

// Adds the subcommand to app; the function returned runs it once app has parsed the command
// line, and returns the exit code.
std::function<int()> AddInfoCommand(CLI::App& app);

}  // namespace mxu::host

#endif  // MXU_HOST_INFO_COMMAND_H_
