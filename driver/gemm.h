// The GEMM op: C = op(A) x op(B) (+ bias | + C0) (ReLU), any shape: bf16 operands with fp32 or
// bf16 output, or int8 operands (the int8 mode) with int32 or requantized int8 output. Copies
// the operands into device-visible host memory, plans the tiling for the device's configuration,
// runs the program and copies the result back, with the run's statistics.
//
// GemmProgram runs several GEMMs as one program (one doorbell, one program fetch; each GEMM's
// first loads overlap the last stores of the one before), and lets a GEMM take its A from an
// earlier GEMM's result kept in the unified buffer as bf16 (the TPU way: a layer's activations
// feed the next layer without a trip through host memory).
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
  // The int8 mode, instead of a and b (one type for both): int8 operands, an int32 bias or C0,
  // output kInt32 or kInt8. kInt8 requantizes each column n with quant[n] (multiplier << 8 |
  // shift: golden::QuantizeMultiplier) and zero_point; ReLU then clamps at the zero point.
  const Int8Matrix* a_int8 = nullptr;
  const Int8Matrix* b_int8 = nullptr;
  const std::vector<int32_t>* bias_int32 = nullptr;
  const Int32Matrix* c0_int32 = nullptr;
  const std::vector<uint32_t>* quant = nullptr;
  int zero_point = 0;
};

struct GemmResult {
  Fp32Matrix c;           // fp32 output
  Bf16Matrix c_bf16;      // bf16 output
  Int32Matrix c_int32;    // int32 output
  Int8Matrix c_int8;      // int8 output
  RunStats stats;         // of the whole program (shared by the GEMMs of a GemmProgram)
  GemmBlocking blocking;  // what the planner chose
  size_t instructions = 0;
  uint64_t ideal_cycles = 0;  // M * K * N / (rows * cols), rounded up
  double utilization = 0;     // MACs of the GEMM / (device cycles * rows * cols)
};

// The request's shapes and options checked as Gemm checks them before anything runs (for a
// caller that computes without the device, such as the golden model from Python): its spec, or
// std::invalid_argument with the one-line reason (e.g. "op(A) is 4x5 but op(B) is 6x4: inner
// dimensions differ").
GemmSpec CheckGemmRequest(const GemmRequest& request);

// Throws std::invalid_argument for mismatched or empty shapes, DeviceError for device errors and
// watchdog expiry.
GemmResult Gemm(Device& device, const DeviceConfig& config, const GemmRequest& request,
                uint64_t watchdog_cycles);

// Independent GEMMs (a batch: same or different shapes, each with its own options) as one
// program, planned as one stream (PlanGemmBatch): GEMM i + 1's loads overlap GEMM i's compute and
// drain. Results are bit-identical to the same GEMMs run one by one; each result's stats are the
// program's, its utilization the program's (all MACs over all cycles). Throws
// std::invalid_argument naming the element ("batch element i: ...") before anything runs, and a
// DeviceError naming the element whose instruction failed.
std::vector<GemmResult> GemmBatch(Device& device, const DeviceConfig& config,
                                  const std::vector<GemmRequest>& requests,
                                  uint64_t watchdog_cycles);

class GemmProgram {
 public:
  GemmProgram(Device& device, const DeviceConfig& config);

  // Adds a GEMM on host operands (as Gemm). Returns its index. Throws std::invalid_argument for
  // a bad request.
  size_t Add(const GemmRequest& request);
  // Adds a GEMM whose A is the result of GEMM `producer` (after its bias and ReLU, rounded to
  // bf16, as ACTIVATE does; int8: requantized, the producer's output being kInt8), kept in the
  // unified buffer; request.a (a_int8) must be null and trans_a false. On a square array a result
  // tile's columns are a K tile of the next layer, and the result stays on chip; on a non-square
  // one Run() re-tiles it through host memory instead.
  size_t AddChained(size_t producer, const GemmRequest& request);
  // Whether GEMM i's result is copied to host memory and returned (default: yes). A result that
  // only feeds the next layer need not leave the chip.
  void SetReturned(size_t i, bool returned);

  // Runs every GEMM added as one program. Each result's stats are the program's; its utilization
  // is the program's (all MACs over all cycles). On a non-square array with chained GEMMs, each
  // GEMM is its own program instead (RunThroughHost), and its stats are that program's.
  std::vector<GemmResult> Run(uint64_t watchdog_cycles);

 private:
  // Chained GEMMs on a non-square array: an activated result tile is Cols lanes wide and a K tile
  // Rows, so a result cannot feed the next layer from the unified buffer. Each GEMM runs as its
  // own program; a result that feeds another is also produced as bf16 (bias, ReLU and rounding by
  // the activation unit, as on chip), read back and given to the next as its A.
  std::vector<GemmResult> RunThroughHost(uint64_t watchdog_cycles);

  struct Entry {
    GemmRequest request;
    GemmSpec spec;
    int producer = -1;  // A is this GEMM's resident result
    bool returned = true;
    bool feeds_next = false;  // its result stays in the unified buffer
  };
  Device& device_;
  DeviceConfig config_;
  std::vector<Entry> entries_;
};

}  // namespace mxu::driver

#endif  // MXU_DRIVER_GEMM_H_
