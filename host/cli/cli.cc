#include "host/cli/cli.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

namespace mxu::host {
namespace {

std::string Quoted(const std::string& text) { return "'" + text + "'"; }

// Shortest decimal text of a number for the help: 0.9, 1e-08, 32768.
std::string NumberText(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// Decimal digits only, leading zeros dropped (never octal); the empty string when text is not
// a decimal integer or does not fit in 64 bits.
bool ParseDecimal(const std::string& text, uint64_t* value) {
  if (text.empty() || text.size() > 40) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *value = v;
  return true;
}

}  // namespace

CLI::Validator DecimalRange(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        uint64_t value = 0;
        if (!ParseDecimal(text, &value)) {
          return "expects an unsigned integer in decimal, got " + Quoted(text);
        }
        if (value < min || value > max) {
          return "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
                 text;
        }
        text = std::to_string(value);  // "010" -> "10": CLI11 itself would read it as octal
        return "";
      },
      "", "decimal");
}

std::string RangeText(uint64_t min, uint64_t max) {
  return "N in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

const char kExitCodesHelp[] =
    "\nIntegers are decimal: a leading zero does not make octal (010 is ten), 0x is refused.\n"
    "An option given twice, or with options it excludes, is refused.\n"
    "Exit codes: 0 success; 1 the run failed (device error, watchdog, mismatches in --check);\n"
    "2 bad usage or input (options, files), reported on one line before anything runs;\n"
    "130 stopped by Ctrl-C or SIGTERM: one line, no output written (train --save first writes\n"
    "the checkpoint of the step being run, then exits 128 + the signal: 130 or 143).\n";

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
  std::string out;
  if (option->get_type_size() != 0) {
    if (!option->get_type_name().empty()) out += " " + option->get_type_name();
    if (!option->get_default_str().empty()) out += " (default " + option->get_default_str() + ")";
  }
  for (const CLI::Option* other : option->get_needs()) out += " needs " + other->get_name();
  for (const CLI::Option* other : option->get_excludes()) out += " excludes " + other->get_name();
  return out;
}

void ConfigureApp(CLI::App& app) {
  auto formatter = std::make_shared<HelpFormatter>();
  formatter->column_width(34);
  app.formatter(formatter);
  app.option_defaults()->always_capture_default();
  app.footer(kExitCodesHelp);
}

std::string ParseDecimalNumber(const std::string& text, double* value) {
  // Decimal notation only (no hex floats, inf, nan or spaces); strtod checks the rest.
  const bool plain =
      !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos;
  char* end = nullptr;
  errno = 0;
  const double v = plain ? std::strtod(text.c_str(), &end) : 0;
  if (!plain || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
    return "expects a decimal number, got " + Quoted(text);
  }
  *value = v;
  return "";
}

CLI::Validator DecimalNumber() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0;
        return ParseDecimalNumber(text, &value);
      },
      "", "number");
}

CLI::Validator NotEmpty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) { return text.empty() ? "needs " + what + ", got ''" : ""; }, "",
      "not empty");
}

namespace {

// A decimal number in [min, max] (max excluded when max_open); held in a float32 when float32,
// whose rounding must keep the range too.
template <typename T>
CLI::Option* AddDecimal(CLI::App* app, const std::string& name, T* value, double min, double max,
                        bool max_open, const std::string& help) {
  const std::string range =
      "X in [" + NumberText(min) + ", " + NumberText(max) + (max_open ? ")" : "]");
  CLI::Validator check(
      [min, max, max_open, range](std::string& text) -> std::string {
        double v = 0;
        const std::string problem = ParseDecimalNumber(text, &v);
        if (!problem.empty()) return problem;
        const auto outside = [&](double x) { return x < min || x > max || (max_open && x == max); };
        if (outside(v)) return "must be " + range.substr(2) + ", got " + text;
        const double held = static_cast<T>(v);
        if (outside(held)) {
          return "must be " + range.substr(2) + ", got " + text + " (" + NumberText(held) +
                 " as a float32)";
        }
        return "";
      },
      "", "number");
  return app->add_option(name, *value, help)->type_name(range)->check(check);
}

}  // namespace

CLI::Option* AddFloat(CLI::App* app, const std::string& name, float* value, double min, double max,
                      bool max_open, const std::string& help) {
  return AddDecimal(app, name, value, min, max, max_open, help);
}

CLI::Option* AddFloat(CLI::App* app, const std::string& name, double* value, double min, double max,
                      bool max_open, const std::string& help) {
  return AddDecimal(app, name, value, min, max, max_open, help);
}

CLI::Option* AddFloat(CLI::App* app, const train::NumberRule& rule, float* value,
                      const std::string& help) {
  return AddFloat(app, rule.option, value, rule.min, rule.max, rule.max_open, help);
}

bool Given(const CLI::App& app, const std::string& name) { return app.count(name) > 0; }

void RejectRepeated(const std::vector<std::string>& args, const std::set<std::string>& repeatable) {
  std::map<std::string, int> seen;
  for (const std::string& arg : args) {
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) continue;
    const std::string name = arg.substr(0, arg.find('='));
    if (repeatable.count(name) != 0) continue;
    if (++seen[name] == 2) throw UsageError(name + " given twice");
  }
}

std::string DescribeParseError(const CLI::ParseError& error) {
  const std::string what = error.what();
  const std::string kind = error.get_name();
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    // "The following arguments were not expected: blue --colour"
    std::vector<std::string> extras;
    std::istringstream words(what.substr(what.find(": ") + 2));
    for (std::string word; words >> word;) extras.push_back(word);
    for (const std::string& extra : extras) {
      if (extra.size() > 1 && extra[0] == '-') return "unknown option " + Quoted(extra);
    }
    if (!extras.empty()) return "unexpected argument " + Quoted(extras.front());
    return what;
  }
  const size_t colon = what.find(": ");
  if (kind == "ArgumentMismatch" && colon != std::string::npos &&
      what.find(" required ") != std::string::npos &&
      what.compare(what.size() - 8, 8, " missing") == 0) {
    return what.substr(0, colon) + " needs a value";
  }
  if (kind == "ArgumentMismatch" && what.find("At Most 1") != std::string::npos) {
    return what.substr(0, colon) + " given twice";
  }
  if (kind == "ValidationError" && colon != std::string::npos) {
    return what.substr(0, colon) + " " + what.substr(colon + 2);
  }
  return what;
}

void RejectFlagValues(const CLI::App& command, const std::vector<std::string>& args) {
  const auto flag_shaped = [](const std::string& word) {
    return word.size() > 1 && word[0] == '-' && (word[1] == '-' || std::isalpha(word[1]));
  };
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!flag_shaped(arg) || arg.find('=') != std::string::npos) continue;
    const CLI::Option* option = command.get_option_no_throw(arg);
    if (option == nullptr || option->get_items_expected_max() == 0) continue;  // unknown, a flag
    if (flag_shaped(args[i + 1])) {
      throw UsageError(arg + " needs a value, got the option '" + args[i + 1] + "'");
    }
    ++i;  // the value
  }
}

}  // namespace mxu::host
