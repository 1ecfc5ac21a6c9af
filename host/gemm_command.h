// `mxu gemm`: one GEMM on the device, from random or .npy inputs, optionally checked bit for bit
// against the golden model, with statistics as a table or JSON.
#ifndef MXU_HOST_GEMM_COMMAND_H_
#define MXU_HOST_GEMM_COMMAND_H_

#include <string>
#include <vector>

namespace mxu::host {

int RunGemm(const std::vector<std::string>& args);

}  // namespace mxu::host

#endif  // MXU_HOST_GEMM_COMMAND_H_
