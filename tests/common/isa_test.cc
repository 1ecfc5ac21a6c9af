// Instruction encoding against the docs/isa.md table: the expected words are built here bit
// range by bit range, straight from the table, independently of the encoder's word arithmetic.
#include "common/isa.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/csr_map.h"

namespace mxu::isa {
namespace {

using Words = std::array<uint32_t, 4>;

// Writes `value` into instruction bits [lsb + width - 1 : lsb], bit by bit (bit i of the
// instruction is bit i % 32 of word i / 32).
void Set(Words& words, int lsb, int width, uint64_t value) {
  for (int i = 0; i < width; ++i) {
    const int bit = lsb + i;
    const uint32_t mask = uint32_t{1} << (bit % 32);
    if ((value >> i) & 1) {
      words[bit / 32] |= mask;
    } else {
      words[bit / 32] &= ~mask;
    }
  }
}

// One bit range of an instruction: bits [lsb + width - 1 : lsb] hold `value`.
struct BitRange {
  int lsb;
  int width;
  uint64_t value;
};

Words Pack(std::initializer_list<BitRange> ranges) {
  Words w{};
  for (const BitRange& r : ranges) Set(w, r.lsb, r.width, r.value);
  return w;
}

Words operator|(Words a, const Words& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] |= b[i];
  return a;
}

Words ExpectedTransfer(uint32_t opcode, uint32_t buffer, bool transpose, uint32_t rows,
                       uint32_t lanes, uint32_t buffer_addr, uint64_t host, uint32_t stride) {
  return Pack({{0, 8, opcode},
               {8, 2, buffer},
               {10, 1, transpose},
               {16, 16, rows},
               {32, 16, lanes},
               {48, 16, buffer_addr},
               {64, 16, host & 0xFFFF},              // host address [15:0]
               {80, 32, (host >> 16) & 0xFFFFFFFF},  // host address [47:16]
               {112, 16, stride}});
}

TEST(IsaTest, LoadMatchesTable) {
  EXPECT_EQ(Load(Buffer::kUb, 16, 16, 0, 0, 16).words,
            ExpectedTransfer(0x01, 0, false, 16, 16, 0, 0, 16));
  EXPECT_EQ(Load(Buffer::kWeights, 7, 16, 0, 0x123456789ABCull, 300, true).words,
            ExpectedTransfer(0x01, 1, true, 7, 16, 0, 0x123456789ABCull, 300));
  EXPECT_EQ(Load(Buffer::kAcc, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFFFFFFFFFFull, 0xFFFF).words,
            ExpectedTransfer(0x01, 2, false, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFFFFFFFFFFull, 0xFFFF));
  // A hand-checked instance: LOAD UB rows=2 lanes=3 buf=4 host=0x0000_0001_0002_0004 stride=5.
  EXPECT_EQ(Load(Buffer::kUb, 2, 3, 4, 0x000100020004ull, 5).words,
            (Words{0x00020001, 0x00040003, 0x00020004, 0x00050001}));
}

TEST(IsaTest, StoreMatchesTable) {
  EXPECT_EQ(Store(Buffer::kAcc, 64, 16, 128, 0x40000, 16).words,
            ExpectedTransfer(0x02, 2, false, 64, 16, 128, 0x40000, 16));
  EXPECT_EQ(Store(Buffer::kUb, 1, 1, 2047, 0xABCDEF012346ull, 1).words,
            ExpectedTransfer(0x02, 0, false, 1, 1, 2047, 0xABCDEF012346ull, 1));
}

Words ExpectedMatmul(uint32_t rows, uint32_t k_rows, uint32_t ub, uint32_t acc, bool accumulate,
                     bool new_weights) {
  return Pack({{0, 8, 0x10},
               {8, 1, accumulate},
               {9, 1, new_weights},
               {16, 16, rows},
               {32, 16, k_rows},
               {48, 16, ub},
               {64, 16, acc}});
}

TEST(IsaTest, MatmulMatchesTable) {
  for (int flags = 0; flags < 4; ++flags) {
    const bool accumulate = flags & 1;
    const bool new_weights = flags & 2;
    EXPECT_EQ(Matmul(64, 16, 0, 128, accumulate, new_weights).words,
              ExpectedMatmul(64, 16, 0, 128, accumulate, new_weights));
  }
  EXPECT_EQ(Matmul(0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, true, true).words,
            ExpectedMatmul(0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, true, true));
  EXPECT_EQ(Matmul(3, 5, 7, 9, true, false).words, (Words{0x00030110, 0x00070005, 9, 0}));
}

Words ExpectedActivate(uint32_t rows, uint32_t acc, uint32_t ub, bool relu, bool bias,
                       uint32_t bias_addr) {
  return Pack({{0, 8, 0x20},
               {8, 1, relu},
               {9, 1, bias},
               {16, 16, rows},
               {32, 16, acc},
               {48, 16, ub},
               {64, 16, bias_addr}});
}

TEST(IsaTest, ActivateMatchesTable) {
  EXPECT_EQ(Activate(16, 0, 512, false, false).words,
            ExpectedActivate(16, 0, 512, false, false, 0));
  EXPECT_EQ(Activate(16, 32, 512, true, true, 1000).words,
            ExpectedActivate(16, 32, 512, true, true, 1000));
  EXPECT_EQ(Activate(1, 2, 3, true, false).words, (Words{0x00010120, 0x00030002, 0, 0}));
}

TEST(IsaTest, SyncHaltAndRaw) {
  EXPECT_EQ(Sync().words, (Words{0x30, 0, 0, 0}));
  EXPECT_EQ(Halt().words, (Words{0x3F, 0, 0, 0}));
  const Words any{0xDEADBEEF, 1, 2, 3};
  EXPECT_EQ(Raw(any).words, any);
  EXPECT_EQ(Instruction().words, (Words{0, 0, 0, 0}));
}

TEST(IsaTest, RandomFieldsMatchTable) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const uint32_t a = rng() & 0xFFFF, b = rng() & 0xFFFF, c = rng() & 0xFFFF, d = rng() & 0xFFFF;
    const uint64_t host = rng() & 0xFFFFFFFFFFFFull;
    const uint32_t buffer = rng() % 3;
    const bool f1 = rng() & 1, f2 = rng() & 1;
    ASSERT_EQ(Load(static_cast<Buffer>(buffer), a, b, c, host, d, f1).words,
              ExpectedTransfer(0x01, buffer, f1, a, b, c, host, d));
    ASSERT_EQ(Store(static_cast<Buffer>(buffer), a, b, c, host, d).words,
              ExpectedTransfer(0x02, buffer, false, a, b, c, host, d));
    ASSERT_EQ(Matmul(a, b, c, d, f1, f2).words, ExpectedMatmul(a, b, c, d, f1, f2));
    ASSERT_EQ(Activate(a, b, c, f1, f2, d).words, ExpectedActivate(a, b, c, f1, f2, d));
  }
}

