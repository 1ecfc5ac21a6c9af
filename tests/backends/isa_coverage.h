// Functional coverage of the instruction set, in the manner of a verification plan's coverpoints:
// named bins over what programs ask of the device, defined up front from docs/isa.md (so a bin
// nothing reaches shows as a miss, not as an absence), counted per program.
//
//   op.*        opcode x its option fields x numeric mode (bf16 or int8), and the row, lane and
//               k_rows extremes;
//   hazard.*    an instruction touching rows an instruction before it touches (read after write,
//               write after read, write after write; UB and accumulators; each producer and
//               consumer opcode), when the older one may still be in flight: at most kHazardWindow
//               instructions back with no SYNC between;
//   boundary.*  ranges at the first and last row of each buffer and across the accumulators' two
//               banks (their top address bit);
//   error.*     each error code x the opcode that raised it, and x the program's numeric mode.
#ifndef MXU_TESTS_BACKENDS_ISA_COVERAGE_H_
#define MXU_TESTS_BACKENDS_ISA_COVERAGE_H_

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/csr_map.h"
#include "common/isa.h"

namespace mxu::testing {

class IsaCoverage {
 public:
  static constexpr int kHazardWindow = 4;

  struct Buffers {
    uint32_t ub_depth, acc_depth, ub_lanes, cols, rows;
  };

  explicit IsaCoverage(const Buffers& b) : b_(b) { Define(); }

  // One program as the device ran it: instructions [0, stop) executed; with an error, the
  // instruction at `stop` (or the end of the program, for a missing HALT) raised `code`.
  void Sample(const std::vector<isa::Instruction>& program, size_t stop, csr::ErrorCode code,
              bool integer_program) {
    for (size_t i = 0; i < stop && i < program.size(); ++i) {
      SampleInstruction(program[i]);
      SampleHazards(program, i);
    }
    if (code == csr::ErrorCode::kNone) return;
    const std::string name = "error." + Lower(csr::ErrorName(code));
    const std::string op = stop < program.size() ? OpName(program[stop]) : "end";
    Hit(name + "." + op);
    Hit(name + (integer_program ? ".int8_program" : ".bf16_program"));
  }

  const std::map<std::string, uint64_t>& bins() const { return bins_; }

 private:
  enum class Buf { kUb, kAcc };
  struct Range {
    Buf buf;
    uint32_t lo, rows;
    bool write;
  };

  void Define() {
    for (const char* mode : {"packed", "strided", "broadcast", "transposed"}) {
      Add(std::string("op.load.ub.") + mode + ".bf16");
      if (std::string(mode) != "transposed") Add(std::string("op.load.ub.") + mode + ".int8");
    }
    for (const char* mode : {"packed", "strided", "broadcast"}) {
      Add(std::string("op.load.acc.") + mode);
      Add(std::string("op.load.weights.") + mode + ".int8");
    }
    for (const char* mode : {"packed", "strided", "transposed"}) {
      Add(std::string("op.load.weights.") + mode + ".bf16");
    }
    for (const char* b : {"ub", "acc", "weights"}) {
      Add(std::string("op.load.") + b + ".one_row");
      Add(std::string("op.load.") + b + ".one_lane");
      Add(std::string("op.load.") + b + ".all_lanes");
    }
    for (const char* kind :
         {"ub.bf16", "ub.int8", "acc.fp32", "acc.fp32.relu", "acc.int32", "acc.int32.relu"}) {
      Add(std::string("op.store.") + kind + ".packed");
      Add(std::string("op.store.") + kind + ".strided");
    }
    for (const char* w : {"new_weights", "kept_weights"}) {
      for (const char* a : {"overwrite", "accumulate"}) {
        for (const char* n : {"bf16", "int8"})
          Add(std::string("op.matmul.") + w + "." + a + "." + n);
      }
    }
    for (const char* k :
         {"k_rows.one", "k_rows.partial", "k_rows.full", "rows.one", "rows.beyond_array"}) {
      Add(std::string("op.matmul.") + k);
    }
    for (const char* r : {"plain", "relu"}) {
      for (const char* bias : {"no_bias", "bias"}) {
        for (const char* n : {"bf16", "int8"})
          Add(std::string("op.activate.") + r + "." + bias + "." + n);
      }
    }
    Add("op.sync");
    Add("op.halt");
    // Who writes and who reads each buffer's rows.
    const std::vector<std::string> ub_writers = {"load", "activate"},
                                   ub_readers = {"matmul", "store"};
    const std::vector<std::string> acc_writers = {"load", "matmul"},
                                   acc_readers = {"activate", "store", "matmul"};
    for (const auto& [buf, writers, readers] :
         {std::tuple{"ub", ub_writers, ub_readers}, std::tuple{"acc", acc_writers, acc_readers}}) {
      for (const auto& w : writers) {
        for (const auto& r : readers) {
          Add("hazard.raw." + std::string(buf) + "." + w + "_then_" + r);
          Add("hazard.war." + std::string(buf) + "." + r + "_then_" + w);
        }
        for (const auto& w2 : writers)
          Add("hazard.waw." + std::string(buf) + "." + w + "_then_" + w2);
      }
    }
    for (const char* b : {"ub", "acc"}) {
      Add(std::string("boundary.") + b + ".first_row");
      Add(std::string("boundary.") + b + ".last_row");
    }
    Add("boundary.acc.across_banks");
    const std::map<csr::ErrorCode, std::vector<std::string>> raised_by = {
        {csr::ErrorCode::kIllegalOpcode, {"illegal"}},
        {csr::ErrorCode::kIllegalField, {"load", "store", "matmul", "activate", "sync", "halt"}},
        {csr::ErrorCode::kUbRange, {"load", "store", "matmul", "activate"}},
        {csr::ErrorCode::kAccRange, {"load", "store", "matmul", "activate"}},
        {csr::ErrorCode::kMisaligned, {"load", "store"}},
        {csr::ErrorCode::kMemRead, {"load"}},
        {csr::ErrorCode::kMemWrite, {"store"}},
        {csr::ErrorCode::kNoWeights, {"matmul"}},
        {csr::ErrorCode::kWeightsFull, {"load"}},
        {csr::ErrorCode::kCmdOverrun, {"end"}}};
    for (const auto& [code, ops] : raised_by) {
      const std::string name = "error." + Lower(csr::ErrorName(code));
      for (const auto& op : ops) Add(name + "." + op);
      Add(name + ".bf16_program");
      Add(name + ".int8_program");
    }
  }

