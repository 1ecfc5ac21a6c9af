// The simulated chips' ring interconnect from Python (train/interconnect.h, the model `mxu train`
// charges its all-reduces with): mxu.ring_all_reduce_cycles and mxu.ring_all_gather_cycles, so
// that the frameworks' replicas charge their gradient sums on the same ring.
#include <cstdint>

#include "python/arguments.h"
#include "train/interconnect.h"

namespace mxu::python {
namespace {

constexpr uint64_t kMaxBytes = uint64_t{1} << 50;
constexpr uint64_t kMaxChips = 1 << 16;

// A ring from Python's keywords, each checked (a link moves at least a byte a cycle).
train::RingInterconnect Ring(long long link_bytes_per_cycle, long long link_latency_cycles) {
  train::RingInterconnect ring;
  ring.link_bytes_per_cycle =
      CheckedRange("link_bytes_per_cycle", link_bytes_per_cycle, 1, uint64_t{1} << 30);
  ring.link_latency_cycles =
      CheckedRange("link_latency_cycles", link_latency_cycles, 0, uint64_t{1} << 40);
  return ring;
}

}  // namespace

void RegisterInterconnect(py::module_& m) {
  const train::RingInterconnect defaults;
  m.def(
      "ring_all_reduce_cycles",
      [](long long bytes, long long chips, long long link_bytes_per_cycle,
         long long link_latency_cycles) {
        return Ring(link_bytes_per_cycle, link_latency_cycles)
            .AllReduceCycles(CheckedRange("bytes", bytes, 0, kMaxBytes),
                             static_cast<int>(CheckedRange("chips", chips, 1, kMaxChips)));
      },
      py::arg("bytes"), py::arg("chips"), py::kw_only(),
      py::arg("link_bytes_per_cycle") = defaults.link_bytes_per_cycle,
      py::arg("link_latency_cycles") = defaults.link_latency_cycles,
      "Device cycles of a ring all-reduce of `bytes` over `chips` chips: 2 (N - 1) steps of "
      "latency + ceil(bytes / N / link_bytes_per_cycle) (0 for one chip). The defaults are "
      "`mxu train`'s links (TPU v2's inter-chip links; docs/training.md, \"Several chips: data "
      "parallelism with MPI\").");
  m.def(
      "ring_all_gather_cycles",
      [](long long bytes, long long chips, long long link_bytes_per_cycle,
         long long link_latency_cycles) {
        return Ring(link_bytes_per_cycle, link_latency_cycles)
            .AllGatherCycles(CheckedRange("bytes", bytes, 0, kMaxBytes),
                             static_cast<int>(CheckedRange("chips", chips, 1, kMaxChips)));
      },
      py::arg("bytes"), py::arg("chips"), py::kw_only(),
      py::arg("link_bytes_per_cycle") = defaults.link_bytes_per_cycle,
      py::arg("link_latency_cycles") = defaults.link_latency_cycles,
      "Device cycles of a ring all-gather of `bytes` (each chip starting with about bytes / "
      "chips): the all-reduce's second half, N - 1 steps.");
}

}  // namespace mxu::python
