// `mxu selfcheck`: random and special operands through the verilated arithmetic units, every
// output bit compared with the host CPU's IEEE arithmetic, in both subnormal modes.
#ifndef MXU_HOST_SELFCHECK_H_
#define MXU_HOST_SELFCHECK_H_

#include <string>
#include <vector>

namespace mxu::host {

// Returns the process exit code: 0 all match, 1 any mismatch. Throws UsageError on bad flags.
int RunSelfcheck(const std::vector<std::string>& args);

}  // namespace mxu::host

#endif  // MXU_HOST_SELFCHECK_H_
