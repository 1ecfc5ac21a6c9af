// A network's layers from a SCALE-Sim topology file (CSV), each as the GEMM it runs as. Both of
// SCALE-Sim's formats, told apart by the header:
//   convolution: Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels,
//                Num Filter, Strides
//     (the input already padded; output (I - F) / S + 1 each way; im2col: M = output height x
//     width, K = filter height x width x channels, N = filters);
//   GEMM:        Layer, M, N, K
// Columns after these (SCALE-Sim writes a trailing comma; later versions add more) are ignored.
// The whole file is checked before anything runs: the first problem throws UsageError with one
// line naming the file, the line and the field.
#ifndef MXU_HOST_BENCH_TOPOLOGY_H_
#define MXU_HOST_BENCH_TOPOLOGY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "driver/gemm_limits.h"

namespace mxu::host {

// The largest GEMM the bench runs, as for `mxu bench --shape` (driver/gemm_limits.h).
inline constexpr uint64_t kMaxGemmDimension = driver::kMaxDimension;
inline constexpr uint64_t kMaxGemmBytes = driver::kMaxProblemBytes;
// Any one number of a topology file: larger is surely a mistake (and keeps products in 64 bits).
inline constexpr uint64_t kMaxTopologyValue = uint64_t{1} << 20;
// A topology file's size: ResNet-50's is 2 KB; a larger file is surely not one.
inline constexpr uint64_t kMaxTopologyBytes = uint64_t{16} << 20;

struct TopologyLayer {
  std::string name;
  int line = 0;  // in the file, from 1
  uint64_t m = 0, k = 0, n = 0;
  // Convolution layers only: the file's numbers (zero for GEMM layers).
  uint64_t ifmap_h = 0, ifmap_w = 0, filter_h = 0, filter_w = 0, channels = 0, filters = 0,
           stride = 0;
  uint64_t macs() const { return m * k * n; }
};

struct Topology {
  std::string path;
  bool conv = false;  // the convolution format (else GEMM)
  std::vector<TopologyLayer> layers;
};

// Parses text as the contents of the file `path` (named in messages).
Topology ParseTopology(const std::string& path, const std::string& text);
// Reads and parses the file; a file that cannot be read is a UsageError too.
Topology ReadTopology(const std::string& path);

}  // namespace mxu::host

#endif  // MXU_HOST_BENCH_TOPOLOGY_H_
