#include "host/train/training_engine.h"

#include <utility>

namespace mxu::host {

TrainingEngine OpenTrainingEngine(const DeviceOptions& options) {
  TrainingEngine t;
  if (options.backend == "host") {
    t.engine = std::make_unique<train::HostMatmulEngine>();
    t.description = t.numerics = "host fp32";
    return t;
  }
  t.device = OpenDevice(options);
  auto engine = std::make_unique<train::DeviceMatmulEngine>(*t.device, options.watchdog_cycles);
  const driver::DeviceConfig& c = engine->config();
  const std::string shape = std::to_string(c.rows) + "x" + std::to_string(c.cols);
  t.description =
      std::string(t.device->name()) + " (" + shape + " array, bf16 operands, fp32 accumulation)";
  t.numerics = "bf16 x bf16 -> fp32 on a " + shape + " array, subnormals " + ToString(c.subnormals);
  t.engine = std::move(engine);
  return t;
}

}  // namespace mxu::host
