// The model backend against the RTL, in one process (the RTL device is built once, from
// sc_main): driver GEMMs over the option combinations and small raw programs (every instruction
// and error path) run on both; host-memory results must agree bit for bit, the exact counters
// (DMA_READ_BYTES, DMA_WRITE_BYTES, INSTRUCTIONS, ARRAY_BUSY, MACS) exactly, error code, PC and
// address exactly, and CYCLES within kCycleTolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "backends/device_factory.h"
#include "backends/model_device.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "golden/float_vectors.h"
#include "golden/numerics.h"
#include "tests/backends/program_harness.h"
#include "tests/backends/random_program.h"
#include "tests/backends/random_program_suites.h"
#include "tests/driver/random_gemm.h"

namespace mxu {
namespace {

using golden::BitSource;
using isa::Buffer;
using isa::Instruction;
using testing::Outcome;

// The model's CYCLES are held to 2% of the RTL's (measured on these GEMMs and programs: within
// 1.1%; docs/architecture.md, the model backend).
constexpr double kCycleTolerance = 0.02;
// The clock counters (COLUMN_CLOCKS, ACC_CLOCKS, ACTIVATE_CLOCKS, DMA_CLOCKS) the model marks
// from its own events' cycles, so they are held like CYCLES: within kClockTolerance of the
// RTL's, or within kClockSlack cycles for a short program (a few cycles' offset between the
// model's events and the RTL's gates is a large share of a small count).
constexpr double kClockTolerance = 0.03;
constexpr double kClockSlack = 64;
constexpr csr::Counter kClocks[] = {csr::Counter::kColumnClocks, csr::Counter::kAccClocks,
                                    csr::Counter::kActivateClocks, csr::Counter::kDmaClocks};

driver::Device* g_rtl = nullptr;

const csr::Counter kExact[] = {csr::Counter::kDmaReadBytes, csr::Counter::kDmaWriteBytes,
                               csr::Counter::kInstructions, csr::Counter::kArrayBusy,
                               csr::Counter::kMacs};

void ExpectCountersAgree(const std::array<uint64_t, csr::kNumCounters>& rtl,
                         const std::array<uint64_t, csr::kNumCounters>& model,
                         const std::string& what) {
  for (csr::Counter c : kExact) {
    EXPECT_EQ(model[static_cast<int>(c)], rtl[static_cast<int>(c)])
        << what << ": " << csr::CounterName(c);
  }
  const double r = static_cast<double>(rtl[0]), m = static_cast<double>(model[0]);
  EXPECT_LE(std::fabs(m - r), kCycleTolerance * r)
      << what << ": cycles rtl " << r << " model " << m;
  std::printf("%-40s cycles rtl %8.0f model %8.0f (%+.2f%%)\n", what.c_str(), r, m,
              100.0 * (m - r) / r);
  for (csr::Counter c : kClocks) {
    const double rc = static_cast<double>(rtl[static_cast<int>(c)]);
    const double mc = static_cast<double>(model[static_cast<int>(c)]);
    // A column's cycle counts once per column: the slack is in the array's cycles.
    const double per = c == csr::Counter::kColumnClocks
                           ? double(csr::ArrayCols(g_rtl->ReadCsr(csr::kArray)))
                           : 1.0;
    EXPECT_LE(std::fabs(mc - rc), std::max(kClockTolerance * rc, kClockSlack * per))
        << what << ": " << csr::CounterName(c) << " rtl " << rc << " model " << mc;
    std::printf("%-40s %-16s rtl %8.0f model %8.0f (%+.2f%%)\n", "", csr::CounterName(c), rc, mc,
                rc ? 100.0 * (mc - rc) / rc : 0.0);
  }
}

struct Shape {
  int m, k, n;
  bool ta, tb, relu;
  int init;  // 0 none, 1 bias, 2 C0
  bool bf16;
};

std::string Name(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) +
         (s.ta ? " ta" : "") + (s.tb ? " tb" : "") + (s.relu ? " relu" : "") +
         (s.init == 1   ? " bias"
          : s.init == 2 ? " c0"
                        : "") +
         (s.bf16 ? " bf16" : "");
}

TEST(ModelAgreesWithRtl, DriverGemms) {
  const Shape shapes[] = {
      {32, 32, 32, false, false, false, 0, false}, {64, 64, 64, false, false, true, 0, false},
      {64, 2, 32, false, false, true, 1, false},   {64, 32, 3, false, false, false, 1, false},
      {32, 64, 3, true, false, false, 0, false},   {64, 3, 32, false, true, false, 0, false},
      {2, 64, 32, true, false, false, 0, false},   {64, 128, 10, false, false, true, 1, true},
      {64, 10, 128, false, true, false, 0, false}, {50, 47, 33, true, true, true, 2, true},
      {17, 1, 5, false, false, false, 2, false},   {96, 40, 48, false, true, true, 1, true},
  };
  backends::ModelDevice model;
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*g_rtl);
  for (const Shape& s : shapes) {
    BitSource bits(static_cast<uint64_t>(s.m * 10007 + s.k * 101 + s.n));
    const testing::GemmOptions options{
        s.ta, s.tb, s.relu, s.init, s.bf16 ? driver::OutputType::kBf16 : driver::OutputType::kFp32};
    const testing::RandomGemm gemm(s.m, s.k, s.n, options, bits, /*c0_scale=*/1.0f);
    const driver::GemmRequest& request = gemm.request;
    const driver::GemmResult want = driver::Gemm(*g_rtl, config, request, 5'000'000);
    const driver::GemmResult got = driver::Gemm(model, config, request, 5'000'000);
    if (s.bf16) {
      EXPECT_EQ(got.c_bf16.data, want.c_bf16.data) << Name(s);
    } else {
      ASSERT_EQ(got.c.data.size(), want.c.data.size());
      EXPECT_EQ(std::memcmp(got.c.data.data(), want.c.data.data(), want.c.data.size() * 4), 0)
          << Name(s);
    }
    ExpectCountersAgree(want.stats.counters, got.stats.counters, Name(s));
  }
}

