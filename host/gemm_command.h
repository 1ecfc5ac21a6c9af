// `mxu gemm`: one GEMM on the device, from random or .npy inputs, optionally checked bit for bit
// against the golden model, with statistics as a table or JSON.
#ifndef MXU_HOST_GEMM_COMMAND_H_
#define MXU_HOST_GEMM_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace mxu::host {

// Adds the `gemm` subcommand to app; the function returned runs it once app has parsed the
// command line, and returns the exit code.
std::function<int()> AddGemmCommand(CLI::App& app);

}  // namespace mxu::host

#endif  // MXU_HOST_GEMM_COMMAND_H_
