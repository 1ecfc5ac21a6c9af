#include "host/bench/bench_command.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/built_devices.h"
#include "backends/device_factory.h"
#include "common/device_spec.h"
#include "common/memory_timing.h"
#include "driver/device.h"
#include "host/bench/bench_report.h"
#include "host/bench/bench_run.h"
#include "host/bench/bench_table.h"
#include "host/bench/energy_report.h"
#include "host/bench/roofline.h"
#include "host/bench/rtl_sample.h"
#include "host/bench/sweep.h"
#include "host/bench/topology.h"
#include "host/bench/topology_report.h"
#include "host/cli/child_process.h"
#include "host/cli/cli.h"
#include "host/cli/device_options.h"
#include "host/cli/output_file.h"
#include "host/cli/rank_agreement.h"
#include "train/mpi_collective.h"

namespace mxu::host {
namespace {

using Json = nlohmann::ordered_json;

struct BenchArgs {
  DeviceOptions device;
  std::vector<std::string> shapes, mems;
  uint64_t seed = 1;
  bool quick = false, check = false;
  std::string json, plot;
  std::string topology;
  std::string sweep, roofline;
  double clock_mhz = 0;  // not given: the energy table's Fmax (RunBench)
  int rtl_sample = 0;
  int jobs = 1;
  bool energy = false;
  int energy_node = 180;
  std::vector<std::string> command_line;
};

int RunBench(const CLI::App& cli, BenchArgs args);

// The table: --shape, --quick or --topology; the devices: --sweep, --rtl-sample, --clock-mhz.
void AddWorkloadOptions(CLI::App* cmd, BenchArgs& a) {
  CLI::Option* shape =
      cmd->add_option("--shape", a.shapes,
                      "a GEMM C = op(A) x op(B), op(A) M x K, op(B) K x N, :ta / :tb transposed "
                      "(A stored K x M / B stored N x K), :int8 in the int8 mode (int32 out); "
                      "repeatable; replaces the built-in table")
          ->type_name("MxKxN[:ta][:tb][:int8]")
          ->allow_extra_args(false)
          ->default_str("");
  cmd->add_flag("--quick", a.quick, "only the built-in shapes with M*K*N <= 2^21 (fast)")
      ->excludes(shape);
  cmd->add_option("--topology", a.topology,
                  "a network's layers from a SCALE-Sim topology file, each run as its GEMM "
                  "(convolutions by im2col); replaces the built-in table; adds the network's "
                  "totals, and `layers` and `totals` to --json")
      ->type_name("FILE.csv")
      ->excludes(shape)
      ->excludes(cmd->get_option("--quick"));
  CLI::Option* sweep =
      cmd->add_option("--sweep", a.sweep,
                      "run the shapes or topology on each of these devices (device specs, "
                      "MXU_DEVICES syntax) on the model backend, and print a summary per device; "
                      "each device's memory is as wide as its port unless --mem or "
                      "--mem-bytes-per-cycle is given, and a port wider than 32 bytes also gets "
                      "3 x its DMA requests in flight")
          ->type_name("SPEC,SPEC,...");
  AddInteger(cmd, "--rtl-sample", &a.rtl_sample, 1, 100000,
             "with --backend model: run N of the GEMMs (spread evenly through the list) on the "
             "RTL of the same built device too, under the first memory setting, and print the "
             "model's cycles against the RTL's (and `rtl_sample` in --json)")
      ->excludes(sweep);
  AddFloat(cmd, "--clock-mhz", &a.clock_mhz, 1, 100000, false,
           "the clock at which the sweep summary gives each device's time; default: the Fmax "
           "the PPA measured (energy/180nm.json, docs/ppa.md), or --energy-node's table's");
}

// --roofline, the memory settings, the operands' seed, --check, --json and --plot.
void AddRunOptions(CLI::App* cmd, BenchArgs& a) {
  cmd->add_flag("--energy", a.energy,
                "each GEMM's energy (MACs, clock, SRAM, host memory; pJ per MAC, TOPS/W), each "
                "device's total with its estimated area, ranked by time, energy and area, and "
                "inferences per joule for --topology: the device's counters and the program's "
                "buffer traffic times per-action energies measured on the RTL (docs/ppa.md)");
  AddInteger(cmd, "--energy-node", &a.energy_node, 1, 1000,
             "with --energy: the technology node's table, in nm: 180 (measured on osu018) or a "
             "node scaled from it (28, 7)")
      ->needs(cmd->get_option("--energy"));
  cmd->add_option("--roofline", a.roofline,
                  "roofline chart as PNG: per GEMM, MACs per byte through the memory port (DMA "
                  "bytes) against MACs per cycle, with each device's compute and memory roofs")
      ->type_name("FILE.png");
  cmd->add_option("--mem", a.mems,
                  "run the table under this host-memory setting (latency in "
                  "cycles, bytes per cycle, requests in flight); repeatable; "
                  "default: the --mem-* options")
      ->type_name("LAT:BYTES:INFLIGHT")
      ->allow_extra_args(false)
      ->default_str("");
  AddInteger(cmd, "--seed", &a.seed, 0, UINT64_MAX, "seed of the random operands");
  AddInteger(cmd, "--jobs", &a.jobs, 1, 64,
             "run the GEMMs of each memory setting in this many processes at once, each GEMM on a "
             "device of its own (the same rows, cycles and bits; rows print in order): a whole "
             "network on the RTL on every core");
  cmd->add_flag("--check", a.check,
                "compare every output bit with the golden model (exit 1 on a mismatch)");
  cmd->add_option("--json", a.json,
                  "write every row, the device configuration, the memory settings and the "
                  "command line to this file as JSON")
      ->type_name("FILE.json");
  cmd->add_option("--plot", a.plot,
                  "bar chart of utilization per shape (vs ideal, vs bound), a panel per memory "
                  "setting, as PNG")
      ->type_name("FILE.png");
}

}  // namespace

std::function<int()> AddBenchCommand(CLI::App& app, std::vector<std::string> command_line) {
  auto args = std::make_shared<BenchArgs>();
  args->command_line = std::move(command_line);
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "The benchmark: a table of GEMM shapes (square 32 to 1024, 64x784x128 and its "
      "permutations, every GEMM of a training step of mxu train's default model and of a "
      "784-128-10 MLP at batch 64: forward with bias and ReLU, backward with the transposes "
      "the loop uses), each run once on the device with random bf16 operands. Per "
      "GEMM: device cycles; ideal = M*K*N / (array rows * cols), rounded up; bound = max(ideal, "
      "bytes of A and B (bf16) and C (fp32) once / memory bytes per cycle); utilization = ideal "
      "or bound / cycles; DMA bytes read and written; stall cycles (STALL_DEPENDENCY, "
      "STALL_WEIGHTS, STALL_FETCH, STALL_MEMORY); wall time and simulated cycles per second.");
  cmd->footer(kExitCodesHelp);
  BenchArgs& a = *args;
  AddWorkloadOptions(cmd, a);
  AddRunOptions(cmd, a);
  AddDeviceOptions(cmd, &a.device, kDeviceBackendsHelp);
  cmd->get_option("--sweep")->excludes(cmd->get_option("--device"));
  for (const char* option : {"--mem-latency", "--mem-bytes-per-cycle", "--mem-in-flight"}) {
    cmd->get_option("--mem")->excludes(cmd->get_option(option));
  }
  return [cmd, args] {
    try {
      return RunBench(*cmd, *args);
    } catch (const UsageError&) {
      if (SilentRank()) return SilentRankExit();  // every rank finds it; rank 0 reports it
      throw;
    } catch (const Interrupted& interrupted) {
      // The rows printed so far are those that finished; the files are written only at the end.
      std::fflush(stdout);
      std::fprintf(stderr, "\nmxu bench: %s; no --json, --plot or --roofline written\n",
                   interrupted.what());
      return 130;
    }
  };
}