// Batches (driver::GemmBatch: one program planned as one stream, results stored together):
// attention-sized products alike, and random mixes of shapes and options, on both.
TEST(ModelAgreesWithRtl, DriverBatches) {
  backends::ModelDevice model;
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*g_rtl);
  BitSource bits(53);
  for (int batch = 0; batch < 6; ++batch) {
    const bool alike = batch < 2;
    const int count = alike ? 24 + 8 * batch : 2 + static_cast<int>(bits.Below(6));
    std::vector<std::unique_ptr<testing::RandomGemm>> gemms;
    std::vector<driver::GemmRequest> requests;
    std::string name = "batch " + std::to_string(batch) + ": " + std::to_string(count) + " x";
    for (int i = 0; i < count; ++i) {
      const int m = alike ? 10 : 1 + static_cast<int>(bits.Below(60));
      const int k = alike ? 16 - 6 * batch : 1 + static_cast<int>(bits.Below(60));
      const int n = alike ? 10 + 6 * batch : 1 + static_cast<int>(bits.Below(60));
      const testing::GemmOptions o{
          !alike && bits.Below(2) == 1, !alike && bits.Below(2) == 1, bits.Below(2) == 1,
          alike ? 0 : static_cast<int>(bits.Below(3)),
          !alike && bits.Below(4) == 0 ? driver::OutputType::kBf16 : driver::OutputType::kFp32};
      gemms.push_back(std::make_unique<testing::RandomGemm>(m, k, n, o, bits, 1.0f));
      requests.push_back(gemms.back()->request);
      if (i < 3)
        name += " " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
    }
    const auto want = driver::GemmBatch(*g_rtl, config, requests, 5'000'000);
    const auto got = driver::GemmBatch(model, config, requests, 5'000'000);
    for (int i = 0; i < count; ++i) {
      EXPECT_EQ(got[i].c_bf16.data, want[i].c_bf16.data) << name << ", GEMM " << i;
      ASSERT_EQ(got[i].c.data.size(), want[i].c.data.size());
      EXPECT_EQ(std::memcmp(got[i].c.data.data(), want[i].c.data.data(), want[i].c.data.size() * 4),
                0)
          << name << ", GEMM " << i;
    }
    ExpectCountersAgree(want[0].stats.counters, got[0].stats.counters, name);
  }
}

