#include "host/bench/rtl_sample.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace mxu::host {

using Json = nlohmann::ordered_json;

std::vector<size_t> RtlSampleIndices(size_t count, size_t n) {
  std::vector<size_t> indices;
  n = std::min(n, count);
  for (size_t i = 0; i < n; ++i) indices.push_back((2 * i + 1) * count / (2 * n));
  return indices;
}

Json RtlSampleReport(const Json& model_rows, const std::vector<size_t>& indices,
                     const Json& rtl_rows) {
  if (rtl_rows.size() != indices.size()) {
    throw std::invalid_argument("RtlSampleReport: one RTL row per sampled GEMM");
  }
  Json report;
  report["gemms"] = Json::array();
  uint64_t model_sum = 0, rtl_sum = 0;
  double largest = 0;
  for (size_t s = 0; s < indices.size(); ++s) {
    const Json& model = model_rows.at(indices[s]);
    const uint64_t model_cycles = model["cycles"].get<uint64_t>();
    const uint64_t rtl_cycles = rtl_rows[s]["cycles"].get<uint64_t>();
    const double difference =
        rtl_cycles ? (double(model_cycles) - double(rtl_cycles)) / double(rtl_cycles) : 0.0;
    largest = std::max(largest, std::fabs(difference));
    model_sum += model_cycles;
    rtl_sum += rtl_cycles;
    Json g;
    g["index"] = indices[s];
    g["name"] = model["name"];
    g["shape"] = model["shape"];
    g["model_cycles"] = model_cycles;
    g["rtl_cycles"] = rtl_cycles;
    g["difference"] = difference;
    report["gemms"].push_back(g);
  }
  report["model_cycles"] = model_sum;
  report["rtl_cycles"] = rtl_sum;
  report["difference"] = rtl_sum ? (double(model_sum) - double(rtl_sum)) / double(rtl_sum) : 0.0;
  report["largest_difference"] = largest;
  return report;
}

void PrintRtlSample(const Json& report) {
  std::printf("\nRTL sample: %zu GEMMs, the model backend's cycles against the RTL's\n",
              report["gemms"].size());
  // Every name whole: the column is as wide as the longest.
  int width = 4;
  for (const Json& g : report["gemms"]) {
    width = std::max(width, static_cast<int>(g["name"].get<std::string>().size()));
  }
  std::printf("%-*s %-20s %12s %12s %10s\n", width, "gemm", "M x K x N", "model", "rtl",
              "model-rtl");
  for (const Json& g : report["gemms"]) {
    std::printf("%-*s %-20s %12llu %12llu %+9.3f%%\n", width, g["name"].get<std::string>().c_str(),
                g["shape"].get<std::string>().c_str(),
                (unsigned long long)g["model_cycles"].get<uint64_t>(),
                (unsigned long long)g["rtl_cycles"].get<uint64_t>(),
                100 * g["difference"].get<double>());
  }
  std::printf("%-*s %-20s %12llu %12llu %+9.3f%%  (largest |difference| %.3f%%)\n", width, "all",
              "", (unsigned long long)report["model_cycles"].get<uint64_t>(),
              (unsigned long long)report["rtl_cycles"].get<uint64_t>(),
              100 * report["difference"].get<double>(),
              100 * report["largest_difference"].get<double>());
}

}  // namespace mxu::host
