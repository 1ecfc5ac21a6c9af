// The model backend's integer mode (docs/numerics.md, "The integer mode"; docs/isa.md), on its
// own: int8 LOADs and STOREs at any byte address, the int8 x int8 -> int32 MATMUL against a plain
// host loop, the requantizing ACTIVATE against a host statement of the rule (written here, apart
// from the model's), the int32 STORE's ReLU, the decode errors, the timing the RTL is specified
// to have (MATMUL as bf16; ACTIVATE one read and one stage more; the quantization row's hazards)
// and random programs of the integer mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backends/model_device.h"
#include "tests/backends/program_harness.h"
#include "tests/backends/random_program.h"

namespace mxu {
namespace {

using backends::ModelDevice;
using isa::Buffer;
using isa::Instruction;
using testing::ExpectDone;
using testing::ExpectError;
using testing::Outcome;
using testing::RunProgram;

template <typename T>
std::vector<T> ReadHost(driver::Device& dev, uint64_t addr, size_t count) {
  std::vector<T> v(count);
  dev.ReadMemory(addr, v.data(), count * sizeof(T));
  return v;
}

template <typename T>
void WriteHost(driver::Device& dev, uint64_t addr, const std::vector<T>& v) {
  dev.WriteMemory(addr, v.data(), v.size() * sizeof(T));
}

// int8 operands with the extremes (-128 above all: its product with itself is the largest)
// more often than uniform draws would give them.
std::vector<int8_t> RandomInt8(size_t n, std::mt19937_64& rng) {
  static constexpr int8_t kEdges[] = {-128, -127, -1, 0, 1, 127};
  std::vector<int8_t> v(n);
  for (auto& x : v) {
    const uint64_t r = rng();
    x = r % 8 == 0 ? kEdges[(r >> 8) % 6] : static_cast<int8_t>(r >> 16);
  }
  return v;
}

// The rule of docs/numerics.md, stated apart from the model's: p / 2^s rounded half away from
// zero as the rounded magnitude with the sign put back ...
int64_t HostRounded(uint32_t acc, uint32_t bias, uint32_t word) {
  const int64_t x = int64_t{static_cast<int32_t>(acc)} + static_cast<int32_t>(bias);
  const int64_t m = word >> 8;
  const int s = word & 0x3F;
  const int64_t p = x * m;
  if (s == 0) return p;
  const int64_t magnitude = ((p < 0 ? -p : p) + (int64_t{1} << (s - 1))) >> s;
  return p < 0 ? -magnitude : magnitude;
}

// ... then the zero point and the clamp.
int32_t HostRequantize(uint32_t acc, uint32_t bias, uint32_t word, int zero_point, bool relu) {
  const int64_t y = HostRounded(acc, bias, word) + zero_point;
  const int64_t lo = relu ? zero_point : -128;
  return static_cast<int32_t>(y < lo ? lo : y > 127 ? 127 : y);
}

TEST(ModelInt8, FeaturesReportTheIntegerMode) {
  ModelDevice dev;
  EXPECT_TRUE(csr::FeaturesInt8(dev.ReadCsr(csr::kFeatures)));
}

// ----------------------------------------------------------------------------- LOAD / STORE

// int8 rows in and out at odd host addresses and strides, packed, broadcast: every byte stored
// is the byte loaded, bytes between the rows untouched; the UB lanes hold the bytes
// sign-extended (a bf16 STORE shows them) and zero beyond `lanes`.
TEST(ModelInt8, LoadStoreRoundTripsAtAnyByteAddressAndStride) {
  struct Case {
    uint32_t rows, lanes, src_stride, dst_stride;
    uint64_t src, dst;
  };
  const Case cases[] = {
      {37, 16, 21, 29, 0x20001, 0x40003},  // odd everything
      {64, 16, 16, 16, 0x20000, 0x40000},  // packed: two rows a beat, linear both ways
      {33, 8, 8, 8, 0x20000, 0x40005},     // four rows a beat
      {9, 1, 1, 3, 0x2001F, 0x4001F},      // one-byte rows across beats
      {40, 13, 13, 13, 0x20007, 0x40000},  // not a power of two: segments
      {12, 16, 0, 17, 0x20FF9, 0x40FF9},   // broadcast, rows across a 4 KiB page
      {5, 16, 4096 + 3, 4096 - 1, 0x21FF3, 0x41FF5},
  };
  std::mt19937_64 rng(1);
  for (const Case& c : cases) {
    SCOPED_TRACE("rows " + std::to_string(c.rows) + " lanes " + std::to_string(c.lanes) +
                 " strides " + std::to_string(c.src_stride) + "/" + std::to_string(c.dst_stride));
    ModelDevice dev;
    const uint64_t span = uint64_t{c.rows} * std::max(c.src_stride, c.lanes) + c.lanes;
    std::vector<int8_t> data = RandomInt8(span, rng);
    WriteHost(dev, c.src, data);
    const size_t dst_span = size_t{c.rows - 1} * c.dst_stride + c.lanes + 64;
    WriteHost(dev, c.dst, std::vector<uint8_t>(dst_span, 0xA5));
    const uint64_t wide = 0x80000;  // the lanes as bf16 STORE writes them: 16 bits each
    const Outcome out = RunProgram(
        dev, {isa::Load(Buffer::kUb, c.rows, c.lanes, 100, c.src, c.src_stride, false, true),
              isa::Sync(),
              isa::Store(Buffer::kUb, c.rows, c.lanes, 100, c.dst, c.dst_stride, false, true),
              isa::Store(Buffer::kUb, c.rows, 16, 100, wide, 16), isa::Halt()});
    ExpectDone(out);
    EXPECT_EQ(out.counter(csr::Counter::kDmaWriteBytes),
              uint64_t{c.rows} * c.lanes + uint64_t{c.rows} * 16 * 2);
    const auto got = ReadHost<uint8_t>(dev, c.dst, dst_span);
    const auto lanes = ReadHost<uint16_t>(dev, wide, size_t{c.rows} * 16);
    for (uint32_t i = 0; i < c.rows; ++i) {
      for (uint32_t j = 0; j < 16; ++j) {
        const uint16_t lane =
            j < c.lanes ? static_cast<uint16_t>(int16_t{data[size_t{i} * c.src_stride + j]}) : 0;
        ASSERT_EQ(lanes[i * 16 + j], lane) << i << "," << j;
      }
    }
    for (size_t k = 0; k < dst_span; ++k) {
      const uint32_t i = static_cast<uint32_t>(k / c.dst_stride);
      const uint32_t j = static_cast<uint32_t>(k % c.dst_stride);
      const bool stored = i < c.rows && j < c.lanes;
      const uint8_t want =
          stored ? static_cast<uint8_t>(data[size_t{i} * c.src_stride + j]) : uint8_t{0xA5};
      ASSERT_EQ(got[k], want) << "byte " << k;
    }
  }
}

// The DMA cuts int8 rows by their bytes: packed rows share beats, other rows read whole beats
// of their own, a broadcast row is read once.
TEST(ModelInt8, LoadsReadTheBeatsOfTheirBytes) {
  ModelDevice dev;
  const uint64_t program_beats = 1;  // LOAD and HALT: 32 bytes
  Outcome out =
      RunProgram(dev, {isa::Load(Buffer::kUb, 64, 16, 0, 0x20000, 16, false, true), isa::Halt()});
  ExpectDone(out);
  EXPECT_EQ(out.counter(csr::Counter::kDmaReadBytes), (32 + program_beats) * 32);
  out = RunProgram(dev,
                   {isa::Load(Buffer::kWeights, 16, 4, 0, 0x20000, 4, false, true), isa::Halt()});
  ExpectDone(out);
  EXPECT_EQ(out.counter(csr::Counter::kDmaReadBytes), (2 + program_beats) * 32);
  const uint32_t rows = 7, lanes = 11, stride = 25;
  const uint64_t src = 0x20000 + 27;
  out = RunProgram(dev,
                   {isa::Load(Buffer::kUb, rows, lanes, 0, src, stride, false, true), isa::Halt()});
  ExpectDone(out);
  uint64_t beats = program_beats;
  for (uint32_t i = 0; i < rows; ++i) {
    const uint64_t a = src + uint64_t{stride} * i;
    beats += (a + lanes - 1) / 32 - a / 32 + 1;
  }
  EXPECT_EQ(out.counter(csr::Counter::kDmaReadBytes), beats * 32);
  out = RunProgram(dev, {isa::Load(Buffer::kUb, 50, 16, 0, 0x2001F, 0, false, true), isa::Halt()});
  ExpectDone(out);
  EXPECT_EQ(out.counter(csr::Counter::kDmaReadBytes), (2 + program_beats) * 32);
}

// STORE ACC with integer: int32 words, ReLU zeroes a word with bit 31 set and keeps every other
// word as it is (NaN patterns included); LOAD ACC with integer is the plain 4-byte LOAD.
TEST(ModelInt8, Int32StoreReluHasNoNanRule) {
  ModelDevice dev;
  std::mt19937_64 rng(3);
  std::vector<uint32_t> words = {0x7FC00001u, 0x7F800001u, 0xFFC00000u, 0xFF800001u,
                                 0x80000000u, 0xFFFFFFFFu, 0x00000000u, 0x00000001u,
                                 0x7FFFFFFFu, 0x7F800000u, 0xFF800000u, 0x80000001u};
  while (words.size() < 16 * 8) words.push_back(static_cast<uint32_t>(rng()));
  WriteHost(dev, 0x20000, words);
  const Outcome out =
      RunProgram(dev, {isa::Load(Buffer::kAcc, 8, 16, 0, 0x20000, 16, false, true), isa::Sync(),
                       isa::Store(Buffer::kAcc, 8, 16, 0, 0x40000, 16, true, true),
                       isa::Store(Buffer::kAcc, 8, 16, 0, 0x50000, 16, false, true),
                       isa::Store(Buffer::kAcc, 8, 16, 0, 0x60000, 16, true, false), isa::Halt()});
  ExpectDone(out);
  const auto relu = ReadHost<uint32_t>(dev, 0x40000, words.size());
  const auto raw = ReadHost<uint32_t>(dev, 0x50000, words.size());
  const auto fp = ReadHost<uint32_t>(dev, 0x60000, words.size());
  for (size_t i = 0; i < words.size(); ++i) {
    ASSERT_EQ(relu[i], (words[i] >> 31) ? 0u : words[i]) << i;
    ASSERT_EQ(raw[i], words[i]) << i;
  }
  EXPECT_EQ(fp[1], 0x7FC00000u);  // the fp32 ReLU's NaN rule, which int32 words do not get
  EXPECT_EQ(relu[1], 0x7F800001u);
  EXPECT_EQ(out.counter(csr::Counter::kDmaWriteBytes), 3u * 8 * 16 * 4);
}

// --------------------------------------------------------------------------------- MATMUL

// C = A x B over K tiles (the last one partial), int8 at odd host addresses, against the host's
// integer product; int32 words stored.
TEST(ModelInt8, MatmulIsTheHostIntegerProduct) {
  for (const int k : {1, 16, 45}) {
    ModelDevice dev;
    std::mt19937_64 rng(10 + k);
    const int m = 37, n = 16;
    const auto a = RandomInt8(size_t(m) * k, rng), b = RandomInt8(size_t(k) * n, rng);
    const uint64_t a_addr = 0x100001, b_addr = 0x200003, c_addr = 0x300000;
    WriteHost(dev, a_addr, a);
    WriteHost(dev, b_addr, b);
    std::vector<Instruction> p;
    const int tiles = (k + 15) / 16;
    for (int t = 0; t < tiles; ++t) {
      const int k0 = 16 * t, k_rows = std::min(16, k - k0);
      p.push_back(isa::Load(Buffer::kUb, m, k_rows, t * m, a_addr + k0, k, false, true));
      p.push_back(
          isa::Load(Buffer::kWeights, k_rows, n, 0, b_addr + uint64_t(k0) * n, n, false, true));
      p.push_back(isa::Matmul(m, k_rows, t * m, 0, t > 0, true, true));
    }
    p.push_back(isa::Store(Buffer::kAcc, m, n, 0, c_addr, n, false, true));
    p.push_back(isa::Halt());
    ExpectDone(RunProgram(dev, p));
    const auto c = ReadHost<int32_t>(dev, c_addr, size_t(m) * n);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        int64_t want = 0;
        for (int kk = 0; kk < k; ++kk) want += int64_t{a[i * k + kk]} * b[kk * n + j];
        ASSERT_EQ(c[i * n + j], want) << "k " << k << " C[" << i << "][" << j << "]";
      }
    }
  }
}

