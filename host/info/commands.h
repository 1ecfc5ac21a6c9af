// `mxu info` and `mxu selfcheck`: what the device is and whether its arithmetic is right. Each
// Add*Command adds its subcommand to app and returns the function that runs it once app has parsed
// the command line; that function returns the exit code (0 success, 1 the run failed, 2 bad usage
// or input).
#ifndef MXU_HOST_INFO_COMMANDS_H_
#define MXU_HOST_INFO_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace mxu::host {

// `mxu info` (info_command.cc): the device configuration read from its CSRs.
std::function<int()> AddInfoCommand(CLI::App& app);

// `mxu selfcheck` (selfcheck.cc): random and special operands through the verilated arithmetic
// units, every output bit compared with the host CPU's IEEE arithmetic, in both subnormal modes.
std::function<int()> AddSelfcheckCommand(CLI::App& app);

}  // namespace mxu::host

#endif  // MXU_HOST_INFO_COMMANDS_H_
