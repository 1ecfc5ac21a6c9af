// HostMemory: functional behaviour, error responses and exact cycle timing.
//
// SystemC elaborates once per process, so sc_main builds one platform (an initiator bound to each
// differently configured memory) before any test runs, starts it once, and never stops it. Tests
// call b_transport from sc_main's context, which is allowed because HostMemory never calls
// wait(), and advance time only with sc_start() in whole multiples of every memory's period.
#include "sim/host_memory.h"

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace mxu::sim {
namespace {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

sc_time Ns(double n) { return sc_time(n, sc_core::SC_NS); }

struct Initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Initiator> socket;
  explicit Initiator(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {}
};

// The memories under test, one per configuration, each behind its own initiator.
enum Which { kDefault, kSmall, kLatency, kWide, kNarrow, kDetA, kDetB, kHuge, kCount };

HostMemory::Config ConfigFor(Which which) {
  HostMemory::Config config;           // 4 GiB, latency 100, 8 in flight, 1 ns
  config.timing.bytes_per_cycle = 32;  // the default device's port: the memory takes no kPortWidth
  switch (which) {
    case kSmall:  // 64 KiB, period 2 ns: checks that timing counts cycles, not nanoseconds
      config.size_bytes = 64 * 1024;
      config.timing.latency_cycles = 10;
      config.timing.bytes_per_cycle = 4;
      config.timing.max_in_flight = 2;
      config.clock_period = Ns(2);
      break;
    case kLatency:
      config.timing.latency_cycles = 250;
      break;
    case kWide:
      config.timing.bytes_per_cycle = 64;
      break;
    case kNarrow:
      config.timing.bytes_per_cycle = 8;
      break;
    case kDetA:
    case kDetB:
      config.timing.latency_cycles = 37;
      config.timing.bytes_per_cycle = 16;
      config.timing.max_in_flight = 3;
      break;
    case kHuge:
      config.size_bytes = 1ull << 40;
      break;
    default:
      break;
  }
  return config;
}

class Platform {
 public:
  Platform() {
    const char* names[kCount] = {"mem",    "small", "latency", "wide",
                                 "narrow", "det_a", "det_b",   "huge"};
    for (int i = 0; i < kCount; ++i) {
      const std::string name = names[i];
      initiators_.push_back(std::make_unique<Initiator>((name + "_initiator").c_str()));
      memories_.push_back(std::make_unique<HostMemory>(name.c_str(), ConfigFor(Which(i))));
      initiators_.back()->socket.bind(memories_.back()->socket);
    }
  }
  HostMemory& memory(Which which) { return *memories_[which]; }
  Initiator& initiator(Which which) { return *initiators_[which]; }

 private:
  std::vector<std::unique_ptr<Initiator>> initiators_;
  std::vector<std::unique_ptr<HostMemory>> memories_;
};

Platform* g_platform = nullptr;

struct Result {
  tlm::tlm_response_status status;
  sc_time delay;  // as b_transport returned it
};

// Optional fields of one transaction.
struct Options {
  sc_time delay = SC_ZERO_TIME;
  const uint8_t* byte_enables = nullptr;
  unsigned byte_enable_length = 0;
  unsigned streaming_width = 0;  // 0: the data length
};

Result Transport(Which which, tlm::tlm_command command, uint64_t addr, uint8_t* data, unsigned len,
                 const Options& options = Options()) {
  tlm::tlm_generic_payload trans;
  trans.set_command(command);
  trans.set_address(addr);
  trans.set_data_ptr(data);
  trans.set_data_length(len);
  trans.set_streaming_width(options.streaming_width ? options.streaming_width : len);
  trans.set_byte_enable_ptr(const_cast<uint8_t*>(options.byte_enables));
  trans.set_byte_enable_length(options.byte_enable_length);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time delay = options.delay;
  g_platform->initiator(which).socket->b_transport(trans, delay);
  return {trans.get_response_status(), delay};
}

Result Read(Which which, uint64_t addr, uint8_t* data, unsigned len,
            const Options& options = Options()) {
  return Transport(which, tlm::TLM_READ_COMMAND, addr, data, len, options);
}

Result Write(Which which, uint64_t addr, const uint8_t* data, unsigned len,
             const Options& options = Options()) {
  return Transport(which, tlm::TLM_WRITE_COMMAND, addr, const_cast<uint8_t*>(data), len, options);
}

// Delay of a read of len bytes at delay `at`, the data itself discarded.
sc_time ReadDelay(Which which, unsigned len, sc_time at = SC_ZERO_TIME, uint64_t addr = 0) {
  std::vector<uint8_t> buffer(len);
  Options options;
  options.delay = at;
  const Result result = Read(which, addr, buffer.data(), len, options);
  EXPECT_EQ(result.status, tlm::TLM_OK_RESPONSE);
  return result.delay;
}

std::vector<uint8_t> Pattern(size_t len, uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<uint8_t> bytes(len);
  for (auto& byte : bytes) byte = static_cast<uint8_t>(random());
  return bytes;
}

class HostMemoryTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(g_platform, nullptr);
    // The platform outlives every test in the process: start each from an idle, empty memory.
    for (int i = 0; i < kCount; ++i) {
      HostMemory& memory = g_platform->memory(Which(i));
      memory.Reset();
      memory.Clear();
      memory.ResetStats();
      memory.ClearInjectedErrors();
    }
  }
  HostMemory& memory(Which which) { return g_platform->memory(which); }

  // Away from address 0, so that a wrong base would show.
  const uint64_t base_ = 0x12340000;
};

