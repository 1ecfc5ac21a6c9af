#include "common/isa.h"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace mxu::isa {
namespace {

// Throws unless `value` fits in `bits` bits.
void CheckField(const char* instruction, const char* field, uint64_t value, int bits) {
  if (bits < 64 && (value >> bits) != 0) {
    throw std::invalid_argument(std::string(instruction) + ": " + field + " = " +
                                std::to_string(value) + " does not fit its " +
                                std::to_string(bits) + "-bit field");
  }
}

uint32_t Op(Opcode opcode) { return static_cast<uint8_t>(opcode); }
uint32_t Bit(bool flag, int position) { return static_cast<uint32_t>(flag) << position; }

// LOAD and STORE share their layout; bit 10 is LOAD's transpose and STORE's relu.
Instruction Transfer(const char* name, Opcode opcode, const char* buffer_field, Buffer buffer,
                     uint32_t rows, uint32_t lanes, uint32_t buffer_addr, uint64_t host_addr,
                     uint32_t stride_elements, bool bit10) {
  CheckField(name, buffer_field, static_cast<uint8_t>(buffer), 2);
  CheckField(name, "rows", rows, 16);
  CheckField(name, "lanes", lanes, 16);
  CheckField(name, "buffer_addr", buffer_addr, 16);
  CheckField(name, "host_addr", host_addr, 48);
  CheckField(name, "stride_elements", stride_elements, 16);
  Instruction in;
  in.words[0] = Op(opcode) | static_cast<uint32_t>(buffer) << 8 | Bit(bit10, 10) | rows << 16;
  in.words[1] = lanes | buffer_addr << 16;
  // Host address bits [47:0] occupy instruction bits [111:64].
  in.words[2] = static_cast<uint32_t>(host_addr);
  in.words[3] = static_cast<uint32_t>(host_addr >> 32) | stride_elements << 16;
  return in;
}

// Bits each opcode names; every other bit must be zero.
std::array<uint32_t, 4> NamedBits(uint8_t opcode) {
  switch (static_cast<Opcode>(opcode)) {
    case Opcode::kLoad:
      return {0xFFFF07FF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF};
    case Opcode::kStore:
      return {0xFFFF07FF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF};
    case Opcode::kMatmul:
    case Opcode::kActivate:
      return {0xFFFF03FF, 0xFFFFFFFF, 0x0000FFFF, 0};
    default:
      return {0xFF, 0, 0, 0};
  }
}

std::string BufferName(uint32_t buffer) {
  switch (buffer) {
    case 0:
      return "UB";
    case 1:
      return "WEIGHTS";
    case 2:
      return "ACC";
    default:
      return std::to_string(buffer);
  }
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

Instruction Load(Buffer target, uint32_t rows, uint32_t lanes, uint32_t buffer_addr,
                 uint64_t host_addr, uint32_t stride_elements, bool transpose) {
  return Transfer("LOAD", Opcode::kLoad, "target", target, rows, lanes, buffer_addr, host_addr,
                  stride_elements, transpose);
}

Instruction Store(Buffer source, uint32_t rows, uint32_t lanes, uint32_t buffer_addr,
                  uint64_t host_addr, uint32_t stride_elements, bool relu) {
  return Transfer("STORE", Opcode::kStore, "source", source, rows, lanes, buffer_addr, host_addr,
                  stride_elements, relu);
}

Instruction Matmul(uint32_t rows, uint32_t k_rows, uint32_t ub_addr, uint32_t acc_addr,
                   bool accumulate, bool new_weights) {
  CheckField("MATMUL", "rows", rows, 16);
  CheckField("MATMUL", "k_rows", k_rows, 16);
  CheckField("MATMUL", "ub_addr", ub_addr, 16);
  CheckField("MATMUL", "acc_addr", acc_addr, 16);
  Instruction in;
  in.words[0] = Op(Opcode::kMatmul) | Bit(accumulate, 8) | Bit(new_weights, 9) | rows << 16;
  in.words[1] = k_rows | ub_addr << 16;
  in.words[2] = acc_addr;
  return in;
}

Instruction Activate(uint32_t rows, uint32_t acc_addr, uint32_t ub_addr, bool relu, bool bias,
                     uint32_t bias_addr) {
  CheckField("ACTIVATE", "rows", rows, 16);
  CheckField("ACTIVATE", "acc_addr", acc_addr, 16);
  CheckField("ACTIVATE", "ub_addr", ub_addr, 16);
  CheckField("ACTIVATE", "bias_addr", bias_addr, 16);
  Instruction in;
  in.words[0] = Op(Opcode::kActivate) | Bit(relu, 8) | Bit(bias, 9) | rows << 16;
  in.words[1] = acc_addr | ub_addr << 16;
  in.words[2] = bias_addr;
  return in;
}

Instruction Sync() { return Raw({Op(Opcode::kSync), 0, 0, 0}); }

Instruction Halt() { return Raw({Op(Opcode::kHalt), 0, 0, 0}); }

Instruction Raw(const std::array<uint32_t, 4>& words) {
  Instruction in;
  in.words = words;
  return in;
}

std::string Disassemble(const Instruction& in) {
  const auto& w = in.words;
  const uint8_t opcode = in.opcode();
  const auto field = [&](int lsb, int bits) -> uint64_t {  // lsb and width inside one word
    return (w[lsb / 32] >> (lsb % 32)) & ((uint64_t{1} << bits) - 1);
  };
  const auto num = [&](const char* name, int lsb) {
    return std::string(" ") + name + "=" + std::to_string(field(lsb, 16));
  };
  const uint64_t host = w[2] | (uint64_t{w[3]} & 0xFFFF) << 32;
  std::string text;
  switch (static_cast<Opcode>(opcode)) {
    case Opcode::kLoad:
    case Opcode::kStore: {
      const bool load = static_cast<Opcode>(opcode) == Opcode::kLoad;
      text = load ? "LOAD target=" : "STORE source=";
      text += BufferName(static_cast<uint32_t>(field(8, 2)));
      text += num("rows", 16) + num("lanes", 32) + num("buf", 48) + " host=" + Hex(host) +
              num("stride", 112);
      if (field(10, 1)) text += load ? " transpose" : " relu";
      break;
    }
    case Opcode::kMatmul:
      text = "MATMUL" + num("rows", 16) + num("k_rows", 32) + num("ub", 48) + num("acc", 64);
      if (field(8, 1)) text += " accumulate";
      if (field(9, 1)) text += " new_weights";
      break;
    case Opcode::kActivate:
      text = "ACTIVATE" + num("rows", 16) + num("acc", 32) + num("ub", 48);
      if (field(8, 1)) text += " relu";
      // The bias address is shown whenever it matters or is (illegally) set without bias.
      if (field(9, 1)) {
        text += num("bias", 64);
      } else if (field(64, 16) != 0) {
        text += num("bias_addr", 64);
      }
      break;
    case Opcode::kSync:
      text = "SYNC";
      break;
    case Opcode::kHalt:
      text = "HALT";
      break;
    default: {
      char line[64];
      std::snprintf(line, sizeof(line), "ILLEGAL 0x%02x [%08x %08x %08x %08x]", opcode, w[0], w[1],
                    w[2], w[3]);
      return line;
    }
  }
  const std::array<uint32_t, 4> named = NamedBits(opcode);
  for (size_t i = 0; i < w.size(); ++i) {
    if ((w[i] & ~named[i]) != 0) {
      text += " (reserved bits set)";
      break;
    }
  }
  return text;
}

void AppendBytes(const Instruction& instruction, std::vector<uint8_t>& out) {
  for (uint32_t word : instruction.words) {
    for (int byte = 0; byte < 4; ++byte) out.push_back(static_cast<uint8_t>(word >> (8 * byte)));
  }
}

}  // namespace mxu::isa
