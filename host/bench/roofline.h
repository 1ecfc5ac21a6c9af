// `mxu bench --roofline FILE.png`: the TPU paper's roofline of the bench's rows. Per row (a
// layer or shape), operational intensity = MACs / bytes that crossed the memory port (the DMA's
// read and write byte counters) against the MACs per cycle it achieved; per device and memory
// setting, the compute roof (rows x cols MACs a cycle) and the memory roof (the port's bytes per
// cycle x intensity; the port is the narrower of the device's bus and the host memory).
#ifndef MXU_HOST_BENCH_ROOFLINE_H_
#define MXU_HOST_BENCH_ROOFLINE_H_

#include <nlohmann/json.hpp>
#include <string>

namespace mxu::host {

// rows: the bench's, each with macs, cycles, dma_read_bytes, dma_write_bytes, array_rows,
// array_cols, bus_bytes, bytes_per_cycle, setting and (in a sweep) point and device_spec.
void WriteRoofline(const std::string& path, const nlohmann::ordered_json& rows,
                   const std::string& title);

}  // namespace mxu::host

#endif  // MXU_HOST_BENCH_ROOFLINE_H_
