// `mxu train` and `mxu predict`: training on the device and inference with what it saved. Each
// Add*Command adds its subcommand to app and returns the function that runs it once app has parsed
// the command line; that function returns the exit code (0 success, 1 the run failed, 2 bad usage
// or input).
#ifndef MXU_HOST_TRAIN_COMMANDS_H_
#define MXU_HOST_TRAIN_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace mxu::host {

// `mxu train` (train_command.cc): the mixed-precision training loop, its GEMMs on the device (or,
// with --backend host, in plain fp32 on the host as the reference).
std::function<int()> AddTrainCommand(CLI::App& app);

// `mxu predict` (predict_command.cc): inference with a model `mxu train --save` wrote, on the
// device (or the host): the test set's predictions, accuracy and confusion matrix, as the
// training run's final evaluation computed them.
std::function<int()> AddPredictCommand(CLI::App& app);

}  // namespace mxu::host

#endif  // MXU_HOST_TRAIN_COMMANDS_H_
