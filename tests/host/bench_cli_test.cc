// `mxu bench` as a user meets it: the figures of its JSON agree with their definitions (ideal,
// bound, utilization) and with the counters, the plot is a PNG, several memory settings give a
// group each, and malformed flags give one line and exit code 2. Speeds and wall times are what
// the benchmark measures, never asserted here. Runs the built binary as a child process.
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "tests/host/mxu_cli.h"
#include "tests/png_image.h"

namespace mxu::host {
namespace {

using nlohmann::json;

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Every row's figures against their definitions, for the device and memory setting the JSON
// names.
void ExpectConsistentRow(const json& j, const json& row) {
  SCOPED_TRACE(row.dump());
  const uint64_t rows = j["device"]["array_rows"], cols = j["device"]["array_cols"];
  ASSERT_GT(rows * cols, 0u);
  const uint64_t m = row["m"], k = row["k"], n = row["n"];
  const json& mem = j["memory_settings"][row["setting"].get<size_t>()];
  EXPECT_EQ(row["latency_cycles"], mem["latency_cycles"]);
  EXPECT_EQ(row["bytes_per_cycle"], mem["bytes_per_cycle"]);
  EXPECT_EQ(row["max_in_flight"], mem["max_in_flight"]);
  const uint64_t bytes_per_cycle = mem["bytes_per_cycle"];

  const uint64_t ideal = row["ideal_cycles"], bound = row["bound_cycles"], cycles = row["cycles"];
  EXPECT_EQ(row["macs"].get<uint64_t>(), m * k * n);
  EXPECT_EQ(ideal, CeilDiv(m * k * n, rows * cols));
  // A, B and C once, and the bias (N fp32) of the training loop's forward GEMMs.
  const uint64_t bytes_min = 2 * m * k + 2 * k * n + 4 * m * n + (row["bias"] ? 4 * n : 0);
  EXPECT_EQ(row["bytes_min"].get<uint64_t>(), bytes_min);
  EXPECT_EQ(bound, std::max(ideal, CeilDiv(bytes_min, bytes_per_cycle)));
  EXPECT_GE(bound, ideal);
  EXPECT_GE(cycles, bound);
  EXPECT_DOUBLE_EQ(row["utilization_ideal"].get<double>(), double(ideal) / double(cycles));
  EXPECT_DOUBLE_EQ(row["utilization_bound"].get<double>(), double(bound) / double(cycles));
  EXPECT_LE(row["utilization_bound"].get<double>(), 1.0);
  EXPECT_GE(row["dma_read_bytes"].get<uint64_t>(), 2 * m * k + 2 * k * n);
  EXPECT_GE(row["dma_write_bytes"].get<uint64_t>(), 4 * m * n);
  for (const char* counter : {"stall_dependency", "stall_weights", "stall_fetch", "stall_memory",
                              "array_busy_cycles", "wall_seconds", "sim_cycles_per_second"}) {
    EXPECT_TRUE(row.contains(counter)) << counter;
  }
}

TEST(MxuBenchCli, ShapesAreCheckedAndReportedAsJsonAndPlot) {
  const std::string json_path = TempPath("bench.json"), png = TempPath("bench.png");
  const CliResult r = RunMxu("bench --shape 32x32x32 --shape 40x24x56:ta:tb --check --json " +
                             json_path + " --plot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("32x32x32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("40x24x56:ta:tb"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("summary: 2 GEMMs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bit-exact"), std::string::npos) << r.out;

  const json j = json::parse(ReadFile(json_path));
  EXPECT_NE(j["command_line"].get<std::string>().find("bench --shape 32x32x32"), std::string::npos);
  EXPECT_EQ(j["backend"], "rtl");
  // The default memory setting: the --mem-* options' defaults.
  ASSERT_EQ(j["memory_settings"].size(), 1u);
  EXPECT_EQ(j["memory_settings"][0]["latency_cycles"], 100);
  EXPECT_EQ(j["memory_settings"][0]["bytes_per_cycle"], 32);
  EXPECT_EQ(j["memory_settings"][0]["max_in_flight"], 8);
  ASSERT_EQ(j["rows"].size(), 2u);
  const json& first = j["rows"][0];
  const json& second = j["rows"][1];
  EXPECT_EQ(first["name"], "32x32x32");
  EXPECT_EQ(second["name"], "40x24x56:ta:tb");
  EXPECT_EQ(second["m"], 40);
  EXPECT_EQ(second["k"], 24);
  EXPECT_EQ(second["n"], 56);
  EXPECT_EQ(first["ta"], false);
  EXPECT_EQ(second["ta"], true);
  EXPECT_EQ(second["tb"], true);
  for (const json& row : j["rows"]) {
    ExpectConsistentRow(j, row);
    EXPECT_EQ(row["mismatches"], 0);
    EXPECT_EQ(row["checked"].get<uint64_t>(), row["m"].get<uint64_t>() * row["n"].get<uint64_t>());
  }
  EXPECT_EQ(j["summary"]["gemms"], 2);
  EXPECT_EQ(j["summary"]["mismatches"], 0);
  EXPECT_EQ(j["summary"]["cycles"].get<uint64_t>(),
            first["cycles"].get<uint64_t>() + second["cycles"].get<uint64_t>());
  EXPECT_EQ(ReadFile(png).rfind("\x89PNG\r\n\x1a\n", 0), 0u);
}

TEST(MxuBenchCli, EveryMemorySettingIsAGroup) {
  const std::string json_path = TempPath("bench_mem.json"), png = TempPath("bench_mem.png");
  const CliResult r = RunMxu("bench --shape 32x32x32 --mem 100:32:8 --mem 10:4:2 --json " +
                             json_path + " --plot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("memory: latency 100, 32 B/cycle, 8 in flight"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory: latency 10, 4 B/cycle, 2 in flight"), std::string::npos) << r.out;
  const json j = json::parse(ReadFile(json_path));
  ASSERT_EQ(j["memory_settings"].size(), 2u);
  EXPECT_EQ(j["memory_settings"][1]["latency_cycles"], 10);
  EXPECT_EQ(j["memory_settings"][1]["bytes_per_cycle"], 4);
  EXPECT_EQ(j["memory_settings"][1]["max_in_flight"], 2);
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["setting"], 0);
  EXPECT_EQ(j["rows"][1]["setting"], 1);
  for (const json& row : j["rows"]) ExpectConsistentRow(j, row);
  // 4 bytes per cycle: the 10 KiB the GEMM must move bound it, not its 128 compute cycles.
  EXPECT_EQ(j["rows"][1]["bound_by"], "memory");
  EXPECT_EQ(ReadFile(png).rfind("\x89PNG\r\n\x1a\n", 0), 0u);
}

// The PNG's height from its IHDR chunk (bytes 20-23, big-endian).
uint32_t PngHeight(const std::string& bytes) {
  uint32_t h = 0;
  for (int i = 20; i < 24 && i < int(bytes.size()); ++i) h = h << 8 | uint8_t(bytes[i]);
  return h;
}

// Issue 58 (was issue 44's panel per setting): several memory settings draw one panel, each
// GEMM's bars of every setting side by side (a colour each) with their values written, instead
// of a panel per setting whose bars of 98% could not be told apart.
TEST(MxuBenchCli, SettingsSideBySideInOnePanel) {
  const std::string one = TempPath("bench_one.png"), four = TempPath("bench_four.png");
  const std::string run = "bench --backend model --shape 256x256x256 --shape 64x784x128 ";
  ASSERT_EQ(RunMxu(run + "--mem 100:32:8 --plot " + one).exit_code, 0);
  const CliResult r =
      RunMxu(run + "--mem 100:32:8 --mem 10:32:8 --mem 100:64:8 --mem 10:64:32 --plot " + four);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string png_one = ReadFile(one), png_four = ReadFile(four);
  // Four panels would be four times one's height; one panel of twice as many bars is not.
  EXPECT_LT(PngHeight(png_four), 2 * PngHeight(png_one));
  // A colour per setting (plot.h's palette: blue, orange, green, red), each with its bars.
  const testing::PngImage image = testing::ReadPng(four);
  ASSERT_TRUE(image.valid) << image.error;
  for (const testing::Rgb colour : {testing::Rgb{31, 119, 180}, testing::Rgb{255, 127, 14},
                                    testing::Rgb{44, 160, 44}, testing::Rgb{214, 39, 40}}) {
    EXPECT_GT(image.Count(colour, 2, 0, image.width), 500u) << colour.r;
  }
}

// Issue 42: a bench on the RTL stops cleanly at Ctrl-C (SIGINT to the whole process group, as a
// terminal sends it) or at a SIGTERM to mxu alone (passed on to the run's child, and by it to
// the --jobs' children): one line saying so, exit status 130, and no --json written.
class MxuBenchInterrupt : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(MxuBenchInterrupt, StopsWithOneLineAndWritesNothing) {
  const int signal = std::get<0>(GetParam());
  const std::string jobs = std::to_string(std::get<1>(GetParam()));
  const std::string tag = (signal == SIGINT ? "int" : "term") + jobs;
  const std::string json_path = TempPath("interrupted_" + tag + ".json");
  const std::string err = TempPath("interrupted_" + tag + "_err.txt");
  std::remove(json_path.c_str());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);  // a process group of its own, as a shell's job
    std::freopen(err.c_str(), "w", stderr);
    std::freopen("/dev/null", "w", stdout);
    // A 1024^3 GEMM on the RTL takes minutes: interrupted below.
    execl(MXU_BINARY, MXU_BINARY, "bench", "--shape", "1024x1024x1024", "--shape", "1024x1024x1023",
          "--jobs", jobs.c_str(), "--json", json_path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(child, child);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  ASSERT_EQ(signal == SIGINT ? kill(-child, SIGINT) : kill(child, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::string message = ReadFile(err);
  EXPECT_NE(message.find(std::string("mxu bench: interrupted (") +
                         (signal == SIGINT ? "SIGINT" : "SIGTERM") + ")"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("no --json, --plot or --roofline written"), std::string::npos) << message;
  EXPECT_NE(access(json_path.c_str(), F_OK), 0) << "an interrupted bench wrote its JSON";
}

INSTANTIATE_TEST_SUITE_P(Signals, MxuBenchInterrupt,
                         ::testing::Combine(::testing::Values(SIGINT, SIGTERM),
                                            ::testing::Values(1, 2)));

// Issue 58, item 9: a SIGKILL to mxu bench --jobs cannot be passed on, yet its children die with
// it: within seconds no process of its group is left, and nothing more is printed. The test is
// the subreaper of the orphans, so that it reaps them (a container's init may not).
TEST(MxuBenchCli, ChildrenDieWithAKilledBench) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const std::string out = TempPath("killed_out.txt");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    std::freopen(out.c_str(), "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    // 1024^3 GEMMs on the RTL take minutes each: a coordinator and two runs at work when killed.
    execl(MXU_BINARY, MXU_BINARY, "bench", "--shape", "1024x1024x1024", "--shape", "1024x1024x1023",
          "--shape", "1024x1024x1022", "--jobs", "2", static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(child, child);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const size_t printed = ReadFile(out).size();
  ASSERT_EQ(kill(child, SIGKILL), 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool gone = false;
  while (!gone && std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    const pid_t reaped = waitpid(-child, &status, WNOHANG);
    gone = reaped < 0 && errno == ECHILD;
    if (reaped == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const size_t printed_after = ReadFile(out).size();
  kill(-child, SIGKILL);  // what is left of a failed run
  while (waitpid(-child, nullptr, 0) > 0) {
  }
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  EXPECT_TRUE(gone) << "a child of the killed bench still ran 10 s later";
  EXPECT_EQ(printed_after, printed) << ReadFile(out);
}

// Issue 39: the default memory is as wide as the device's port (512 bytes here), in the rows,
// the settings and the bound; a width given on the command line stands.
TEST(MxuBenchCli, TheMemoryIsAsWideAsThePortUnlessGiven) {
  for (const char* given : {"", " --mem-bytes-per-cycle 64"}) {
    const std::string json_path = TempPath("bench_port.json");
    const CliResult r =
        RunMxu("bench --backend model --device 32x32:bus=512 --shape 64x256x256 --json " +
               json_path + given);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const unsigned width = *given ? 64 : 512;
    EXPECT_NE(r.out.find("memory: latency 100, " + std::to_string(width) + " B/cycle, 8 in flight"),
              std::string::npos)
        << r.out;
    const json j = json::parse(ReadFile(json_path));
    ASSERT_EQ(j["memory_settings"].size(), 1u);
    EXPECT_EQ(j["memory_settings"][0]["bytes_per_cycle"], width);
    ASSERT_EQ(j["rows"].size(), 1u);
    EXPECT_EQ(j["rows"][0]["bus_bytes"], 512);
    ExpectConsistentRow(j, j["rows"][0]);
  }
}

// --quick: the built-in table's small shapes, among them every GEMM of a training step of mxu
// train's default model (MLP 2-32-32-3, batch 64) with the transposes of its backward pass.
TEST(MxuBenchCli, QuickTableHasTheTrainingStep) {
  const std::string json_path = TempPath("bench_quick.json");
  const CliResult r = RunMxu("bench --quick --json " + json_path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(ReadFile(json_path));
  std::vector<std::string> step;
  for (const json& row : j["rows"]) {
    ExpectConsistentRow(j, row);
    EXPECT_LE(row["macs"].get<uint64_t>(), uint64_t{1} << 21) << row["name"];
    const std::string name = row["name"];
    if (name.rfind("train ", 0) == 0) step.push_back(name + " " + row["shape"].get<std::string>());
  }
  const std::vector<std::string> expected = {"train fwd L1 64x2x32",    "train fwd L2 64x32x32",
                                             "train fwd L3 64x32x3",    "train dW L3 32x64x3:ta",
                                             "train dX L3 64x3x32:tb",  "train dW L2 32x64x32:ta",
                                             "train dX L2 64x32x32:tb", "train dW L1 2x64x32:ta"};
  EXPECT_EQ(step, expected);
  EXPECT_NE(r.out.find("square 128"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("square 256"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mlp784 dX L2"), std::string::npos) << r.out;
}

TEST(MxuBenchCli, MalformedFlagsGiveOneLine) {
  ExpectUsageError("bench --shape 32x32", "--shape '32x32': expected MxKxN[:ta][:tb][:int8]");
  ExpectUsageError("bench --shape 8x8x8:int8:int8", ":int8 given twice");
  ExpectUsageError("bench --shape 4x4x4x4", "expected MxKxN");
  ExpectUsageError("bench --shape 4xx4", "expected MxKxN");
  ExpectUsageError("bench --shape 0x4x4", "--shape '0x4x4': a zero dimension");
  ExpectUsageError("bench --shape 4x4x4:tc", "expected MxKxN");
  ExpectUsageError("bench --shape 4x4x4:ta:ta", ":ta given twice");
  ExpectUsageError("bench --shape 70000x4x4", "a dimension above 65535");
  ExpectUsageError("bench --shape 65535x65535x65535", "the limit is 2.00 GiB");
  ExpectUsageError("bench --shape 0x10x4x4", "expected MxKxN");
  ExpectUsageError("bench --shape", "--shape needs a value");
  ExpectUsageError("bench --shape 4x4x4 8x8x8", "unexpected argument '8x8x8'");
  ExpectUsageError("bench --mem 100:32", "--mem '100:32': expected LATENCY:BYTES_PER_CYCLE");
  ExpectUsageError("bench --mem 100:x:8", "expected LATENCY");
  ExpectUsageError("bench --mem 100:0:8", "bytes per cycle must be in [1, 4096], got 0");
  ExpectUsageError("bench --mem 100:32:8 --mem-latency 5", "--mem excludes --mem-latency");
  ExpectUsageError("bench --quick --shape 4x4x4", "--shape excludes --quick");
  ExpectUsageError("bench --json " + TempPath("no_dir/b.json"), "no such directory");
  ExpectUsageError("bench --plot " + std::string(MXU_CLI_TMPDIR), "it is a directory");
  ExpectUsageError("bench --json a.json --json b.json", "--json given twice");
  ExpectUsageError("bench --check --check", "--check given twice");
  ExpectUsageError("bench --backend fpga", "unknown backend 'fpga'");
}

// A device error in a memory setting's run (its own process) is the command's: one line, exit 1.
TEST(MxuBenchCli, AFailedRunIsOneLineAndExitOne) {
  const CliResult r = RunMxu("bench --shape 64x64x64 --watchdog 100");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("mxu bench: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("watchdog"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(MxuBenchCli, HelpListsTheOptions) {
  const CliResult r = RunMxu("bench --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--shape MxKxN[:ta][:tb][:int8]", "--mem LAT:BYTES:INFLIGHT",
                             "--quick", "--check", "--json FILE.json", "--plot FILE.png", "--seed",
                             "--mem-latency N in [0, 100000] (default 100)", "--backend"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option << "\n" << r.out;
  }
  EXPECT_NE(RunMxu("help").out.find("--shape"), std::string::npos);
}

}  // namespace
}  // namespace mxu::host