// The encoders check field widths only: semantically illegal values still encode.
TEST(IsaTest, SemanticallyIllegalValuesStillEncode) {
  EXPECT_EQ(Matmul(0, 0, 0, 0, false, false).words, ExpectedMatmul(0, 0, 0, 0, false, false));
  EXPECT_EQ(Store(Buffer::kWeights, 1, 1, 0, 3, 1).words,
            ExpectedTransfer(0x02, 1, false, 1, 1, 0, 3, 1));
  EXPECT_EQ(Load(Buffer::kAcc, 1, 1, 0, 0, 1, true).words,
            ExpectedTransfer(0x01, 2, true, 1, 1, 0, 0, 1));
}

// Expects `f` to throw std::invalid_argument whose message names `field`.
template <typename F>
void ExpectFieldError(F f, const std::string& field) {
  try {
    f();
    ADD_FAILURE() << "no exception for " << field;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(IsaTest, FieldOverflowThrows) {
  ExpectFieldError([] { Load(Buffer::kUb, 0x10000, 1, 0, 0, 1); }, "rows");
  ExpectFieldError([] { Load(Buffer::kUb, 1, 0x10000, 0, 0, 1); }, "lanes");
  ExpectFieldError([] { Load(Buffer::kUb, 1, 1, 0x10000, 0, 1); }, "buffer_addr");
  ExpectFieldError([] { Load(Buffer::kUb, 1, 1, 0, 1ull << 48, 1); }, "host_addr");
  ExpectFieldError([] { Load(Buffer::kUb, 1, 1, 0, 0, 0x10000); }, "stride_elements");
  ExpectFieldError([] { Load(static_cast<Buffer>(4), 1, 1, 0, 0, 1); }, "target");
  ExpectFieldError([] { Store(static_cast<Buffer>(7), 1, 1, 0, 0, 1); }, "source");
  ExpectFieldError([] { Store(Buffer::kAcc, 1, 1, 0, ~0ull, 1); }, "host_addr");
  ExpectFieldError([] { Matmul(0x10000, 1, 0, 0, false, false); }, "rows");
  ExpectFieldError([] { Matmul(1, 0x10000, 0, 0, false, false); }, "k_rows");
  ExpectFieldError([] { Matmul(1, 1, 0x10000, 0, false, false); }, "ub_addr");
  ExpectFieldError([] { Matmul(1, 1, 0, 0x10000, false, false); }, "acc_addr");
  ExpectFieldError([] { Activate(0x10000, 0, 0, false, false); }, "rows");
  ExpectFieldError([] { Activate(1, 0x10000, 0, false, false); }, "acc_addr");
  ExpectFieldError([] { Activate(1, 0, 0x10000, false, false); }, "ub_addr");
  ExpectFieldError([] { Activate(1, 0, 0, false, true, 0x10000); }, "bias_addr");
  // The largest values that fit do not throw.
  EXPECT_NO_THROW(Load(static_cast<Buffer>(3), 0xFFFF, 0xFFFF, 0xFFFF, (1ull << 48) - 1, 0xFFFF));
}

TEST(IsaTest, Disassemble) {
  EXPECT_EQ(Disassemble(Matmul(64, 16, 0, 128, true, true)),
            "MATMUL rows=64 k_rows=16 ub=0 acc=128 accumulate new_weights");
  EXPECT_EQ(Disassemble(Matmul(1, 2, 3, 4, false, false)), "MATMUL rows=1 k_rows=2 ub=3 acc=4");
  EXPECT_EQ(Disassemble(Load(Buffer::kWeights, 16, 16, 0, 0x1000, 256, true)),
            "LOAD target=WEIGHTS rows=16 lanes=16 buf=0 host=0x1000 stride=256 transpose");
  EXPECT_EQ(Disassemble(Load(Buffer::kUb, 2, 3, 4, 0xABCDEF012340ull, 5)),
            "LOAD target=UB rows=2 lanes=3 buf=4 host=0xabcdef012340 stride=5");
  EXPECT_EQ(Disassemble(Store(Buffer::kAcc, 64, 16, 128, 0x40000, 16)),
            "STORE source=ACC rows=64 lanes=16 buf=128 host=0x40000 stride=16");
  EXPECT_EQ(Disassemble(Activate(16, 32, 512, true, true, 1000)),
            "ACTIVATE rows=16 acc=32 ub=512 relu bias=1000");
  EXPECT_EQ(Disassemble(Activate(16, 32, 512, false, false)), "ACTIVATE rows=16 acc=32 ub=512");
  EXPECT_EQ(Disassemble(Sync()), "SYNC");
  EXPECT_EQ(Disassemble(Halt()), "HALT");
  EXPECT_EQ(Disassemble(Instruction()), "ILLEGAL 0x00 [00000000 00000000 00000000 00000000]");
  EXPECT_EQ(Disassemble(Raw({0x1234507, 1, 2, 3})),
            "ILLEGAL 0x07 [01234507 00000001 00000002 00000003]");
  EXPECT_EQ(Disassemble(Store(static_cast<Buffer>(3), 1, 1, 0, 0, 1)),
            "STORE source=3 rows=1 lanes=1 buf=0 host=0x0 stride=1");
}

TEST(IsaTest, DisassembleFlagsReservedBits) {
  const std::string flag = " (reserved bits set)";
  Instruction halt = Halt();
  halt.words[3] = 1;
  EXPECT_EQ(Disassemble(halt), "HALT" + flag);
  Instruction matmul = Matmul(1, 1, 0, 0, false, false);
  matmul.words[2] |= 1u << 16;  // bit 80: past the accumulator address
  EXPECT_EQ(Disassemble(matmul), "MATMUL rows=1 k_rows=1 ub=0 acc=0" + flag);
  Instruction store = Store(Buffer::kUb, 1, 1, 0, 0, 1);
  store.words[0] |= 1u << 12;  // bits [15:12] are reserved (bit 10 is relu, 11 int8)
  EXPECT_EQ(Disassemble(store), "STORE source=UB rows=1 lanes=1 buf=0 host=0x0 stride=1" + flag);
  EXPECT_EQ(Disassemble(Store(Buffer::kAcc, 1, 1, 0, 0, 1, true)),
            "STORE source=ACC rows=1 lanes=1 buf=0 host=0x0 stride=1 relu");
  Instruction load = Load(Buffer::kUb, 1, 1, 0, 0, 1);
  load.words[0] |= 1u << 12;  // bits [15:12] are reserved
  EXPECT_EQ(Disassemble(Load(Buffer::kUb, 1, 1, 0, 0, 1, false, true)),
            "LOAD target=UB rows=1 lanes=1 buf=0 host=0x0 stride=1 int8");
  EXPECT_EQ(Disassemble(ActivateInteger(2, 0, 0, true, false, 0, 5, -3)),
            "ACTIVATE rows=2 acc=0 ub=0 relu int8 quant=5 zero_point=-3");
  Instruction activate = Activate(1, 0, 0, false, false);
  activate.words[3] |= 7;  // a zero point without int8: shown, and not reserved but illegal
  EXPECT_EQ(Disassemble(activate), "ACTIVATE rows=1 acc=0 ub=0 quant_addr=0 zero_point=7");
  EXPECT_EQ(Disassemble(load).find(flag) != std::string::npos, true);
  EXPECT_EQ(Disassemble(Load(Buffer::kUb, 1, 1, 0, 0, 1, true)).find(flag), std::string::npos);
}

// Round trip: every field value the encoder was given appears in the disassembly.
TEST(IsaTest, DisassembleRoundTrip) {
  std::mt19937 rng(3);
  for (int i = 0; i < 200; ++i) {
    const uint32_t rows = rng() & 0xFFFF, k = rng() & 0xFFFF, ub = rng() & 0xFFFF;
    const uint32_t acc = rng() & 0xFFFF;
    EXPECT_EQ(Disassemble(Matmul(rows, k, ub, acc, false, true)),
              "MATMUL rows=" + std::to_string(rows) + " k_rows=" + std::to_string(k) +
                  " ub=" + std::to_string(ub) + " acc=" + std::to_string(acc) + " new_weights");
    EXPECT_EQ(Disassemble(Activate(rows, acc, ub, false, true, k)),
              "ACTIVATE rows=" + std::to_string(rows) + " acc=" + std::to_string(acc) +
                  " ub=" + std::to_string(ub) + " bias=" + std::to_string(k));
  }
}

TEST(IsaTest, AppendBytesIsLittleEndian) {
  std::vector<uint8_t> bytes = {0xAA};
  AppendBytes(Raw({0x04030201, 0x08070605, 0x0C0B0A09, 0x100F0E0D}), bytes);
  ASSERT_EQ(bytes.size(), 1 + kInstructionBytes);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(bytes[1 + i], i + 1) << i;
  AppendBytes(Halt(), bytes);
  ASSERT_EQ(bytes.size(), 1 + 2 * kInstructionBytes);
  EXPECT_EQ(bytes[17], 0x3F);
}

TEST(CsrMapTest, AddressesAndNames) {
  EXPECT_EQ(csr::kId, 0x000u);
  EXPECT_EQ(csr::kFeatures, 0x018u);
  EXPECT_EQ(csr::kCtrl, 0x020u);
  EXPECT_EQ(csr::kStatus, 0x024u);
  EXPECT_EQ(csr::kErrorAddrHi, 0x038u);
  EXPECT_EQ(csr::kCmdCount, 0x048u);
  EXPECT_EQ(csr::kPc, 0x04Cu);
  EXPECT_EQ(csr::CounterLo(0), 0x080u);
  EXPECT_EQ(csr::CounterHi(0), 0x084u);
  EXPECT_EQ(csr::CounterLo(csr::Counter::kStallMemory), 0x0C8u);
  EXPECT_EQ(csr::CounterHi(csr::Counter::kStallMemory), 0x0CCu);
  EXPECT_EQ(csr::kDeviceId, 0x4D585530u);
  EXPECT_STREQ(csr::ErrorName(0), "NONE");
  EXPECT_STREQ(csr::ErrorName(6), "MEM_READ");
  EXPECT_STREQ(csr::ErrorName(csr::ErrorCode::kCmdOverrun), "CMD_OVERRUN");
  EXPECT_STREQ(csr::ErrorName(10), "WEIGHTS_FULL");
  EXPECT_STREQ(csr::ErrorName(11), "UNKNOWN");
  EXPECT_STREQ(csr::CounterName(csr::Counter::kDmaReadBytes), "DMA_READ_BYTES");
  EXPECT_STREQ(csr::CounterName(csr::Counter::kStallDependency), "STALL_DEPENDENCY");
  EXPECT_STREQ(csr::CounterName(static_cast<csr::Counter>(14)), "UNKNOWN");
  EXPECT_EQ(csr::ArrayRows(0x00100020), 0x20u);
  EXPECT_EQ(csr::ArrayCols(0x00100020), 0x10u);
  EXPECT_EQ(csr::FeaturesBusLog2(0x08100105), 5u);
  EXPECT_TRUE(csr::FeaturesFlushSubnormals(0x08100120));
  EXPECT_EQ(csr::FeaturesUbLanes(0x08100120), 16u);
  EXPECT_EQ(csr::FeaturesMaxInFlight(0x08100120), 8u);
}

// The generated table (common/isa_table.h, from common/isa.toml) against the encoders and the
// docs/isa.md layout written out above.
TEST(IsaTableTest, FieldsMatchTheEncoders) {
  // A field's bits, as words.
  const auto field_bits = [](Field field) {
    Words w{};
    Set(w, field.lsb, field.width, ~uint64_t{0});
    return w;
  };
  EXPECT_EQ(kOpcode.lsb, 0);
  EXPECT_EQ(kOpcode.width, 8);
  EXPECT_EQ(Load(Buffer::kUb, 0xFFFF, 0, 0, 0, 0).words,
            (Words{0x01, 0, 0, 0}) | field_bits(kTransferRows));
  EXPECT_EQ(Load(Buffer::kUb, 0, 0, 0, 0xFFFFFFFFFFFFull, 0).words,
            (Words{0x01, 0, 0, 0}) | field_bits(kTransferHostAddr));
  EXPECT_EQ(Store(Buffer::kUb, 0, 0, 0, 0, 0xFFFF, true).words,
            (Words{0x02, 0, 0, 0}) | field_bits(kTransferStride) | field_bits(kTransferFlag));
  EXPECT_EQ(Matmul(0, 0xFFFF, 0, 0, false, true).words,
            (Words{0x10, 0, 0, 0}) | field_bits(kMatmulKRows) | field_bits(kMatmulNewWeights));
  EXPECT_EQ(Activate(0, 0, 0, false, false, 0xFFFF).words,
            (Words{0x20, 0, 0, 0}) | field_bits(kActivateBiasAddr));
  EXPECT_EQ(kTransferHostAddr.lsb, 64);
  EXPECT_EQ(kTransferHostAddr.width, 48);
  EXPECT_EQ(kMatmulAccAddr.lsb, 64);
  EXPECT_EQ(kActivateBias.lsb, 9);
}

TEST(IsaTableTest, NamedBitsAreEveryFieldAtItsMaximum) {
  const Words opcode_field{0xFF, 0, 0, 0};    // whatever the opcode, all 8 bits are named
  const Words buffer_code_3{0x300, 0, 0, 0};  // the whole 2-bit buffer field
  EXPECT_EQ(
      Load(Buffer::kAcc, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFFFFFFFFFFull, 0xFFFF, true, true).words |
          opcode_field | buffer_code_3,
      kLoadNamedBits);
  EXPECT_EQ(kStoreNamedBits, kLoadNamedBits);
  EXPECT_EQ(Matmul(0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, true, true, true).words | opcode_field,
            kMatmulNamedBits);
  EXPECT_EQ(
      ActivateInteger(0xFFFF, 0xFFFF, 0xFFFF, true, true, 0xFFFF, 0xFFFF, -1).words | opcode_field,
      kActivateNamedBits);
  EXPECT_EQ(Sync().words | opcode_field, kSyncNamedBits);
  EXPECT_EQ(NamedBits(0x3F), kHaltNamedBits);
  EXPECT_EQ(NamedBits(0x07), opcode_field);
  // The reserved bits as docs/isa.md lists them.
  EXPECT_EQ(kLoadNamedBits, (Words{0xFFFF0FFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}));
  EXPECT_EQ(kMatmulNamedBits, (Words{0xFFFF07FF, 0xFFFFFFFF, 0x0000FFFF, 0}));
  EXPECT_EQ(kActivateNamedBits, (Words{0xFFFF07FF, 0xFFFFFFFF, 0xFFFFFFFF, 0x000000FF}));
}

// The generated decoders (DecodeTransfer, ...) read back what the encoders wrote, field by field.
TEST(IsaTableTest, DecodersReadWhatTheEncodersWrite) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 2000; ++i) {
    const uint32_t a = rng() & 0xFFFF, b = rng() & 0xFFFF, c = rng() & 0xFFFF, d = rng() & 0xFFFF;
    const uint64_t host = rng() & 0xFFFFFFFFFFFFull;
    const Buffer buffer = static_cast<Buffer>(rng() % 3);
    const bool f1 = rng() & 1, f2 = rng() & 1, f3 = rng() & 1;
    const Instruction load = Load(buffer, a, b, c, host, d, f1, f3);
    ASSERT_EQ(OpcodeOf(load.words), Opcode::kLoad);
    const TransferFields t = DecodeTransfer(load.words);
    ASSERT_EQ(t.buffer, buffer);
    ASSERT_EQ(t.flag, f1);
    ASSERT_EQ(t.int8, f3);
    ASSERT_EQ(t.rows, a);
    ASSERT_EQ(t.lanes, b);
    ASSERT_EQ(t.buffer_addr, c);
    ASSERT_EQ(t.host_addr, host);
    ASSERT_EQ(t.stride, d);
    ASSERT_FALSE(ReservedBitsSet(load.words));
    const MatmulFields m = DecodeMatmul(Matmul(a, b, c, d, f1, f2, f3).words);
    ASSERT_EQ(m.rows, a);
    ASSERT_EQ(m.k_rows, b);
    ASSERT_EQ(m.ub_addr, c);
    ASSERT_EQ(m.acc_addr, d);
    ASSERT_EQ(m.accumulate, f1);
    ASSERT_EQ(m.new_weights, f2);
    ASSERT_EQ(m.int8, f3);
    const ActivateFields ac = DecodeActivate(Activate(a, b, c, f1, f2, d).words);
    ASSERT_EQ(ac.rows, a);
    ASSERT_EQ(ac.acc_addr, b);
    ASSERT_EQ(ac.ub_addr, c);
    ASSERT_EQ(ac.relu, f1);
    ASSERT_EQ(ac.bias, f2);
    ASSERT_EQ(ac.bias_addr, d);
    ASSERT_FALSE(ac.int8);
    const int zero_point = static_cast<int>(rng() % 256) - 128;
    const ActivateFields q =
        DecodeActivate(ActivateInteger(a, b, c, f1, f2, d, a, zero_point).words);
    ASSERT_TRUE(q.int8);
    ASSERT_EQ(q.quant_addr, a);
    ASSERT_EQ(static_cast<int8_t>(q.zero_point), zero_point);
  }
  EXPECT_EQ(OpcodeOf(Halt().words), Opcode::kHalt);
  EXPECT_FALSE(IsBuffer(static_cast<Buffer>(3)));
  EXPECT_TRUE(IsBuffer(Buffer::kWeights));
  // Reserved bits: any bit outside the opcode's NamedBits.
  EXPECT_FALSE(ReservedBitsSet(Sync().words));
  EXPECT_TRUE(ReservedBitsSet(Raw({0x130, 0, 0, 0}).words));       // SYNC with bit 8 set
  EXPECT_TRUE(ReservedBitsSet(Raw({0x1001, 0, 0, 0}).words));      // LOAD with bit 12 set
  EXPECT_FALSE(ReservedBitsSet(Raw({0x801, 0, 0, 0}).words));      // LOAD int8
  EXPECT_TRUE(ReservedBitsSet(Raw({0x10, 0, 0x10000, 0}).words));  // MATMUL with bit 80 set
  EXPECT_FALSE(ReservedBitsSet(Raw({0x10, 0, 0x8000, 0}).words));  // MATMUL acc_addr bit 15
  EXPECT_TRUE(ReservedBitsSet(Raw({0x107, 0, 0, 0}).words));       // illegal: only the opcode
  static_assert(DecodeMatmul(Words{0x00030010, 0, 0, 0}).rows == 3, "constexpr decoder");
}