// Lanes k_rows .. Rows-1 enter as zero: neither the UB lanes nor the weight rows beyond k_rows
// (both loaded with data here) count. The PE takes a lane's low byte, whatever the lane holds
// (bf16 rows are legal operands).
TEST(ModelInt8, KRowsBelowTheTileAndLowBytesOfAnyLane) {
  ModelDevice dev;
  std::mt19937_64 rng(20);
  const int m = 21, k_rows = 9;
  std::vector<uint16_t> a(size_t(m) * 16);  // bf16-loaded lanes: only the low byte counts
  for (auto& x : a) x = static_cast<uint16_t>(rng());
  const auto w = RandomInt8(16 * 16, rng);
  WriteHost(dev, 0x100000, a);
  WriteHost(dev, 0x200001, w);
  ExpectDone(RunProgram(
      dev, {isa::Load(Buffer::kUb, m, 16, 0, 0x100000, 16),
            isa::Load(Buffer::kWeights, 16, 16, 0, 0x200001, 16, false, true),
            isa::Matmul(m, k_rows, 0, 0, false, true, true),
            isa::Store(Buffer::kAcc, m, 16, 0, 0x300000, 16, false, true), isa::Halt()}));
  const auto c = ReadHost<int32_t>(dev, 0x300000, size_t(m) * 16);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < 16; ++j) {
      int32_t want = 0;
      for (int r = 0; r < k_rows; ++r) {
        want += int32_t{static_cast<int8_t>(a[i * 16 + r] & 0xFF)} * w[r * 16 + j];
      }
      ASSERT_EQ(c[i * 16 + j], want) << i << "," << j;
    }
  }
}

