// `mxu bench`: the benchmark. Each Add*Command adds its subcommand to app and
// returns the function that runs it once app has parsed the command line; that function returns
// the exit code (0 success, 1 the run failed, 2 bad usage or input).
#ifndef MXU_HOST_BENCH_BENCH_COMMAND_H_
#define MXU_HOST_BENCH_BENCH_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace mxu::host {

// `mxu bench` (bench_command.cc): the project's benchmark. Runs a table of GEMM shapes (built in,
// or --shape) on the device under one or more host-memory settings and reports, per GEMM, device
// cycles against the ideal (every PE busy every cycle) and against a bound that also counts the
// bytes the GEMM must move, with the DMA and stall counters, as a table, JSON (--json) and a bar
// chart (--plot). Speed and utilization are measured here, never asserted in tests. `command_line`
// (argv) is recorded in the JSON.
std::function<int()> AddBenchCommand(CLI::App& app, std::vector<std::string> command_line);

}  // namespace mxu::host

#endif  // MXU_HOST_BENCH_BENCH_COMMAND_H_