  void Add(const std::string& bin) { bins_.emplace(bin, 0); }
  // A bin the definitions above do not have is this file's mistake, not a miss.
  void Hit(const std::string& bin) {
    const auto it = bins_.find(bin);
    if (it == bins_.end()) throw std::logic_error("functional coverage: no bin " + bin);
    ++it->second;
  }

  static std::string Lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  static std::string OpName(const isa::Instruction& ins) {
    switch (static_cast<isa::Opcode>(ins.opcode())) {
      case isa::Opcode::kLoad:
        return "load";
      case isa::Opcode::kStore:
        return "store";
      case isa::Opcode::kMatmul:
        return "matmul";
      case isa::Opcode::kActivate:
        return "activate";
      case isa::Opcode::kSync:
        return "sync";
      case isa::Opcode::kHalt:
        return "halt";
    }
    return "illegal";
  }

  static std::string Layout(const isa::Instruction& ins) {
    const uint64_t stride = ins.Get(isa::kTransferStride), lanes = ins.Get(isa::kTransferLanes);
    return stride == 0 ? "broadcast" : stride == lanes ? "packed" : "strided";
  }

  void SampleInstruction(const isa::Instruction& ins) {
    const std::string op = OpName(ins);
    if (op == "load") {
      const auto buf = static_cast<isa::Buffer>(ins.Get(isa::kTransferBuffer));
      const bool int8 = ins.Get(isa::kTransferInt8) != 0;
      const bool trans = ins.Get(isa::kTransferFlag) != 0;
      const uint64_t lanes = ins.Get(isa::kTransferLanes);
      const std::string b = buf == isa::Buffer::kUb    ? "ub"
                            : buf == isa::Buffer::kAcc ? "acc"
                                                       : "weights";
      const std::string mode = trans ? "transposed" : Layout(ins);
      Hit("op.load." + b + "." + mode + (buf == isa::Buffer::kAcc ? "" : int8 ? ".int8" : ".bf16"));
      if (ins.Get(isa::kTransferRows) == 1) Hit("op.load." + b + ".one_row");
      if (lanes == 1) Hit("op.load." + b + ".one_lane");
      if (lanes == (buf == isa::Buffer::kUb ? b_.ub_lanes : b_.cols))
        Hit("op.load." + b + ".all_lanes");
    } else if (op == "store") {
      const bool acc = static_cast<isa::Buffer>(ins.Get(isa::kTransferBuffer)) == isa::Buffer::kAcc;
      const bool int8 = ins.Get(isa::kTransferInt8) != 0;
      std::string kind = acc ? (int8 ? "acc.int32" : "acc.fp32") : (int8 ? "ub.int8" : "ub.bf16");
      if (ins.Get(isa::kTransferFlag) != 0) kind += ".relu";
      Hit("op.store." + kind + (Layout(ins) == "packed" ? ".packed" : ".strided"));
    } else if (op == "matmul") {
      const uint64_t k = ins.Get(isa::kMatmulKRows), rows = ins.Get(isa::kMatmulRows);
      Hit(std::string("op.matmul.") +
          (ins.Get(isa::kMatmulNewWeights) ? "new_weights" : "kept_weights") +
          (ins.Get(isa::kMatmulAccumulate) ? ".accumulate" : ".overwrite") +
          (ins.Get(isa::kMatmulInt8) ? ".int8" : ".bf16"));
      Hit(k == 1         ? "op.matmul.k_rows.one"
          : k == b_.rows ? "op.matmul.k_rows.full"
                         : "op.matmul.k_rows.partial");
      if (rows == 1) Hit("op.matmul.rows.one");
      if (rows > b_.rows) Hit("op.matmul.rows.beyond_array");
    } else if (op == "activate") {
      Hit(std::string("op.activate.") + (ins.Get(isa::kActivateRelu) ? "relu" : "plain") +
          (ins.Get(isa::kActivateBias) ? ".bias" : ".no_bias") +
          (ins.Get(isa::kActivateInt8) ? ".int8" : ".bf16"));
    } else if (op == "sync" || op == "halt") {
      Hit("op." + op);
    }
    for (const Range& r : RangesOf(ins)) {
      const uint32_t depth = r.buf == Buf::kUb ? b_.ub_depth : b_.acc_depth;
      const std::string b = r.buf == Buf::kUb ? "ub" : "acc";
      if (r.lo == 0) Hit("boundary." + b + ".first_row");
      if (r.lo + r.rows == depth) Hit("boundary." + b + ".last_row");
      if (r.buf == Buf::kAcc && r.lo < depth / 2 && r.lo + r.rows > depth / 2) {
        Hit("boundary.acc.across_banks");
      }
    }
  }

