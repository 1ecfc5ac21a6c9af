#include "host/data_inputs.h"

#include <stdexcept>

#include "host/cli.h"
#include "train/idx.h"

namespace mxu::host {

std::vector<PathArg> DataInputs(const std::string& option, const std::string& data) {
  std::vector<PathArg> inputs;
  if (data.empty()) return inputs;
  std::string dir;
  try {
    dir = train::DataDirectory(data);
  } catch (const std::runtime_error& error) {
    throw UsageError(error.what());
  }
  for (const std::string& path : train::IdxDataFiles(dir)) inputs.push_back({option, path});
  return inputs;
}

}  // namespace mxu::host
