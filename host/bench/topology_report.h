// What `mxu bench --topology` adds to the bench's output: per layer and for the network, from the
// bench's rows (JSON, as host/bench/bench_command.cc makes them: one per layer, in the file's
// order, for every device and memory setting run, each row with array_rows and array_cols).
#ifndef MXU_HOST_BENCH_TOPOLOGY_REPORT_H_
#define MXU_HOST_BENCH_TOPOLOGY_REPORT_H_

#include <nlohmann/json.hpp>

#include "host/bench/topology.h"

namespace mxu::host {

// The `layers` list: per row, the layer (name, line, the convolution's numbers), its GEMM (m, k,
// n, macs), cycles, utilization (MACs / (PEs x cycles)), DMA bytes and stall counters.
nlohmann::ordered_json TopologyLayersJson(const Topology& topology,
                                          const nlohmann::ordered_json& rows);

// The sums over rows: layers, macs, cycles, utilization (MACs / (PEs x cycles)), DMA bytes and
// stall cycles. Rows of one device (the PEs of the first row count).
nlohmann::ordered_json NetworkTotals(const nlohmann::ordered_json& rows);

// "network FILE (N conv layers): ..." with the totals, on stdout.
void PrintNetwork(const Topology& topology, const nlohmann::ordered_json& totals);

}  // namespace mxu::host

#endif  // MXU_HOST_BENCH_TOPOLOGY_REPORT_H_
