// `mxu info`: the device configuration read from its CSRs.
#ifndef MXU_HOST_INFO_COMMAND_H_
#define MXU_HOST_INFO_COMMAND_H_

#include <string>
#include <vector>

namespace mxu::host {

int RunInfo(const std::vector<std::string>& args);

}  // namespace mxu::host

#endif  // MXU_HOST_INFO_COMMAND_H_
