#include "host/cli_args.h"

#include <cerrno>
#include <cstdlib>

namespace mxu::host {

CliArgs::CliArgs(const std::vector<std::string>& args, const std::set<std::string>& value_flags,
                 const std::set<std::string>& bool_flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + arg + "'");
    std::string name = arg.substr(2);
    std::string value;
    const size_t equals = name.find('=');
    const bool inline_value = equals != std::string::npos;
    if (inline_value) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
    }
    if (bool_flags.count(name)) {
      if (inline_value) throw UsageError("--" + name + " takes no value");
      flags_.insert(name);
    } else if (value_flags.count(name)) {
      if (!inline_value) {
        if (i + 1 >= args.size()) throw UsageError("--" + name + " needs a value");
        value = args[++i];
      }
      values_[name] = value;
    } else {
      throw UsageError("unknown option '--" + name + "'");
    }
  }
}

bool CliArgs::Has(const std::string& flag) const {
  return flags_.count(flag) > 0 || values_.count(flag) > 0;
}

std::string CliArgs::String(const std::string& flag, const std::string& fallback) const {
  const auto it = values_.find(flag);
  return it == values_.end() ? fallback : it->second;
}

uint64_t CliArgs::Unsigned(const std::string& flag, uint64_t fallback, uint64_t min,
                           uint64_t max) const {
  const auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  const std::string& text = it->second;
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 0);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno == ERANGE) {
    throw UsageError("--" + flag + " expects an unsigned integer, got '" + text + "'");
  }
  if (value < min || value > max) {
    throw UsageError("--" + flag + " must be in [" + std::to_string(min) + ", " +
                     std::to_string(max) + "], got " + text);
  }
  return value;
}

}  // namespace mxu::host