// A device error in a batch names the element whose instruction failed: a read error injected
// over element 2's operands (the driver lays each element's A and B on pages of their own from
// 0x100000, results after them).
TEST(ModelAgreesWithRtl, ABatchsDeviceErrorNamesTheElement) {
  backends::ModelDevice model;
  const driver::DeviceConfig config = driver::ReadDeviceConfig(model);
  BitSource bits(54);
  std::vector<std::unique_ptr<testing::RandomGemm>> gemms;
  std::vector<driver::GemmRequest> requests;
  for (int i = 0; i < 4; ++i) {
    gemms.push_back(std::make_unique<testing::RandomGemm>(
        10, 16, 10, testing::GemmOptions{false, false, false, 0, driver::OutputType::kFp32}, bits,
        1.0f));
    requests.push_back(gemms.back()->request);
  }
  model.memory().InjectError(0x100000 + 4 * 0x1000, 2 * 0x1000);
  try {
    driver::GemmBatch(model, config, requests, 1'000'000);
    ADD_FAILURE() << "a batch over an injected memory error ran";
  } catch (const driver::DeviceError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("batch element 2: device error ", 0), 0u) << e.what();
  }
}

// Raw programs: every instruction kind, odd alignments and strides, and the error paths, with
// host memory compared over the regions they write.
struct Program {
  std::string name;
  std::vector<Instruction> code;
  uint64_t out_addr = 0, out_bytes = 0;
  uint64_t error_inject = 0;  // an injected error range [error_inject, +64) when nonzero
  uint32_t count = UINT32_MAX;
  uint64_t addr = testing::kProgramAddr;
};

