// Where the training loop's GEMMs run. The loop states each product as C = op(A) x op(B)
// (+ bias) (ReLU) on fp32 host matrices; an engine decides the arithmetic:
// - DeviceMatmulEngine: the matrix unit through the driver. Operands are rounded to bf16 on the
//   way in (the mixed-precision cast), products accumulate in fp32 on the device, transposes are
//   done by the device's DMA, bias and ReLU by its accumulator start and store path.
// - HostMatmulEngine: plain fp32 on the host CPU, the reference run (`--backend host`).
#ifndef MXU_TRAIN_MATMUL_ENGINE_H_
#define MXU_TRAIN_MATMUL_ENGINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "driver/device.h"
#include "driver/device_config.h"
#include "driver/matrix.h"

namespace mxu::train {

using driver::Fp32Matrix;

struct MatmulOp {
  const Fp32Matrix* a = nullptr;  // stored M x K, or K x M with trans_a
  const Fp32Matrix* b = nullptr;  // stored K x N, or N x K with trans_b
  bool trans_a = false;
  bool trans_b = false;
  const std::vector<float>* bias = nullptr;  // N values added to every row
  // M x N, the accumulators' start instead of a bias: C = C0 + op(A) x op(B), the instruction
  // set's accumulate form. The products add to C0 in the order they add to zero without it, so
  // a sum over K split at a multiple of the array's rows is the sum over the whole K, bit for bit.
  const Fp32Matrix* c0 = nullptr;
  bool relu = false;
  // A program's op may take A from an earlier op of the same program: the result of
  // ops[chain_from] (after its bias and ReLU), with `a` null. The device engine keeps that
  // result in the unified buffer as bf16, which is what the cast of the fp32 result gives.
  int chain_from = -1;
  // What the product is in the model ("layer 1 forward", "layer 2 dW"): the device engine names
  // its programs after it and the shape, e.g. "layer 1 forward 64x2x32" (M x K x N), in the
  // instruction timeline.
  std::string label;
};

// A product's shape: op(A) is m x k, op(B) k x n.
struct MatmulShape {
  int m, k, n;
};

// What the engine's GEMMs cost, summed over its life.
struct EngineStats {
  uint64_t gemms = 0;
  uint64_t macs = 0;           // M*K*N of the products asked for
  uint64_t device_cycles = 0;  // device engine only
  uint64_t array_busy_cycles = 0;
  double device_wall_seconds = 0;
  // Bytes over the memory port (device engine; not kept in checkpoints: `mxu predict` reports it).
  uint64_t dma_read_bytes = 0, dma_write_bytes = 0;
};

class MatmulEngine {
 public:
  virtual ~MatmulEngine() = default;
  virtual Fp32Matrix Run(const MatmulOp& op) = 0;
  // Several products at once, results in order. The default runs them one by one; the device
  // engine runs them as one device program (one doorbell, chained results kept on chip).
  virtual std::vector<Fp32Matrix> RunProgram(const std::vector<MatmulOp>& ops);
  virtual const char* name() const = 0;
  const EngineStats& stats() const { return stats_; }
  // A resumed run continues its statistics from the checkpoint's.
  void set_stats(const EngineStats& stats) { stats_ = stats; }

 protected:
  EngineStats stats_;
};

class HostMatmulEngine : public MatmulEngine {
 public:
  Fp32Matrix Run(const MatmulOp& op) override;
  const char* name() const override { return "host"; }
};

// Runs products of any height: a program whose products are taller than the driver's limit
// (65535 rows) or whose chained results would crowd the unified buffer runs in row chunks (rows
// are independent: the results are bit-identical), so no caller meets those limits.
class DeviceMatmulEngine : public MatmulEngine {
 public:
  static constexpr int kMaxRows = 65535;

  DeviceMatmulEngine(driver::Device& device, uint64_t watchdog_cycles);
  Fp32Matrix Run(const MatmulOp& op) override;
  std::vector<Fp32Matrix> RunProgram(const std::vector<MatmulOp>& ops) override;
  const char* name() const override { return device_.name(); }
  const driver::DeviceConfig& config() const { return config_; }

 private:
  // ops (of shapes dims, already counted in the stats) as one or more device programs.
  std::vector<Fp32Matrix> RunChunked(const std::vector<MatmulOp>& ops,
                                     const std::vector<MatmulShape>& dims, bool chained);
  // One device program for all of ops (no splitting).
  std::vector<Fp32Matrix> RunWhole(const std::vector<MatmulOp>& ops);

  driver::Device& device_;
  driver::DeviceConfig config_;
  uint64_t watchdog_cycles_;
};

}  // namespace mxu::train

#endif  // MXU_TRAIN_MATMUL_ENGINE_H_
