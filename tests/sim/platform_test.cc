// The SystemC platform: CSR access through the register transactor, clocking and watchdogs,
// exact time, reset, tracing, reconfiguration, and the memory transactor driven pin by pin.
//
// SystemC elaborates once per process, so sc_main builds the one Platform (and a rig of a second
// memory behind a bare MemoryTransactor) before any test runs; tests Reset() the platform and
// never stop the simulation.
#include "sim/platform.h"

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

#include "common/csr_map.h"
#include "common/isa.h"

namespace mxu::sim {
namespace {

namespace fs = std::filesystem;
using sc_core::sc_time;

constexpr uint64_t kWatchdogCycles = 20'000;  // the platform's config, to keep the tests short

// A second memory behind a MemoryTransactor whose pins the tests drive themselves (and a second
// one of the widest port, on the same memory).
struct Rig : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Rig> socket;
  HostMemory memory;
  MemoryTransactor transactor;
  MemoryTransactor wide;

  static HostMemory::Config MemoryConfig() {
    HostMemory::Config config;
    config.size_bytes = 64 * 1024;
    config.timing.latency_cycles = 10;
    config.timing.bytes_per_cycle = 32;
    config.timing.max_in_flight = 8;
    return config;
  }

  explicit Rig(sc_core::sc_module_name name)
      : sc_core::sc_module(name),
        socket("socket"),
        memory("rig_memory", MemoryConfig()),
        transactor(socket, sc_time(1, sc_core::SC_NS)),
        wide(socket, sc_time(1, sc_core::SC_NS), MemoryTransactor::kMaxBusBytes) {
    socket.bind(memory.socket);
  }
};

Platform* g_platform = nullptr;
Rig* g_rig = nullptr;

class PlatformTest : public testing::Test {
 protected:
  void SetUp() override {
    platform().Reset();
    platform().memory().ClearInjectedErrors();
  }
  static Platform& platform() { return *g_platform; }
};

TEST_F(PlatformTest, IdentificationRegisters) {
  Platform& p = platform();
  EXPECT_EQ(p.ReadCsr(csr::kId), csr::kDeviceId);
  EXPECT_EQ(p.ReadCsr(csr::kVersion), csr::kDeviceVersion);
  const uint32_t array = p.ReadCsr(csr::kArray);
  EXPECT_EQ(csr::ArrayRows(array), 16u);
  EXPECT_EQ(csr::ArrayCols(array), 16u);
  EXPECT_EQ(p.ReadCsr(csr::kUbDepth), 8192u);
  EXPECT_EQ(p.ReadCsr(csr::kAccDepth), 1024u);
  EXPECT_EQ(p.ReadCsr(csr::kWfifoDepth), 32u);
  const uint32_t features = p.ReadCsr(csr::kFeatures);
  EXPECT_EQ(csr::FeaturesBusLog2(features), 5u);  // 32 bytes a beat
  EXPECT_FALSE(csr::FeaturesFlushSubnormals(features));
  EXPECT_EQ(csr::FeaturesUbLanes(features), 16u);
  EXPECT_EQ(csr::FeaturesMaxInFlight(features), 8u);
  EXPECT_EQ(p.ReadCsr(csr::kStatus), 0u);
  EXPECT_EQ(p.ReadCsr(csr::kErrorCode), 0u);
}

TEST_F(PlatformTest, CsrAccessTakesFewCycles) {
  Platform& p = platform();
  const uint64_t before = p.cycle();
  p.ReadCsr(csr::kId);
  const uint64_t cycles = p.cycle() - before;
  EXPECT_GE(cycles, 1u);  // the response comes one or more cycles after the request
  EXPECT_LE(cycles, 10u);
}

// Expects `f` to throw std::runtime_error with exactly `message`.
template <typename F>
void ExpectRuntimeError(F f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no exception, expected: " << message;
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(e.what(), message);
  }
}

TEST_F(PlatformTest, UnknownAddressAndReadOnlyWriteThrow) {
  Platform& p = platform();
  ExpectRuntimeError([&] { p.ReadCsr(0x0FC); }, "CSR read of 0x0fc answered with an error");
  ExpectRuntimeError([&] { p.ReadCsr(0x03C); }, "CSR read of 0x03c answered with an error");
  ExpectRuntimeError([&] { p.WriteCsr(csr::kId, 1); },
                     "CSR write of 0x000 (value 0x00000001) answered with an error");
  ExpectRuntimeError([&] { p.WriteCsr(csr::kStatus, 0xFFFFFFFF); },
                     "CSR write of 0x024 (value 0xffffffff) answered with an error");
  // The port keeps working after error responses.
  EXPECT_EQ(p.ReadCsr(csr::kId), csr::kDeviceId);
}

