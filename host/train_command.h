// `mxu train`: the mixed-precision MLP training loop, its GEMMs on the device (or, with
// --backend host, in plain fp32 on the host as the reference).
#ifndef MXU_HOST_TRAIN_COMMAND_H_
#define MXU_HOST_TRAIN_COMMAND_H_

#include <string>
#include <vector>

namespace mxu::host {

int RunTrain(const std::vector<std::string>& args);

}  // namespace mxu::host

#endif  // MXU_HOST_TRAIN_COMMAND_H_
