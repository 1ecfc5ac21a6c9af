// Instruction encoding (docs/isa.md): 16-byte instructions, four little-endian 32-bit words.
//
// The encoders check only that each value fits its bit field; semantic limits (rows >= 1, buffer
// ranges, alignment) are the device's to check, so tests can still build illegal programs.
#ifndef MXU_COMMON_ISA_H_
#define MXU_COMMON_ISA_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mxu::isa {

inline constexpr size_t kInstructionBytes = 16;

enum class Opcode : uint8_t {
  kLoad = 0x01,
  kStore = 0x02,
  kMatmul = 0x10,
  kActivate = 0x20,
  kSync = 0x30,
  kHalt = 0x3F,
};

enum class Buffer : uint8_t { kUb = 0, kWeights = 1, kAcc = 2 };

struct Instruction {
  std::array<uint32_t, 4> words{};  // bit i of the instruction is bit i % 32 of words[i / 32]

  uint8_t opcode() const { return static_cast<uint8_t>(words[0] & 0xFF); }
  bool operator==(const Instruction& other) const { return words == other.words; }
  bool operator!=(const Instruction& other) const { return words != other.words; }
};

// Each throws std::invalid_argument naming the instruction and the field when a value does not
// fit its bit field (rows, lanes, k_rows, addresses: 16 bits; host address: 48 bits; stride: 16
// bits; buffer: 2 bits).
Instruction Load(Buffer target, uint32_t rows, uint32_t lanes, uint32_t buffer_addr,
                 uint64_t host_addr, uint32_t stride_elements, bool transpose = false);
// relu (ACC source only): negative values and -0 leave as +0, NaN as the canonical NaN.
Instruction Store(Buffer source, uint32_t rows, uint32_t lanes, uint32_t buffer_addr,
                  uint64_t host_addr, uint32_t stride_elements, bool relu = false);
Instruction Matmul(uint32_t rows, uint32_t k_rows, uint32_t ub_addr, uint32_t acc_addr,
                   bool accumulate, bool new_weights);
Instruction Activate(uint32_t rows, uint32_t acc_addr, uint32_t ub_addr, bool relu, bool bias,
                     uint32_t bias_addr = 0);
Instruction Sync();
Instruction Halt();
// Any bit pattern, for tests of illegal encodings.
Instruction Raw(const std::array<uint32_t, 4>& words);

// One line, e.g. "MATMUL rows=64 k_rows=16 ub=0 acc=128 accumulate new_weights"; unknown opcodes
// as "ILLEGAL 0x07 [words]"; " (reserved bits set)" is appended when a bit the opcode does not
// name is set.
std::string Disassemble(const Instruction& instruction);

// Appends the 16 bytes of the instruction, little endian, as the device fetches them.
void AppendBytes(const Instruction& instruction, std::vector<uint8_t>& out);

}  // namespace mxu::isa

#endif  // MXU_COMMON_ISA_H_