namespace {

// What the command line asks to run: every shape under every memory setting on every device (one,
// or the sweep's points).
struct BenchPlan {
  std::vector<BenchShape> shapes;
  std::optional<Topology> topology;  // --topology, where the shapes came from
  std::vector<MemoryTiming> settings;
  // The sweep's device specs, or the one --device (empty: this executable's own device).
  std::vector<std::string> points;
  bool sweeping = false;
  bool memory_given = false;  // the memory's width set on the command line (host/bench/sweep.h)
  // One run (a process, a device) per point and memory setting, point-major.
  size_t runs() const { return points.size() * settings.size(); }
  size_t point_of(size_t run) const { return run / settings.size(); }
};

// --shape, --topology, or the built-in table (--quick: its small shapes).
void ReadShapes(const CLI::App& cli, const BenchArgs& args, BenchPlan* plan) {
  for (const std::string& text : args.shapes) plan->shapes.push_back(ParseShape(text));
  if (Given(cli, "--topology")) {
    plan->topology = ReadTopology(args.topology);
    for (const TopologyLayer& l : plan->topology->layers) {
      plan->shapes.push_back(
          {l.name, static_cast<int>(l.m), static_cast<int>(l.k), static_cast<int>(l.n)});
    }
  }
  if (plan->shapes.empty()) {
    for (const BenchShape& shape : BuiltInTable()) {
      if (!args.quick || shape.macs() <= kQuickMacs) plan->shapes.push_back(shape);
    }
  }
}

BenchPlan ReadPlan(const CLI::App& cli, const BenchArgs& args) {
  BenchPlan plan;
  ReadShapes(cli, args, &plan);
  for (const std::string& text : args.mems) plan.settings.push_back(ParseMem(text));
  if (plan.settings.empty()) plan.settings.push_back(args.device.timing);
  // The devices: this one, or the sweep's, each on the model.
  plan.sweeping = Given(cli, "--sweep");
  plan.points = {args.device.device};
  if (plan.sweeping) {
    plan.points = ParseSweep(args.sweep);
    if (args.device.backend != "model" && Given(cli, "--backend")) {
      throw UsageError("--sweep runs on the model backend, not --backend " + args.device.backend);
    }
  }
  plan.memory_given = Given(cli, "--mem") || Given(cli, "--mem-bytes-per-cycle");
  return plan;
}

bool Available(const std::string& backend) {
  const std::vector<std::string>& available = backends::AvailableBackends();
  return std::find(available.begin(), available.end(), backend) != available.end();
}

// What the plan leaves to check before anything runs: --rtl-sample's needs, the output files,
// the backend.
void CheckBenchOptions(const CLI::App& cli, const BenchArgs& args) {
  if (Given(cli, "--rtl-sample")) {
    if (args.device.backend != "model") {
      throw UsageError(
          "--rtl-sample checks the model backend against the RTL: give --backend "
          "model");
    }
    if (!Available("rtl")) {
      throw UsageError("--rtl-sample needs the RTL backend, which this build does not have");
    }
  }
  std::vector<PathArg> inputs, outputs;
  if (Given(cli, "--topology")) inputs.push_back({"--topology", args.topology});
  for (const char* option : {"--json", "--plot", "--roofline"}) {
    if (Given(cli, option)) outputs.push_back({option, cli.get_option(option)->as<std::string>()});
  }
  CheckOutputPaths(outputs, inputs);
  if (!Available(args.device.backend)) {
    OpenDevice(args.device);  // throws the one-line message for an unknown backend
  }
}

// Under mpirun the sweep's runs (point x memory setting) are dealt out to the ranks in turn;
// each prints into its result, and rank 0 prints them all in order, as one process would.
// The ranks first agree that they all run bench (rank_agreement.h); *exit is then set when they
// do not.
std::unique_ptr<train::MpiCollective> JoinRanks(bool sweeping, std::optional<int>* exit) {
  if (!train::LaunchedByMpi()) return nullptr;
  auto ranks = train::MpiWorldSize() > 1 ? std::make_unique<train::MpiCollective>() : nullptr;
  if (ranks && (*exit = LeaveUnlessOneCommand("bench", *ranks))) return nullptr;
  if (!sweeping) {
    throw UsageError(
        "under mpirun, mxu bench spreads the points of --sweep over the ranks; "
        "without --sweep run it as one process");
  }
  return ranks ? std::move(ranks) : std::make_unique<train::MpiCollective>();
}

BenchRunOptions RunOptions(const BenchArgs& args) {
  BenchRunOptions options;
  options.device = args.device;
  options.seed = args.seed;
  options.check = args.check;
  return options;
}

// Run number `run` in a child process; capture: its table comes back in the result ("stdout").
Json RunOne(const BenchArgs& args, const BenchPlan& plan, size_t run, bool capture) {
  const size_t p = plan.point_of(run), i = run % plan.settings.size();
  BenchRunOptions point = RunOptions(args);
  MemoryTiming timing = plan.settings[i];
  if (plan.sweeping) {
    point.device.device = plan.points[p], point.device.backend = "model";
    timing = PointTiming(timing, ParseDeviceSpec(plan.points[p]).bus_bytes, plan.memory_given);
  }
  if (args.jobs > 1 && plan.shapes.size() > 1) {
    // The parent of the jobs opens no device: the children's rows come back to it.
    return RunInChild(
        [&] {
          return RunSettingInJobs(point, plan.shapes, i, timing, static_cast<size_t>(args.jobs));
        },
        "memory setting " + TimingText(timing), capture);
  }
  return RunInChild([&] { return RunSetting(point, plan.shapes, i, timing); },
                    "memory setting " + TimingText(timing), capture);
}

void PrintRunHeading(const BenchPlan& plan, size_t run) {
  if (run > 0) std::printf("\n");
  if (plan.sweeping) std::printf("device %s\n", plan.points[plan.point_of(run)].c_str());
}

// Every run in this process, in order, each printing its table as it goes.
std::vector<Json> RunHere(const BenchArgs& args, const BenchPlan& plan) {
  std::vector<Json> outs(plan.runs());
  for (size_t k = 0; k < plan.runs(); ++k) {
    PrintRunHeading(plan, k);
    outs[k] = RunOne(args, plan, k, false);
  }
  return outs;
}

// This rank's share of the runs; a failure comes back as {"error", "exit"} for every rank to see.
Json RunShare(const BenchArgs& args, const BenchPlan& plan, const train::MpiCollective& ranks) {
  Json mine = Json::array();
  for (size_t k = static_cast<size_t>(ranks.rank()); k < plan.runs(); k += ranks.size()) {
    Json out;
    try {
      out = RunOne(args, plan, k, true);
    } catch (const UsageError& error) {
      out = {{"error", error.what()}, {"exit", 2}};
    } catch (const std::exception& error) {
      out = {{"error", error.what()}, {"exit", 1}};
    }
    mine.push_back({{"run", k}, {"out", out}});
  }
  return mine;
}

// The runs spread over the ranks, gathered on every rank into *outs. Rank 0 reports the first
// failure in run order (throws it) and prints the tables in order; another rank returns its exit
// code, for it has nothing more to do.
std::optional<int> RunOnRanks(const BenchArgs& args, const BenchPlan& plan,
                              train::MpiCollective& ranks, std::vector<Json>* outs) {
  outs->assign(plan.runs(), Json());
  for (const std::string& text : ranks.AllGatherText(RunShare(args, plan, ranks).dump())) {
    for (const Json& entry : Json::parse(text)) (*outs)[entry["run"].get<size_t>()] = entry["out"];
  }
  for (const Json& out : *outs) {  // the first failure in run order, reported once
    if (!out.contains("error")) continue;
    if (ranks.rank() != 0) return out["exit"].get<int>();
    if (out["exit"].get<int>() == 2) throw UsageError(out["error"].get<std::string>());
    throw driver::DeviceError(out["error"].get<std::string>());
  }
  if (ranks.rank() != 0) return 0;
  for (size_t k = 0; k < plan.runs(); ++k) {
    PrintRunHeading(plan, k);
    std::fputs((*outs)[k]["stdout"].get<std::string>().c_str(), stdout);
  }
  return std::nullopt;
}

// Every run's rows in one list (a sweep's marked with their point), and the device and backend
// of the last run.
struct BenchResults {
  Json rows = Json::array(), device, backend;
};

// The memory settings as they ran: on one device a port-wide memory is its port's width; a
// sweep's points each have their own (PointTiming), which their rows give.
std::vector<MemoryTiming> SettingsAsRun(const BenchPlan& plan, const BenchResults& results) {
  std::vector<MemoryTiming> settings = plan.settings;
  if (plan.sweeping) return settings;
  for (MemoryTiming& t : settings) t = t.ForPort(results.device["bus_bytes"].get<unsigned>());
  return settings;
}

// With energy (--energy), each row's energy and its device's area.
BenchResults CollectRows(const std::vector<Json>& outs, const BenchPlan& plan,
                         const EnergyTable* energy) {
  BenchResults results;
  for (size_t k = 0; k < outs.size(); ++k) {
    results.device = outs[k]["device"];
    results.backend = outs[k]["backend"];
    for (Json r : outs[k]["rows"]) {
      if (plan.sweeping)
        r["point"] = plan.point_of(k), r["device_spec"] = plan.points[plan.point_of(k)];
      if (energy) AddEnergy(*energy, outs[k]["device"], &r);
      results.rows.push_back(r);
    }
  }
  return results;
}

// --rtl-sample: some of the GEMMs again on the RTL, their cycles against the model's.
Json RunRtlSample(const BenchArgs& args, const BenchPlan& plan, const Json& rows) {
  // The first memory setting's rows are GEMMs 0, 1, ... in order.
  const std::vector<size_t> indices =
      RtlSampleIndices(plan.shapes.size(), static_cast<size_t>(args.rtl_sample));
  std::vector<BenchShape> sample;
  for (size_t index : indices) sample.push_back(plan.shapes[index]);
  BenchRunOptions on_rtl = RunOptions(args);
  on_rtl.device.backend = "rtl";
  const Json out =
      RunInChild([&] { return RunSetting(on_rtl, sample, 0, plan.settings[0], /*print=*/false); },
                 "the RTL sample");
  return RtlSampleReport(rows, indices, out["rows"]);
}

// A topology's network totals only where there is one group of rows (one device, one memory).
bool OneGroup(const BenchPlan& plan) {
  return plan.points.size() == 1 && plan.settings.size() == 1;
}

// The lines after the tables: the summary, the network, the sweep, the RTL sample.
void PrintReport(const BenchArgs& args, const BenchPlan& plan, const BenchTotals& totals,
                 const Json& rows, const Json& rtl_sample, const EnergyTable* energy,
                 const Json& energy_summary) {
  bool any_bias = false;
  for (const BenchShape& shape : plan.shapes) any_bias = any_bias || shape.bias;
  std::vector<std::pair<std::string, BenchTotals>> per_device;
  for (size_t p = 0; plan.sweeping && p < plan.points.size(); ++p) {
    Json of_point = Json::array();
    for (const Json& r : rows) {
      if (r.value("point", size_t{0}) == p) of_point.push_back(r);
    }
    per_device.emplace_back(plan.points[p], SumRows(of_point, args.check));
  }
  PrintSummary(totals, plan.shapes.size(), plan.settings.size(), any_bias, args.check, per_device);
  if (plan.topology && OneGroup(plan)) PrintNetwork(*plan.topology, NetworkTotals(rows));
  if (plan.sweeping) PrintSweepSummary(SweepSummary(rows, args.clock_mhz), args.clock_mhz);
  if (!rtl_sample.is_null()) PrintRtlSample(rtl_sample);
  if (energy) PrintEnergy(*energy, rows, energy_summary, plan.topology.has_value());
  std::fflush(stdout);
}

// --json: the command line, the device, the settings, every row and the summaries.
Json BenchJson(const BenchArgs& args, const BenchPlan& plan, const BenchResults& results,
               const BenchTotals& totals, const Json& rtl_sample, const EnergyTable* energy,
               const Json& energy_summary) {
  const Json& rows = results.rows;
  Json j;
  std::string line;
  for (const std::string& arg : args.command_line) line += (line.empty() ? "" : " ") + arg;
  j["command_line"] = line;
  j["argv"] = args.command_line;
  j["backend"] = results.backend;
  j["device"] = results.device;
  j["seed"] = args.seed;
  j["check"] = args.check;
  j["memory_settings"] = Json::array();
  for (const MemoryTiming& t : SettingsAsRun(plan, results)) {
    j["memory_settings"].push_back(TimingJson(t));
  }
  j["rows"] = rows;
  if (plan.sweeping) j["sweep"] = SweepSummary(rows, args.clock_mhz);
  if (!rtl_sample.is_null()) j["rtl_sample"] = rtl_sample;
  if (plan.topology) {
    j["topology"] = {{"file", args.topology}, {"format", plan.topology->conv ? "conv" : "gemm"}};
    j["layers"] = TopologyLayersJson(*plan.topology, rows);
    j["totals"] = OneGroup(plan) ? NetworkTotals(rows) : SweepSummary(rows, args.clock_mhz);
  }
  if (energy) {
    j["energy_model"] = EnergyTableJson(*energy);
    j["energy"] = energy_summary;
  }
  j["summary"] = SummaryJson(totals, rows.size(), args.check);
  return j;
}

// --json, --plot and --roofline to their temporaries, committed when the run succeeded.
void WriteBenchFiles(const CLI::App& cli, const BenchArgs& args, const BenchPlan& plan,
                     const BenchResults& results, const Json& json, PendingOutputs* files) {
  if (Given(cli, "--json")) {
    std::ofstream file(files->Temp(args.json));
    file << json.dump() << "\n";
    file.close();
    if (!file) throw std::runtime_error("--json: cannot write '" + args.json + "'");
  }
  const std::string backend = results.backend.get<std::string>();
  if (Given(cli, "--plot")) {
    const std::string devices =
        plan.sweeping ? std::to_string(plan.points.size()) + " devices"
                      : std::to_string(results.device["array_rows"].get<unsigned>()) + " x " +
                            std::to_string(results.device["array_cols"].get<unsigned>()) + " array";
    const std::string title = "mxu bench: utilization per GEMM (" + devices + ", " + backend + ")";
    files->Write(args.plot, [&](const std::string& temp) {
      WritePlot(temp, SettingsAsRun(plan, results), results.rows, title);
    });
  }
  if (Given(cli, "--roofline")) {
    // The network's file by its name: a path (absolute, or the user's relative one) says
    // where it lay, not what it is.
    const std::string what =
        plan.topology ? std::filesystem::path(args.topology).filename().string() : "the GEMMs";
    const std::string title = "mxu bench: roofline of " + what + " (" + backend + " backend)";
    files->Write(args.roofline,
                 [&](const std::string& temp) { WriteRoofline(temp, results.rows, title); });
  }
}

// The processes the GEMMs of a memory setting ran on: --jobs, at most one a GEMM (one GEMM runs
// in the setting's own process).
int JobsUsed(const BenchArgs& args, const BenchPlan& plan) {
  if (plan.shapes.size() < 2) return 1;
  return static_cast<int>(std::min(static_cast<size_t>(args.jobs), plan.shapes.size()));
}

// The device of rows that name none (no --sweep): --device as given, or this executable's own by
// its built name, options and all (8x4-flush, 32x32:pe=3), never just the array's size.
std::string DeviceLabel(const BenchArgs& args) {
  return args.device.device.empty() ? backends::ThisDevice().name : args.device.device;
}

int RunBench(const CLI::App& cli, BenchArgs args) {
  // Under mpirun every rank joins first: another rank may run another command.
  std::optional<int> exit;
  const std::unique_ptr<train::MpiCollective> ranks = JoinRanks(Given(cli, "--sweep"), &exit);
  if (exit) return *exit;
  const BenchPlan plan = ReadPlan(cli, args);
  CheckBenchOptions(cli, args);
  // The energy table first: an unknown node is a usage error before anything runs.
  const std::optional<EnergyTable> energy =
      args.energy ? std::optional<EnergyTable>(EnergyTableFor(args.energy_node)) : std::nullopt;
  // The clock prices the time of the sweep's summary (a topology's over several groups too): the
  // synthesized design's, unless given.
  if (Given(cli, "--clock-mhz") && !plan.sweeping && !(plan.topology && !OneGroup(plan))) {
    throw UsageError(
        "--clock-mhz has no effect without --sweep (or --topology with several --mem): it prices "
        "the time of the sweep's summary");
  }
  if (!Given(cli, "--clock-mhz")) {
    args.clock_mhz = energy ? energy->clock_mhz : EnergyTableFor(180).clock_mhz;
  }
  std::vector<Json> outs;
  const auto start = std::chrono::steady_clock::now();
  if (!ranks || ranks->size() == 1) {
    outs = RunHere(args, plan);
  } else if (const std::optional<int> exit = RunOnRanks(args, plan, *ranks, &outs)) {
    return *exit;  // a rank other than 0: rank 0 reports
  }
  const BenchResults results = CollectRows(outs, plan, energy ? &*energy : nullptr);
  const Json energy_summary =
      energy ? EnergySummary(*energy, results.rows, DeviceLabel(args)) : Json();
  const Json rtl_sample =
      Given(cli, "--rtl-sample") ? RunRtlSample(args, plan, results.rows) : Json();
  BenchTotals totals = SumRows(results.rows, args.check);
  totals.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  totals.jobs = JobsUsed(args, plan);
  PrintReport(args, plan, totals, results.rows, rtl_sample, energy ? &*energy : nullptr,
              energy_summary);

  PendingOutputs files;
  const Json json = Given(cli, "--json") ? BenchJson(args, plan, results, totals, rtl_sample,
                                                     energy ? &*energy : nullptr, energy_summary)
                                         : Json();
  WriteBenchFiles(cli, args, plan, results, json, &files);
  if (totals.mismatches) {
    throw driver::DeviceError("--check: " + std::to_string(totals.mismatches) +
                              " outputs differ from the golden model");
  }
  FlushStdout();
  files.Commit();
  return 0;
}

}  // namespace
}  // namespace mxu::host
