#include "common/isa.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace mxu::isa {
namespace {

// Throws unless `value` fits in the field.
void CheckField(const char* instruction, const char* name, uint64_t value, Field field) {
  if (field.width < 64 && (value >> field.width) != 0) {
    throw std::invalid_argument(std::string(instruction) + ": " + name + " = " +
                                std::to_string(value) + " does not fit its " +
                                std::to_string(field.width) + "-bit field");
  }
}

// An instruction with only its opcode set.
Instruction WithOpcode(Opcode opcode) {
  Instruction in;
  in.Set(kOpcode, static_cast<uint8_t>(opcode));
  return in;
}

// LOAD and STORE share their layout; the flag is LOAD's transpose and STORE's relu.
Instruction Transfer(const char* name, Opcode opcode, const char* buffer_field, Buffer buffer,
                     uint32_t rows, uint32_t lanes, uint32_t buffer_addr, uint64_t host_addr,
                     uint32_t stride_elements, bool flag, bool integer) {
  CheckField(name, buffer_field, static_cast<uint8_t>(buffer), kTransferBuffer);
  CheckField(name, "rows", rows, kTransferRows);
  CheckField(name, "lanes", lanes, kTransferLanes);
  CheckField(name, "buffer_addr", buffer_addr, kTransferBufferAddr);
  CheckField(name, "host_addr", host_addr, kTransferHostAddr);
  CheckField(name, "stride_elements", stride_elements, kTransferStride);
  Instruction in = WithOpcode(opcode);
  in.Set(kTransferBuffer, static_cast<uint8_t>(buffer));
  in.Set(kTransferFlag, flag);
  in.Set(kTransferInt8, integer);
  in.Set(kTransferRows, rows);
  in.Set(kTransferLanes, lanes);
  in.Set(kTransferBufferAddr, buffer_addr);
  in.Set(kTransferHostAddr, host_addr);
  in.Set(kTransferStride, stride_elements);
  return in;
}

std::string BufferText(uint32_t buffer) {
  const char* name = BufferName(buffer);
  return name != nullptr ? name : std::to_string(buffer);
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

uint64_t Instruction::Get(Field field) const { return FieldOf(words, field); }

void Instruction::Set(Field field, uint64_t value) {
  for (int done = 0; done < field.width;) {
    const int bit = field.lsb + done;
    const int shift = bit % 32;
    const int take = std::min(32 - shift, field.width - done);
    const uint32_t mask = static_cast<uint32_t>(((uint64_t{1} << take) - 1) << shift);
    const uint32_t chunk = static_cast<uint32_t>((value >> done) << shift);
    words[bit / 32] = (words[bit / 32] & ~mask) | (chunk & mask);
    done += take;
  }
}

Instruction Load(Buffer target, uint32_t rows, uint32_t lanes, uint32_t buffer_addr,
                 uint64_t host_addr, uint32_t stride_elements, bool transpose, bool integer) {
  return Transfer("LOAD", Opcode::kLoad, "target", target, rows, lanes, buffer_addr, host_addr,
                  stride_elements, transpose, integer);
}

Instruction Store(Buffer source, uint32_t rows, uint32_t lanes, uint32_t buffer_addr,
                  uint64_t host_addr, uint32_t stride_elements, bool relu, bool integer) {
  return Transfer("STORE", Opcode::kStore, "source", source, rows, lanes, buffer_addr, host_addr,
                  stride_elements, relu, integer);
}

Instruction Matmul(uint32_t rows, uint32_t k_rows, uint32_t ub_addr, uint32_t acc_addr,
                   bool accumulate, bool new_weights, bool integer) {
  CheckField("MATMUL", "rows", rows, kMatmulRows);
  CheckField("MATMUL", "k_rows", k_rows, kMatmulKRows);
  CheckField("MATMUL", "ub_addr", ub_addr, kMatmulUbAddr);
  CheckField("MATMUL", "acc_addr", acc_addr, kMatmulAccAddr);
  Instruction in = WithOpcode(Opcode::kMatmul);
  in.Set(kMatmulAccumulate, accumulate);
  in.Set(kMatmulNewWeights, new_weights);
  in.Set(kMatmulInt8, integer);
  in.Set(kMatmulRows, rows);
  in.Set(kMatmulKRows, k_rows);
  in.Set(kMatmulUbAddr, ub_addr);
  in.Set(kMatmulAccAddr, acc_addr);
  return in;
}

Instruction Activate(uint32_t rows, uint32_t acc_addr, uint32_t ub_addr, bool relu, bool bias,
                     uint32_t bias_addr) {
  CheckField("ACTIVATE", "rows", rows, kActivateRows);
  CheckField("ACTIVATE", "acc_addr", acc_addr, kActivateAccAddr);
  CheckField("ACTIVATE", "ub_addr", ub_addr, kActivateUbAddr);
  CheckField("ACTIVATE", "bias_addr", bias_addr, kActivateBiasAddr);
  Instruction in = WithOpcode(Opcode::kActivate);
  in.Set(kActivateRelu, relu);
  in.Set(kActivateBias, bias);
  in.Set(kActivateRows, rows);
  in.Set(kActivateAccAddr, acc_addr);
  in.Set(kActivateUbAddr, ub_addr);
  in.Set(kActivateBiasAddr, bias_addr);
  return in;
}

Instruction ActivateInteger(uint32_t rows, uint32_t acc_addr, uint32_t ub_addr, bool relu,
                            bool bias, uint32_t bias_addr, uint32_t quant_addr, int zero_point) {
  if (zero_point < -128 || zero_point > 127) {
    throw std::invalid_argument("ACTIVATE: zero_point = " + std::to_string(zero_point) +
                                " is not an int8");
  }
  CheckField("ACTIVATE", "quant_addr", quant_addr, kActivateQuantAddr);
  Instruction in = Activate(rows, acc_addr, ub_addr, relu, bias, bias_addr);
  in.Set(kActivateInt8, true);
  in.Set(kActivateQuantAddr, quant_addr);
  in.Set(kActivateZeroPoint, static_cast<uint8_t>(zero_point));
  return in;
}

Instruction Sync() { return WithOpcode(Opcode::kSync); }

Instruction Halt() { return WithOpcode(Opcode::kHalt); }

Instruction Raw(const std::array<uint32_t, 4>& words) {
  Instruction in;
  in.words = words;
  return in;
}

std::string Disassemble(const Instruction& in) {
  const auto& w = in.words;
  const auto num = [](const char* name, uint64_t value) {
    return std::string(" ") + name + "=" + std::to_string(value);
  };
  std::string text;
  const Opcode opcode = OpcodeOf(w);
  switch (opcode) {
    case Opcode::kLoad:
    case Opcode::kStore: {
      const TransferFields f = DecodeTransfer(w);
      const bool load = opcode == Opcode::kLoad;
      text = load ? "LOAD target=" : "STORE source=";
      text += BufferText(static_cast<uint32_t>(f.buffer));
      text += num("rows", f.rows) + num("lanes", f.lanes) + num("buf", f.buffer_addr) +
              " host=" + Hex(f.host_addr) + num("stride", f.stride);
      if (f.flag) text += load ? " transpose" : " relu";
      if (f.int8) text += " int8";
      break;
    }
    case Opcode::kMatmul: {
      const MatmulFields f = DecodeMatmul(w);
      text = "MATMUL" + num("rows", f.rows) + num("k_rows", f.k_rows) + num("ub", f.ub_addr) +
             num("acc", f.acc_addr);
      if (f.accumulate) text += " accumulate";
      if (f.new_weights) text += " new_weights";
      if (f.int8) text += " int8";
      break;
    }
    case Opcode::kActivate: {
      const ActivateFields f = DecodeActivate(w);
      text = "ACTIVATE" + num("rows", f.rows) + num("acc", f.acc_addr) + num("ub", f.ub_addr);
      if (f.relu) text += " relu";
      // The bias address is shown whenever it matters or is (illegally) set without bias.
      if (f.bias) {
        text += num("bias", f.bias_addr);
      } else if (f.bias_addr != 0) {
        text += num("bias_addr", f.bias_addr);
      }
      if (f.int8) {
        text += " int8" + num("quant", f.quant_addr) +
                " zero_point=" + std::to_string(static_cast<int8_t>(f.zero_point));
      } else if (f.quant_addr != 0 || f.zero_point != 0) {
        text += num("quant_addr", f.quant_addr) + num("zero_point", f.zero_point);
      }
      break;
    }
    case Opcode::kSync:
      text = "SYNC";
      break;
    case Opcode::kHalt:
      text = "HALT";
      break;
    default: {
      char line[64];
      std::snprintf(line, sizeof(line), "ILLEGAL 0x%02x [%08x %08x %08x %08x]",
                    static_cast<unsigned>(opcode), w[0], w[1], w[2], w[3]);
      return line;
    }
  }
  if (ReservedBitsSet(w)) text += " (reserved bits set)";
  return text;
}

void AppendBytes(const Instruction& instruction, std::vector<uint8_t>& out) {
  for (uint32_t word : instruction.words) {
    for (int byte = 0; byte < 4; ++byte) out.push_back(static_cast<uint8_t>(word >> (8 * byte)));
  }
}

}  // namespace mxu::isa
