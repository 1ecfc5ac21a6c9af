#include "driver/gemm.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace mxu::driver {
namespace {

// Device-visible host memory handed out upwards from a fixed base, 4 KiB aligned.
class HostArena {
 public:
  HostArena(uint64_t base, uint64_t limit) : next_(base), limit_(limit) {}
  uint64_t Allocate(uint64_t bytes) {
    const uint64_t addr = next_;
    next_ = (next_ + bytes + 4095) & ~uint64_t{4095};
    if (next_ > limit_) throw std::invalid_argument("the operands do not fit in host memory");
    return addr;
  }

 private:
  uint64_t next_, limit_;
};

std::string Shape(const char* name, int rows, int cols) {
  return std::string(name) + " is " + std::to_string(rows) + "x" + std::to_string(cols);
}

template <typename T>
void CheckData(const Matrix<T>& m) {
  if (static_cast<size_t>(m.rows) * m.cols != m.data.size()) {
    throw std::invalid_argument("matrix data does not match its shape");
  }
}

// Whether the request is in the int8 mode; throws when its operands, bias and C0 mix the modes.
bool IsInt8(const GemmRequest& r) {
  const bool float_in = r.a || r.b || r.bias || r.c0;
  const bool int_in = r.a_int8 || r.b_int8 || r.bias_int32 || r.c0_int32;
  if (float_in && int_in) {
    throw std::invalid_argument(
        "mixed types in one GEMM: bf16 operands (fp32 bias, C0) and int8 operands (int32 bias, "
        "C0) cannot be combined");
  }
  return int_in;
}

// The request's shape, checked. `a_rows` x `a_cols` is A's stored shape.
GemmSpec MakeSpec(const GemmRequest& request, int a_rows, int a_cols) {
  const bool int8 = IsInt8(request);
  if (!(int8 ? request.b_int8 != nullptr : request.b != nullptr)) {
    throw std::invalid_argument("GEMM needs both A and B");
  }
  const int b_rows = int8 ? request.b_int8->rows : request.b->rows;
  const int b_cols = int8 ? request.b_int8->cols : request.b->cols;
  if (int8) {
    CheckData(*request.b_int8);
  } else {
    CheckData(*request.b);
  }
  GemmSpec spec;
  // int8 operands are transposed on the host (GemmProgram::Run), never by the device.
  spec.int8 = int8;
  spec.trans_a = request.trans_a && !int8;
  spec.trans_b = request.trans_b && !int8;
  spec.m = request.trans_a ? a_cols : a_rows;
  spec.k = request.trans_a ? a_rows : a_cols;
  const int k_b = request.trans_b ? b_cols : b_rows;
  spec.n = request.trans_b ? b_rows : b_cols;
  if (spec.k != k_b) {
    throw std::invalid_argument(Shape("op(A)", spec.m, spec.k) + " but " +
                                Shape("op(B)", k_b, spec.n) + ": inner dimensions differ");
  }
  spec.bias = request.bias != nullptr || request.bias_int32 != nullptr;
  spec.c0 = request.c0 != nullptr || request.c0_int32 != nullptr;
  spec.relu = request.relu;
  spec.output = request.output;
  spec.zero_point = request.zero_point;
  const size_t bias_size = request.bias         ? request.bias->size()
                           : request.bias_int32 ? request.bias_int32->size()
                                                : 0;
  if (spec.bias && static_cast<int>(bias_size) != spec.n) {
    throw std::invalid_argument("bias has " + std::to_string(bias_size) +
                                " values, expected N = " + std::to_string(spec.n));
  }
  const int c0_rows = request.c0 ? request.c0->rows : request.c0_int32 ? request.c0_int32->rows : 0;
  const int c0_cols = request.c0 ? request.c0->cols : request.c0_int32 ? request.c0_int32->cols : 0;
  if (spec.c0 && (c0_rows != spec.m || c0_cols != spec.n)) {
    throw std::invalid_argument(Shape("C0", c0_rows, c0_cols) + ", expected " +
                                std::to_string(spec.m) + "x" + std::to_string(spec.n));
  }
  if (request.c0_int32) CheckData(*request.c0_int32);
  if (request.output == OutputType::kInt8) {
    if (!request.quant || static_cast<int>(request.quant->size()) != spec.n) {
      throw std::invalid_argument("int8 output needs N = " + std::to_string(spec.n) +
                                  " quantization words, got " +
                                  std::to_string(request.quant ? request.quant->size() : 0));
    }
  } else if (request.quant) {
    throw std::invalid_argument("quantization words are for int8 output only");
  }
  // Plain operands are packed tile by tile (a layout change, no arithmetic); transposed ones
  // stay as they are and the device transposes them on load.
  spec.packed = true;
  return spec;
}

// A request on host operands (not chained), checked: its shape and options.
GemmSpec CheckedSpec(const GemmRequest& request) {
  if (IsInt8(request)) {
    if (!request.a_int8) throw std::invalid_argument("GEMM needs both A and B");
    CheckData(*request.a_int8);
    return MakeSpec(request, request.a_int8->rows, request.a_int8->cols);
  }
  if (!request.a) throw std::invalid_argument("GEMM needs both A and B");
  CheckData(*request.a);
  return MakeSpec(request, request.a->rows, request.a->cols);
}

int CeilDiv(int a, int b) { return (a + b - 1) / b; }

// The bytes of a GEMM's result buffer in host memory.
uint64_t OutputBytes(const DeviceConfig& config, const GemmSpec& spec) {
  return OutputElements(config, spec) * driver::OutputBytes(spec.output);
}

// Buffer rows an instruction writes: {buffer, first, end}; buffer -1 when it writes none.
struct Rows {
  int buffer = -1;
  uint64_t lo = 0, hi = 0;
};

Rows WrittenRows(const isa::Instruction& in) {
  switch (static_cast<isa::Opcode>(in.opcode())) {
    case isa::Opcode::kLoad: {
      const auto target = static_cast<int>(in.Get(isa::kTransferBuffer));
      if (target == static_cast<int>(isa::Buffer::kWeights)) return {};
      const uint64_t lo = in.Get(isa::kTransferBufferAddr);
      return {target, lo, lo + in.Get(isa::kTransferRows)};
    }
    case isa::Opcode::kMatmul: {
      const uint64_t lo = in.Get(isa::kMatmulAccAddr);
      return {static_cast<int>(isa::Buffer::kAcc), lo, lo + in.Get(isa::kMatmulRows)};
    }
    case isa::Opcode::kActivate: {
      const uint64_t lo = in.Get(isa::kActivateUbAddr);
      return {static_cast<int>(isa::Buffer::kUb), lo, lo + in.Get(isa::kActivateRows)};
    }
    default:
      return {};
  }
}

// Moves the STOREs that end `done` (the previous GEMM's last results) into `next` (the next
// GEMM's instructions), spread out behind its MATMULs: back to back they would stop the in-order
// dispatcher at each one while the store engine finishes the one before. A STORE never moves
// past an instruction that writes the rows it reads; host memory is no hazard (each GEMM of a
// program has its own operands and result buffers).
void SinkTrailingStores(std::vector<isa::Instruction>& done, std::vector<isa::Instruction>& next,
                        int bus_bytes) {
  std::vector<isa::Instruction> stores;
  while (!done.empty() && static_cast<isa::Opcode>(done.back().opcode()) == isa::Opcode::kStore) {
    stores.insert(stores.begin(), done.back());
    done.pop_back();
  }
  size_t at = 0;  // where the last store went
  for (const isa::Instruction& store : stores) {
    const int source = static_cast<int>(store.Get(isa::kTransferBuffer));
    const uint64_t lo = store.Get(isa::kTransferBufferAddr),
                   hi = lo + store.Get(isa::kTransferRows);
    const uint64_t bytes = (hi - lo) * store.Get(isa::kTransferLanes) *
                           (source == static_cast<int>(isa::Buffer::kAcc) ? 4
                            : store.Get(isa::kTransferInt8)               ? 1
                                                                          : 2);
    const uint64_t spacing = kPlannerMemoryLatency + bytes / std::max(1, bus_bytes);
    // The first writer of its rows bounds how far it may go, from the start of `next`.
    size_t limit = 0;
    while (limit < next.size()) {
      const Rows w = WrittenRows(next[limit]);
      if (w.buffer == source && w.lo < hi && lo < w.hi) break;
      ++limit;
    }
    // Behind enough MATMUL rows after the store before it to cover that one's transfer.
    uint64_t rows_since = 0;
    size_t want = at;
    while (want < limit && rows_since < spacing) {
      if (static_cast<isa::Opcode>(next[want].opcode()) == isa::Opcode::kMatmul) {
        rows_since += next[want].Get(isa::kMatmulRows);
      }
      ++want;
    }
    at = std::min(want, limit);
    next.insert(next.begin() + static_cast<std::ptrdiff_t>(at), store);
    ++at;
  }
}

// Writes a GEMM's host operands (A unless it is resident, B, bias, C0, quantization words) into
// the arena in the layout its plan reads, and allocates its result (unless `allocate_c` is
// false: the caller places it); returns their addresses.
GemmAddresses WriteOperands(Device& device, const DeviceConfig& config, HostArena& arena,
                            const GemmRequest& r, const GemmSpec& spec, bool a_resident,
                            bool allocate_c = true) {
  GemmAddresses addr;
  const auto put = [&](const auto& image) {
    const uint64_t bytes = image.size() * sizeof(image[0]);
    const uint64_t at = arena.Allocate(bytes);
    device.WriteMemory(at, image.data(), bytes);
    return at;
  };
  const int rows = static_cast<int>(config.rows), cols = static_cast<int>(config.cols);
  if (spec.int8) {  // transposed on the host, then packed as plain operands are
    if (!a_resident) {
      const Int8Matrix a = r.trans_a ? Transposed(*r.a_int8) : *r.a_int8;
      addr.a = put(PackTiles(a.data, spec.m, spec.k, rows));
    }
    const Int8Matrix b = r.trans_b ? Transposed(*r.b_int8) : *r.b_int8;
    addr.b = put(PackTiles(b.data, spec.k, spec.n, cols));
    if (r.bias_int32) addr.bias = put(*r.bias_int32);
    if (r.c0_int32) addr.c0 = put(PackTiles(r.c0_int32->data, spec.m, spec.n, cols));
    if (r.quant) {  // N tiles of whole rows, zero-padded
      std::vector<uint32_t> words(static_cast<size_t>(CeilDiv(spec.n, cols)) * cols, 0);
      std::copy(r.quant->begin(), r.quant->end(), words.begin());
      addr.quant = put(words);
    }
  } else {
    if (!a_resident) {
      const Bf16Matrix& a = *r.a;
      addr.a = put(spec.trans_a ? a.data : PackTiles(a.data, spec.m, spec.k, rows));
    }
    const Bf16Matrix& b = *r.b;
    addr.b = put(spec.trans_b ? b.data : PackTiles(b.data, spec.k, spec.n, cols));
    if (r.bias) addr.bias = put(*r.bias);
    if (r.c0) {  // packed as B is: N tiles of M rows
      addr.c0 = put(PackTiles(r.c0->data, spec.m, spec.n, cols));
    }
  }
  if (allocate_c) addr.c = arena.Allocate(OutputBytes(config, spec));
  return addr;
}

// The device stored C block by block (rows of a block packed): reads it back and unpacks it into
// the row-major matrix of the GEMM's output type.
void ReadResult(Device& device, const GemmPlan& plan, const GemmSpec& spec, uint64_t c_addr,
                GemmResult& result) {
  const size_t outputs = plan.output_elements;
  const auto unpack = [&](auto& matrix, auto stored) {
    using T = decltype(stored);
    std::vector<T> packed(outputs);
    device.ReadMemory(c_addr, packed.data(), outputs * sizeof(T));
    matrix = std::remove_reference_t<decltype(matrix)>(spec.m, spec.n);
    for (const OutputBlock& block : plan.outputs) {
      for (int r = 0; r < block.rows; ++r) {
        for (int j = 0; j < block.cols; ++j) {
          matrix.at(block.m0 + r, block.n0 + j) =
              static_cast<std::remove_reference_t<decltype(matrix.at(0, 0))>>(
                  packed[block.offset + uint64_t(r) * block.stride + j]);
        }
      }
    }
  };
  switch (spec.output) {
    case OutputType::kBf16:
      unpack(result.c_bf16, uint16_t{});
      break;
    case OutputType::kInt32:
      unpack(result.c_int32, int32_t{});
      break;
    case OutputType::kInt8:
      unpack(result.c_int8, int8_t{});
      break;
    case OutputType::kFp32:
      unpack(result.c, float{});
      break;
  }
}

// A GEMM's share of the program's statistics: the program's counters and utilization (all MACs
// over all cycles), its own ideal cycles, blocking and instructions.
void SetStats(const RunStats& stats, const GemmPlan& plan, const GemmSpec& spec,
              const DeviceConfig& config, uint64_t all_macs, GemmResult& result) {
  const uint64_t per_cycle = uint64_t(config.rows) * config.cols;
  const uint64_t cycles = stats.counter(csr::Counter::kCycles);
  result.stats = stats;
  result.blocking = plan.blocking;
  result.instructions = plan.program.size();
  const uint64_t macs = uint64_t(spec.m) * spec.k * spec.n;
  result.ideal_cycles = (macs + per_cycle - 1) / per_cycle;
  result.utilization = cycles ? static_cast<double>(all_macs) / (double(cycles) * per_cycle) : 0;
}

}  // namespace

