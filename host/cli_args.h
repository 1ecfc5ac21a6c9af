// A small command-line parser for the `mxu` subcommands: `--name value`, `--name=value` and
// boolean `--flag`. Unknown flags, missing values and malformed numbers raise UsageError with a
// one-line message naming the problem.
#ifndef MXU_HOST_CLI_ARGS_H_
#define MXU_HOST_CLI_ARGS_H_

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace mxu::host {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CliArgs {
 public:
  // value_flags take a value, bool_flags do not; anything else is an error.
  CliArgs(const std::vector<std::string>& args, const std::set<std::string>& value_flags,
          const std::set<std::string>& bool_flags);

  bool Has(const std::string& flag) const;
  std::string String(const std::string& flag, const std::string& fallback) const;
  // An unsigned integer in [min, max]; decimal or 0x-prefixed hexadecimal.
  uint64_t Unsigned(const std::string& flag, uint64_t fallback, uint64_t min = 0,
                    uint64_t max = UINT64_MAX) const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
};

}  // namespace mxu::host

#endif  // MXU_HOST_CLI_ARGS_H_
