// The GEMM op: C = op(A) x op(B) (+ bias | + C0) (ReLU), fp32 or bf16 output, any shape. Copies
// the operands into device-visible host memory, plans the tiling for the device's configuration,
// runs the program and copies the result back, with the run's statistics.
#ifndef MXU_DRIVER_GEMM_H_
#define MXU_DRIVER_GEMM_H_

#include <cstdint>
#include <vector>

#include "driver/device.h"
#include "driver/device_config.h"
#include "driver/gemm_plan.h"
#include "driver/matrix.h"
#include "driver/program_runner.h"

namespace mxu::driver {

struct GemmRequest {
  const Bf16Matrix* a = nullptr;  // stored layout: M x K, or K x M with trans_a
  const Bf16Matrix* b = nullptr;  // stored layout: K x N, or N x K with trans_b
  bool trans_a = false;
  bool trans_b = false;
  const std::vector<float>* bias = nullptr;  // N values, the accumulators' start
  const Fp32Matrix* c0 = nullptr;            // M x N, the accumulators' start (C += A x B)
  bool relu = false;
  OutputType output = OutputType::kFp32;
};

struct GemmResult {
  Fp32Matrix c;       // fp32 output
  Bf16Matrix c_bf16;  // bf16 output
  RunStats stats;
  GemmBlocking blocking;  // what the planner chose
  size_t instructions = 0;
  uint64_t ideal_cycles = 0;  // M * K * N / (rows * cols), rounded up
  double utilization = 0;     // MACs of the GEMM / (device cycles * rows * cols)
};

// Throws std::invalid_argument for mismatched or empty shapes, DeviceError for device errors and
// watchdog expiry.
GemmResult Gemm(Device& device, const DeviceConfig& config, const GemmRequest& request,
                uint64_t watchdog_cycles);

}  // namespace mxu::driver

#endif  // MXU_DRIVER_GEMM_H_