// accumulate adds the int32 sum to the word as a wrapping int32 add.
TEST(ModelInt8, AccumulateWrapsModulo2To32) {
  ModelDevice dev;
  std::mt19937_64 rng(30);
  const int m = 8;
  std::vector<uint32_t> c0(size_t(m) * 16);
  for (size_t i = 0; i < c0.size(); ++i) {
    c0[i] = i % 3 == 0   ? 0x7FFFFFFFu - static_cast<uint32_t>(rng() % 1000)
            : i % 3 == 1 ? 0x80000000u + static_cast<uint32_t>(rng() % 1000)
                         : static_cast<uint32_t>(rng());
  }
  auto a = RandomInt8(size_t(m) * 16, rng), w = RandomInt8(16 * 16, rng);
  for (int j = 0; j < 16; ++j) a[j] = w[j * 16 + j] = -128;  // a large positive product
  WriteHost(dev, 0x100000, a);
  WriteHost(dev, 0x200000, w);
  WriteHost(dev, 0x300000, c0);
  ExpectDone(RunProgram(
      dev, {isa::Load(Buffer::kAcc, m, 16, 40, 0x300000, 16, false, true),
            isa::Load(Buffer::kUb, m, 16, 0, 0x100000, 16, false, true),
            isa::Load(Buffer::kWeights, 16, 16, 0, 0x200000, 16, false, true),
            isa::Matmul(m, 16, 0, 40, true, true, true),
            isa::Store(Buffer::kAcc, m, 16, 40, 0x400000, 16, false, true), isa::Halt()}));
  const auto c = ReadHost<uint32_t>(dev, 0x400000, size_t(m) * 16);
  int wrapped = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < 16; ++j) {
      int32_t sum = 0;
      for (int r = 0; r < 16; ++r) sum += int32_t{a[i * 16 + r]} * w[r * 16 + j];
      const uint32_t old = c0[i * 16 + j];
      const uint32_t want = old + static_cast<uint32_t>(sum);
      const int64_t exact = int64_t{static_cast<int32_t>(old)} + sum;
      wrapped += exact != static_cast<int32_t>(want);
      ASSERT_EQ(c[i * 16 + j], want) << i << "," << j;
    }
  }
  EXPECT_GT(wrapped, 5);  // the test reached the wrap, both ways
}

