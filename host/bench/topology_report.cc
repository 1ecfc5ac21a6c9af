#include "host/bench/topology_report.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace mxu::host {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kCounters[] = {"dma_read_bytes",   "dma_write_bytes", "stall_dependency",
                                     "stall_weights",    "stall_fetch",     "stall_memory",
                                     "array_busy_cycles"};

double Utilization(uint64_t macs, uint64_t pes, uint64_t cycles) {
  return pes && cycles ? double(macs) / (double(pes) * double(cycles)) : 0.0;
}

uint64_t Pes(const Json& row) {
  return row["array_rows"].get<uint64_t>() * row["array_cols"].get<uint64_t>();
}

}  // namespace

Json TopologyLayersJson(const Topology& topology, const Json& rows) {
  Json layers = Json::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    const Json& r = rows[i];
    const TopologyLayer& layer = topology.layers[i % topology.layers.size()];
    Json l;
    l["name"] = layer.name;
    l["line"] = layer.line;
    if (topology.conv) {
      l["ifmap_h"] = layer.ifmap_h;
      l["ifmap_w"] = layer.ifmap_w;
      l["filter_h"] = layer.filter_h;
      l["filter_w"] = layer.filter_w;
      l["channels"] = layer.channels;
      l["filters"] = layer.filters;
      l["stride"] = layer.stride;
    }
    l["m"] = layer.m;
    l["k"] = layer.k;
    l["n"] = layer.n;
    l["macs"] = layer.macs();
    if (r.contains("device_spec")) l["device_spec"] = r["device_spec"];
    l["setting"] = r["setting"];
    l["cycles"] = r["cycles"];
    l["utilization"] = Utilization(layer.macs(), Pes(r), r["cycles"].get<uint64_t>());
    for (const char* counter : kCounters) l[counter] = r[counter];
    layers.push_back(l);
  }
  return layers;
}

Json NetworkTotals(const Json& rows) {
  uint64_t macs = 0, cycles = 0, ideal = 0;
  Json t;
  t["layers"] = rows.size();
  for (const char* counter : kCounters) t[counter] = uint64_t{0};
  for (const Json& r : rows) {
    macs += r["macs"].get<uint64_t>();
    cycles += r["cycles"].get<uint64_t>();
    ideal += r["ideal_cycles"].get<uint64_t>();
    for (const char* counter : kCounters) {
      t[counter] = t[counter].get<uint64_t>() + r[counter].get<uint64_t>();
    }
  }
  t["macs"] = macs;
  t["cycles"] = cycles;
  t["ideal_cycles"] = ideal;
  t["utilization"] = rows.empty() ? 0.0 : Utilization(macs, Pes(rows[0]), cycles);
  return t;
}

void PrintNetwork(const Topology& topology, const Json& t) {
  const uint64_t read = t["dma_read_bytes"], write = t["dma_write_bytes"];
  std::printf(
      "network %s (%zu %s layers): %llu MACs, %llu cycles, utilization %.1f%%, DMA read %llu "
      "bytes, written %llu; stalls: dependency %llu, weights %llu, fetch %llu, memory %llu\n",
      topology.path.c_str(), topology.layers.size(), topology.conv ? "convolution" : "GEMM",
      (unsigned long long)t["macs"].get<uint64_t>(),
      (unsigned long long)t["cycles"].get<uint64_t>(), 100 * t["utilization"].get<double>(),
      (unsigned long long)read, (unsigned long long)write,
      (unsigned long long)t["stall_dependency"].get<uint64_t>(),
      (unsigned long long)t["stall_weights"].get<uint64_t>(),
      (unsigned long long)t["stall_fetch"].get<uint64_t>(),
      (unsigned long long)t["stall_memory"].get<uint64_t>());
  std::fflush(stdout);
}

}  // namespace mxu::host
