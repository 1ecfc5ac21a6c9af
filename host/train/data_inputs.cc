#include "host/train/data_inputs.h"

#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "host/cli/cli.h"
#include "train/data/idx.h"

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

std::string DataForCheckpoint(const std::string& data) {
  if (data.empty() || data == train::kFashionMnistName) return data;
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(data, ec);
  return ec ? data : absolute.lexically_normal().string();
}

bool SameData(const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (a.empty() || b.empty() || a == train::kFashionMnistName || b == train::kFashionMnistName) {
    return false;
  }
  return SamePath(a, b);
}

}  // namespace mxu::host
