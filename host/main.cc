// `mxu`: the command-line tool of the matrix-unit model. One CLI::App with a subcommand per
// command; every error on the command line is a one-line message and exit code 2.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <set>
#include <string>
#include <systemc>
#include <vector>

#include "driver/device.h"
#include "host/bench/bench_command.h"
#include "host/cli/cli.h"
#include "host/cli/device_options.h"
#include "host/cli/output_file.h"
#include "host/cli/rank_agreement.h"
#include "host/cli/stop_signals.h"
#include "host/gemm/gemm_command.h"
#include "host/info/commands.h"
#include "host/train/commands.h"

namespace {

int Fail(const std::string& command, const std::string& message, int code) {
  std::fprintf(stderr, "mxu %s: %s\n", command.c_str(), message.c_str());
  return code;
}

// Exit code 0, or 1 with one line when what was printed could not be written.
int Stdout(const std::string& command) {
  try {
    mxu::host::FlushStdout();
    return 0;
  } catch (const std::runtime_error& error) {
    return Fail(command, error.what(), 1);
  }
}

CLI::App* FindCommand(CLI::App& app, const std::string& name) {
  for (CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (command->get_name() == name) return command;
  }
  return nullptr;
}

}  // namespace

// libsystemc owns main() and calls sc_main(); the RTL device needs the SystemC kernel.
int sc_main(int argc, char** argv) {
  CLI::App app(
      "mxu: the command-line tool of the matrix-unit model (bf16 x bf16 -> fp32 systolic "
      "array, verilated RTL). 'mxu <command> --help' shows one command.",
      "mxu");
  mxu::host::ConfigureApp(app);
  app.require_subcommand(1);
  const std::vector<std::pair<std::string, std::function<int()>>> commands = {
      {"selfcheck", mxu::host::AddSelfcheckCommand(app)},
      {"gemm", mxu::host::AddGemmCommand(app)},
      {"train", mxu::host::AddTrainCommand(app)},
      {"predict", mxu::host::AddPredictCommand(app)},
      {"info", mxu::host::AddInfoCommand(app)},
      {"bench", mxu::host::AddBenchCommand(app, std::vector<std::string>(argv, argv + argc))},
  };
  app.add_subcommand("help", "this text, every command's options included ('mxu help CMD': one)");

  const std::vector<std::string> args(argv + 1, argv + argc);
  const std::string all_help = app.help("", CLI::AppFormatMode::All);
  if (args.empty()) {
    std::fputs(all_help.c_str(), stderr);
    return 2;
  }
  const std::string command = args[0];
  if (command == "help" || command == "--help" || command == "-h") {
    if (const auto code = mxu::host::RefuseAsOneOfManyRanks("help")) return *code;
    if (args.size() > 2) return Fail("help", "unexpected argument '" + args[2] + "'", 2);
    if (args.size() > 1 && (FindCommand(app, args[1]) == nullptr || args[1] == "help")) {
      return Fail("help", "unknown command '" + args[1] + "' (see 'mxu help')", 2);
    }
    std::fputs(args.size() > 1 ? FindCommand(app, args[1])->help().c_str() : all_help.c_str(),
               stdout);
    return Stdout(command);
  }
  CLI::App* subcommand = FindCommand(app, command);
  if (subcommand == nullptr) {
    return Fail(command, "unknown command '" + command + "' (see 'mxu help')", 2);
  }
  try {
    // Options that take one value per use and may be given again (bench's --shape, --mem).
    std::set<std::string> repeatable;
    for (const CLI::Option* option : subcommand->get_options()) {
      if (option->get_expected_max() > 1) repeatable.insert(option->get_name());
    }
    mxu::host::RejectRepeated({args.begin() + 1, args.end()}, repeatable);
    mxu::host::RejectFlagValues(*subcommand, {args.begin() + 1, args.end()});
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(subcommand->help().c_str(), stdout);
    return Stdout(command);
  } catch (const CLI::ParseError& error) {
    if (mxu::host::SilentRank()) return mxu::host::SilentRankExit();
    return Fail(command, mxu::host::DescribeParseError(error), 2);
  } catch (const mxu::host::UsageError& error) {
    if (mxu::host::SilentRank()) return mxu::host::SilentRankExit();
    return Fail(command, error.what(), 2);
  }
  // train and bench --sweep spread over the ranks of an MPI job; the others run as one process.
  if (command != "train" && command != "bench") {
    if (const auto code = mxu::host::RefuseAsOneOfManyRanks(command)) return *code;
  }
  // Ctrl-C and SIGTERM: one line, exit 130, no output's temporary left (rank 0 alone says so).
  mxu::host::StopOnSignals(command, !mxu::host::SilentRank());
  try {
    for (const auto& [name, run] : commands) {
      if (name != command) continue;
      const int code = run();
      mxu::host::FlushStdout();  // a full disk or a closed pipe is a failed run
      return code;
    }
    return Fail(command, "unknown command (see 'mxu help')", 2);
  } catch (const mxu::host::UsageError& error) {
    return Fail(command, error.what(), 2);
  } catch (const std::invalid_argument& error) {  // bad shapes or values for the driver
    return Fail(command, error.what(), 2);
  } catch (const mxu::driver::DeviceError& error) {
    return Fail(command, error.what(), 1);
  } catch (const std::exception& error) {
    return Fail(command, std::string("error: ") + error.what(), 1);
  }
}

// The SystemC banner would land in front of --json output.
// --device of another device of the build runs that device's executable instead.
int main(int argc, char** argv) {
  mxu::host::RunDeviceExecutable(argc, argv);
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
