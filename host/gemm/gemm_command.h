// `mxu gemm`: one GEMM on the device. Each Add*Command adds its subcommand to app and
// returns the function that runs it once app has parsed the command line; that function returns
// the exit code (0 success, 1 the run failed, 2 bad usage or input).
#ifndef MXU_HOST_GEMM_GEMM_COMMAND_H_
#define MXU_HOST_GEMM_GEMM_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace mxu::host {

// `mxu gemm` (gemm_command.cc): one GEMM on the device, from random or .npy inputs, optionally
// checked bit for bit against the golden model, with statistics as a table or JSON.
std::function<int()> AddGemmCommand(CLI::App& app);

}  // namespace mxu::host

#endif  // MXU_HOST_GEMM_GEMM_COMMAND_H_
