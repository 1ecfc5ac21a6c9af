#include "train/interconnect.h"

#include <stdexcept>

namespace mxu::train {

uint64_t RingInterconnect::AllReduceCycles(uint64_t bytes, int chips) const {
  return 2 * AllGatherCycles(bytes, chips);
}

uint64_t RingInterconnect::AllGatherCycles(uint64_t bytes, int chips) const {
  if (chips < 1) throw std::invalid_argument("a ring needs at least one chip");
  if (link_bytes_per_cycle == 0)
    throw std::invalid_argument("a link moves at least a byte a cycle");
  if (chips == 1) return 0;
  const uint64_t n = static_cast<uint64_t>(chips);
  const uint64_t chunk = (bytes + n - 1) / n;
  const uint64_t transfer = (chunk + link_bytes_per_cycle - 1) / link_bytes_per_cycle;
  return (n - 1) * (link_latency_cycles + transfer);
}

}  // namespace mxu::train
