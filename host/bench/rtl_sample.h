// `mxu bench --rtl-sample N`: the model backend's cycles checked on real workloads. N of the run's
// GEMMs (a topology's layers), chosen evenly through the list, are run again on the RTL of the
// same built device under the same memory, and the two cycle counts compared per GEMM.
#ifndef MXU_HOST_BENCH_RTL_SAMPLE_H_
#define MXU_HOST_BENCH_RTL_SAMPLE_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

namespace mxu::host {

// n of count indices, the middle of each of n equal parts of [0, count) (all of them when
// n >= count), ascending: the same choice every run.
std::vector<size_t> RtlSampleIndices(size_t count, size_t n);

// Per sampled GEMM: name, shape, the model's and the RTL's cycles, and the difference
// (model - rtl) / rtl; then the largest |difference| and the sums. model_rows: the bench's rows
// (index i is GEMM i); rtl_rows: the RTL's rows of the sampled GEMMs, in order.
nlohmann::ordered_json RtlSampleReport(const nlohmann::ordered_json& model_rows,
                                       const std::vector<size_t>& indices,
                                       const nlohmann::ordered_json& rtl_rows);

// The report as a table on stdout.
void PrintRtlSample(const nlohmann::ordered_json& report);

}  // namespace mxu::host

#endif  // MXU_HOST_BENCH_RTL_SAMPLE_H_
