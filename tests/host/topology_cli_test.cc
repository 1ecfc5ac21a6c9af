// `mxu bench --topology FILE.csv`: SCALE-Sim's two formats read (tests/host/topology/), each layer
// run as its GEMM on the model backend, the `layers` and `totals` of the JSON agreeing with the
// layer's numbers and the rows; and every kind of bad file refused with one line naming the file,
// the line and the field, exit code 2, before anything runs. --sweep and --roofline on the same
// small files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/host/mxu_cli.h"

namespace mxu::host {
namespace {

using nlohmann::json;

std::string Data(const std::string& name) {
  return std::string(MXU_SOURCE_DIR) + "/tests/host/topology/" + name;
}

// Every layer entry against its row: the same GEMM and counters, utilization by its definition.
void ExpectLayersMatchRows(const json& j) {
  ASSERT_EQ(j["layers"].size(), j["rows"].size());
  const uint64_t pes =
      j["device"]["array_rows"].get<uint64_t>() * j["device"]["array_cols"].get<uint64_t>();
  uint64_t macs = 0, cycles = 0, read = 0;
  for (size_t i = 0; i < j["layers"].size(); ++i) {
    const json &l = j["layers"][i], &r = j["rows"][i];
    SCOPED_TRACE(l.dump());
    EXPECT_EQ(l["name"], r["name"]);
    for (const char* key : {"m", "k", "n", "macs", "cycles", "dma_read_bytes", "dma_write_bytes",
                            "stall_dependency", "stall_weights", "stall_fetch", "stall_memory"}) {
      EXPECT_EQ(l[key], r[key]) << key;
    }
    EXPECT_EQ(l["macs"].get<uint64_t>(),
              l["m"].get<uint64_t>() * l["k"].get<uint64_t>() * l["n"].get<uint64_t>());
    EXPECT_DOUBLE_EQ(l["utilization"].get<double>(),
                     double(l["macs"].get<uint64_t>()) / double(pes * l["cycles"].get<uint64_t>()));
    macs += l["macs"].get<uint64_t>();
    cycles += l["cycles"].get<uint64_t>();
    read += l["dma_read_bytes"].get<uint64_t>();
  }
  const json& t = j["totals"];
  EXPECT_EQ(t["layers"], j["layers"].size());
  EXPECT_EQ(t["macs"], macs);
  EXPECT_EQ(t["cycles"], cycles);
  EXPECT_EQ(t["dma_read_bytes"], read);
  EXPECT_DOUBLE_EQ(t["utilization"].get<double>(), double(macs) / double(pes * cycles));
}

TEST(MxuTopologyCli, ConvolutionLayersRunAsTheirIm2colGemms) {
  const std::string json_path = TempPath("conv.json");
  const CliResult r =
      RunMxu("bench --backend model --topology " + Data("conv_small.csv") + " --json " + json_path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("network " + Data("conv_small.csv") + " (3 convolution layers)"),
            std::string::npos)
      << r.out;
  const json j = json::parse(ReadFile(json_path));
  EXPECT_EQ(j["topology"]["format"], "conv");
  ASSERT_EQ(j["layers"].size(), 3u);
  // 10x10, 3x3 filter, stride 1: 8x8 outputs; 9x7, 3x3, stride 2: 4x3; 4x4 pointwise: 16.
  const uint64_t want[3][3] = {{64, 36, 8}, {12, 72, 16}, {16, 16, 24}};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(j["layers"][i]["m"], want[i][0]) << i;
    EXPECT_EQ(j["layers"][i]["k"], want[i][1]) << i;
    EXPECT_EQ(j["layers"][i]["n"], want[i][2]) << i;
  }
  EXPECT_EQ(j["layers"][1]["name"], "conv_s2");
  EXPECT_EQ(j["layers"][1]["line"], 3);
  EXPECT_EQ(j["layers"][1]["stride"], 2);
  ExpectLayersMatchRows(j);
}

// Issue 42: --jobs runs the layers in parallel processes, each on a device of its own, on the RTL:
// the same rows in the same order (every counter, cycle and bit, the wall times aside) as one
// process, the table printed in the file's order, and the summary naming the jobs.
TEST(MxuTopologyCli, JobsRunTheLayersInParallelWithTheSameRows) {
  const std::string one = TempPath("jobs1.json"), three = TempPath("jobs3.json");
  const std::string common = "bench --backend rtl --check --topology " + Data("conv_small.csv");
  const CliResult r1 = RunMxu(common + " --json " + one);
  ASSERT_EQ(r1.exit_code, 0) << r1.out << r1.err;
  const CliResult r3 = RunMxu(common + " --jobs 3 --json " + three);
  ASSERT_EQ(r3.exit_code, 0) << r3.out << r3.err;
  json j1 = json::parse(ReadFile(one)), j3 = json::parse(ReadFile(three));
  ASSERT_EQ(j1["rows"].size(), 3u);
  ASSERT_EQ(j3["rows"].size(), 3u);
  for (json* j : {&j1, &j3}) {
    for (json& row : (*j)["rows"]) row.erase("wall_seconds"), row.erase("sim_cycles_per_second");
  }
  EXPECT_EQ(j1["rows"], j3["rows"]);
  EXPECT_EQ(j3["summary"]["mismatches"], 0);
  EXPECT_GT(j3["summary"]["checked"].get<uint64_t>(), 0u);
  EXPECT_EQ(j1["summary"]["jobs"], 1);
  EXPECT_EQ(j3["summary"]["jobs"], 3);
  EXPECT_EQ(j1["device"], j3["device"]);
  // The table's rows in the file's order, then the elapsed line of the jobs.
  const size_t a = r3.out.find("conv_a"), s2 = r3.out.find("conv_s2"),
               pw = r3.out.find("pointwise");
  ASSERT_NE(a, std::string::npos) << r3.out;
  EXPECT_LT(a, s2);
  EXPECT_LT(s2, pw);
  EXPECT_NE(r3.out.find("memory: "), std::string::npos) << r3.out;
  EXPECT_NE(r3.out.find("elapsed: "), std::string::npos) << r3.out;
  EXPECT_NE(r3.out.find(" on 3 jobs"), std::string::npos) << r3.out;
  ExpectLayersMatchRows(j3);
}

TEST(MxuTopologyCli, GemmLayersAreLayerMNK) {
  const std::string json_path = TempPath("gemm.json");
  const CliResult r =
      RunMxu("bench --backend model --topology " + Data("gemm_small.csv") + " --json " + json_path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(ReadFile(json_path));
  EXPECT_EQ(j["topology"]["format"], "gemm");
  ASSERT_EQ(j["layers"].size(), 2u);
  // "Layer, M, N, K": qkv is 16 x 32 (K) x 48 (N).
  EXPECT_EQ(j["layers"][0]["m"], 16);
  EXPECT_EQ(j["layers"][0]["k"], 32);
  EXPECT_EQ(j["layers"][0]["n"], 48);
  EXPECT_EQ(j["layers"][0].contains("stride"), false);
  ExpectLayersMatchRows(j);
}

// Issue 44: a long layer name shows whole in the table, and the columns still line up: the
// header's MxKxN starts where every row's shape does.
TEST(MxuTopologyCli, LongLayerNamesShowWholeAndAligned) {
  const std::string csv = TempPath("long_names.csv");
  const std::string long_name = "encoder_block_11_attention_output_projection";
  {
    std::ofstream out(csv);
    out << "Layer, M, N, K,\nqkv, 16, 48, 32,\n" << long_name << ", 1024, 32, 32,\n";
  }
  const CliResult r = RunMxu("bench --backend model --topology " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::istringstream lines(r.out);
  std::string line;
  size_t shape_column = std::string::npos, rows = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("name ", 0) == 0) {
      shape_column = line.find("MxKxN");
    } else if (line.rfind("qkv ", 0) == 0 || line.rfind(long_name + " ", 0) == 0) {
      ++rows;
      EXPECT_EQ(line.find(line.rfind("qkv", 0) == 0 ? "16x32x48" : "1024x32x32"), shape_column)
          << r.out;
    }
  }
  EXPECT_NE(shape_column, std::string::npos) << r.out;
  EXPECT_EQ(rows, 2u) << r.out;
  EXPECT_EQ(r.out.find('~'), std::string::npos) << r.out;
}

// --sweep: every device spec on the model, a summary entry per device whose sums are its rows';
// --roofline: a PNG.
TEST(MxuTopologyCli, SweepSummarizesEveryDeviceAndDrawsTheRoofline) {
  const std::string json_path = TempPath("sweep.json"), png = TempPath("roofline.png");
  const CliResult r = RunMxu("bench --topology " + Data("gemm_small.csv") +
                             " --sweep 16x16,8x8:bus=16 --clock-mhz 500 --json " + json_path +
                             " --roofline " + png);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("sweep summary (time at 500 MHz"), std::string::npos) << r.out;
  // Issue 58: a summary line per device; none adding the cycles of different arrays.
  EXPECT_NE(r.out.find("summary: 2 GEMMs x 1 memory setting on 16x16: "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("summary: 2 GEMMs x 1 memory setting on 8x8:bus=16: "), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("summary: 2 GEMMs x 1 memory setting: "), std::string::npos) << r.out;
  const json j = json::parse(ReadFile(json_path));
  ASSERT_EQ(j["rows"].size(), 4u);
  ASSERT_EQ(j["sweep"].size(), 2u);
  EXPECT_EQ(j["totals"], j["sweep"]);
  EXPECT_EQ(j["memory_settings"][0]["bytes_per_cycle"], "port");
  const char* specs[2] = {"16x16", "8x8:bus=16"};
  for (size_t p = 0; p < 2; ++p) {
    const json& s = j["sweep"][p];
    EXPECT_EQ(s["device_spec"], specs[p]);
    EXPECT_EQ(s["array_rows"], p == 0 ? 16 : 8);
    EXPECT_EQ(s["bus_bytes"], p == 0 ? 32 : 16);
    // Each point's memory as wide as its port (issue 39): 16 bytes behind the 16-byte port.
    EXPECT_EQ(s["memory_bytes_per_cycle"], p == 0 ? 32 : 16);
    EXPECT_EQ(s["memory_in_flight"], 8);
    uint64_t cycles = 0, macs = 0, bytes = 0;
    for (const json& row : j["rows"]) {
      if (row["point"] != p) continue;
      EXPECT_EQ(row["device_spec"], specs[p]);
      cycles += row["cycles"].get<uint64_t>();
      macs += row["macs"].get<uint64_t>();
      bytes += row["dma_read_bytes"].get<uint64_t>() + row["dma_write_bytes"].get<uint64_t>();
    }
    EXPECT_EQ(s["gemms"], 2);
    EXPECT_EQ(s["cycles"], cycles);
    EXPECT_EQ(s["dma_bytes"], bytes);
    const double pes = s["array_rows"].get<double>() * s["array_cols"].get<double>();
    EXPECT_DOUBLE_EQ(s["utilization"].get<double>(), double(macs) / (pes * double(cycles)));
    EXPECT_DOUBLE_EQ(s["milliseconds"].get<double>(), double(cycles) / 500e3);
  }
  EXPECT_EQ(ReadFile(png).rfind("\x89PNG\r\n\x1a\n", 0), 0u);
  // Issue 58: the title names the network's file, not where it lies: the same file by another
  // path draws the same bytes.
  const std::string copy_dir = TempPath("elsewhere");
  ASSERT_EQ(RunShell("mkdir -p " + copy_dir + " && cp " + Data("gemm_small.csv") + " " + copy_dir)
                .exit_code,
            0);
  const std::string moved = TempPath("roofline_moved.png");
  ASSERT_EQ(RunMxu("bench --topology " + copy_dir + "/gemm_small.csv --sweep 16x16,8x8:bus=16 " +
                   "--clock-mhz 500 --roofline " + moved)
                .exit_code,
            0);
  EXPECT_EQ(ReadFile(moved), ReadFile(png));
}

// Issue 70: without --clock-mhz the sweep's time is at the Fmax the PPA measured, read here from
// the 180 nm table itself; with --energy --energy-node N, at that node's.
TEST(MxuTopologyCli, SweepTimeIsAtThePpasFmaxByDefault) {
  for (const int node : {0, 7}) {
    SCOPED_TRACE(node);
    const std::string json_path = TempPath("sweep_clock.json");
    const std::string energy = node ? " --energy --energy-node " + std::to_string(node) : "";
    const CliResult r = RunMxu("bench --topology " + Data("gemm_small.csv") +
                               " --sweep 16x16,8x8:bus=16" + energy + " --json " + json_path);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const json table = json::parse(ReadFile(std::string(MXU_SOURCE_DIR) + "/energy/" +
                                            std::to_string(node ? node : 180) + "nm.json"));
    const double mhz = table["clock_mhz"].get<double>();
    const json j = json::parse(ReadFile(json_path));
    for (const json& s : j["sweep"]) {
      EXPECT_EQ(s["clock_mhz"].get<double>(), mhz);  // as the table has it, not a float32's
      EXPECT_NEAR(s["milliseconds"].get<double>(), s["cycles"].get<double>() / (mhz * 1e3),
                  1e-6 * s["milliseconds"].get<double>());
    }
  }
}

// --rtl-sample: GEMMs spread through the list run on the RTL of the same device too; the model's
// cycles, the rows' own, lie within the agreement the model backend keeps (2%).
TEST(MxuTopologyCli, RtlSampleComparesTheModelWithTheRtl) {
  const std::string json_path = TempPath("rtl_sample.json");
  const CliResult r = RunMxu("bench --backend model --topology " + Data("conv_small.csv") +
                             " --rtl-sample 2 --json " + json_path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("RTL sample: 2 GEMMs"), std::string::npos) << r.out;
  const json j = json::parse(ReadFile(json_path));
  const json& sample = j["rtl_sample"];
  ASSERT_EQ(sample["gemms"].size(), 2u);
  const size_t layers = j["rows"].size();
  uint64_t model = 0, rtl = 0;
  for (size_t s = 0; s < 2; ++s) {
    const json& g = sample["gemms"][s];
    SCOPED_TRACE(g.dump());
    EXPECT_EQ(g["index"], (2 * s + 1) * layers / 4);  // the middles of two halves
    const json& row = j["rows"][g["index"].get<size_t>()];
    EXPECT_EQ(g["name"], row["name"]);
    EXPECT_EQ(g["model_cycles"], row["cycles"]);
    EXPECT_GT(g["rtl_cycles"].get<uint64_t>(), 0u);
    EXPECT_LE(std::fabs(g["difference"].get<double>()), 0.02);
    model += g["model_cycles"].get<uint64_t>();
    rtl += g["rtl_cycles"].get<uint64_t>();
  }
  EXPECT_EQ(sample["model_cycles"], model);
  EXPECT_EQ(sample["rtl_cycles"], rtl);
  ExpectUsageError("bench --backend rtl --shape 32x32x32 --rtl-sample 1",
                   "--rtl-sample checks the model backend against the RTL");
  ExpectUsageError("bench --sweep 8x8 --shape 32x32x32 --rtl-sample 1", "--rtl-sample");
  ExpectUsageError("bench --backend model --shape 32x32x32 --rtl-sample 0", "--rtl-sample");
}

TEST(MxuTopologyCli, BadSweepsGiveOneLine) {
  ExpectUsageError("bench --shape 32x32x32 --sweep 16x16,0x4", "--sweep '0x4': ");
  ExpectUsageError("bench --shape 32x32x32 --sweep 16x16,", "an empty device spec");
  ExpectUsageError("bench --shape 32x32x32 --sweep 16x16,16x16", "'16x16' given twice");
  ExpectUsageError("bench --shape 32x32x32 --sweep 16x16 --backend rtl",
                   "--sweep runs on the model backend");
  ExpectUsageError("bench --shape 32x32x32 --sweep 16x16 --device 16x16", "excludes");
  ExpectUsageError("bench --shape 32x32x32 --clock-mhz 0", "--clock-mhz");
}

// A bad file: exit 2, one line with `fragment`, and nothing run (no table on stdout).
void ExpectBadFile(const std::string& name, const std::string& text, const std::string& fragment) {
  const std::string path = TempPath(name);
  WriteBytes(path, text);
  ExpectUsageError("bench --backend model --topology " + path, "--topology " + path + fragment);
  EXPECT_EQ(RunMxu("bench --backend model --topology " + path).out, "") << name;
}

constexpr char kConvHeader[] =
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
    "Strides,\n";

TEST(MxuTopologyCli, BadFilesGiveFileLineAndField) {
  ExpectBadFile("empty.csv", "", ": empty file");
  ExpectBadFile("blank.csv", "\n  \n", ": empty file");
  ExpectBadFile("header_only.csv", kConvHeader, ": no layers");
  ExpectBadFile("unknown.csv", "Name, H, W\nx, 1, 2\n", ":1: header: expected SCALE-Sim's");
  ExpectBadFile("no_stride_column.csv",
                "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                "Num Filter\nc, 8, 8, 3, 3, 1, 1\n",
                ":1: header: missing column 'Strides'");
  ExpectBadFile("swapped.csv", "Layer, M, K, N\ng, 1, 2, 3\n",
                ":1: header: column 3 must be 'N', got 'K'");
  ExpectBadFile("missing_field.csv",
                std::string(kConvHeader) + "c1, 8, 8, 3, 3, 1, 1, 1\nc2, 8, 8\n",
                ":3: missing field 'Filter Height'");
  // Issue 58, item 3: a row (or header) longer than its format is refused, not cut; the
  // format's own trailing comma stays accepted.
  ExpectBadFile("extra_gemm_fields.csv", "Layer, M, N, K,\nc1, 10, 10, 3, 3, 4, 8, 1,\n",
                ":2: 8 fields, the GEMM format has 4 ('Layer' to 'K')");
  ExpectBadFile("extra_conv_field.csv", std::string(kConvHeader) + "c1, 8, 8, 3, 3, 1, 1, 1, 9\n",
                ":2: 9 fields, the convolution format has 8 ('Layer name' to 'Strides')");
  ExpectBadFile("two_trailing_commas.csv", "Layer, M, N, K,\ng, 16, 16, 16,,\n",
                ":2: 5 fields, the GEMM format has 4");
  ExpectBadFile("extra_header.csv", "Layer, M, N, K, Extra\ng, 16, 16, 16\n",
                ":1: header: 5 fields, the GEMM format has 4");
  ExpectBadFile("not_integer.csv", std::string(kConvHeader) + "c1, 8, 8.5, 3, 3, 1, 1, 1\n",
                ":2: 'IFMAP Width' is not an integer: '8.5'");
  ExpectBadFile("word.csv", "Layer, M, N, K\ng, 16, sixteen, 4\n",
                ":2: 'N' is not an integer: 'sixteen'");
  ExpectBadFile("zero.csv", std::string(kConvHeader) + "c1, 8, 8, 3, 3, 0, 1, 1\n",
                ":2: 'Channels' must be at least 1, got 0");
  ExpectBadFile("negative.csv", "Layer, M, N, K\ng, 16, 16, -4\n",
                ":2: 'K' must be at least 1, got -4");
  ExpectBadFile("zero_stride.csv", std::string(kConvHeader) + "c1, 8, 8, 3, 3, 1, 1, 0\n",
                ":2: 'Strides' must be at least 1, got 0");
  ExpectBadFile("filter_too_big.csv", std::string(kConvHeader) + "c1, 8, 5, 3, 7, 1, 1, 1\n",
                ":2: 'Filter Width' 7 exceeds 'IFMAP Width' 5");
  ExpectBadFile("dimension.csv", "Layer, M, N, K\ng, 70000, 16, 16\n",
                ":2: M = 70000: above the driver's limit of 65535");
  ExpectBadFile("conv_m.csv", std::string(kConvHeader) + "c1, 300, 300, 1, 1, 3, 8, 1\n",
                ":2: M (output height x width) = 90000: above the driver's limit");
  ExpectBadFile("bytes.csv", "Layer, M, N, K\ng, 65535, 65535, 65535\n",
                ":2: GEMM 65535x65535x65535: A, B and C exceed 2 GiB");
  ExpectBadFile("huge.csv", "Layer, M, N, K\ng, 16, 16, 99999999999\n", ":2: 'K' is 99999999999");
  ExpectBadFile("no_name.csv", "Layer, M, N, K\n, 16, 16, 16\n", ":2: 'Layer' is empty");
  ExpectUsageError("bench --topology " + TempPath("absent.csv"), "cannot open for reading");
  ExpectUsageError("bench --topology " + Data("gemm_small.csv") + " --shape 4x4x4", "excludes");
  ExpectUsageError(
      "bench --topology " + Data("gemm_small.csv") + " --json " + Data("gemm_small.csv"),
      "would overwrite the input --topology");
}

// Issue 43, defects 6 and 7: what is not a topology file is refused on one line, exit 2, before
// it is opened (a FIFO would wait for a writer, /dev/zero never ends); a binary file's bytes are
// escaped in the message, never echoed raw.
TEST(MxuTopologyCli, SpecialAndBinaryFilesAreRefusedOnOneLine) {
  const std::string fifo = TempPath("topology.fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, std::string("/dev/zero")}) {
    const CliResult r = RunShell("timeout 30 " + std::string(MXU_BINARY) +
                                 " bench --backend model --topology " + path);
    EXPECT_EQ(r.exit_code, 2) << path << "\n" << r.err;
    EXPECT_NE(r.err.find("--topology " + path + ": not a regular file"), std::string::npos)
        << r.err;
  }
  ExpectUsageError("bench --backend model --topology " + std::string(MXU_CLI_TMPDIR),
                   ": a directory, not a topology file");
  ExpectBadFile("binary.csv", std::string("\x01\x02\r\x0b\x0c\x1b[31m,\0\x7f\n\x0b\n", 16),
                ":1: header: expected SCALE-Sim's");
  const CliResult binary = RunMxu("bench --backend model --topology " + TempPath("binary.csv"));
  EXPECT_NE(binary.err.find("got '\\x01\\x02\\x0D\\x0B\\x0C\\x1B[31m'"), std::string::npos)
      << binary.err;
  ExpectBadFile("control_name.csv", "Layer, M, N, K\nab\x1b[2Jcd, 16, 16, 16\n",
                ":2: 'Layer' 'ab\\x1B[2Jcd' holds a control byte");
  // A regular file far larger than any topology is not read whole.
  const std::string big = TempPath("big.csv");
  WriteBytes(big, "Layer, M, N, K\n");
  ASSERT_EQ(truncate(big.c_str(), off_t{1} << 30), 0);
  ExpectUsageError("bench --backend model --topology " + big, "more than a topology's limit");
  std::remove(big.c_str());
}

}  // namespace
}  // namespace mxu::host
