// `mxu selfcheck`: random and special operands through the verilated arithmetic units, every
// output bit compared with the host CPU's IEEE arithmetic, in both subnormal modes.
#ifndef MXU_HOST_SELFCHECK_H_
#define MXU_HOST_SELFCHECK_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace mxu::host {

// Adds the subcommand to app; the function returned runs it once app has parsed the command
// line, and returns the exit code.
std::function<int()> AddSelfcheckCommand(CLI::App& app);

}  // namespace mxu::host

#endif  // MXU_HOST_SELFCHECK_H_