// ------------------------------------------------------------------------------- ACTIVATE

// Quantization words that reach every part of the rule: realistic scales (m in [2^23, 2^24),
// large s), m = 1 with small s (exact ties), small odd m, and any word at all. Bits 7:6 are
// random everywhere: the rule ignores them.
uint32_t QuantWord(int lane, std::mt19937_64& rng) {
  const uint32_t junk = static_cast<uint32_t>(rng() & 3) << 6;
  uint32_t m = 0, s = 0;
  switch (lane % 4) {
    case 0:
      m = (1u << 23) | static_cast<uint32_t>(rng() % (1u << 23));
      s = 24 + static_cast<uint32_t>(rng() % 40);
      break;
    case 1:
      m = 1;
      s = 1 + static_cast<uint32_t>(rng() % 8);
      break;
    case 2:
      m = 1 + 2 * static_cast<uint32_t>(rng() % 128);
      s = static_cast<uint32_t>(rng() % 13);
      break;
    default:
      m = static_cast<uint32_t>(rng() % (1u << 24));
      s = static_cast<uint32_t>(rng() % 64);
      break;
  }
  return m << 8 | junk | s;
}

TEST(ModelInt8, ActivateRequantizesByTheRule) {
  std::mt19937_64 rng(40);
  const int rows = 48, lanes = 16;
  struct Tally {
    int ties_up = 0, ties_down = 0, high = 0, low = 0, relu = 0, inside = 0;
  } tally;
  const int zero_points[] = {0, -128, 127, -7, 42};
  int config = 0;
  for (const bool bias : {false, true}) {
    for (const bool relu : {false, true}) {
      for (const int z : zero_points) {
        SCOPED_TRACE("bias " + std::to_string(bias) + " relu " + std::to_string(relu) + " z " +
                     std::to_string(z));
        ModelDevice dev;
        std::vector<uint32_t> quant(lanes), bias_row(lanes, 0), acc(size_t(rows) * lanes);
        for (int n = 0; n < lanes; ++n) quant[n] = QuantWord(n + config, rng);
        for (auto& x : bias_row)
          x = bias ? static_cast<uint32_t>(int32_t(rng() % 20001) - 10000) : 0;
        for (int i = 0; i < rows; ++i) {
          for (int n = 0; n < lanes; ++n) {
            const uint32_t word = quant[n];
            const int s = word & 63;
            uint32_t& x = acc[size_t(i) * lanes + n];
            const uint64_t r = rng();
            if ((word >> 8) == 1 && s > 0 && r % 2 == 0) {  // an exact tie: x = (2j + 1) 2^(s-1)
              const int64_t j = static_cast<int64_t>((r >> 8) % 200) - 100;
              x = static_cast<uint32_t>((2 * j + 1) * (int64_t{1} << (s - 1)) -
                                        static_cast<int32_t>(bias_row[n]));
            } else if (r % 4 == 1) {
              x = static_cast<uint32_t>(static_cast<int32_t>((r >> 8) % 601) - 300);
            } else if (r % 4 == 3) {
              x = static_cast<uint32_t>(r >> 32);
            } else {
              x = static_cast<uint32_t>(static_cast<int32_t>((r >> 8) % 2000001) - 1000000);
            }
          }
        }
        WriteHost(dev, 0x20000, acc);
        WriteHost(dev, 0x30000, quant);
        WriteHost(dev, 0x30100, bias_row);
        const Outcome out = RunProgram(
            dev, {isa::Load(Buffer::kAcc, rows, lanes, 100, 0x20000, lanes),
                  isa::Load(Buffer::kAcc, 1, lanes, 7, 0x30000, lanes, false, true),
                  isa::Load(Buffer::kAcc, 1, lanes, 900, 0x30100, lanes),
                  isa::ActivateInteger(rows, 100, 3000, relu, bias, bias ? 900 : 0, 7, z),
                  isa::Store(Buffer::kUb, rows, lanes, 3000, 0x40001, lanes + 3, false, true),
                  isa::Store(Buffer::kUb, rows, lanes, 3000, 0x50000, lanes), isa::Halt()});
        ExpectDone(out);
        const auto bytes = ReadHost<int8_t>(dev, 0x40001, size_t(rows) * (lanes + 3));
        const auto wide = ReadHost<uint16_t>(dev, 0x50000, size_t(rows) * lanes);
        for (int i = 0; i < rows; ++i) {
          for (int n = 0; n < lanes; ++n) {
            const uint32_t x = acc[size_t(i) * lanes + n];
            const int32_t want = HostRequantize(x, bias_row[n], quant[n], z, relu);
            ASSERT_EQ(bytes[size_t(i) * (lanes + 3) + n], want) << i << "," << n;
            ASSERT_EQ(wide[size_t(i) * lanes + n], static_cast<uint16_t>(int16_t(want)));
            // What the case reached.
            const int64_t p =
                (int64_t{static_cast<int32_t>(x)} + static_cast<int32_t>(bias_row[n])) *
                (quant[n] >> 8);
            const int s = quant[n] & 63;
            const uint64_t mag = static_cast<uint64_t>(p < 0 ? -p : p);
            const bool tie = s > 0 && (mag & ((uint64_t{1} << s) - 1)) == uint64_t{1} << (s - 1);
            const int64_t rounded = HostRounded(x, bias_row[n], quant[n]);
            if (tie && rounded > -128 && rounded < 127) ++(p > 0 ? tally.ties_up : tally.ties_down);
            if (want == 127 && rounded + z > 127) ++tally.high;
            if (!relu && want == -128 && rounded + z < -128) ++tally.low;
            if (relu && want == z && rounded < 0) ++tally.relu;
            if (want > -128 && want < 127 && want != z) ++tally.inside;
          }
        }
        ++config;
      }
    }
  }
  EXPECT_GT(tally.ties_up, 20);
  EXPECT_GT(tally.ties_down, 20);
  EXPECT_GT(tally.high, 20);
  EXPECT_GT(tally.low, 20);
  EXPECT_GT(tally.relu, 20);
  EXPECT_GT(tally.inside, 100);
}