TEST_F(PlatformTest, CommandRegistersReadBack) {
  Platform& p = platform();
  p.WriteCsr(csr::kCmdAddrLo, 0x12345670);
  p.WriteCsr(csr::kCmdAddrHi, 0xABCD);
  p.WriteCsr(csr::kCmdCount, 77);
  EXPECT_EQ(p.ReadCsr(csr::kCmdAddrLo), 0x12345670u);
  EXPECT_EQ(p.ReadCsr(csr::kCmdAddrHi), 0xABCDu);
  EXPECT_EQ(p.ReadCsr(csr::kCmdCount), 77u);
  p.WriteCsr(csr::kCtrl, csr::kCtrlIrqEnable);
  EXPECT_EQ(p.ReadCsr(csr::kCtrl) & csr::kCtrlIrqEnable, csr::kCtrlIrqEnable);
}

TEST_F(PlatformTest, ResetTakesTwoCyclesAndClearsRegisters) {
  Platform& p = platform();
  p.WriteCsr(csr::kCmdCount, 5);
  const uint64_t before = p.cycle();
  p.Reset();
  EXPECT_EQ(p.cycle() - before, 2u);
  EXPECT_EQ(p.ReadCsr(csr::kCmdCount), 0u);
}

TEST_F(PlatformTest, RunCyclesKeepsTimeExact) {
  Platform& p = platform();
  const uint64_t before = p.cycle();
  p.RunCycles(5000);  // several quanta and a part of one
  EXPECT_EQ(p.cycle() - before, 5000u);
  p.RunCycles(1);
  EXPECT_EQ(p.cycle() - before, 5001u);
  p.RunCycles(0);
  EXPECT_EQ(p.cycle() - before, 5001u);
  // Only the platform runs in this process: SystemC time is exactly cycle() periods.
  EXPECT_EQ(sc_core::sc_time_stamp(), sc_time::from_value(p.cycle() * 1000));
}

TEST_F(PlatformTest, RunUntilIrqTimesOutWithoutHanging) {
  Platform& p = platform();
  EXPECT_FALSE(p.irq());
  uint64_t before = p.cycle();
  Platform::RunResult result = p.RunUntilIrq(777);
  EXPECT_FALSE(result.completed);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.cycles, 777u);
  EXPECT_EQ(p.cycle() - before, 777u);

  before = p.cycle();
  result = p.RunUntilIrq();  // the config's watchdog
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.cycles, kWatchdogCycles);
  EXPECT_EQ(p.cycle() - before, kWatchdogCycles);
  EXPECT_EQ(sc_core::sc_time_stamp(), sc_time::from_value(p.cycle() * 1000));
}

TEST_F(PlatformTest, IdleDeviceLeavesTheMemoryPortIdle) {
  Platform& p = platform();
  p.RunCycles(100);
  EXPECT_TRUE(p.transactor().idle());
  EXPECT_EQ(p.transactor().stats().read_bursts, 0u);
  EXPECT_EQ(p.transactor().protocol_error_count(), 0u);
}

