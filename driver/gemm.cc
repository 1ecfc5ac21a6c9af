#include "driver/gemm.h"

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

}  // namespace

GemmResult Gemm(Device& device, const DeviceConfig& config, const GemmRequest& request,
                uint64_t watchdog_cycles) {
  if (!request.a || !request.b) throw std::invalid_argument("GEMM needs both A and B");
  const Bf16Matrix& a = *request.a;
  const Bf16Matrix& b = *request.b;
  GemmSpec spec;
  spec.trans_a = request.trans_a;
  spec.trans_b = request.trans_b;
  spec.m = request.trans_a ? a.cols : a.rows;
  spec.k = request.trans_a ? a.rows : a.cols;
  const int k_b = request.trans_b ? b.cols : b.rows;
  spec.n = request.trans_b ? b.rows : b.cols;
  if (spec.k != k_b) {
    throw std::invalid_argument(Shape("op(A)", spec.m, spec.k) + " but " +
                                Shape("op(B)", k_b, spec.n) + ": inner dimensions differ");
  }
  spec.bias = request.bias != nullptr;
  spec.c0 = request.c0 != nullptr;
  spec.relu = request.relu;
  spec.output = request.output;
  if (request.bias && static_cast<int>(request.bias->size()) != spec.n) {
    throw std::invalid_argument("bias has " + std::to_string(request.bias->size()) +
                                " values, expected N = " + std::to_string(spec.n));
  }
  if (request.c0 && (request.c0->rows != spec.m || request.c0->cols != spec.n)) {
    throw std::invalid_argument(Shape("C0", request.c0->rows, request.c0->cols) + ", expected " +
                                std::to_string(spec.m) + "x" + std::to_string(spec.n));
  }
  if (static_cast<size_t>(a.rows) * a.cols != a.data.size() ||
      static_cast<size_t>(b.rows) * b.cols != b.data.size()) {
    throw std::invalid_argument("matrix data does not match its shape");
  }

  // Operands into host memory, in their stored layouts.
  HostArena arena(0x100000, device.memory_size());
  GemmAddresses addr;
  // Plain operands are packed tile by tile (a layout change, no arithmetic); transposed ones
  // stay as they are and the device transposes them on load.
  spec.packed = true;
  const std::vector<uint16_t> a_image =
      request.trans_a ? a.data : PackA(a.data, spec.m, spec.k, static_cast<int>(config.rows));
  const std::vector<uint16_t> b_image =
      request.trans_b ? b.data : PackB(b.data, spec.k, spec.n, static_cast<int>(config.cols));
  addr.a = arena.Allocate(a_image.size() * 2);
  device.WriteMemory(addr.a, a_image.data(), a_image.size() * 2);
  addr.b = arena.Allocate(b_image.size() * 2);
  device.WriteMemory(addr.b, b_image.data(), b_image.size() * 2);
  if (request.bias) {
    addr.bias = arena.Allocate(request.bias->size() * 4);
    device.WriteMemory(addr.bias, request.bias->data(), request.bias->size() * 4);
  }
  if (request.c0) {
    addr.c0 = arena.Allocate(request.c0->data.size() * 4);
    device.WriteMemory(addr.c0, request.c0->data.data(), request.c0->data.size() * 4);
  }
  const size_t outputs = static_cast<size_t>(spec.m) * spec.n;
  const size_t out_bytes = outputs * (spec.output == OutputType::kBf16 ? 2 : 4);
  addr.c = arena.Allocate(out_bytes);

  const GemmPlan plan = PlanGemm(config, spec, addr);
  const uint64_t program_addr = arena.Allocate(plan.program.size() * isa::kInstructionBytes);
  ProgramRunner runner(device, watchdog_cycles);

  GemmResult result;
  result.stats = runner.Run(plan.program, program_addr);
  result.blocking = plan.blocking;
  result.instructions = plan.program.size();
  const uint64_t macs = uint64_t(spec.m) * spec.k * spec.n;
  const uint64_t per_cycle = uint64_t(config.rows) * config.cols;
  result.ideal_cycles = (macs + per_cycle - 1) / per_cycle;
  const uint64_t cycles = result.stats.counter(csr::Counter::kCycles);
  result.utilization = cycles ? static_cast<double>(macs) / (double(cycles) * per_cycle) : 0;
  // The device stored C block by block (rows of a block packed): unpack into row-major C.
  const auto unpack = [&](auto& matrix) {
    using T = typename std::remove_reference_t<decltype(matrix.data)>::value_type;
    std::vector<T> packed(outputs);
    device.ReadMemory(addr.c, packed.data(), out_bytes);
    matrix = std::remove_reference_t<decltype(matrix)>(spec.m, spec.n);
    for (const OutputBlock& block : plan.outputs) {
      for (int i = 0; i < block.rows; ++i) {
        for (int j = 0; j < block.cols; ++j) {
          matrix.at(block.m0 + i, block.n0 + j) =
              packed[block.offset + uint64_t(i) * block.cols + j];
        }
      }
    }
  };
  if (spec.output == OutputType::kBf16) {
    unpack(result.c_bf16);
  } else {
    unpack(result.c);
  }
  return result;
}

}  // namespace mxu::driver