TEST_F(HostMemoryTest, ConfigDefaultsAreTheSpecifiedOnes) {
  const HostMemory::Config config;
  EXPECT_EQ(config.size_bytes, 1ull << 32);
  EXPECT_EQ(config.timing.latency_cycles, 100u);
  // As wide as the device's port: the memory cannot know it, the platform resolves it.
  EXPECT_EQ(config.timing.bytes_per_cycle, kPortWidth);
  EXPECT_EQ(config.timing.ForPort(64).bytes_per_cycle, 64u);
  EXPECT_EQ(config.timing.max_in_flight, 8u);
  EXPECT_EQ(config.clock_period, Ns(1));
  EXPECT_THROW(HostMemory::Validate(config), std::invalid_argument);
  HostMemory::Config on_port = config;
  on_port.timing = config.timing.ForPort(32);
  EXPECT_NO_THROW(HostMemory::Validate(on_port));
}

TEST_F(HostMemoryTest, ConfigValidationThrows) {
  const HostMemory::Config good = ConfigFor(kDefault);
  HostMemory::Config no_bandwidth = good;
  no_bandwidth.timing.bytes_per_cycle = 0;  // kPortWidth, which only the platform resolves
  HostMemory::Config no_slots = good;
  no_slots.timing.max_in_flight = 0;
  HostMemory::Config no_clock = good;
  no_clock.clock_period = SC_ZERO_TIME;
  for (const auto& [config, field] :
       {std::pair{no_bandwidth, "bytes_per_cycle"}, std::pair{no_slots, "max_in_flight"},
        std::pair{no_clock, "clock_period"}}) {
    try {
      HostMemory::Validate(config);
      ADD_FAILURE() << "no exception for a bad " << field;
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(field), std::string::npos) << error.what();
    }
    // The constructor validates before the module registers, so even after elaboration it
    // throws invalid_argument rather than a SystemC error.
    EXPECT_THROW(HostMemory("bad", config), std::invalid_argument) << field;
  }
}