GemmProgram::GemmProgram(Device& device, const DeviceConfig& config)
    : device_(device), config_(config) {}

GemmSpec CheckGemmRequest(const GemmRequest& request) { return CheckedSpec(request); }

size_t GemmProgram::Add(const GemmRequest& request) {
  entries_.push_back({request, CheckedSpec(request)});
  return entries_.size() - 1;
}

size_t GemmProgram::AddChained(size_t producer, const GemmRequest& request) {
  if (producer >= entries_.size()) throw std::invalid_argument("chained to an unknown GEMM");
  if (request.a || request.a_int8 || request.trans_a) {
    throw std::invalid_argument("a chained GEMM takes A from its producer, untransposed");
  }
  const GemmSpec& p = entries_[producer].spec;
  // int8 layers chain through the requantized int8 result (sign-extended in the UB's lanes, whose
  // low bytes the next MATMUL takes), bf16 ones through the bf16 result.
  if (IsInt8(request) != p.int8 || (p.int8 && p.output != OutputType::kInt8)) {
    throw std::invalid_argument(
        "a chained GEMM takes the producer's activated result: bf16 after a bf16 GEMM, int8 "
        "after an int8 GEMM with int8 output");
  }
  Entry e{request, MakeSpec(request, p.m, p.n)};
  e.producer = static_cast<int>(producer);
  entries_[producer].feeds_next = true;
  entries_.push_back(e);
  return entries_.size() - 1;
}

