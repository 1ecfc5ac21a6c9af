#include "host/train/matmul_engine.h"

#include <stdexcept>
#include <string>

#include "common/bf16.h"
#include "common/csr_map.h"
#include "driver/gemm.h"

namespace mxu::train {
namespace {

struct Dims {
  int m, k, n;
};

// The product's shape; the same checks for both engines so a shape bug fails alike on both.
Dims CheckShapes(const MatmulOp& op) {
  if (!op.a || !op.b) throw std::invalid_argument("matmul needs both operands");
  const Dims d{op.trans_a ? op.a->cols : op.a->rows, op.trans_a ? op.a->rows : op.a->cols,
               op.trans_b ? op.b->rows : op.b->cols};
  const int k_b = op.trans_b ? op.b->cols : op.b->rows;
  if (d.k != k_b || d.m <= 0 || d.n <= 0 || d.k <= 0) {
    throw std::invalid_argument("matmul shapes do not agree: op(A) is " + std::to_string(d.m) +
                                "x" + std::to_string(d.k) + ", op(B) is " + std::to_string(k_b) +
                                "x" + std::to_string(d.n));
  }
  if (op.bias && static_cast<int>(op.bias->size()) != d.n) {
    throw std::invalid_argument("bias has " + std::to_string(op.bias->size()) +
                                " values, expected " + std::to_string(d.n));
  }
  return d;
}

driver::Bf16Matrix ToBf16(const Fp32Matrix& m, Subnormals mode) {
  driver::Bf16Matrix out(m.rows, m.cols);
  for (size_t i = 0; i < m.data.size(); ++i) out.data[i] = FloatToBf16(m.data[i], mode);
  return out;
}

}  // namespace

Fp32Matrix HostMatmulEngine::Run(const MatmulOp& op) {
  const Dims d = CheckShapes(op);
  Fp32Matrix c(d.m, d.n);
  for (int i = 0; i < d.m; ++i) {
    float* row = &c.data[static_cast<size_t>(i) * d.n];
    if (op.bias) {
      for (int j = 0; j < d.n; ++j) row[j] = (*op.bias)[j];
    }
    for (int p = 0; p < d.k; ++p) {
      const float a = op.trans_a ? op.a->at(p, i) : op.a->at(i, p);
      for (int j = 0; j < d.n; ++j) row[j] += a * (op.trans_b ? op.b->at(j, p) : op.b->at(p, j));
    }
    if (op.relu) {
      for (int j = 0; j < d.n; ++j) row[j] = row[j] > 0.0f ? row[j] : 0.0f;
    }
  }
  ++stats_.gemms;
  stats_.macs += uint64_t(d.m) * d.k * d.n;
  return c;
}

DeviceMatmulEngine::DeviceMatmulEngine(driver::Device& device, uint64_t watchdog_cycles)
    : device_(device),
      config_(driver::ReadDeviceConfig(device)),
      watchdog_cycles_(watchdog_cycles) {}

Fp32Matrix DeviceMatmulEngine::Run(const MatmulOp& op) {
  const Dims d = CheckShapes(op);
  const driver::Bf16Matrix a = ToBf16(*op.a, config_.subnormals);
  const driver::Bf16Matrix b = ToBf16(*op.b, config_.subnormals);
  driver::GemmRequest request;
  request.a = &a;
  request.b = &b;
  request.trans_a = op.trans_a;
  request.trans_b = op.trans_b;
  request.bias = op.bias;
  request.relu = op.relu;
  request.output = driver::OutputType::kFp32;
  driver::GemmResult result = driver::Gemm(device_, config_, request, watchdog_cycles_);
  ++stats_.gemms;
  stats_.macs += uint64_t(d.m) * d.k * d.n;
  stats_.device_cycles += result.stats.counter(csr::Counter::kCycles);
  stats_.array_busy_cycles += result.stats.counter(csr::Counter::kArrayBusy);
  stats_.device_wall_seconds += result.stats.wall_seconds;
  return std::move(result.c);
}

}  // namespace mxu::train
