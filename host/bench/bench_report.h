// How `mxu bench` reports: the table's rows as they finish, the summary after them, the JSON
// file's summary and the bar chart of utilization (--plot).
#ifndef MXU_HOST_BENCH_BENCH_REPORT_H_
#define MXU_HOST_BENCH_BENCH_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "common/memory_timing.h"
#include "driver/device_config.h"
#include "host/bench/bench_table.h"

namespace mxu::host {

// "latency 100, 32 B/cycle, 8 in flight"; "port-wide" where the width is still kPortWidth.
std::string TimingText(const MemoryTiming& t);
// {latency_cycles, bytes_per_cycle, max_in_flight}; bytes_per_cycle "port" for kPortWidth.
nlohmann::ordered_json TimingJson(const MemoryTiming& t);
// Every field of the device configuration by its name.
nlohmann::ordered_json ConfigJson(const driver::DeviceConfig& c);

// A count in at most 6 characters: exact below 100,000, else 123.4k, 5.49M, 138.8M, 2.15G.
std::string Short(double v);

// The widths of the table's name and shape columns: each as wide as its longest entry, so that
// every name shows whole and the columns line up (rows print as they finish).
struct BenchColumns {
  int name = 4, shape = 5;
};
BenchColumns ColumnsFor(const std::vector<BenchShape>& shapes);

// The table's column heads, and one row of it (a row as RunShape returns it), flushed.
void PrintHeader(const BenchColumns& columns);
void PrintRow(const nlohmann::ordered_json& r, const BenchColumns& columns);

// The sums over every row (checked and mismatches with --check only).
struct BenchTotals {
  uint64_t cycles = 0, ideal = 0, bound = 0, checked = 0, mismatches = 0;
  double wall = 0;  // the GEMMs' wall times added up
  // The runs' wall time from the first GEMM's start to the last one's end, and the processes
  // they ran on (--jobs): with jobs > 1, less than wall.
  double elapsed = 0;
  int jobs = 1;
  double utilization_ideal() const { return cycles ? double(ideal) / cycles : 0; }
  double utilization_bound() const { return cycles ? double(bound) / cycles : 0; }
  double cycles_per_second() const { return wall > 0 ? cycles / wall : 0; }
};
BenchTotals SumRows(const nlohmann::ordered_json& rows, bool check);

// The lines after the table: the columns' legend, the check, and the summary of `gemms` GEMMs
// under `settings` memory settings; any_bias adds the legend of the forward layers. per_device
// (a --sweep's devices, each with its rows' sums) prints a summary line per device instead of
// one of totals.
void PrintSummary(const BenchTotals& totals, size_t gemms, size_t settings, bool any_bias,
                  bool check,
                  const std::vector<std::pair<std::string, BenchTotals>>& per_device = {});
// The JSON file's "summary" of `gemms` rows.
nlohmann::ordered_json SummaryJson(const BenchTotals& totals, size_t gemms, bool check);

// The bar chart (host/bench/bench_plot.cc): one run (a device, a memory setting) each row's
// utilization vs ideal and vs bound; several (--sweep, --mem given more than once) one panel,
// each row's utilization vs ideal on every run side by side, the values written on the bars.
void WritePlot(const std::string& path, const std::vector<MemoryTiming>& settings,
               const nlohmann::ordered_json& rows, const std::string& title);

}  // namespace mxu::host

#endif  // MXU_HOST_BENCH_BENCH_REPORT_H_