void GemmProgram::SetReturned(size_t i, bool returned) { entries_.at(i).returned = returned; }

std::vector<GemmResult> GemmProgram::Run(uint64_t watchdog_cycles) {
  if (entries_.empty()) throw std::invalid_argument("a GEMM program needs a GEMM");
  if (config_.rows != config_.cols) {
    for (const Entry& e : entries_) {
      if (e.feeds_next) return RunThroughHost(watchdog_cycles);
    }
  }
  // Resident results are placed from the top of the unified buffer down; the planners of all
  // GEMMs share the rows below.
  int ub_limit = static_cast<int>(config_.ub_depth);
  std::vector<int> resident(entries_.size(), -1);
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (!entries_[i].feeds_next) continue;
    const GemmSpec& s = entries_[i].spec;
    ub_limit -= CeilDiv(s.n, static_cast<int>(config_.cols)) * s.m;
    resident[i] = ub_limit;
  }
  if (ub_limit < 1) {
    throw std::invalid_argument("the chained results do not fit the unified buffer");
  }

  HostArena arena(0x100000, device_.memory_size());
  int groups_so_far = 0;
  std::vector<isa::Instruction> program;
  std::vector<GemmPlan> plans;
  std::vector<GemmAddresses> addrs(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    addrs[i] = WriteOperands(device_, config_, arena, e.request, e.spec, e.producer >= 0);
    GemmPlacement place;
    place.ub_limit = ub_limit;
    place.a_ub_row = e.producer >= 0 ? resident[e.producer] : -1;
    place.out_ub_row = resident[i];
    place.store = e.returned;
    place.acc_group_offset = groups_so_far;
    if (!e.returned && !e.feeds_next) place.store = true;  // a result must go somewhere
    plans.push_back(PlanGemm(config_, e.spec, addrs[i], place));
    groups_so_far += plans.back().groups;
    std::vector<isa::Instruction> body(plans.back().program.begin(),
                                       plans.back().program.end() - 1);
    if (i > 0) SinkTrailingStores(program, body, static_cast<int>(config_.bus_bytes));
    program.insert(program.end(), body.begin(), body.end());
  }
  program.push_back(isa::Halt());
  const uint64_t program_addr = arena.Allocate(program.size() * isa::kInstructionBytes);
  RunStats stats = ProgramRunner(device_, watchdog_cycles).Run(program, program_addr);
  stats.accesses = CountBufferAccesses(program, config_.rows, config_.bus_bytes);

  uint64_t all_macs = 0;
  for (const Entry& e : entries_) all_macs += uint64_t(e.spec.m) * e.spec.k * e.spec.n;
  std::vector<GemmResult> results(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    SetStats(stats, plans[i], entries_[i].spec, config_, all_macs, results[i]);
    if (plans[i].outputs.empty() || !entries_[i].returned) continue;
    ReadResult(device_, plans[i], entries_[i].spec, addrs[i].c, results[i]);
  }
  return results;
}