TEST_F(HostMemoryTest, RoundTripsAtOddAddressesAndLengthsAcrossPages) {
  const uint64_t offsets[] = {0, 1, 3, 4093, 4095, 4096, 4097, 8190};
  const unsigned lengths[] = {1, 2, 3, 7, 31, 33, 4095, 4096, 4097, 10001};
  uint32_t seed = 1;
  for (const uint64_t offset : offsets) {
    for (const unsigned len : lengths) {
      const uint64_t addr = base_ + offset;
      const std::vector<uint8_t> data = Pattern(len, seed++);
      ASSERT_EQ(Write(kDefault, addr, data.data(), len).status, tlm::TLM_OK_RESPONSE);
      std::vector<uint8_t> back(len, 0xee);
      ASSERT_EQ(Read(kDefault, addr, back.data(), len).status, tlm::TLM_OK_RESPONSE);
      EXPECT_EQ(back, data) << "offset " << offset << " length " << len;
      std::vector<uint8_t> host(len);
      memory(kDefault).Read(addr, host.data(), len);
      EXPECT_EQ(host, data) << "offset " << offset << " length " << len;
    }
  }
  // The host API writes what b_transport reads, also across pages.
  const std::vector<uint8_t> data = Pattern(5000, 99);
  memory(kDefault).Write(base_ + 12345, data.data(), data.size());
  std::vector<uint8_t> back(data.size());
  ASSERT_EQ(Read(kDefault, base_ + 12345, back.data(), back.size()).status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(back, data);
}

TEST_F(HostMemoryTest, UnwrittenMemoryReadsZero) {
  const size_t pages_before = memory(kDefault).allocated_pages();
  std::vector<uint8_t> buffer(3 * 4096 + 5, 0xaa);
  ASSERT_EQ(Read(kDefault, base_ + 4093, buffer.data(), buffer.size()).status,
            tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(buffer, std::vector<uint8_t>(buffer.size(), 0));
  EXPECT_EQ(memory(kDefault).allocated_pages(), pages_before) << "reads must not allocate";

  // The rest of a written page reads zero too.
  const uint8_t one = 0x5a;
  memory(kDefault).Write(base_ + 100, &one, 1);
  std::fill(buffer.begin(), buffer.end(), 0xaa);
  memory(kDefault).Read(base_, buffer.data(), 4096);
  for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(buffer[i], i == 100 ? 0x5a : 0) << i;
  EXPECT_EQ(memory(kDefault).allocated_pages(), pages_before + 1);
}

TEST_F(HostMemoryTest, TerabyteAddressSpaceAllocatesOnlyWrittenPages) {
  HostMemory& huge = memory(kHuge);
  const size_t pages_before = huge.allocated_pages();
  const uint64_t size = huge.config().size_bytes;
  const std::vector<uint8_t> data = Pattern(8, 7);
  ASSERT_EQ(Write(kHuge, base_, data.data(), 8).status, tlm::TLM_OK_RESPONSE);
  ASSERT_EQ(Write(kHuge, (1ull << 39) + 4092, data.data(), 8).status, tlm::TLM_OK_RESPONSE);
  ASSERT_EQ(Write(kHuge, size - 8, data.data(), 8).status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(huge.allocated_pages(), pages_before + 4);  // the middle write spans two pages
  for (const uint64_t addr : {base_, (uint64_t{1} << 39) + 4092, size - 8}) {
    std::vector<uint8_t> back(8);
    ASSERT_EQ(Read(kHuge, addr, back.data(), 8).status, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(back, data) << addr;
  }
  // The top of the default 4 GiB memory.
  ASSERT_EQ(Write(kDefault, (1ull << 32) - 8, data.data(), 8).status, tlm::TLM_OK_RESPONSE);
  std::vector<uint8_t> back(8);
  memory(kDefault).Read((1ull << 32) - 8, back.data(), 8);
  EXPECT_EQ(back, data);
}

TEST_F(HostMemoryTest, ByteEnablesOnWritesRepeatAndSkipDisabledBytes) {
  const std::vector<uint8_t> old(32, 0x11);
  memory(kDefault).Write(base_ + 4090, old.data(), old.size());  // spans a page boundary
  const std::vector<uint8_t> data = Pattern(16, 3);
  const uint8_t enables[4] = {0xff, 0x00, 0x00, 0xff};  // shorter than the data: repeats
  Options options;
  options.byte_enables = enables;
  options.byte_enable_length = 4;
  ASSERT_EQ(Write(kDefault, base_ + 4093, data.data(), 16, options).status, tlm::TLM_OK_RESPONSE);
  std::vector<uint8_t> back(32);
  memory(kDefault).Read(base_ + 4090, back.data(), back.size());
  for (size_t i = 0; i < 32; ++i) {
    const bool written = i >= 3 && i < 19 && (i - 3) % 4 != 1 && (i - 3) % 4 != 2;
    EXPECT_EQ(back[i], written ? data[i - 3] : 0x11) << i;
  }

  // An enable array longer than the data: only its first bytes apply.
  const uint8_t long_enables[8] = {0x00, 0xff, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff};
  options.byte_enables = long_enables;
  options.byte_enable_length = 8;
  const uint8_t three[3] = {0xa1, 0xa2, 0xa3};
  ASSERT_EQ(Write(kDefault, base_, three, 3, options).status, tlm::TLM_OK_RESPONSE);
  uint8_t result[4];
  memory(kDefault).Read(base_, result, 4);
  EXPECT_EQ(result[0], 0x00);
  EXPECT_EQ(result[1], 0xa2);
  EXPECT_EQ(result[2], 0x00);
  EXPECT_EQ(result[3], 0x00);

  // All bytes disabled: nothing written, no page allocated.
  const size_t pages = memory(kDefault).allocated_pages();
  const uint8_t none[1] = {0x00};
  options.byte_enables = none;
  options.byte_enable_length = 1;
  ASSERT_EQ(Write(kDefault, base_ + (1 << 20), data.data(), 16, options).status,
            tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(memory(kDefault).allocated_pages(), pages);
}

TEST_F(HostMemoryTest, ByteEnablesOnReadsLeaveDisabledBytesOfTheBuffer) {
  const std::vector<uint8_t> data = Pattern(8, 4);
  memory(kDefault).Write(base_, data.data(), data.size());
  const uint8_t enables[2] = {0x00, 0xff};
  Options options;
  options.byte_enables = enables;
  options.byte_enable_length = 2;
  std::vector<uint8_t> back(8, 0xcc);
  ASSERT_EQ(Read(kDefault, base_, back.data(), 8, options).status, tlm::TLM_OK_RESPONSE);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(back[i], i % 2 ? data[i] : 0xcc) << i;
}

TEST_F(HostMemoryTest, AddressErrorsAtAndBeyondTheEndTouchNothing) {
  for (const Which which : {kDefault, kSmall}) {
    HostMemory& mem = memory(which);
    const uint64_t size = mem.config().size_bytes;
    const size_t pages = mem.allocated_pages();
    uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    Options options;
    options.delay = Ns(6);
    for (const auto& [addr, len] : {std::pair<uint64_t, unsigned>{size, 1},
                                    {size - 4, 8},
                                    {size + 4096, 4},
                                    {~0ull - 1, 4}}) {  // addr + len wraps around 2^64
      for (const tlm::tlm_command command : {tlm::TLM_READ_COMMAND, tlm::TLM_WRITE_COMMAND}) {
        const Result result = Transport(which, command, addr, data, len, options);
        EXPECT_EQ(result.status, tlm::TLM_ADDRESS_ERROR_RESPONSE) << addr << "+" << len;
        EXPECT_EQ(result.delay, Ns(6)) << "an error response takes no time";
      }
    }
    EXPECT_EQ(mem.allocated_pages(), pages);
    uint8_t top[4] = {0xff, 0xff, 0xff, 0xff};
    mem.Read(size - 4, top, 4);
    EXPECT_EQ(top[0] | top[1] | top[2] | top[3], 0) << "the failed write wrote nothing";
    // The last byte itself is in range.
    EXPECT_EQ(Write(which, size - 1, data, 1).status, tlm::TLM_OK_RESPONSE);

    // The host API throws instead.
    try {
      mem.Write(size - 1, data, 2);
      ADD_FAILURE() << "no exception";
    } catch (const std::out_of_range& error) {
      EXPECT_NE(std::string(error.what()).find(mem.name()), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("outside"), std::string::npos) << error.what();
    }
    EXPECT_THROW(mem.Read(size, data, 1), std::out_of_range);
    EXPECT_THROW(mem.Read(~0ull, data, 2), std::out_of_range);
    EXPECT_NO_THROW(mem.Read(size, data, 0));
  }
}

TEST_F(HostMemoryTest, InjectedErrorRangesFailAccessesThatOverlapThem) {
  const uint64_t bad = base_ + 0x1000;
  memory(kDefault).InjectError(bad, 0x100);
  uint8_t data[32] = {9, 9, 9, 9};
  for (const uint64_t addr : {bad - 16, bad, bad + 0xff, bad + 0x80}) {
    EXPECT_EQ(Write(kDefault, addr, data, 32).status, tlm::TLM_GENERIC_ERROR_RESPONSE) << addr;
    EXPECT_EQ(Read(kDefault, addr, data, 32).status, tlm::TLM_GENERIC_ERROR_RESPONSE) << addr;
  }
  uint8_t check[64];
  memory(kDefault).Read(bad - 16, check, sizeof(check));
  EXPECT_EQ(std::vector<uint8_t>(check, check + 64), std::vector<uint8_t>(64, 0));
  // Adjacent accesses are fine.
  EXPECT_EQ(Write(kDefault, bad - 32, data, 32).status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(Read(kDefault, bad + 0x100, data, 32).status, tlm::TLM_OK_RESPONSE);
  // The host API and transport_dbg are backdoors and ignore them.
  EXPECT_NO_THROW(memory(kDefault).Write(bad, data, 4));
  // Cleared, the range works again.
  memory(kDefault).ClearInjectedErrors();
  EXPECT_EQ(Write(kDefault, bad, data, 32).status, tlm::TLM_OK_RESPONSE);
}

TEST_F(HostMemoryTest, CommandBurstAndByteEnableErrors) {
  uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  Options options;
  options.delay = Ns(3);
  const Result bad_command =
      Transport(kDefault, static_cast<tlm::tlm_command>(3), base_, data, 8, options);
  EXPECT_EQ(bad_command.status, tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(bad_command.delay, Ns(3));

  // The ignore command is accepted and does nothing.
  const Result ignore = Transport(kDefault, tlm::TLM_IGNORE_COMMAND, base_, data, 8, options);
  EXPECT_EQ(ignore.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ignore.delay, Ns(3));
  uint8_t check[8];
  memory(kDefault).Read(base_, check, 8);
  EXPECT_EQ(std::vector<uint8_t>(check, check + 8), std::vector<uint8_t>(8, 0));

  options.streaming_width = 4;
  EXPECT_EQ(Write(kDefault, base_, data, 8, options).status, tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(Read(kDefault, base_, data, 8, options).status, tlm::TLM_BURST_ERROR_RESPONSE);
  options.streaming_width = 16;  // wider than the data: no streaming at all
  EXPECT_EQ(Write(kDefault, base_, data, 8, options).status, tlm::TLM_OK_RESPONSE);

  options.streaming_width = 0;
  const uint8_t enables[1] = {0xff};
  options.byte_enables = enables;
  options.byte_enable_length = 0;  // TLM-2.0 requires a non-zero length with a pointer
  EXPECT_EQ(Write(kDefault, base_, data, 8, options).status, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
}

TEST_F(HostMemoryTest, DebugTransportIsAZeroTimeBackdoor) {
  const std::vector<uint8_t> data = Pattern(100, 5);
  tlm::tlm_generic_payload trans;
  trans.set_command(tlm::TLM_WRITE_COMMAND);
  trans.set_address(base_ + 4050);
  trans.set_data_ptr(const_cast<uint8_t*>(data.data()));
  trans.set_data_length(100);
  EXPECT_EQ(g_platform->initiator(kDefault).socket->transport_dbg(trans), 100u);
  std::vector<uint8_t> back(100);
  memory(kDefault).Read(base_ + 4050, back.data(), 100);
  EXPECT_EQ(back, data);

  // Clipped at the end of memory, reporting the bytes that were transferred.
  const uint64_t size = memory(kDefault).config().size_bytes;
  memory(kDefault).Write(size - 10, data.data(), 10);
  trans.set_command(tlm::TLM_READ_COMMAND);
  trans.set_address(size - 10);
  trans.set_data_ptr(back.data());
  EXPECT_EQ(g_platform->initiator(kDefault).socket->transport_dbg(trans), 10u);
  EXPECT_EQ(std::vector<uint8_t>(back.begin(), back.begin() + 10),
            std::vector<uint8_t>(data.begin(), data.begin() + 10));
  trans.set_address(size);
  EXPECT_EQ(g_platform->initiator(kDefault).socket->transport_dbg(trans), 0u);

  // No stats, no timing: the next read sees an idle memory.
  EXPECT_EQ(memory(kDefault).stats().transactions, 0u);
  EXPECT_EQ(ReadDelay(kDefault, 32), Ns(101));
}

TEST_F(HostMemoryTest, SingleAccessTakesLatencyPlusTransferCycles) {
  // Default: latency 100, 32 bytes per cycle, 1 ns. Reset between accesses: each sees an idle
  // memory.
  const std::pair<unsigned, double> cases[] = {{0, 100},  {1, 101},  {32, 101},  {33, 102},
                                               {64, 102}, {65, 103}, {4096, 228}};
  for (const auto& [len, ns] : cases) {
    memory(kDefault).Reset();
    EXPECT_EQ(ReadDelay(kDefault, len), Ns(ns)) << len;
    memory(kDefault).Reset();
    const std::vector<uint8_t> data(len);
    EXPECT_EQ(Write(kDefault, base_, data.data(), len).delay, Ns(ns)) << len;
  }
  // Small: latency 10, 4 bytes per cycle, 2 ns per cycle: 10 bytes = (10 + 3) cycles = 26 ns.
  EXPECT_EQ(ReadDelay(kSmall, 10), Ns(26));
}

TEST_F(HostMemoryTest, IncomingDelayIsTheIssueTimeRoundedUpToAClockEdge) {
  EXPECT_EQ(ReadDelay(kDefault, 32, Ns(50)), Ns(151));
  memory(kDefault).Reset();
  EXPECT_EQ(ReadDelay(kDefault, 32, Ns(50.5)), Ns(152));  // issued at the edge at 51 ns
  // Small (2 ns): 3 ns is issued at cycle 2 (4 ns), completes at cycle 2 + 10 + 1 = 13 (26 ns).
  EXPECT_EQ(ReadDelay(kSmall, 4, Ns(3)), Ns(26));
}

TEST_F(HostMemoryTest, BackToBackRequestsAreSerializedByBandwidth) {
  // 256 bytes = 8 cycles each; the latencies overlap, the transfers do not.
  for (const double ns : {108, 116, 124, 132}) EXPECT_EQ(ReadDelay(kDefault, 256), Ns(ns));

  // Reads and writes share the one channel.
  memory(kDefault).Reset();
  const std::vector<uint8_t> data(256);
  EXPECT_EQ(Write(kDefault, base_, data.data(), 256).delay, Ns(108));
  EXPECT_EQ(ReadDelay(kDefault, 256), Ns(116));
  EXPECT_EQ(Write(kDefault, base_, data.data(), 256).delay, Ns(124));

  // A request issued after the channel is free again is not delayed.
  memory(kDefault).Reset();
  EXPECT_EQ(ReadDelay(kDefault, 256), Ns(108));
  EXPECT_EQ(ReadDelay(kDefault, 256, Ns(200)), Ns(308));

  // 1024 bytes = 32 cycles: the second one's latency hides the first's transfer; the third
  // queues behind the second.
  memory(kDefault).Reset();
  EXPECT_EQ(ReadDelay(kDefault, 1024), Ns(132));
  EXPECT_EQ(ReadDelay(kDefault, 1024, Ns(40)), Ns(172));
  EXPECT_EQ(ReadDelay(kDefault, 1024, Ns(41)), Ns(204));
}

TEST_F(HostMemoryTest, InFlightLimitDelaysTheNextRequest) {
  // 8 in flight, 1-cycle transfers: the first 8 complete at 101..108; the 9th waits for the
  // first to complete (101) and then needs its own latency: 101 + 100 + 1.
  for (int i = 0; i < 8; ++i) EXPECT_EQ(ReadDelay(kDefault, 32), Ns(101 + i)) << i;
  EXPECT_EQ(ReadDelay(kDefault, 32), Ns(202));
  // The 10th waits for the second (102), then queues behind the 9th's transfer.
  EXPECT_EQ(ReadDelay(kDefault, 32), Ns(203));

  // Issued at 100 ns, all 8 are still outstanding: issued at 101, done at 202 (not 201).
  memory(kDefault).Reset();
  for (int i = 0; i < 8; ++i) ReadDelay(kDefault, 32);
  EXPECT_EQ(ReadDelay(kDefault, 32, Ns(100)), Ns(202));
  // Issued at 101 ns, the first has completed: no wait.
  memory(kDefault).Reset();
  for (int i = 0; i < 8; ++i) ReadDelay(kDefault, 32);
  EXPECT_EQ(ReadDelay(kDefault, 32, Ns(101)), Ns(202));
  memory(kDefault).Reset();
  for (int i = 0; i < 8; ++i) ReadDelay(kDefault, 32);
  EXPECT_EQ(ReadDelay(kDefault, 32, Ns(102)), Ns(203));

  // Small: 2 in flight, latency 10, 4 bytes per cycle, 2 ns. Cycles 11, 12, then the third
  // issues at 11 and completes at 11 + 10 + 1 = 22 (44 ns).
  EXPECT_EQ(ReadDelay(kSmall, 4), Ns(22));
  EXPECT_EQ(ReadDelay(kSmall, 4), Ns(24));
  EXPECT_EQ(ReadDelay(kSmall, 4), Ns(44));

  // A request that completes at cycle T is no longer outstanding at T. Small again: A and B
  // complete at 11 and 12; C (empty, so done right after its latency) issues at 11, when only B
  // is outstanding, and completes at 21; D issues at 11 too, finds B and C outstanding, waits for
  // B (12) and completes at 12 + 10 + 1 = 23 (46 ns).
  memory(kSmall).Reset();
  EXPECT_EQ(ReadDelay(kSmall, 4), Ns(22));
  EXPECT_EQ(ReadDelay(kSmall, 4), Ns(24));
  EXPECT_EQ(ReadDelay(kSmall, 0, Ns(22)), Ns(42));
  EXPECT_EQ(ReadDelay(kSmall, 4, Ns(22)), Ns(46));
}

TEST_F(HostMemoryTest, SimulatedTimeRetiresRequestsInFlight) {
  for (int i = 0; i < 8; ++i) EXPECT_EQ(ReadDelay(kDefault, 32), Ns(101 + i));
  sc_core::sc_start(Ns(200));  // a multiple of every memory's period
  // All 8 completed by now: the next one is neither limited nor queued.
  EXPECT_EQ(ReadDelay(kDefault, 32), Ns(101));
  EXPECT_EQ(ReadDelay(kDefault, 64, Ns(7)), Ns(109));
}

TEST_F(HostMemoryTest, LatencyAndBandwidthSettingsMoveTimings) {
  // Four back-to-back 512-byte reads on each configuration.
  const std::pair<Which, std::array<double, 4>> cases[] = {
      {kDefault, {116, 132, 148, 164}},  // latency 100, 16 cycles each
      {kLatency, {266, 282, 298, 314}},  // latency 250: everything 150 cycles later
      {kWide, {108, 116, 124, 132}},     // 64 bytes per cycle: 8 cycles each
      {kNarrow, {164, 228, 292, 356}},   // 8 bytes per cycle: 64 cycles each
  };
  for (const auto& [which, expected] : cases) {
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(ReadDelay(which, 512), Ns(expected[i])) << memory(which).name() << " " << i;
    }
  }
}

// One pseudo-random mixed sequence of reads and writes.
struct Trace {
  std::vector<uint64_t> timing;  // status and delay of each access
  std::vector<uint8_t> data;     // what the reads returned
};

Trace RunSequence(Which which, uint64_t base) {
  std::mt19937_64 random(2024);
  Trace trace;
  uint64_t at_ns = 0;
  for (int i = 0; i < 300; ++i) {
    at_ns += random() % 20;  // issue times never go backwards
    const unsigned len = 1 + random() % 300;
    const uint64_t addr = base + random() % 20000;
    std::vector<uint8_t> data = Pattern(len, static_cast<uint32_t>(random()));
    Options options;
    options.delay = Ns(static_cast<double>(at_ns));
    const bool write = random() % 2;
    const Result result = write ? Write(which, addr, data.data(), len, options)
                                : Read(which, addr, data.data(), len, options);
    trace.timing.push_back(result.status);
    trace.timing.push_back(result.delay.value());
    if (!write) trace.data.insert(trace.data.end(), data.begin(), data.end());
  }
  return trace;
}

TEST_F(HostMemoryTest, IdenticalSequencesGiveIdenticalResults) {
  const Trace a = RunSequence(kDetA, base_);
  const Trace b = RunSequence(kDetB, base_);
  EXPECT_EQ(a.timing, b.timing);
  EXPECT_EQ(a.data, b.data);
  // Again after Reset: the same timing (contents differ, as the first run's writes remain).
  memory(kDetA).Reset();
  const Trace again = RunSequence(kDetA, base_);
  EXPECT_EQ(again.timing, a.timing);
  // The sequence keeps the in-flight limit and the channel busy: not a trivial trace.
  uint64_t max_delay = 0;
  for (size_t i = 1; i < a.timing.size(); i += 2) max_delay = std::max(max_delay, a.timing[i]);
  EXPECT_GT(sc_time::from_value(max_delay), Ns(1000));
}

TEST_F(HostMemoryTest, ResetClearsTimingButKeepsContentsAndClearDropsThem) {
  const std::vector<uint8_t> data = Pattern(4096, 8);
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(Write(kDefault, base_ + 4096 * i, data.data(), 4096).status, tlm::TLM_OK_RESPONSE);
  }
  EXPECT_GT(ReadDelay(kDefault, 32), Ns(500));  // queued behind 4 x 128 cycles
  memory(kDefault).Reset();
  std::vector<uint8_t> back(4096);
  const Result result = Read(kDefault, base_ + 4096 * 3, back.data(), 4096);
  EXPECT_EQ(result.delay, Ns(228));
  EXPECT_EQ(back, data);

  // Clear drops the contents instead.
  EXPECT_EQ(memory(kDefault).allocated_pages(), 4u);
  memory(kDefault).Clear();
  EXPECT_EQ(memory(kDefault).allocated_pages(), 0u);
  memory(kDefault).Read(base_ + 4096 * 3, back.data(), 4096);
  EXPECT_EQ(back, std::vector<uint8_t>(4096, 0));
}

TEST_F(HostMemoryTest, StatsAddUp) {
  const HostMemory::Stats& stats = memory(kDefault).stats();
  EXPECT_EQ(stats.bytes_read, 0u);
  EXPECT_EQ(stats.bytes_written, 0u);
  EXPECT_EQ(stats.transactions, 0u);
  EXPECT_EQ(stats.errors, 0u);

  std::vector<uint8_t> data(100);
  Write(kDefault, base_, data.data(), 100);
  const uint8_t enables[1] = {0x00};
  Options masked;
  masked.byte_enables = enables;
  masked.byte_enable_length = 1;
  Write(kDefault, base_, data.data(), 28, masked);  // counts its length: it uses the channel
  Read(kDefault, base_, data.data(), 64);
  Read(kDefault, base_ + 5, data.data(), 1);
  Read(kDefault, memory(kDefault).config().size_bytes, data.data(), 4);          // address error
  Transport(kDefault, static_cast<tlm::tlm_command>(3), base_, data.data(), 4);  // command error
  Transport(kDefault, tlm::TLM_IGNORE_COMMAND, base_, data.data(), 4);           // not counted
  memory(kDefault).Write(base_, data.data(), 50);  // backdoor: not counted
  memory(kDefault).Read(base_, data.data(), 50);

  EXPECT_EQ(stats.bytes_written, 128u);
  EXPECT_EQ(stats.bytes_read, 65u);
  EXPECT_EQ(stats.transactions, 4u);
  EXPECT_EQ(stats.errors, 2u);

  memory(kDefault).ResetStats();
  EXPECT_EQ(stats.bytes_read + stats.bytes_written + stats.transactions + stats.errors, 0u);
}

}  // namespace
}  // namespace mxu::sim

int sc_main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  // The one platform of this process: built and elaborated before any test runs, never stopped.
  mxu::sim::Platform platform;
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  mxu::sim::g_platform = &platform;
  return RUN_ALL_TESTS();
}
