#include "host/cli.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

namespace mxu::host {
namespace {

namespace fs = std::filesystem;

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
    "2 bad usage or input (options, files), reported on one line before anything runs.\n";

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

CLI::Option* AddFloat(CLI::App* app, const std::string& name, float* value, double min, double max,
                      bool max_open, const std::string& help) {
  const std::string range =
      "X in [" + NumberText(min) + ", " + NumberText(max) + (max_open ? ")" : "]");
  CLI::Validator check(
      [min, max, max_open, range](std::string& text) -> std::string {
        // Decimal notation only (no hex floats, inf or nan).
        const bool plain =
            !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos;
        char* end = nullptr;
        errno = 0;
        const double v = plain ? std::strtod(text.c_str(), &end) : 0;
        if (!plain || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
          return "expects a decimal number, got " + Quoted(text);
        }
        if (v < min || v > max || (max_open && v == max)) {
          return "must be " + range.substr(2) + ", got " + text;
        }
        return "";
      },
      "", "number");
  return app->add_option(name, *value, help)->type_name(range)->check(check);
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

void AddTraceOptions(CLI::App* app, TraceOptions* options) {
  CLI::Option* trace =
      app->add_option("--trace", options->fst_path,
                      "record an FST waveform of the device (GTKWave) to this file")
          ->type_name("FILE.fst");
  AddInteger(app, "--trace-start", &options->start_cycle, 0, UINT64_MAX,
             "first traced cycle, counted from the start of the run")
      ->needs(trace);
  AddInteger(app, "--trace-cycles", &options->cycles, 0, UINT64_MAX,
             "cycles in the trace window; 0: to the end of the run")
      ->needs(trace);
  app->add_option("--timeline", options->timeline_path,
                  "write the instruction timeline (Chrome trace-event JSON) to this file")
      ->type_name("FILE.json");
}

void CheckOutputPaths(const std::vector<PathArg>& outputs, const std::vector<PathArg>& inputs) {
  std::vector<std::string> keys;
  for (const PathArg& out : outputs) {
    if (out.path.empty()) throw UsageError(out.option + " needs a file name");
    const std::map<std::string, std::string> kinds = {
        {"--trace", "trace"}, {"--timeline", "timeline"}, {"--log", "log"}, {"--plot", "plot"}};
    const auto kind = kinds.find(out.option);
    const std::string name = out.option + ": cannot write " +
                             (kind == kinds.end() ? "output" : kind->second) + " file " +
                             Quoted(out.path);
    const fs::path path(out.path);
    std::error_code ec;
    if (!path.has_filename() || fs::is_directory(path, ec)) {
      throw UsageError(name + ": it is a directory");
    }
    const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    if (!fs::is_directory(parent, ec)) {
      throw UsageError(name + ": no such directory " + Quoted(parent.string()));
    }
    if (access(parent.c_str(), W_OK) != 0) {
      throw UsageError(name + ": the directory " + Quoted(parent.string()) + " is not writable");
    }
    if (fs::exists(path, ec) && access(path.c_str(), W_OK) != 0) {
      throw UsageError(name + ": the file is not writable");
    }
    keys.push_back(fs::weakly_canonical(path, ec).string());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (keys[i] == keys[j]) {
        throw UsageError(outputs[j].option + " and " + outputs[i].option + " name one file " +
                         Quoted(outputs[i].path) + ": give each output its own");
      }
    }
    struct stat out_stat;
    const bool out_exists = stat(outputs[i].path.c_str(), &out_stat) == 0;
    for (const PathArg& in : inputs) {
      struct stat in_stat;
      std::error_code ec;
      const bool same_inode = out_exists && stat(in.path.c_str(), &in_stat) == 0 &&
                              in_stat.st_dev == out_stat.st_dev &&
                              in_stat.st_ino == out_stat.st_ino;
      if (same_inode || fs::weakly_canonical(in.path, ec).string() == keys[i]) {
        throw UsageError(outputs[i].option + " " + Quoted(outputs[i].path) +
                         " would overwrite the input " + in.option);
      }
    }
  }
}

}  // namespace mxu::host
