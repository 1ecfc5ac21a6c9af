// The controller's decoder (mxu_ctrl_decode): an instruction's fields, its first error in the
// RTL's order of precedence, and the buffer ranges the dispatcher's hazard checks compare.
#include "backends/model/instruction.h"
#include "common/csr_map.h"

namespace mxu::backends::model {
namespace {

uint32_t Code(csr::ErrorCode e) { return static_cast<uint32_t>(e); }

// LOAD, LOAD WEIGHTS and STORE.
Decoded DecodeTransfer(const isa::Words& w, const Config& cfg, uint32_t weights_unclaimed) {
  using csr::ErrorCode;
  Decoded d;
  const isa::TransferFields f = isa::DecodeTransfer(w);
  const bool is_store = isa::OpcodeOf(w) == isa::Opcode::kStore;
  const bool ub = f.buffer == isa::Buffer::kUb, weights = f.buffer == isa::Buffer::kWeights,
             acc = f.buffer == isa::Buffer::kAcc;
  d.kind = is_store ? Kind::kStore : (weights ? Kind::kWload : Kind::kLoad);
  // int8 host bytes (UB, WEIGHTS) have no alignment rule; ACC words keep theirs.
  const bool byte_elements = f.int8 && !acc;
  if (isa::ReservedBitsSet(w) || (is_store && f.flag && !acc) || !isa::IsBuffer(f.buffer) ||
      (is_store && weights) || (!is_store && f.flag && acc) || (!is_store && f.flag && f.int8) ||
      f.rows == 0 || f.lanes == 0 || (ub && f.lanes > cfg.ub_lanes()) ||
      (!ub && f.lanes > cfg.cols) || (weights && (f.rows > cfg.rows || f.buffer_addr != 0))) {
    d.err = Code(ErrorCode::kIllegalField);
  } else if (ub && f.buffer_addr + f.rows > cfg.ub_depth) {
    d.err = Code(ErrorCode::kUbRange);
  } else if (acc && f.buffer_addr + f.rows > cfg.acc_depth) {
    d.err = Code(ErrorCode::kAccRange);
  } else if (((f.host_addr & 1) && !byte_elements) || (acc && (f.host_addr & 2))) {
    d.err = Code(ErrorCode::kMisaligned);
  } else if (!is_store && weights && weights_unclaimed == 3) {
    d.err = Code(ErrorCode::kWeightsFull);
  }
  d.buf = static_cast<uint32_t>(f.buffer);
  d.flag = f.flag;
  d.integer = f.int8;
  d.rows = f.rows;
  d.lanes = f.lanes;
  d.buf_addr = f.buffer_addr;
  d.host = f.host_addr;
  d.stride = f.stride;
  const Range r{true, f.buffer_addr, f.buffer_addr + f.rows};
  if (!is_store && ub) d.w_ub = r;
  if (!is_store && acc) d.w_acc = r;
  if (is_store && ub) d.r_ub = r;
  if (is_store && acc) d.r_acc = r;
  return d;
}

Decoded DecodeMatmul(const isa::Words& w, const Config& cfg, uint32_t weights_unclaimed) {
  using csr::ErrorCode;
  Decoded d;
  const isa::MatmulFields f = isa::DecodeMatmul(w);
  d.kind = Kind::kMatmul;
  if (isa::ReservedBitsSet(w) || f.rows == 0 || f.k_rows == 0 || f.k_rows > cfg.rows) {
    d.err = Code(ErrorCode::kIllegalField);
  } else if (f.ub_addr + f.rows > cfg.ub_depth) {
    d.err = Code(ErrorCode::kUbRange);
  } else if (f.acc_addr + f.rows > cfg.acc_depth) {
    d.err = Code(ErrorCode::kAccRange);
  } else if (f.new_weights && weights_unclaimed == 0) {
    d.err = Code(ErrorCode::kNoWeights);
  }
  d.rows = f.rows;
  d.k_rows = f.k_rows;
  d.ub_addr = f.ub_addr;
  d.acc_addr = f.acc_addr;
  d.accumulate = f.accumulate;
  d.new_weights = f.new_weights;
  d.integer = f.int8;
  d.r_ub = {true, f.ub_addr, f.ub_addr + f.rows};
  d.w_acc = {true, f.acc_addr, f.acc_addr + f.rows};
  return d;
}

Decoded DecodeActivate(const isa::Words& w, const Config& cfg) {
  using csr::ErrorCode;
  Decoded d;
  const isa::ActivateFields f = isa::DecodeActivate(w);
  d.kind = Kind::kActivate;
  // The quantization row and the zero point belong to the integer mode, as the bias address to
  // the bias: set without it, they are illegal.
  if (isa::ReservedBitsSet(w) || f.rows == 0 || (!f.bias && f.bias_addr != 0) ||
      (!f.int8 && (f.quant_addr != 0 || f.zero_point != 0))) {
    d.err = Code(ErrorCode::kIllegalField);
  } else if (f.ub_addr + f.rows > cfg.ub_depth) {
    d.err = Code(ErrorCode::kUbRange);
  } else if (f.acc_addr + f.rows > cfg.acc_depth || f.bias_addr >= cfg.acc_depth ||
             f.quant_addr >= cfg.acc_depth) {
    d.err = Code(ErrorCode::kAccRange);
  }
  d.rows = f.rows;
  d.acc_addr = f.acc_addr;
  d.ub_addr = f.ub_addr;
  d.bias_addr = f.bias_addr;
  d.quant_addr = f.quant_addr;
  d.zero_point = static_cast<int8_t>(static_cast<uint8_t>(f.zero_point));
  d.relu = f.relu;
  d.bias = f.bias;
  d.integer = f.int8;
  d.r_acc = {true, f.acc_addr, f.acc_addr + f.rows};
  d.w_ub = {true, f.ub_addr, f.ub_addr + f.rows};
  if (f.bias) d.r_bias = {true, f.bias_addr, f.bias_addr + 1};
  if (f.int8) d.r_quant = {true, f.quant_addr, f.quant_addr + 1};
  return d;
}

}  // namespace

Decoded Decode(const isa::Words& w, const Config& cfg, uint32_t weights_unclaimed) {
  switch (isa::OpcodeOf(w)) {
    case isa::Opcode::kLoad:
    case isa::Opcode::kStore:
      return DecodeTransfer(w, cfg, weights_unclaimed);
    case isa::Opcode::kMatmul:
      return DecodeMatmul(w, cfg, weights_unclaimed);
    case isa::Opcode::kActivate:
      return DecodeActivate(w, cfg);
    case isa::Opcode::kSync:
    case isa::Opcode::kHalt: {
      Decoded d;
      d.kind = isa::OpcodeOf(w) == isa::Opcode::kSync ? Kind::kSync : Kind::kHalt;
      if (isa::ReservedBitsSet(w)) d.err = Code(csr::ErrorCode::kIllegalField);
      return d;
    }
    default: {
      Decoded d;
      d.err = Code(csr::ErrorCode::kIllegalOpcode);
      return d;
    }
  }
}

}  // namespace mxu::backends::model