// A lone HALT, fetched through the memory transactor, finishes with the interrupt.
TEST_F(PlatformTest, HaltProgramRaisesIrq) {
  Platform& p = platform();
  std::vector<uint8_t> program;
  isa::AppendBytes(isa::Halt(), program);
  p.memory().Write(0x1000, program.data(), program.size());
  p.WriteCsr(csr::kCmdAddrLo, 0x1000);
  p.WriteCsr(csr::kCmdAddrHi, 0);
  p.WriteCsr(csr::kCmdCount, 1);
  p.WriteCsr(csr::kCtrl, csr::kCtrlIrqEnable | csr::kCtrlStart);
  const Platform::RunResult result = p.RunUntilIrq(10'000);
  EXPECT_TRUE(result.completed);
  EXPECT_EQ(p.ReadCsr(csr::kStatus) & (csr::kStatusDone | csr::kStatusError), csr::kStatusDone);
  EXPECT_TRUE(p.transactor().idle());
  EXPECT_EQ(p.transactor().protocol_error_count(), 0u);
}

class TraceTest : public PlatformTest {
 protected:
  void SetUp() override {
    PlatformTest::SetUp();
    dir_ = fs::temp_directory_path() / ("mxu_platform_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    platform().CloseTrace();
    fs::remove_all(dir_);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(TraceTest, NoTraceNoFile) {
  platform().RunCycles(200);
  EXPECT_FALSE(platform().tracing());
  EXPECT_TRUE(fs::is_empty(dir_));
}

// Fields of an FST file's header block (fstapi.c: tag 0 at +0, big-endian start and end time at
// +9 and +17, the timescale exponent at +73).
struct FstHeader {
  uint64_t start_time = 0;
  uint64_t end_time = 0;
  int timescale = 0;
};

FstHeader ReadFstHeader(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::vector<uint8_t> bytes(74);
  file.read(reinterpret_cast<char*>(bytes.data()), bytes.size());
  EXPECT_TRUE(file.good()) << path;
  EXPECT_EQ(bytes[0], 0) << "not an FST header block";
  const auto be64 = [&](size_t at) {
    uint64_t value = 0;
    for (size_t i = 0; i < 8; ++i) value = value << 8 | bytes[at + i];
    return value;
  };
  return {be64(9), be64(17), static_cast<int8_t>(bytes[73])};
}

TEST_F(TraceTest, WindowOpensAtItsStartAndClosesAtItsEnd) {
  Platform& p = platform();
  const std::string path = Path("window.fst");
  const uint64_t start = p.cycle() + 1000;
  p.SetTrace(path, start, 50);
  p.RunCycles(500);
  EXPECT_FALSE(p.tracing());
  EXPECT_FALSE(fs::exists(path));  // not before the window starts
  p.RunCycles(510);
  EXPECT_TRUE(p.tracing());
  EXPECT_TRUE(fs::exists(path));
  p.RunCycles(100);
  EXPECT_FALSE(p.tracing());  // closed at the window's end
  EXPECT_GT(fs::file_size(path), 0u);
  EXPECT_TRUE(p.trace_error().empty());
  // Cycles start .. start + 49 in picoseconds of a 1 ns clock: low at c ns, high at c + 0.5 ns.
  const FstHeader header = ReadFstHeader(path);
  EXPECT_EQ(header.timescale, -12);
  EXPECT_EQ(header.start_time, start * 1000);
  EXPECT_EQ(header.end_time, (start + 49) * 1000 + 500);
}

TEST_F(TraceTest, LongerWindowGivesLargerFile) {
  Platform& p = platform();
  const std::string short_path = Path("short.fst");
  const std::string long_path = Path("long.fst");
  // CSR traffic inside both windows, so that more than the clock changes.
  p.SetTrace(short_path, p.cycle(), 20);
  for (int i = 0; i < 5; ++i) p.WriteCsr(csr::kCmdCount, i);
  p.RunCycles(20);
  ASSERT_FALSE(p.tracing());
  p.SetTrace(long_path, p.cycle(), 4000);
  for (int i = 0; i < 500; ++i) p.WriteCsr(csr::kCmdCount, i);
  p.RunCycles(4000);
  ASSERT_FALSE(p.tracing());
  ASSERT_TRUE(fs::exists(short_path));
  ASSERT_TRUE(fs::exists(long_path));
  EXPECT_GT(fs::file_size(long_path), fs::file_size(short_path));
}

TEST_F(TraceTest, OpenEndedWindowClosesOnCloseTrace) {
  Platform& p = platform();
  const std::string path = Path("open.fst");
  p.SetTrace(path, 0, 0);  // from now on, to the end
  p.RunCycles(10);
  EXPECT_TRUE(p.tracing());
  p.CloseTrace();
  EXPECT_FALSE(p.tracing());
  EXPECT_GT(fs::file_size(path), 0u);
  p.RunCycles(10);
  EXPECT_FALSE(p.tracing());
}

TEST_F(TraceTest, UnwritableDirectoryThrows) {
  EXPECT_THROW(platform().SetTrace("/nonexistent_dir_mxu/x.fst", 0, 10), std::runtime_error);
  EXPECT_THROW(platform().SetTrace(Path("") + "/", 0, 10), std::runtime_error);
}

// Issue 39: unless given, the memory is as wide as the device's port (sc_main's default config).
TEST_F(PlatformTest, MemoryIsAsWideAsThePortUnlessGiven) {
  Platform& p = platform();
  const unsigned port = p.transactor().bus_bytes();
  EXPECT_EQ(p.memory().config().timing.bytes_per_cycle, port);
  EXPECT_EQ(p.config().memory.timing.bytes_per_cycle, port);
  const HostMemory::Config original = p.memory().config();
  HostMemory::Config given = original;
  given.timing.bytes_per_cycle = 2 * port;
  p.Reconfigure(given);
  EXPECT_EQ(p.memory().config().timing.bytes_per_cycle, 2 * port);
  given.timing.bytes_per_cycle = kPortWidth;
  p.Reconfigure(given);
  EXPECT_EQ(p.memory().config().timing.bytes_per_cycle, port);
  EXPECT_EQ(p.config().memory.timing.bytes_per_cycle, port);
  p.Reconfigure(original);
}

TEST_F(PlatformTest, ReconfigureChangesMemoryConfig) {
  Platform& p = platform();
  const HostMemory::Config original = p.memory().config();
  HostMemory::Config config = original;
  config.timing.latency_cycles = 7;
  config.timing.bytes_per_cycle = 16;
  config.timing.max_in_flight = 2;
  p.Reconfigure(config);
  EXPECT_EQ(p.memory().config().timing.latency_cycles, 7u);
  EXPECT_EQ(p.memory().config().timing.bytes_per_cycle, 16u);
  EXPECT_EQ(p.memory().config().timing.max_in_flight, 2u);
  EXPECT_EQ(p.config().memory.timing.latency_cycles, 7u);

  HostMemory::Config bad = config;
  bad.timing.max_in_flight = 0;
  EXPECT_THROW(p.Reconfigure(bad), std::invalid_argument);
  bad = config;
  bad.clock_period = sc_time(2, sc_core::SC_NS);
  EXPECT_THROW(p.Reconfigure(bad), std::invalid_argument);
  EXPECT_EQ(p.memory().config().timing.bytes_per_cycle, 16u);  // unchanged by the failed calls
  p.Reconfigure(original);
  EXPECT_EQ(p.memory().config().timing.latency_cycles, original.timing.latency_cycles);
}

// ---- The memory transactor, pin by pin ----------------------------------------------------------

class TransactorTest : public testing::Test {
 protected:
  void SetUp() override {
    rig().memory.Reconfigure(Rig::MemoryConfig());
    rig().memory.Reset();
    rig().memory.Clear();
    rig().memory.ClearInjectedErrors();
    rig().transactor.Clear();
    rig().wide.Clear();
    // sc_time_stamp() stands for this cycle for the whole test (time does not move here).
    now_ = sc_core::sc_time_stamp().value() / 1000;
    cycle_ = now_;
  }
  static Rig& rig() { return *g_rig; }
  MemoryTransactor& t() { return rig().transactor; }

  // One cycle: what the memory side presents, then the edge with the device's outputs.
  MemPortInputs Cycle(const MemPortOutputs& out = MemPortOutputs()) {
    const MemPortInputs in = t().Present(cycle_);
    t().Edge(out, cycle_, now_);
    ++cycle_;
    return in;
  }
  static MemPortOutputs Ar(uint64_t addr, unsigned len, unsigned id) {
    MemPortOutputs out;
    out.ar_valid = true;
    out.ar_addr = addr;
    out.ar_len = len;
    out.ar_id = id;
    out.r_ready = true;
    out.b_ready = true;
    return out;
  }
  static MemPortOutputs Ready() {
    MemPortOutputs out;
    out.r_ready = true;
    out.b_ready = true;
    return out;
  }
  static MemPortOutputs W(uint8_t first_byte, uint32_t strobes, bool last) {
    MemPortOutputs out = Ready();
    out.w_valid = true;
    for (unsigned i = 0; i < 8; ++i) {
      uint32_t word = 0;
      for (unsigned b = 0; b < 4; ++b) word |= uint32_t(uint8_t(first_byte + 4 * i + b)) << 8 * b;
      out.w_data[i] = word;
    }
    out.w_strb[0] = strobes;
    out.w_last = last;
    return out;
  }
  void Fill(uint64_t addr, size_t len, uint8_t first) {
    std::vector<uint8_t> bytes(len);
    for (size_t i = 0; i < len; ++i) bytes[i] = static_cast<uint8_t>(first + i);
    rig().memory.Write(addr, bytes.data(), len);
  }
  static uint8_t Byte(const MemPortInputs& in, unsigned i) {
    return static_cast<uint8_t>(in.r_data[i / 4] >> (8 * (i % 4)));
  }

  uint64_t now_ = 0;
  uint64_t cycle_ = 0;
};

TEST_F(TransactorTest, ReadBurstBeatsFromTheCompletionCycle) {
  Fill(0x400, 128, 0x10);
  const uint64_t c0 = cycle_;
  EXPECT_FALSE(Cycle(Ar(0x400, 3, 2)).r_valid);
  // Completion: issue c0 + latency 10 + 128 bytes / 32 per cycle = c0 + 14.
  while (cycle_ < c0 + 14) EXPECT_FALSE(Cycle(Ready()).r_valid) << cycle_ - c0;
  for (unsigned beat = 0; beat < 4; ++beat) {
    const MemPortInputs in = Cycle(Ready());
    ASSERT_TRUE(in.r_valid) << beat;
    EXPECT_EQ(in.r_id, 2u);
    EXPECT_EQ(in.r_last, beat == 3);
    EXPECT_EQ(in.r_resp, 0u);
    for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(Byte(in, i), uint8_t(0x10 + 32 * beat + i));
  }
  EXPECT_FALSE(Cycle(Ready()).r_valid);
  EXPECT_TRUE(t().idle());
  EXPECT_EQ(t().stats().read_bursts, 1u);
  EXPECT_EQ(t().stats().read_beats, 4u);
  EXPECT_EQ(t().protocol_error_count(), 0u);
}

TEST_F(TransactorTest, BackToBackBurstsAndBackpressure) {
  const uint64_t c0 = cycle_;
  Cycle(Ar(0x000, 3, 0));  // completes c0 + 14
  Cycle(Ar(0x800, 1, 1));  // channel busy until c0 + 14: completes c0 + 16
  while (cycle_ < c0 + 14) EXPECT_FALSE(Cycle(Ready()).r_valid);
  for (int beat = 0; beat < 4; ++beat) EXPECT_EQ(Cycle(Ready()).r_id, 0u);  // c0+14 .. c0+17
  // The second burst was due at c0 + 16 and follows the first with no gap; hold its first beat.
  MemPortOutputs stall = Ready();
  stall.r_ready = false;
  for (int i = 0; i < 3; ++i) {
    const MemPortInputs in = Cycle(stall);
    EXPECT_TRUE(in.r_valid);
    EXPECT_EQ(in.r_id, 1u);
    EXPECT_FALSE(in.r_last);
  }
  EXPECT_FALSE(Cycle(Ready()).r_last);
  const MemPortInputs last = Cycle(Ready());
  EXPECT_TRUE(last.r_valid && last.r_last);
  EXPECT_EQ(cycle_ - c0, 14u + 4 + 3 + 2);
  EXPECT_EQ(t().stats().r_stall_cycles, 3u);
  EXPECT_EQ(t().stats().max_reads_in_flight, 2u);
  EXPECT_TRUE(t().idle());
}

TEST_F(TransactorTest, ReadErrorsAnswerSlverrAndDecerr) {
  Fill(0x1000, 64, 0x55);
  rig().memory.InjectError(0x1000, 1);
  Cycle(Ar(0x1000, 1, 3));
  for (int beat = 0; beat < 2; ++beat) {
    const MemPortInputs in = Cycle(Ready());  // error responses take no time: next cycle
    ASSERT_TRUE(in.r_valid);
    EXPECT_EQ(in.r_resp, 2u);
    EXPECT_EQ(in.r_id, 3u);
    EXPECT_EQ(in.r_data, decltype(in.r_data){});
  }
  Cycle(Ar(0x10000, 0, 1));  // past the 64 KiB memory
  const MemPortInputs in = Cycle(Ready());
  ASSERT_TRUE(in.r_valid);
  EXPECT_EQ(in.r_resp, 3u);
  EXPECT_TRUE(in.r_last);
  EXPECT_EQ(t().stats().error_responses, 2u);
}

TEST_F(TransactorTest, WriteBurstWithStrobes) {
  Fill(0x2000, 64, 0xE0);  // background the disabled bytes must keep
  const uint64_t c0 = cycle_;
  MemPortOutputs first = W(0x00, 0xFFFFFFFF, false);
  first.aw_valid = true;
  first.aw_addr = 0x2000;
  first.aw_len = 1;
  Cycle(first);
  Cycle(W(0x20, 0x0000FF0F, true));  // last beat at c0 + 1: issue, completes c0 + 1 + 10 + 2
  EXPECT_EQ(t().stats().write_bursts, 1u);
  std::vector<uint8_t> bytes(64);
  rig().memory.Read(0x2000, bytes.data(), bytes.size());
  for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(bytes[i], static_cast<uint8_t>(i)) << i;
  for (unsigned i = 0; i < 32; ++i) {
    const bool enabled = (0x0000FF0Fu >> i) & 1;
    EXPECT_EQ(bytes[32 + i], static_cast<uint8_t>(enabled ? 0x20 + i : 0xE0 + 32 + i)) << i;
  }
  while (cycle_ < c0 + 13) EXPECT_FALSE(Cycle(Ready()).b_valid) << cycle_ - c0;
  MemPortOutputs stall = Ready();
  stall.b_ready = false;
  EXPECT_TRUE(Cycle(stall).b_valid);
  const MemPortInputs in = Cycle(Ready());
  EXPECT_TRUE(in.b_valid);
  EXPECT_EQ(in.b_resp, 0u);
  EXPECT_FALSE(Cycle(Ready()).b_valid);
  EXPECT_EQ(t().stats().b_stall_cycles, 1u);
  EXPECT_TRUE(t().idle());
  EXPECT_EQ(t().protocol_error_count(), 0u);
}

TEST_F(TransactorTest, WriteDataBeforeAddressAndErrors) {
  Cycle(W(0x40, 0xFFFFFFFF, true));  // data first
  Cycle(Ready());
  EXPECT_EQ(t().stats().write_bursts, 0u);
  MemPortOutputs aw = Ready();
  aw.aw_valid = true;
  aw.aw_addr = 0x3000;
  aw.aw_len = 0;
  const uint64_t c_aw = cycle_;
  Cycle(aw);
  EXPECT_EQ(t().stats().write_bursts, 1u);
  uint8_t byte = 0;
  rig().memory.Read(0x3005, &byte, 1);
  EXPECT_EQ(byte, 0x45);
  // An injected error and an address past the memory: SLVERR then DECERR, in order.
  rig().memory.InjectError(0x3400, 32);
  MemPortOutputs both = W(0, 0xFFFFFFFF, true);
  both.aw_valid = true;
  both.aw_addr = 0x3400;
  Cycle(both);
  both.aw_addr = 0x20000;
  Cycle(both);
  std::vector<unsigned> responses;
  while (cycle_ < c_aw + 40) {
    const MemPortInputs in = Cycle(Ready());
    if (in.b_valid) responses.push_back(in.b_resp);
  }
  EXPECT_EQ(responses, (std::vector<unsigned>{0, 2, 3}));
  EXPECT_EQ(t().stats().error_responses, 2u);
}

TEST_F(TransactorTest, ProtocolViolationsAreRecorded) {
  Cycle(Ar(0x1010, 0, 0));  // not bus aligned
  Cycle(Ar(0x0FE0, 1, 0));  // crosses 4 KiB
  MemPortOutputs aw = Ready();
  aw.aw_valid = true;
  aw.aw_addr = 0x100;
  aw.aw_len = 2;  // 3 beats announced, 1 sent
  Cycle(aw);
  Cycle(W(0, 0xFFFFFFFF, true));
  EXPECT_EQ(t().protocol_error_count(), 3u);
  ASSERT_EQ(t().protocol_errors().size(), 3u);
  EXPECT_NE(t().protocol_errors()[0].find("not bus aligned"), std::string::npos);
  EXPECT_NE(t().protocol_errors()[1].find("4 KiB"), std::string::npos);
  EXPECT_NE(t().protocol_errors()[2].find("W burst of 1 beats"), std::string::npos);
}

TEST_F(TransactorTest, WidestPortCarriesWholeBeats) {
  // 1,024 bytes a beat (8,192 bits, 32 strobe words): a write burst of two beats with every
  // third byte disabled (the last byte of the beat enabled), then the two beats read back.
  MemoryTransactor& w = rig().wide;
  constexpr unsigned kBus = MemoryTransactor::kMaxBusBytes;
  static_assert(kBus == 1024);
  EXPECT_EQ(w.bus_bytes(), kBus);
  const auto cycle = [&](const MemPortOutputs& out) {
    const MemPortInputs in = w.Present(cycle_);
    w.Edge(out, cycle_, now_);
    ++cycle_;
    return in;
  };
  const auto new_byte = [](unsigned beat, unsigned lane) {
    return static_cast<uint8_t>(0x55 ^ (lane + 7 * beat));
  };
  const auto enabled = [](unsigned lane) { return lane % 3 != 1 || lane == kBus - 1; };
  Fill(0x4000, 2 * kBus, 0x00);
  for (unsigned beat = 0; beat < 2; ++beat) {
    MemPortOutputs out = Ready();
    if (beat == 0) {
      out.aw_valid = true;
      out.aw_addr = 0x4000;
      out.aw_len = 1;
    }
    out.w_valid = true;
    out.w_last = beat == 1;
    for (unsigned lane = 0; lane < kBus; ++lane) {
      out.w_data[lane / 4] |= uint32_t{new_byte(beat, lane)} << (8 * (lane % 4));
      if (enabled(lane)) out.w_strb[lane / 32] |= 1u << (lane % 32);
    }
    cycle(out);
  }
  EXPECT_EQ(w.stats().write_bursts, 1u);
  EXPECT_EQ(w.stats().write_beats, 2u);
  std::vector<uint8_t> bytes(2 * kBus);
  rig().memory.Read(0x4000, bytes.data(), bytes.size());
  for (unsigned i = 0; i < 2 * kBus; ++i) {
    const unsigned beat = i / kBus, lane = i % kBus;
    ASSERT_EQ(bytes[i], enabled(lane) ? new_byte(beat, lane) : static_cast<uint8_t>(i)) << i;
  }
  while (!cycle(Ready()).b_valid) ASSERT_LT(cycle_, now_ + 200);
  cycle(Ar(0x4000, 1, 1));
  for (unsigned beat = 0; beat < 2; ++beat) {
    MemPortInputs in;
    while (!(in = cycle(Ready())).r_valid) ASSERT_LT(cycle_, now_ + 400);
    EXPECT_EQ(in.r_last, beat == 1);
    for (unsigned lane = 0; lane < kBus; ++lane) {
      ASSERT_EQ(Byte(in, lane), bytes[beat * kBus + lane]) << beat << " " << lane;
    }
  }
  EXPECT_TRUE(w.idle());
  EXPECT_EQ(w.protocol_error_count(), 0u);
  // Bursts are checked at this width: 512 bytes is half a beat, four beats cross 4 KiB.
  cycle(Ar(0x4200, 0, 0));
  cycle(Ar(0x4800, 3, 0));
  ASSERT_EQ(w.protocol_error_count(), 2u);
  EXPECT_NE(w.protocol_errors()[0].find("not bus aligned"), std::string::npos);
  EXPECT_NE(w.protocol_errors()[1].find("4 KiB"), std::string::npos);
  EXPECT_THROW(MemoryTransactor(rig().socket, sc_time(1, sc_core::SC_NS), 2 * kBus),
               std::invalid_argument);
}

TEST_F(TransactorTest, ReconfiguredMemoryChangesTiming) {
  HostMemory::Config config = Rig::MemoryConfig();
  config.timing.latency_cycles = 30;
  config.timing.bytes_per_cycle = 8;
  rig().memory.Reconfigure(config);
  const uint64_t c0 = cycle_;
  Cycle(Ar(0, 0, 0));  // 30 + 32 / 8 = 34 cycles
  while (!Cycle(Ready()).r_valid) ASSERT_LT(cycle_ - c0, 100u);
  EXPECT_EQ(cycle_ - 1 - c0, 34u);
}

}  // namespace
}  // namespace mxu::sim

int sc_main(int argc, char** argv) {
  // Before any sc_time exists (Config holds one): picoseconds, the model's precision.
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  testing::InitGoogleTest(&argc, argv);
  mxu::sim::Platform::Config config;
  config.watchdog_cycles = mxu::sim::kWatchdogCycles;
  mxu::sim::Platform platform("platform", config);
  mxu::sim::Rig rig("rig");
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  mxu::sim::g_platform = &platform;
  mxu::sim::g_rig = &rig;
  return RUN_ALL_TESTS();
}
