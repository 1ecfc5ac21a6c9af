// The GEMM engine of `mxu train` and `mxu predict`: the device the options name, through the
// driver (bf16 operands, fp32 accumulation), or with --backend host plain fp32 on the host.
#ifndef MXU_HOST_TRAIN_TRAINING_ENGINE_H_
#define MXU_HOST_TRAIN_TRAINING_ENGINE_H_

#include <memory>
#include <string>

#include "driver/device.h"
#include "host/cli/device_options.h"
#include "train/matmul_engine.h"

namespace mxu::host {

struct TrainingEngine {
  std::unique_ptr<driver::Device> device;  // null for the host engine
  std::unique_ptr<train::MatmulEngine> engine;
  // "rtl (16x16 array, bf16 operands, fp32 accumulation)" or "host fp32", for the log.
  std::string description;
  // The arithmetic, which decides the results' bits: "host fp32", or the array's shape and
  // subnormal mode ("bf16 x bf16 -> fp32 on a 16x16 array, subnormals ieee"). A checkpoint
  // records it; a resumed run must match it.
  std::string numerics;
};

// Throws UsageError for a backend that is not available (OpenDevice).
TrainingEngine OpenTrainingEngine(const DeviceOptions& options);

}  // namespace mxu::host

#endif  // MXU_HOST_TRAIN_TRAINING_ENGINE_H_
