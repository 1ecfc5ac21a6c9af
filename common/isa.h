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

#include "common/isa_table.h"

namespace mxu::isa {

// kInstructionBytes, Opcode, Buffer, the fields of each format (kTransferRows, ...) and
// NamedBits: generated from common/isa.toml.
struct Instruction {
  std::array<uint32_t, 4> words{};  // bit i of the instruction is bit i % 32 of words[i / 32]

  uint8_t opcode() const { return static_cast<uint8_t>(Get(kOpcode)); }
  // The value of bits [field.lsb + field.width - 1 : field.lsb] (width <= 64).
  uint64_t Get(Field field) const;
  // Writes the low field.width bits of `value` into the field.
  void Set(Field field, uint64_t value);
  bool operator==(const Instruction& other) const { return words == other.words; }
  bool operator!=(const Instruction& other) const { return words != other.words; }
};

// Each throws std::invalid_argument naming the instruction and the field when a value does not
// fit its bit field (rows, lanes, k_rows, addresses: 16 bits; host address: 48 bits; stride: 16
// bits; buffer: 2 bits).
Instruction Load(Buffer target, uint32_t rows, uint32_t lanes, uint32_t buffer_addr,
                 uint64_t host_addr, uint32_t stride_elements, bool transpose = false,
                 bool integer = false);
// relu (ACC source only): negative values and -0 leave as +0, NaN as the canonical NaN (integer:
// negative int32 values leave as 0). integer: int8 bytes from UB lanes, int32 from ACC.
Instruction Store(Buffer source, uint32_t rows, uint32_t lanes, uint32_t buffer_addr,
                  uint64_t host_addr, uint32_t stride_elements, bool relu = false,
                  bool integer = false);
Instruction Matmul(uint32_t rows, uint32_t k_rows, uint32_t ub_addr, uint32_t acc_addr,
                   bool accumulate, bool new_weights, bool integer = false);
Instruction Activate(uint32_t rows, uint32_t acc_addr, uint32_t ub_addr, bool relu, bool bias,
                     uint32_t bias_addr = 0);
// The integer ACTIVATE: int32 (+ bias) requantized to int8 with the quantization row at
// quant_addr (docs/numerics.md); zero_point in [-128, 127].
Instruction ActivateInteger(uint32_t rows, uint32_t acc_addr, uint32_t ub_addr, bool relu,
                            bool bias, uint32_t bias_addr, uint32_t quant_addr, int zero_point);
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
