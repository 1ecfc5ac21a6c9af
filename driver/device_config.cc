#include "driver/device_config.h"

#include <cstdio>

#include "common/csr_map.h"

namespace mxu::driver {

DeviceConfig ReadDeviceConfig(Device& device) {
  const uint32_t id = device.ReadCsr(csr::kId);
  if (id != csr::kDeviceId) {
    char message[96];
    std::snprintf(message, sizeof message, "no MXU device: ID register reads 0x%08x", id);
    throw DeviceError(message);
  }
  DeviceConfig config;
  config.version = device.ReadCsr(csr::kVersion);
  const uint32_t array = device.ReadCsr(csr::kArray);
  config.rows = csr::ArrayRows(array);
  config.cols = csr::ArrayCols(array);
  config.ub_depth = device.ReadCsr(csr::kUbDepth);
  config.acc_depth = device.ReadCsr(csr::kAccDepth);
  config.weight_fifo_depth = device.ReadCsr(csr::kWfifoDepth);
  const uint32_t features = device.ReadCsr(csr::kFeatures);
  config.ub_lanes = csr::FeaturesUbLanes(features);
  config.bus_bytes = 1u << csr::FeaturesBusLog2(features);
  config.max_in_flight = csr::FeaturesMaxInFlight(features);
  config.subnormals =
      csr::FeaturesFlushSubnormals(features) ? Subnormals::kFlush : Subnormals::kIeee;
  const uint32_t pipeline = device.ReadCsr(csr::kPipeline);
  config.pe_stages = csr::PipelinePeStages(pipeline);
  config.pe_mul_cycles = csr::PipelineMulCycles(pipeline);
  config.pe_add_cycles = csr::PipelineAddCycles(pipeline);
  return config;
}

}  // namespace mxu::driver