// The ends of the rule's range: the largest |x * m| with s = 63 and s = 0, m = 0, the zero point
// at both ends.
TEST(ModelInt8, ActivateAtTheEndsOfTheRange) {
  ModelDevice dev;
  const std::vector<uint32_t> acc = {
      0x7FFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0x80000000u, 1, 0xFFFFFFFFu, 5,   0xFFFFFFFBu,
      0x80000000u, 0x7FFFFFFFu, 3,           0xFFFFFFFDu, 0, 0,           127, 0xFFFFFF80u};
  const std::vector<uint32_t> bias = {0x7FFFFFFFu, 0x80000000u, 0, 0, 0, 0, 0, 0,
                                      0,           0,           0, 0, 0, 0, 0, 0};
  const std::vector<uint32_t> quant = {
      0xFFFFFF00u | 63, 0xFFFFFF00u | 63, 0xFFFFFF00u | 55, 0xFFFFFF00u | 55,
      0x00000100u | 1,  0x00000100u | 1,  0x00000100u | 1,  0x00000100u | 1,
      0x00000000u,      0x000000C0u,      0x00000300u | 1,  0x00000300u | 1,
      0xFFFFFFFFu,      0x00000100u,      0x00000100u,      0x00000100u};
  WriteHost(dev, 0x20000, acc);
  WriteHost(dev, 0x20040, bias);
  WriteHost(dev, 0x20080, quant);
  for (const int z : {-128, 0, 127}) {
    for (const bool relu : {false, true}) {
      const Outcome out = RunProgram(
          dev, {isa::Load(Buffer::kAcc, 1, 16, 0, 0x20000, 16),
                isa::Load(Buffer::kAcc, 1, 16, 1, 0x20040, 16),
                isa::Load(Buffer::kAcc, 1, 16, 2, 0x20080, 16),
                isa::ActivateInteger(1, 0, 0, relu, true, 1, 2, z),
                isa::Store(Buffer::kUb, 1, 16, 0, 0x30000, 16, false, true), isa::Halt()});
      ExpectDone(out);
      const auto got = ReadHost<int8_t>(dev, 0x30000, 16);
      for (int n = 0; n < 16; ++n) {
        EXPECT_EQ(got[n], HostRequantize(acc[n], bias[n], quant[n], z, relu))
            << "lane " << n << " z " << z << " relu " << relu;
      }
    }
  }
}

