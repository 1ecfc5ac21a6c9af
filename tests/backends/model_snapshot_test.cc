// The model backend's counters and results, held still: every counter (CYCLES and the stall
// estimates included) and a digest of every output byte of the agreement test's random programs
// and of a set of driver GEMMs, on the model of three devices, against the snapshot in
// tests/backends/model_snapshot.txt. Issue 68 rewrites the model's engine (time that jumps to the
// next event, products at the CPU's vector rate) and must keep each of them exactly; the RTL
// comparison (model_agreement_test) holds CYCLES only to a tolerance, this holds it to the cycle.
// A change meant to move the model's timing re-records the file with MXU_RECORD_MODEL_SNAPSHOT=1
// (docs/testing.md, "The model's snapshot") and says so in its commit.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <systemc>
#include <vector>

#include "backends/device_factory.h"
#include "common/csr_map.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "golden/float_vectors.h"
#include "tests/backends/program_harness.h"
#include "tests/backends/random_program.h"
#include "tests/backends/random_program_suites.h"
#include "tests/driver/random_gemm.h"

namespace mxu {
namespace {

using golden::BitSource;

const char kSnapshotPath[] = MXU_SOURCE_DIR "/tests/backends/model_snapshot.txt";

// The devices: the default one, the CI's second (8 x 4, flush, a deeper PE) and TPU size, where
// short and narrow tiles matter most (issue 66).
const char* const kDevices[] = {"16x16", "8x4-flush:ub=1024:acc=256:pe=3:bus=64",
                                "128x128:bus=512"};

// FNV-1a, 64 bits: a digest of bytes, enough to tell that any of them moved.
struct Digest {
  uint64_t h = 0xcbf29ce484222325ull;
  void Add(const void* data, size_t bytes) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  }
  std::string Hex() const {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
  }
};

// One case's line: its cycles in the clear (what a reader of a diff wants first) and a digest of
// every counter and output byte.
std::string Line(const std::array<uint64_t, csr::kNumCounters>& counters,
                 const std::vector<uint8_t>& output) {
  Digest d;
  d.Add(counters.data(), sizeof counters);
  d.Add(output.data(), output.size());
  return "cycles=" + std::to_string(counters[static_cast<uint32_t>(csr::Counter::kCycles)]) +
         " digest=" + d.Hex();
}

std::unique_ptr<driver::Device> OpenModel(const std::string& spec) {
  return backends::OpenDevice({"model", MemoryTiming(), spec});
}

// The agreement test's legal random programs (every suite) on one device's model.
void RunRandomPrograms(const std::string& spec, std::map<std::string, std::string>& lines) {
  const std::unique_ptr<driver::Device> device = OpenModel(spec);
  driver::Device& model = *device;
  const driver::DeviceConfig config = driver::ReadDeviceConfig(model);
  const testing::RandomProgramSpace space;
  for (const testing::LegalProgramSuite& suite : testing::kLegalProgramSuites) {
    BitSource bits(suite.first_seed);
    std::vector<uint8_t> input(space.input_bytes);
    const bool near_zero = suite.data == testing::LegalProgramSuite::Data::kNearZero;
    if (near_zero) {
      for (size_t i = 0; i + 1 < input.size(); i += 2) {
        const uint16_t v = testing::NearZeroBf16(bits.Below(1000));
        input[i] = static_cast<uint8_t>(v), input[i + 1] = static_cast<uint8_t>(v >> 8);
      }
    } else {
      for (auto& x : input) x = static_cast<uint8_t>(testing::RandomOperand(bits));
    }
    model.WriteMemory(space.input, input.data(), input.size());
    const std::vector<uint8_t> zeros(space.output_bytes, 0);
    for (int i = 0; i < suite.count; ++i) {
      const uint64_t seed = suite.first_seed + i;
      testing::RandomProgramSpace program_space = testing::SpaceOf(
          suite, seed, static_cast<int>(config.ub_depth), static_cast<int>(config.acc_depth));
      program_space.rows = static_cast<int>(config.rows);
      program_space.cols = static_cast<int>(config.cols);
      program_space.ub_lanes = static_cast<int>(config.ub_lanes);
      const std::vector<isa::Instruction> program = testing::RandomProgram(seed, program_space);
      model.WriteMemory(space.output, zeros.data(), zeros.size());
      const testing::Outcome out = testing::RunProgram(model, program);
      std::vector<uint8_t> output(zeros.size());
      model.ReadMemory(space.output, output.data(), output.size());
      const std::string name = spec + " " + suite.name + "/" + std::to_string(seed);
      ASSERT_TRUE(out.completed) << name << ": the watchdog expired";
      lines[name] = (out.done ? "done " : "error=" + std::to_string(out.code) + " ") +
                    Line(out.counters, output);
    }
  }
}

struct Shape {
  int m, k, n;
  bool ta, tb, relu;
  int init;  // 0 none, 1 bias, 2 C0
  bool bf16;
};

// Driver GEMMs: square, short K, narrow N, odd edges, transposed, bias and C0, bf16 output; and
// one batch of small products (the transformer's bmm).
void RunGemms(const std::string& spec, std::map<std::string, std::string>& lines) {
  const Shape shapes[] = {
      {64, 64, 64, false, false, false, 0, false}, {256, 4, 256, false, false, false, 0, false},
      {256, 256, 4, false, false, true, 1, false}, {10, 16, 10, false, false, false, 0, false},
      {50, 47, 33, true, true, true, 2, true},     {300, 130, 70, false, true, false, 1, true},
      {17, 1, 5, false, false, false, 2, false},   {129, 200, 131, true, false, true, 0, false},
  };
  const std::unique_ptr<driver::Device> device = OpenModel(spec);
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*device);
  auto bytes_of = [](const driver::GemmResult& r) {
    std::vector<uint8_t> out;
    const auto* f = reinterpret_cast<const uint8_t*>(r.c.data.data());
    out.insert(out.end(), f, f + r.c.data.size() * 4);
    const auto* h = reinterpret_cast<const uint8_t*>(r.c_bf16.data.data());
    out.insert(out.end(), h, h + r.c_bf16.data.size() * 2);
    return out;
  };
  for (const Shape& s : shapes) {
    BitSource bits(static_cast<uint64_t>(s.m * 10007 + s.k * 101 + s.n));
    const testing::GemmOptions options{
        s.ta, s.tb, s.relu, s.init, s.bf16 ? driver::OutputType::kBf16 : driver::OutputType::kFp32};
    const testing::RandomGemm gemm(s.m, s.k, s.n, options, bits, /*c0_scale=*/1.0f);
    const driver::GemmResult r = driver::Gemm(*device, config, gemm.request, 50'000'000);
    std::ostringstream name;
    name << spec << " gemm " << s.m << "x" << s.k << "x" << s.n << (s.ta ? ":ta" : "")
         << (s.tb ? ":tb" : "") << (s.relu ? ":relu" : "") << ":init" << s.init
         << (s.bf16 ? ":bf16" : "");
    lines[name.str()] = Line(r.stats.counters, bytes_of(r));
  }
  BitSource bits(66);
  std::vector<std::unique_ptr<testing::RandomGemm>> batch;
  std::vector<driver::GemmRequest> requests;
  for (int i = 0; i < 8; ++i) {
    batch.push_back(
        std::make_unique<testing::RandomGemm>(10, 16, 10, testing::GemmOptions{}, bits, 1.0f));
    requests.push_back(batch.back()->request);
  }
  const std::vector<driver::GemmResult> results =
      driver::GemmBatch(*device, config, requests, 50'000'000);
  std::vector<uint8_t> all;
  for (const driver::GemmResult& r : results) {
    const std::vector<uint8_t> b = bytes_of(r);
    all.insert(all.end(), b.begin(), b.end());
  }
  lines[spec + " batch 8 x 10x16x10"] = Line(results.at(0).stats.counters, all);
}

