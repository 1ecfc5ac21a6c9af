#include "host/gemm/gemm_result.h"

#include <cstdint>
#include <cstdio>
#include <vector>

#include "common/csr_map.h"
#include "driver/golden_request.h"
#include "golden/numerics.h"
#include "host/gemm/int8_operands.h"

namespace mxu::host {

GoldenCheck CheckWithGolden(const driver::GemmRequest& request, const driver::GemmResult& result,
                            const driver::DeviceConfig& config, const std::string& label) {
  GoldenCheck check;
  if (request.a_int8) {
    const Int8Check int8 = CheckInt8(request, result);
    check.compared = int8.compared;
    check.mismatches = int8.mismatches;
    return check;
  }
  const std::vector<uint32_t> want =
      driver::GoldenBits(request, static_cast<int>(config.rows), config.subnormals);
  const int cols = request.trans_b ? request.b->rows : request.b->cols;
  for (size_t i = 0; i < want.size(); ++i) {
    const int r = static_cast<int>(i / cols), c = static_cast<int>(i % cols);
    const uint32_t got_bits = request.output == driver::OutputType::kBf16
                                  ? result.c_bf16.at(r, c)
                                  : golden::FloatBits(result.c.at(r, c));
    ++check.compared;
    if (got_bits != want[i] && ++check.mismatches <= 5) {
      std::fprintf(stderr, "%smismatch C[%d][%d]: device 0x%08x, golden 0x%08x\n", label.c_str(), r,
                   c, got_bits, want[i]);
    }
  }
  return check;
}

double SimCyclesPerSecond(const driver::RunStats& stats) {
  const uint64_t cycles = stats.counter(csr::Counter::kCycles);
  return stats.wall_seconds > 0 ? cycles / stats.wall_seconds : 0.0;
}

void AddRunCounters(const driver::GemmResult& result, nlohmann::ordered_json* json) {
  nlohmann::ordered_json& j = *json;
  const driver::RunStats& s = result.stats;
  j["array_busy_cycles"] = s.counter(csr::Counter::kArrayBusy);
  j["device_macs"] = s.counter(csr::Counter::kMacs);
  j["dma_read_bytes"] = s.counter(csr::Counter::kDmaReadBytes);
  j["dma_write_bytes"] = s.counter(csr::Counter::kDmaWriteBytes);
  j["instructions"] = result.instructions;
  j["stall_dependency"] = s.counter(csr::Counter::kStallDependency);
  j["stall_weights"] = s.counter(csr::Counter::kStallWeights);
  j["stall_fetch"] = s.counter(csr::Counter::kStallFetch);
  j["stall_memory"] = s.counter(csr::Counter::kStallMemory);
  j["column_clocks"] = s.counter(csr::Counter::kColumnClocks);
  j["acc_clocks"] = s.counter(csr::Counter::kAccClocks);
  j["activate_clocks"] = s.counter(csr::Counter::kActivateClocks);
  j["dma_clocks"] = s.counter(csr::Counter::kDmaClocks);
  const driver::BufferAccesses& a = s.accesses;
  j["buffer_accesses"] = {{"ub_reads", a.ub_reads},
                          {"ub_writes", a.ub_writes},
                          {"acc_reads", a.acc_reads},
                          {"acc_writes", a.acc_writes},
                          {"wfifo_reads", a.wfifo_reads},
                          {"wfifo_writes", a.wfifo_writes},
                          {"transpose_reads", a.transpose_reads},
                          {"transpose_writes", a.transpose_writes}};
  j["wall_seconds"] = s.wall_seconds;
  j["sim_cycles_per_second"] = SimCyclesPerSecond(s);
}

}  // namespace mxu::host