std::vector<GemmResult> GemmProgram::RunThroughHost(uint64_t watchdog_cycles) {
  std::vector<GemmResult> results(entries_.size());
  // The activated results that feed a GEMM: bf16, or int8 (the int8 mode).
  std::vector<Bf16Matrix> activations(entries_.size());
  std::vector<Int8Matrix> activations_int8(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    GemmRequest request = e.request;
    if (e.producer >= 0 && e.spec.int8) {
      request.a_int8 = &activations_int8[static_cast<size_t>(e.producer)];
    } else if (e.producer >= 0) {
      request.a = &activations[static_cast<size_t>(e.producer)];
    }
    const bool returned = e.returned || !e.feeds_next;
    GemmProgram program(device_, config_);
    if (returned) program.Add(request);
    // The next layer's input: this result after its bias and ReLU, rounded to bf16 by the
    // activation unit (int8: requantized, the request's own output), as the chained GEMM would
    // have found it in the unified buffer.
    const OutputType activated = e.spec.int8 ? OutputType::kInt8 : OutputType::kBf16;
    const bool extra = e.feeds_next && !(returned && request.output == activated);
    if (extra) {
      GemmRequest next_input = request;
      next_input.output = activated;
      program.Add(next_input);
    }
    std::vector<GemmResult> ran = program.Run(watchdog_cycles);
    if (e.feeds_next && e.spec.int8) {
      activations_int8[i] = ran.back().c_int8;
    } else if (e.feeds_next) {
      activations[i] = ran.back().c_bf16;
    }
    results[i] = std::move(ran.front());
    if (!returned) {
      results[i].c = Fp32Matrix();
      results[i].c_bf16 = Bf16Matrix();
      results[i].c_int8 = Int8Matrix();
    }
  }
  return results;
}