std::vector<Program> Programs() {
  std::vector<Program> p;
  p.push_back({"halt", {isa::Halt()}});
  p.push_back({"ub round trip unaligned",
               {isa::Load(Buffer::kUb, 37, 16, 11, 0x20006, 21), isa::Sync(),
                isa::Store(Buffer::kUb, 37, 16, 11, 0x40002, 25), isa::Halt()},
               0x40002,
               37 * 25 * 2});
  p.push_back({"acc packed relu",
               {isa::Load(Buffer::kAcc, 300, 16, 0, 0x21000 - 224, 16), isa::Sync(),
                isa::Store(Buffer::kAcc, 300, 16, 0, 0x43000 - 160, 16, true), isa::Halt()},
               0x43000 - 160,
               300 * 64});
  p.push_back({"acc partial lanes, stride 0",
               {isa::Load(Buffer::kAcc, 9, 15, 3, 0x30004, 40),
                isa::Load(Buffer::kUb, 4, 16, 0, 0x30004, 0), isa::Sync(),
                isa::Store(Buffer::kAcc, 9, 16, 3, 0x50000, 16),
                isa::Store(Buffer::kUb, 4, 16, 0, 0x50400, 16), isa::Halt()},
               0x50000,
               0x500});
  // Packed rows starting mid-beat (linear from a row boundary inside the first beat): int8 rows
  // of 8 and 4 bytes, bf16 rows of 8, at every row offset of a 32-byte beat.
  for (uint64_t offset : {8ull, 16ull, 24ull}) {
    p.push_back({"packed rows from beat offset " + std::to_string(offset),
                 {isa::Load(Buffer::kUb, 13, 8, 0, 0x20000 + offset, 8, false, true),
                  isa::Load(Buffer::kUb, 9, 4, 20, 0x20100 + offset / 2, 4, false, true),
                  isa::Load(Buffer::kUb, 11, 4, 40, 0x20200 + offset, 4), isa::Sync(),
                  isa::Store(Buffer::kUb, 13, 8, 0, 0x40000, 8, false, true),
                  isa::Store(Buffer::kUb, 9, 4, 20, 0x40100, 4, false, true),
                  isa::Store(Buffer::kUb, 11, 4, 40, 0x40200, 4), isa::Halt()},
                 0x40000,
                 0x200 + 11 * 8});
  }
  p.push_back({"transposed",
               {isa::Load(Buffer::kUb, 35, 16, 0, 0x60002, 42, true), isa::Sync(),
                isa::Store(Buffer::kUb, 35, 16, 0, 0x80000, 16), isa::Halt()},
               0x80000,
               35 * 32});
  std::vector<Instruction> gemm;
  for (uint32_t t = 0; t < 3; ++t) {
    const uint32_t k_rows = t < 2 ? 16 : 14;
    gemm.push_back(isa::Load(Buffer::kUb, 29, k_rows, t * 29, 0x100000 + 32 * t, 46));
    gemm.push_back(isa::Load(Buffer::kWeights, k_rows, 16, 0, 0x200000 + 32 * t, 46, true));
    gemm.push_back(isa::Matmul(29, k_rows, t * 29, 0, t > 0, true));
  }
  gemm.push_back(isa::Load(Buffer::kAcc, 1, 16, 1000, 0x20000, 16));
  gemm.push_back(isa::Store(Buffer::kAcc, 29, 16, 0, 0x300000, 16));
  gemm.push_back(isa::Activate(29, 0, 8000, true, true, 1000));
  gemm.push_back(isa::Store(Buffer::kUb, 29, 16, 8000, 0x300800, 16));
  gemm.push_back(isa::Halt());
  p.push_back({"gemm program", gemm, 0x300000, 0x800 + 29 * 32});
  p.push_back({"illegal opcode", {isa::Sync(), isa::Raw({0x55, 0, 0, 0}), isa::Halt()}});
  p.push_back({"ub range", {isa::Load(Buffer::kUb, 2, 1, 8191, 0x20000, 1), isa::Halt()}});
  p.push_back({"no weights", {isa::Matmul(1, 1, 0, 0, false, true), isa::Halt()}});
  const Instruction w = isa::Load(Buffer::kWeights, 1, 1, 0, 0x20000, 1);
  p.push_back({"weights full", {w, w, w, w, isa::Halt()}});
  p.push_back({"overrun", {isa::Sync(), isa::Sync()}});
  p.push_back(
      {"misaligned program", {isa::Halt()}, 0, 0, 0, UINT32_MAX, testing::kProgramAddr + 8});
  p.push_back(
      {"read beyond memory",
       {isa::Sync(), isa::Load(Buffer::kUb, 4, 1, 0, (1ull << 32) + 0x1000, 1), isa::Halt()}});
  p.push_back(
      {"write error", {isa::Store(Buffer::kUb, 8, 1, 0, 0x6FFF0, 32), isa::Halt()}, 0, 0, 0x70000});
  return p;
}

