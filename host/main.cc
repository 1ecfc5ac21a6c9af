// `mxu`: the command-line tool of the matrix-unit model. Dispatches to one subcommand; every
// error on the command line is a one-line message and exit code 2.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <systemc>
#include <vector>

#include "driver/device.h"
#include "host/cli_args.h"
#include "host/gemm_command.h"
#include "host/info_command.h"
#include "host/selfcheck.h"
#include "host/train_command.h"

namespace {

constexpr char kUsage[] =
    "usage: mxu <command> [options]\n"
    "\n"
    "commands:\n"
    "  selfcheck   random and special operands through the verilated arithmetic units,\n"
    "              every bit compared with the host CPU (both subnormal modes)\n"
    "              --vectors N (default 200000)  --seed S (default 1)  --json\n"
    "  gemm        one GEMM on the device: --m --k --n [--seed] | --a A.npy --b B.npy,\n"
    "              --ta --tb --relu --bias bias.npy --accumulate C0.npy,\n"
    "              --out C.npy (fp32) | --out-bf16 C.npy (bf16 bits), --check, --json,\n"
    "              --trace FILE.fst [--trace-start CYCLE (0)] [--trace-cycles N (10000; 0: all)]\n"
    "              --timeline FILE.json (instruction timeline, Chrome trace-event format)\n"
    "  train       mixed-precision MLP training, every GEMM on the device:\n"
    "              [--data IDX_DIR [--train-samples N] [--test-samples N]]\n"
    "              [--samples-per-class N (300)] [--classes N (3)] [--hidden 32,32]\n"
    "              [--epochs 20] [--batch 64] [--optimizer adam|sgd] [--lr X] [--momentum X]\n"
    "              [--loss-scale 32768] [--scale-growth 100] [--seed 1]\n"
    "              [--log FILE.csv] [--plot FILE.png] [--json] [--quiet]\n"
    "              --backend host: the same loop in plain fp32 on the host\n"
    "  info        the device configuration read from its CSRs (--json)\n"
    "  help        this text\n"
    "\n"
    "device options (gemm, train, info): --backend rtl, --mem-latency CYCLES (100),\n"
    "  --mem-bytes-per-cycle N (32), --mem-in-flight N (8), --watchdog CYCLES\n";

}  // namespace

// libsystemc owns main() and calls sc_main(); the RTL device needs the SystemC kernel.
int sc_main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "selfcheck") return mxu::host::RunSelfcheck(args);
    if (command == "gemm") return mxu::host::RunGemm(args);
    if (command == "info") return mxu::host::RunInfo(args);
    if (command == "train") return mxu::host::RunTrain(args);
    if (command == "help" || command == "--help" || command == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    throw mxu::host::UsageError("unknown command '" + command + "' (see 'mxu help')");
  } catch (const mxu::host::UsageError& error) {
    std::fprintf(stderr, "mxu %s: %s\n", command.c_str(), error.what());
    return 2;
  } catch (const std::invalid_argument& error) {  // bad shapes or values for the driver
    std::fprintf(stderr, "mxu %s: %s\n", command.c_str(), error.what());
    return 2;
  } catch (const mxu::driver::DeviceError& error) {
    std::fprintf(stderr, "mxu %s: %s\n", command.c_str(), error.what());
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "mxu %s: error: %s\n", command.c_str(), error.what());
    return 1;
  }
}

// The SystemC banner would land in front of --json output.
int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
