// The subcommands of the `mxu` tool, each defined in its own file. Each Add*Command adds its
// subcommand to app and returns the function that runs it once app has parsed the command line;
// that function returns the exit code (0 success, 1 the run failed, 2 bad usage or input).
#ifndef MXU_HOST_COMMANDS_H_
#define MXU_HOST_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace mxu::host {

// `mxu gemm` (gemm_command.cc): one GEMM on the device, from random or .npy inputs, optionally
// checked bit for bit against the golden model, with statistics as a table or JSON.
std::function<int()> AddGemmCommand(CLI::App& app);

// `mxu bench` (bench_command.cc): the project's benchmark. Runs a table of GEMM shapes (built in,
// or --shape) on the device under one or more host-memory settings and reports, per GEMM, device
// cycles against the ideal (every PE busy every cycle) and against a bound that also counts the
// bytes the GEMM must move, with the DMA and stall counters, as a table, JSON (--json) and a bar
// chart (--plot). Speed and utilization are measured here, never asserted in tests. `command_line`
// (argv) is recorded in the JSON.
std::function<int()> AddBenchCommand(CLI::App& app, std::vector<std::string> command_line);

// `mxu train` (train_command.cc): the mixed-precision training loop, its GEMMs on the device (or,
// with --backend host, in plain fp32 on the host as the reference).
std::function<int()> AddTrainCommand(CLI::App& app);

// `mxu predict` (predict_command.cc): inference with a model `mxu train --save` wrote, on the
// device (or the host): the test set's predictions, accuracy and confusion matrix, as the
// training run's final evaluation computed them.
std::function<int()> AddPredictCommand(CLI::App& app);

// `mxu info` (info_command.cc): the device configuration read from its CSRs.
std::function<int()> AddInfoCommand(CLI::App& app);

// `mxu selfcheck` (selfcheck.cc): random and special operands through the verilated arithmetic
// units, every output bit compared with the host CPU's IEEE arithmetic, in both subnormal modes.
std::function<int()> AddSelfcheckCommand(CLI::App& app);

}  // namespace mxu::host

#endif  // MXU_HOST_COMMANDS_H_