std::vector<GemmResult> GemmBatch(Device& device, const DeviceConfig& config,
                                  const std::vector<GemmRequest>& requests,
                                  uint64_t watchdog_cycles) {
  if (requests.empty()) throw std::invalid_argument("a GEMM batch needs a GEMM");
  // Every element is checked before anything is written or run.
  std::vector<GemmSpec> specs;
  for (size_t i = 0; i < requests.size(); ++i) {
    try {
      specs.push_back(CheckedSpec(requests[i]));

    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("batch element " + std::to_string(i) + ": " + e.what());
    }
  }
  HostArena arena(0x100000, device.memory_size());
  std::vector<GemmAddresses> addrs;
  for (size_t i = 0; i < requests.size(); ++i) {
    addrs.push_back(WriteOperands(device, config, arena, requests[i], specs[i], false, false));
  }
  // The results back to back (4-byte aligned, as fp32 and int32 stores need), so that the
  // planner can store consecutive small results with one STORE.
  uint64_t out_bytes = 0;
  for (const GemmSpec& s : specs) out_bytes += (OutputBytes(config, s) + 3) & ~uint64_t{3};
  uint64_t at = arena.Allocate(out_bytes);
  for (size_t i = 0; i < requests.size(); ++i) {
    addrs[i].c = at;
    at += (OutputBytes(config, specs[i]) + 3) & ~uint64_t{3};
  }
  GemmBatchPlan batch = PlanGemmBatch(config, specs, addrs);
  const uint64_t program_addr = arena.Allocate(batch.program.size() * isa::kInstructionBytes);
  RunStats stats;
  try {
    stats = ProgramRunner(device, watchdog_cycles).Run(batch.program, program_addr);
  } catch (const DeviceError& e) {
    // The failing instruction's GEMM (a watchdog names none: the whole program ran out of time).
    const uint32_t pc = device.ReadCsr(csr::kErrorPc);
    const std::string what = e.what();
    if (what.rfind("device error", 0) == 0 && pc < batch.owners.size() && batch.owners[pc] >= 0) {
      throw DeviceError("batch element " + std::to_string(batch.owners[pc]) + ": " + what);
    }
    throw;
  }
  stats.accesses = CountBufferAccesses(batch.program, config.rows, config.bus_bytes);
  uint64_t all_macs = 0;
  for (const GemmSpec& s : specs) all_macs += uint64_t(s.m) * s.k * s.n;
  std::vector<GemmResult> results(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    GemmPlan& plan = batch.gemms[i];
    SetStats(stats, plan, specs[i], config, all_macs, results[i]);
    // A plan of its own has a program; the batch's share of it is not counted per element.
    results[i].instructions = batch.program.size();
    ReadResult(device, plan, specs[i], addrs[i].c, results[i]);
  }
  return results;
}

GemmResult Gemm(Device& device, const DeviceConfig& config, const GemmRequest& request,
                uint64_t watchdog_cycles) {
  GemmProgram program(device, config);
  program.Add(request);
  return std::move(program.Run(watchdog_cycles)[0]);
}

}  // namespace mxu::driver