std::map<std::string, std::string> ReadSnapshot() {
  std::map<std::string, std::string> lines;
  std::ifstream in(kSnapshotPath);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t bar = line.find(" | ");
    if (bar != std::string::npos) lines[line.substr(0, bar)] = line.substr(bar + 3);
  }
  return lines;
}

// Whole or not at all: a temporary file renamed over the snapshot.
void WriteSnapshot(const std::map<std::string, std::string>& lines) {
  const std::string tmp = std::string(kSnapshotPath) + ".tmp";
  {
    std::ofstream out(tmp);
    out << "# The model backend's counters and outputs (tests/backends/model_snapshot_test.cc).\n"
        << "# Re-recorded with MXU_RECORD_MODEL_SNAPSHOT=1 only where a change means to move "
           "them.\n";
    for (const auto& [name, value] : lines) out << name << " | " << value << "\n";
    ASSERT_TRUE(out.good()) << "cannot write " << tmp;
  }
  ASSERT_EQ(std::rename(tmp.c_str(), kSnapshotPath), 0) << "cannot replace " << kSnapshotPath;
}

TEST(ModelSnapshot, EveryCounterAndOutputIsAsRecorded) {
  std::map<std::string, std::string> now;
  for (const char* spec : kDevices) {
    // The random programs are written for arrays up to 32 lanes (their operand space).
    if (std::string(spec).rfind("128x128", 0) != 0) {
      ASSERT_NO_FATAL_FAILURE(RunRandomPrograms(spec, now));
    }
    RunGemms(spec, now);
  }
  if (std::getenv("MXU_RECORD_MODEL_SNAPSHOT") != nullptr) {
    WriteSnapshot(now);
    std::printf("recorded %zu cases in %s\n", now.size(), kSnapshotPath);
    return;
  }
  const std::map<std::string, std::string> recorded = ReadSnapshot();
  ASSERT_FALSE(recorded.empty()) << kSnapshotPath << " is missing or empty";
  int moved = 0;
  for (const auto& [name, value] : now) {
    const auto it = recorded.find(name);
    if (it == recorded.end()) {
      ADD_FAILURE() << name << ": not in the snapshot";
    } else if (it->second != value && ++moved <= 20) {
      ADD_FAILURE() << name << ": recorded " << it->second << ", now " << value;
    }
  }
  EXPECT_EQ(moved, 0) << "cases whose counters or output moved";
  EXPECT_EQ(now.size(), recorded.size()) << "cases run against cases recorded";
}

}  // namespace
}  // namespace mxu

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
