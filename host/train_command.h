// `mxu train`: the mixed-precision MLP training loop, its GEMMs on the device (or, with
// --backend host, in plain fp32 on the host as the reference).
#ifndef MXU_HOST_TRAIN_COMMAND_H_
#define MXU_HOST_TRAIN_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace mxu::host {

// Adds the subcommand to app; the function returned runs it once app has parsed the command
// line, and returns the exit code.
std::function<int()> AddTrainCommand(CLI::App& app);

}  // namespace mxu::host

#endif  // MXU_HOST_TRAIN_COMMAND_H_
