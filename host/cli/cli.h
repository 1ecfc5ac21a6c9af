// The `mxu` command line on CLI11: the option types every subcommand shares (decimal integers and
// numbers with a stated range, shown in --help with their defaults), the trace options, the
// one-line error messages (the output files' rule: host/cli/output_file.h).
//
// Conventions (stated in `mxu help`): integers are decimal only, a leading zero does not make
// them octal ("010" is ten) and "0x" prefixes are refused; an option given twice is refused;
// exit code 2 for bad usage or input, 1 for a run that failed, 0 for success.
#ifndef MXU_HOST_CLI_CLI_H_
#define MXU_HOST_CLI_CLI_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "host/cli/usage_error.h"
#include "train/setting_rules.h"

namespace mxu::host {

// The text after every subcommand's help and in `mxu help`.
extern const char kExitCodesHelp[];

// Shows "--name TYPE (default X)" and the options an option needs or excludes.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* option) const override;
};

// The root app with the formatter and conventions above.
void ConfigureApp(CLI::App& app);

// Checks (and normalizes: "010" -> "10") a decimal unsigned integer in [min, max].
CLI::Validator DecimalRange(uint64_t min, uint64_t max);
// "N in [min, max]", for the help.
std::string RangeText(uint64_t min, uint64_t max);

// A decimal unsigned integer in [min, max]; the default is the variable's value.
template <typename T>
CLI::Option* AddInteger(CLI::App* app, const std::string& name, T* value, uint64_t min,
                        uint64_t max, const std::string& help) {
  return app->add_option(name, *value, help)
      ->type_name(RangeText(min, max))
      ->transform(DecimalRange(min, max));
}
// The same under a training setting's rule (train/setting_rules.h), which checkpoints keep too.
template <typename T>
CLI::Option* AddInteger(CLI::App* app, const train::IntegerRule& rule, T* value,
                        const std::string& help) {
  return AddInteger(app, rule.option, value, rule.min, rule.max, help);
}
// A finite decimal number in [min, max] (max excluded when max_open), as typed and as the float32
// it is held in ("0.99999999" rounds to 1).
CLI::Option* AddFloat(CLI::App* app, const std::string& name, float* value, double min, double max,
                      bool max_open, const std::string& help);
// The same, held in a double (a figure that goes into reports as typed: a clock in MHz).
CLI::Option* AddFloat(CLI::App* app, const std::string& name, double* value, double min, double max,
                      bool max_open, const std::string& help);
CLI::Option* AddFloat(CLI::App* app, const train::NumberRule& rule, float* value,
                      const std::string& help);
// Checks a finite decimal number (no hex floats, inf, nan or spaces; nothing that overflows a
// double): "" when text is one, and *value holds it; else the problem, "expects a decimal number,
// got '0x10'".
std::string ParseDecimalNumber(const std::string& text, double* value);
// ParseDecimalNumber as an option's check (the range is the option's own business).
CLI::Validator DecimalNumber();
// Refuses an empty value ("--data ''" once meant no --data at all): "needs <what>, got ''".
CLI::Validator NotEmpty(const std::string& what);

// Whether an option was given on the command line.
bool Given(const CLI::App& app, const std::string& name);

// Refuses an option given twice in args (the subcommand's arguments): "--m given twice"; the
// options named in repeatable may be given more than once.
void RejectRepeated(const std::vector<std::string>& args,
                    const std::set<std::string>& repeatable = {});

// The one-line message for a CLI11 parse error (unknown options, missing values, values out of
// range, options that exclude or need others).
std::string DescribeParseError(const CLI::ParseError& error);

// Refuses an option that takes a value followed by a flag-shaped word ("--out --check"): the word
// is an option forgotten or misspelt, never a file name. args: the subcommand's arguments.
void RejectFlagValues(const CLI::App& command, const std::vector<std::string>& args);

}  // namespace mxu::host

#endif  // MXU_HOST_CLI_CLI_H_
