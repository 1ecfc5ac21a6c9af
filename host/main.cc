// `mxu`: the command-line tool of the matrix-unit model. Dispatches to one subcommand; every
// error on the command line is a one-line message and exit code 2.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "host/cli_args.h"
#include "host/selfcheck.h"

namespace {

constexpr char kUsage[] =
    "usage: mxu <command> [options]\n"
    "\n"
    "commands:\n"
    "  selfcheck   random and special operands through the verilated arithmetic units,\n"
    "              every bit compared with the host CPU (both subnormal modes)\n"
    "              --vectors N (default 200000)  --seed S (default 1)  --json\n"
    "  help        this text\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "selfcheck") return mxu::host::RunSelfcheck(args);
    if (command == "help" || command == "--help" || command == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    throw mxu::host::UsageError("unknown command '" + command + "' (see 'mxu help')");
  } catch (const mxu::host::UsageError& error) {
    std::fprintf(stderr, "mxu %s: %s\n", command.c_str(), error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "mxu %s: error: %s\n", command.c_str(), error.what());
    return 1;
  }
}