TEST(ModelAgreesWithRtl, RawPrograms) {
  backends::ModelDevice model;
  BitSource bits(77);
  std::vector<uint8_t> input(0x10000);
  for (auto& x : input) x = static_cast<uint8_t>(testing::RandomOperand(bits));
  for (uint64_t base : {0x20000ull, 0x30000ull, 0x60000ull, 0x100000ull, 0x200000ull}) {
    g_rtl->WriteMemory(base, input.data(), input.size());
    model.WriteMemory(base, input.data(), input.size());
  }
  for (const Program& p : Programs()) {
    SCOPED_TRACE(p.name);
    if (p.error_inject) model.memory().InjectError(p.error_inject, 64);
    // The RTL's memory error injection goes through its platform: compare the model alone
    // against the documented address for the injected case.
    const Outcome m = testing::RunProgram(model, p.code, p.addr, p.count);
    model.memory().ClearInjectedErrors();
    if (p.error_inject) {
      EXPECT_TRUE(m.error);
      EXPECT_EQ(m.code, static_cast<uint32_t>(csr::ErrorCode::kMemWrite));
      EXPECT_EQ(m.error_addr, p.error_inject + 32);  // row 1's burst, the first to fail
      continue;
    }
    const Outcome r = testing::RunProgram(*g_rtl, p.code, p.addr, p.count);
    ASSERT_TRUE(r.completed);
    ASSERT_TRUE(m.completed);
    EXPECT_EQ(m.done, r.done);
    EXPECT_EQ(m.error, r.error);
    EXPECT_EQ(m.code, r.code) << csr::ErrorName(m.code) << " vs " << csr::ErrorName(r.code);
    EXPECT_EQ(m.pc, r.pc);
    EXPECT_EQ(m.error_addr, r.error_addr);
    if (r.done) {
      ExpectCountersAgree(r.counters, m.counters, p.name);
    }
    if (p.out_bytes) {
      std::vector<uint8_t> a(p.out_bytes), b(p.out_bytes);
      g_rtl->ReadMemory(p.out_addr, a.data(), a.size());
      model.ReadMemory(p.out_addr, b.data(), b.size());
      EXPECT_EQ(a, b);
    }
  }
}

// For the kNearZero suite: before the HALT, a STORE of every accumulator row a MATMUL wrote
// (all lanes), row r to host + r x cols words, so that every MATMUL result still standing at
// the end is compared, not only those the program's own STOREs happen to read.
void AppendMatmulRowsStore(std::vector<isa::Instruction>& program, int cols, uint64_t host) {
  std::vector<bool> written(1 << 16, false);
  for (const isa::Instruction& ins : program) {
    if (ins.opcode() != static_cast<uint8_t>(isa::Opcode::kMatmul)) continue;
    const uint64_t at = ins.Get(isa::kMatmulAccAddr), rows = ins.Get(isa::kMatmulRows);
    for (uint64_t r = at; r < at + rows; ++r) written[r] = true;
  }
  program.pop_back();  // the HALT
  for (uint32_t r = 0; r < written.size();) {
    uint32_t end = r;
    while (end < written.size() && written[end]) ++end;
    if (end > r) {
      program.push_back(
          isa::Store(Buffer::kAcc, end - r, cols, r, host + uint64_t{r} * cols * 4, cols));
    }
    r = end + 1;
  }
  program.push_back(isa::Halt());
}