// ------------------------------------------------------------------------------- decoding

TEST(ModelInt8, DecodeErrors) {
  ModelDevice dev;
  // int8 with transpose.
  ExpectError(
      RunProgram(dev, {isa::Load(Buffer::kUb, 2, 2, 0, 0x20000, 4, true, true), isa::Halt()}),
      csr::ErrorCode::kIllegalField, 0);
  ExpectError(
      RunProgram(dev, {isa::Sync(), isa::Load(Buffer::kWeights, 2, 2, 0, 0x20000, 4, true, true)}),
      csr::ErrorCode::kIllegalField, 1);
  // A quantization row or a zero point without the integer mode.
  Instruction quant = isa::Activate(1, 0, 0, false, false);
  quant.Set(isa::kActivateQuantAddr, 3);
  ExpectError(RunProgram(dev, {quant, isa::Halt()}), csr::ErrorCode::kIllegalField, 0);
  Instruction zero_point = isa::Activate(1, 0, 0, true, true, 2);
  zero_point.Set(isa::kActivateZeroPoint, 0x80);
  ExpectError(RunProgram(dev, {zero_point, isa::Halt()}), csr::ErrorCode::kIllegalField, 0);
  // The quantization row beyond the accumulators, after the UB range check.
  ExpectError(
      RunProgram(dev, {isa::ActivateInteger(1, 0, 0, false, false, 0, 1024, 0), isa::Halt()}),
      csr::ErrorCode::kAccRange, 0);
  ExpectError(
      RunProgram(dev, {isa::ActivateInteger(2, 0, 8191, false, false, 0, 5000, 0), isa::Halt()}),
      csr::ErrorCode::kUbRange, 0);
  ExpectDone(RunProgram(
      dev, {isa::ActivateInteger(1, 1023, 8191, true, true, 1023, 1023, -1), isa::Halt()}));
  // int8 bytes have no alignment rule; ACC words keep theirs with the integer flag.
  ExpectDone(
      RunProgram(dev, {isa::Load(Buffer::kUb, 3, 5, 0, 0x20001, 7, false, true),
                       isa::Load(Buffer::kWeights, 3, 5, 0, 0x20003, 7, false, true), isa::Sync(),
                       isa::Store(Buffer::kUb, 3, 5, 0, 0x40001, 9, false, true),
                       isa::Matmul(3, 3, 0, 0, false, true, true), isa::Halt()}));
  ExpectError(
      RunProgram(dev, {isa::Load(Buffer::kAcc, 1, 1, 0, 0x20001, 1, false, true), isa::Halt()}),
      csr::ErrorCode::kMisaligned, 0);
  ExpectError(
      RunProgram(dev, {isa::Store(Buffer::kAcc, 1, 1, 0, 0x20002, 1, true, true), isa::Halt()}),
      csr::ErrorCode::kMisaligned, 0);
  // relu on a UB store stays illegal with the integer flag.
  ExpectError(
      RunProgram(dev, {isa::Store(Buffer::kUb, 1, 1, 0, 0x20001, 1, true, true), isa::Halt()}),
      csr::ErrorCode::kIllegalField, 0);
}

// --------------------------------------------------------------------------------- timing

std::array<uint64_t, csr::kNumCounters> Counters(const std::vector<Instruction>& program) {
  ModelDevice dev;
  const Outcome out = RunProgram(dev, program);
  EXPECT_TRUE(out.done && !out.error) << csr::ErrorName(out.code) << " at " << out.pc;
  return out.counters;
}

uint64_t Cycles(const std::vector<Instruction>& program) {
  return Counters(program)[static_cast<int>(csr::Counter::kCycles)];
}

// An int8 MATMUL takes the bf16 one's cycles, row for row.
TEST(ModelInt8, MatmulTimingIsTheBf16Timing) {
  for (const int k_rows : {16, 5}) {
    std::vector<Instruction> p[2];
    for (const bool integer : {false, true}) {
      p[integer] = {isa::Load(Buffer::kUb, 64, 16, 0, 0x100000, 16),
                    isa::Load(Buffer::kWeights, 16, 16, 0, 0x200000, 16),
                    isa::Load(Buffer::kWeights, 16, 16, 0, 0x200200, 16),
                    isa::Matmul(64, k_rows, 0, 0, false, true, integer),
                    isa::Matmul(40, k_rows, 10, 64, false, true, integer),
                    isa::Matmul(64, k_rows, 0, 0, true, false, integer),
                    isa::Store(Buffer::kAcc, 64, 16, 0, 0x300000, 16, false, integer),
                    isa::Halt()};
    }
    EXPECT_EQ(Counters(p[0]), Counters(p[1])) << "k_rows " << k_rows;
  }
}

