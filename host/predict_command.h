// `mxu predict`: inference with a model `mxu train --save` wrote, on the device (or the host):
// the test set's predictions, accuracy and confusion matrix, as the training run's final
// evaluation computed them.
#ifndef MXU_HOST_PREDICT_COMMAND_H_
#define MXU_HOST_PREDICT_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace mxu::host {

// Adds the subcommand to app; the function returned runs it once app has parsed the command
// line, and returns the exit code.
std::function<int()> AddPredictCommand(CLI::App& app);

}  // namespace mxu::host

#endif  // MXU_HOST_PREDICT_COMMAND_H_