// Random legal programs on both backends: the same outcome, the exact counters, every byte they
// stored, CYCLES within the tolerance. MXU_RANDOM_PROGRAMS sets how many (the `soak` test: 10,000).
void RandomPrograms(const testing::LegalProgramSuite& suite) {
  const char* env = std::getenv("MXU_RANDOM_PROGRAMS");
  const int count = env ? std::atoi(env) : suite.count;
  const uint64_t first_seed = suite.first_seed;
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*g_rtl);
  // The model of this binary's device (its array, buffers and subnormal mode).
  const std::unique_ptr<driver::Device> model_device =
      backends::OpenDevice({"model", MemoryTiming(), ""});
  driver::Device& model = *model_device;
  const testing::RandomProgramSpace space;  // where the inputs and outputs are
  BitSource bits(first_seed);
  std::vector<uint8_t> input(space.input_bytes);
  if (suite.data == testing::LegalProgramSuite::Data::kNearZero) {
    for (size_t i = 0; i + 1 < input.size(); i += 2) {
      const uint16_t v = testing::NearZeroBf16(bits.Below(1000));
      input[i] = static_cast<uint8_t>(v), input[i + 1] = static_cast<uint8_t>(v >> 8);
    }
  } else {
    for (auto& x : input) x = static_cast<uint8_t>(testing::RandomOperand(bits));
  }
  g_rtl->WriteMemory(space.input, input.data(), input.size());
  model.WriteMemory(space.input, input.data(), input.size());
  const bool near_zero = suite.data == testing::LegalProgramSuite::Data::kNearZero;
  // Where AppendMatmulRowsStore's rows go: after the programs' own output.
  const uint64_t dump = space.output + space.output_bytes;
  const uint64_t dump_bytes = near_zero ? uint64_t(space.acc_rows) * config.cols * 4 : 0;
  const std::vector<uint8_t> zeros(space.output_bytes + dump_bytes, 0);
  int compared = 0;
  double rtl_cycles = 0, model_cycles = 0, worst = 0;
  for (int i = 0; i < count; ++i) {
    const uint64_t seed = first_seed + i;
    testing::RandomProgramSpace program_space = testing::SpaceOf(
        suite, seed, static_cast<int>(config.ub_depth), static_cast<int>(config.acc_depth));
    // The array's shape (the defaults are the default device's: the same programs there).
    program_space.rows = static_cast<int>(config.rows);
    program_space.cols = static_cast<int>(config.cols);
    program_space.ub_lanes = static_cast<int>(config.ub_lanes);
    std::vector<isa::Instruction> program = testing::RandomProgram(seed, program_space);
    if (near_zero) AppendMatmulRowsStore(program, static_cast<int>(config.cols), dump);
    SCOPED_TRACE("random program, seed " + std::to_string(seed));
    g_rtl->WriteMemory(space.output, zeros.data(), zeros.size());
    model.WriteMemory(space.output, zeros.data(), zeros.size());
    const Outcome r = testing::RunProgram(*g_rtl, program);
    const Outcome m = testing::RunProgram(model, program);
    ASSERT_TRUE(r.completed && m.completed);
    ASSERT_TRUE(r.done && !r.error)
        << csr::ErrorName(r.code) << " at " << r.pc << ": " << isa::Disassemble(program.at(r.pc));
    ASSERT_EQ(m.done, r.done);
    ASSERT_EQ(m.code, r.code);
    for (csr::Counter c : kExact) {
      ASSERT_EQ(m.counter(c), r.counter(c)) << csr::CounterName(c);
    }
    const double rc = double(r.counter(csr::Counter::kCycles));
    const double mc = double(m.counter(csr::Counter::kCycles));
    // CYCLES is an estimate: random mixes stray further than the GEMMs above (up to 0.9% seen),
    // so each program is held to 5% and the sum of all of them to the GEMMs' 2%.
    EXPECT_LE(std::fabs(mc - rc), 0.05 * rc) << "cycles rtl " << rc << " model " << mc;
    rtl_cycles += rc, model_cycles += mc;
    worst = std::max(worst, std::fabs(mc - rc) / rc);
    std::vector<uint8_t> a(zeros.size()), b(zeros.size());
    g_rtl->ReadMemory(space.output, a.data(), a.size());
    model.ReadMemory(space.output, b.data(), b.size());
    const auto diff = std::mismatch(a.begin(), a.end(), b.begin());
    ASSERT_TRUE(diff.first == a.end())
        << "first differing byte at 0x" << std::hex << space.output + (diff.first - a.begin())
        << ": rtl 0x" << int(*diff.first) << ", model 0x" << int(*diff.second);
    ++compared;
  }
  EXPECT_LE(std::fabs(model_cycles - rtl_cycles), kCycleTolerance * rtl_cycles);
  std::printf(
      "%d random programs compared, no divergence; cycles rtl %.0f model %.0f (%+.2f%%), "
      "worst program %.1f%%\n",
      compared, rtl_cycles, model_cycles, 100 * (model_cycles - rtl_cycles) / rtl_cycles,
      100 * worst);
}

TEST(ModelAgreesWithRtl, RandomPrograms) { RandomPrograms(testing::kLegalProgramSuites[0]); }

// The same with the int8 mode's instructions mixed in (integer LOADs, MATMULs, requantizing
// ACTIVATEs, STOREs of int8 lanes and int32 words).
TEST(ModelAgreesWithRtl, RandomIntegerPrograms) { RandomPrograms(testing::kLegalProgramSuites[1]); }

// Both modes again, at the buffers' last rows and across the accumulators' banks.
TEST(ModelAgreesWithRtl, RandomProgramsAtBufferEnds) {
  RandomPrograms(testing::kLegalProgramSuites[2]);
}