// An int8 ACTIVATE reads one row more (the quantization row, after the bias row); its unit has
// as many stages as the fp one (kActCycles): it is done one cycle after the fp one of the
// same rows, and an ACTIVATE behind it starts that much later.
TEST(ModelInt8, ActivateTakesOneReadMore) {
  for (const bool bias : {false, true}) {
    for (const int rows : {1, 40}) {
      const std::vector<Instruction> load = {isa::Load(Buffer::kAcc, 64, 16, 0, 0x20000, 16),
                                             isa::Sync()};
      auto with = [&](std::vector<Instruction> tail) {
        std::vector<Instruction> p = load;
        p.insert(p.end(), tail.begin(), tail.end());
        p.push_back(isa::Halt());
        return p;
      };
      const Instruction fp = isa::Activate(rows, 0, 0, false, bias, bias ? 63 : 0);
      const Instruction in = isa::ActivateInteger(rows, 0, 0, false, bias, bias ? 63 : 0, 62, 0);
      const Instruction fp2 = isa::Activate(rows, 0, 100, true, bias, bias ? 63 : 0);
      const Instruction in2 = isa::ActivateInteger(rows, 0, 100, true, bias, bias ? 63 : 0, 61, 5);
      SCOPED_TRACE("bias " + std::to_string(bias) + " rows " + std::to_string(rows));
      EXPECT_EQ(Cycles(with({in})), Cycles(with({fp})) + 1);
      EXPECT_EQ(Cycles(with({in, in2})), Cycles(with({fp, fp2})) + 2);
      EXPECT_EQ(Cycles(with({in, fp2})), Cycles(with({fp, fp2})) + 1);
    }
  }
}

// The quantization row is a one-row read range to the dispatcher: a LOAD ACC of it waits for
// the ACTIVATE, and an ACTIVATE waits for a LOAD ACC or a MATMUL writing it, where the same
// instructions on a row next to it overlap (the program takes about the shorter one's time less).
TEST(ModelInt8, TheQuantizationRowIsAHazardLikeTheBiasRow) {
  const auto activate = isa::ActivateInteger(200, 0, 0, false, false, 0, 500, 0);
  const auto program = [](std::vector<Instruction> body) {
    std::vector<Instruction> p = {isa::Load(Buffer::kAcc, 200, 16, 0, 0x20000, 16),
                                  isa::Load(Buffer::kAcc, 2, 16, 500, 0x40000, 16),
                                  isa::Load(Buffer::kUb, 64, 16, 1000, 0x60000, 16),
                                  isa::Load(Buffer::kWeights, 16, 16, 0, 0x70000, 16), isa::Sync()};
    p.insert(p.end(), body.begin(), body.end());
    p.push_back(isa::Halt());
    return Cycles(p);
  };
  const auto load = [](uint32_t row) { return isa::Load(Buffer::kAcc, 1, 16, row, 0x40000, 16); };
  // Written after the ACTIVATE: the LOAD waits for it.
  EXPECT_GT(program({activate, load(500)}), program({activate, load(501)}) + 50);
  // Written before the ACTIVATE: the ACTIVATE waits for the LOAD ...
  EXPECT_GT(program({load(500), activate}), program({load(502), activate}) + 50);
  // ... and for a MATMUL writing it (rows 480 .. 543; 600 .. 663 are not read).
  const auto matmul = [](uint32_t acc) {
    return isa::Matmul(64, 16, 1000, acc, false, true, true);
  };
  EXPECT_GT(program({matmul(480), activate}), program({matmul(600), activate}) + 50);
}

// ---------------------------------------------------------------------------- random programs