TEST(IsaTableTest, NamesAndCodes) {
  EXPECT_EQ(kInstructionBytes, 16u);
  EXPECT_STREQ(OpcodeName(0x10), "MATMUL");
  EXPECT_EQ(OpcodeName(0x00), nullptr);
  EXPECT_STREQ(BufferName(2), "ACC");
  EXPECT_EQ(BufferName(3), nullptr);
  EXPECT_EQ(Halt().opcode(), static_cast<uint8_t>(Opcode::kHalt));
  EXPECT_EQ(static_cast<uint8_t>(Opcode::kHalt), 0x3F);
  EXPECT_EQ(static_cast<uint32_t>(csr::ErrorCode::kWeightsFull), 10u);
  EXPECT_EQ(csr::kNumCounters, 14u);
  EXPECT_EQ(csr::kCounterStride, 8u);
  EXPECT_EQ(csr::kDeviceVersion, 0x00010000u);
  EXPECT_EQ(csr::kCtrlIrqEnable, 4u);
  EXPECT_EQ(csr::kStatusIrqPending, 8u);
  EXPECT_TRUE(csr::StatusDone(csr::kStatusDone | csr::kStatusBusy));
  EXPECT_FALSE(csr::StatusError(csr::kStatusDone));
}

}  // namespace
}  // namespace mxu::isa