// Operands whose products are near 2^-126 against partial K tiles: sums that cancel, to zeros
// of either sign where flush mode flushes them (issue 58). Also on the other built devices
// (model_agreement_test_<device>, the flush one among them).
TEST(ModelAgreesWithRtl, RandomProgramsNearZero) {
  RandomPrograms(testing::kLegalProgramSuites[3]);
}

// Random illegal programs: every error code, several forms of each, at a random place in a random
// legal program. Both backends must stop with the code the generator meant, at the same
// instruction and (memory errors) address. Counters are not compared: what was in flight when the
// error stopped the device depends on the timing, which the model estimates.
TEST(ModelAgreesWithRtl, RandomIllegalPrograms) {
  backends::ModelDevice model;
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*g_rtl);
  testing::RandomProgramSpace space;
  space.ub_depth = static_cast<int>(config.ub_depth);
  space.acc_depth = static_cast<int>(config.acc_depth);
  space.ub_lanes = static_cast<int>(config.ub_lanes);
  space.memory_bytes = g_rtl->memory_size();
  ASSERT_EQ(model.memory_size(), space.memory_bytes);
  const char* env = std::getenv("MXU_RANDOM_PROGRAMS");
  int compared = 0;
  for (uint32_t code = 1; code <= 10; ++code) {
    const int per_code = env ? std::max(1, std::atoi(env) / 20)
                             : testing::IllegalProgramsPerCode(static_cast<csr::ErrorCode>(code));
    for (int i = 0; i < per_code; ++i) {
      const uint64_t seed = testing::IllegalProgramSeed(code, i);
      space.integer = testing::IllegalProgramIsInteger(i);
      const std::vector<isa::Instruction> program = testing::RandomProgram(
          seed, space, testing::kIllegalProgramLength, static_cast<csr::ErrorCode>(code));
      SCOPED_TRACE("illegal program " + std::string(csr::ErrorName(code)) + ", seed " +
                   std::to_string(seed));
      const Outcome r = testing::RunProgram(*g_rtl, program);
      const Outcome m = testing::RunProgram(model, program);
      ASSERT_TRUE(r.completed && m.completed);
      ASSERT_TRUE(r.error) << "the RTL finished the program";
      ASSERT_EQ(r.code, code) << csr::ErrorName(r.code) << " at " << r.pc << ": "
                              << (r.pc < program.size() ? isa::Disassemble(program[r.pc]) : "");
      ASSERT_EQ(m.error, r.error);
      ASSERT_EQ(m.code, r.code) << csr::ErrorName(m.code);
      ASSERT_EQ(m.pc, r.pc);
      ASSERT_EQ(m.error_addr, r.error_addr);
      // A soft reset clears the error for the next program.
      for (driver::Device* dev : {g_rtl, static_cast<driver::Device*>(&model)}) {
        dev->WriteCsr(csr::kCtrl, csr::kCtrlSoftReset);
      }
      ++compared;
    }
    if (env) std::printf("%s done\n", csr::ErrorName(code)), std::fflush(stdout);
  }
  std::printf("%d random illegal programs compared (every error code), no divergence\n", compared);
}

TEST(ModelAgreesWithRtl, TheFactoryListsTheModel) {
  const auto& names = backends::AvailableBackends();
  EXPECT_NE(std::find(names.begin(), names.end(), "model"), names.end());
  auto dev = backends::OpenDevice({"model", MemoryTiming(), ""});
  EXPECT_STREQ(dev->name(), "model");
  EXPECT_EQ(dev->tracing(), nullptr);
  EXPECT_NE(g_rtl->tracing(), nullptr);
}

}  // namespace
}  // namespace mxu

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto rtl = mxu::backends::OpenDevice({"rtl", mxu::MemoryTiming(), ""});
  mxu::g_rtl = rtl.get();
  const int result = RUN_ALL_TESTS();
  mxu::g_rtl = nullptr;
  return result;
}