// Random programs of the integer mode (RandomProgramSpace::integer) on the model alone: each
// completes, and what it stores depends only on what it wrote itself (the generator's promise:
// two devices whose buffers start with different data store the same bytes). The programs
// contain every form of the integer mode the generator promises.
TEST(ModelInt8, RandomIntegerProgramsDependOnlyOnWhatTheyWrite) {
  testing::RandomProgramSpace space;
  space.integer = true;
  ModelDevice one, two;
  std::mt19937_64 rng(50);
  std::vector<uint8_t> input(space.input_bytes);
  for (auto& x : input) x = static_cast<uint8_t>(rng());
  // Different data in every buffer row the programs use.
  for (ModelDevice* dev : {&one, &two}) {
    std::vector<uint8_t> junk(space.input_bytes);
    for (auto& x : junk) x = static_cast<uint8_t>(rng());
    WriteHost(*dev, space.input, junk);
    ExpectDone(RunProgram(
        *dev,
        {isa::Load(Buffer::kUb, space.ub_rows, 16, 0, space.input, 16),
         isa::Load(Buffer::kAcc, space.acc_rows, 16, 0, space.input + 0x4000, 16), isa::Halt()}));
    WriteHost(*dev, space.input, input);
  }
  struct Seen {
    int ub = 0, weights = 0, odd = 0, broadcast = 0, matmul = 0, activate = 0, store_ub = 0,
        store_acc = 0;
  } seen;
  const std::vector<uint8_t> zeros(space.output_bytes, 0);
  for (int i = 0; i < 500; ++i) {
    const uint64_t seed = 7000 + i;
    const auto program = testing::RandomProgram(seed, space);
    SCOPED_TRACE("seed " + std::to_string(seed));
    for (const Instruction& ins : program) {
      const auto op = static_cast<isa::Opcode>(ins.opcode());
      if (op == isa::Opcode::kLoad || op == isa::Opcode::kStore) {
        const isa::TransferFields f = isa::DecodeTransfer(ins.words);
        if (!f.int8) continue;
        const bool load = op == isa::Opcode::kLoad;
        seen.ub += load && f.buffer == Buffer::kUb;
        seen.weights += load && f.buffer == Buffer::kWeights;
        seen.odd += f.buffer != Buffer::kAcc && (f.host_addr & 1);
        seen.broadcast += load && f.stride == 0;
        seen.store_ub += !load && f.buffer == Buffer::kUb;
        seen.store_acc += !load && f.buffer == Buffer::kAcc;
      }
      seen.matmul += op == isa::Opcode::kMatmul && isa::DecodeMatmul(ins.words).int8;
      seen.activate += op == isa::Opcode::kActivate && isa::DecodeActivate(ins.words).int8;
    }
    std::vector<uint8_t> stored[2];
    std::array<uint64_t, csr::kNumCounters> counters[2];
    int d = 0;
    for (ModelDevice* dev : {&one, &two}) {
      WriteHost(*dev, space.output, zeros);
      const Outcome out = RunProgram(*dev, program);
      ASSERT_TRUE(out.completed && out.done && !out.error)
          << csr::ErrorName(out.code) << " at " << out.pc << ": "
          << isa::Disassemble(program.at(out.pc));
      stored[d] = ReadHost<uint8_t>(*dev, space.output, space.output_bytes);
      counters[d++] = out.counters;
    }
    ASSERT_EQ(counters[0], counters[1]);
    const auto diff = std::mismatch(stored[0].begin(), stored[0].end(), stored[1].begin());
    ASSERT_TRUE(diff.first == stored[0].end()) << "the programs' stores differ at 0x" << std::hex
                                               << space.output + (diff.first - stored[0].begin());
  }
  for (const int n : {seen.ub, seen.weights, seen.odd, seen.broadcast, seen.matmul, seen.activate,
                      seen.store_ub, seen.store_acc}) {
    EXPECT_GE(n, 10);
  }
}

// Random illegal programs with the integer mode's forms of their errors: each stops with its
// code. Without `integer` the generator's programs are the ones of before (same draws).
TEST(ModelInt8, RandomIllegalIntegerProgramsStopWithTheirCode) {
  ModelDevice dev;
  testing::RandomProgramSpace space;
  space.memory_bytes = dev.memory_size();
  testing::RandomProgramSpace plain = space;
  space.integer = true;
  for (uint32_t code = 1; code <= 10; ++code) {
    for (int i = 0; i < 200; ++i) {
      const uint64_t seed = 9000 + 100 * code + i;
      const auto program =
          testing::RandomProgram(seed, space, 16, static_cast<csr::ErrorCode>(code));
      const Outcome out = RunProgram(dev, program);
      ASSERT_TRUE(out.completed && out.error) << csr::ErrorName(code) << " seed " << seed;
      ASSERT_EQ(out.code, code) << "seed " << seed << ": " << csr::ErrorName(out.code) << " at "
                                << out.pc;
      dev.WriteCsr(csr::kCtrl, csr::kCtrlSoftReset);
    }
  }
  // The plain space still draws no integer instruction.
  for (int i = 0; i < 50; ++i) {
    for (const Instruction& ins : testing::RandomProgram(i, plain, 40)) {
      const auto op = static_cast<isa::Opcode>(ins.opcode());
      const bool integer = ((op == isa::Opcode::kLoad || op == isa::Opcode::kStore) &&
                            isa::DecodeTransfer(ins.words).int8) ||
                           (op == isa::Opcode::kMatmul && isa::DecodeMatmul(ins.words).int8) ||
                           (op == isa::Opcode::kActivate && isa::DecodeActivate(ins.words).int8);
      ASSERT_FALSE(integer) << isa::Disassemble(ins);
    }
  }
}

}  // namespace
}  // namespace mxu