  // The buffer rows an instruction reads and writes.
  static std::vector<Range> RangesOf(const isa::Instruction& ins) {
    const auto u32 = [&](isa::Field f) { return static_cast<uint32_t>(ins.Get(f)); };
    switch (static_cast<isa::Opcode>(ins.opcode())) {
      case isa::Opcode::kLoad:
      case isa::Opcode::kStore: {
        const auto buf = static_cast<isa::Buffer>(ins.Get(isa::kTransferBuffer));
        if (buf == isa::Buffer::kWeights) return {};
        const bool load = ins.opcode() == static_cast<uint8_t>(isa::Opcode::kLoad);
        return {{buf == isa::Buffer::kUb ? Buf::kUb : Buf::kAcc, u32(isa::kTransferBufferAddr),
                 u32(isa::kTransferRows), load}};
      }
      case isa::Opcode::kMatmul: {
        const uint32_t rows = u32(isa::kMatmulRows);
        std::vector<Range> r = {{Buf::kUb, u32(isa::kMatmulUbAddr), rows, false},
                                {Buf::kAcc, u32(isa::kMatmulAccAddr), rows, true}};
        if (ins.Get(isa::kMatmulAccumulate)) r.push_back({Buf::kAcc, r[1].lo, rows, false});
        return r;
      }
      case isa::Opcode::kActivate: {
        const uint32_t rows = u32(isa::kActivateRows);
        std::vector<Range> r = {{Buf::kAcc, u32(isa::kActivateAccAddr), rows, false},
                                {Buf::kUb, u32(isa::kActivateUbAddr), rows, true}};
        if (ins.Get(isa::kActivateBias))
          r.push_back({Buf::kAcc, u32(isa::kActivateBiasAddr), 1, false});
        if (ins.Get(isa::kActivateInt8))
          r.push_back({Buf::kAcc, u32(isa::kActivateQuantAddr), 1, false});
        return r;
      }
      default:
        return {};
    }
  }

  void SampleHazards(const std::vector<isa::Instruction>& program, size_t i) {
    const std::vector<Range> mine = RangesOf(program[i]);
    for (size_t back = 1; back <= kHazardWindow && back <= i; ++back) {
      const isa::Instruction& older = program[i - back];
      if (static_cast<isa::Opcode>(older.opcode()) == isa::Opcode::kSync) break;
      for (const Range& o : RangesOf(older)) {
        for (const Range& m : mine) {
          if (o.buf != m.buf || o.lo >= m.lo + m.rows || m.lo >= o.lo + o.rows) continue;
          if (!o.write && !m.write) continue;
          const std::string kind = o.write && m.write ? "waw" : o.write ? "raw" : "war";
          Hit("hazard." + kind + (o.buf == Buf::kUb ? ".ub." : ".acc.") + OpName(older) + "_then_" +
              OpName(program[i]));
        }
      }
    }
  }

  Buffers b_;
  std::map<std::string, uint64_t> bins_;
};

}  // namespace mxu::testing

#endif  // MXU_TESTS_BACKENDS_ISA_COVERAGE_H_
