#include "host/bench/bench_run.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

#include "common/csr_map.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "golden/float_vectors.h"
#include "host/bench/bench_report.h"
#include "host/cli/child_process.h"
#include "host/gemm/gemm_operands.h"
#include "host/gemm/gemm_progress.h"
#include "host/gemm/gemm_result.h"

namespace mxu::host {
namespace {

using Json = nlohmann::ordered_json;

// What a shape's cycles are measured against.
struct ShapeBound {
  uint64_t ideal = 0;          // every PE busy every cycle
  uint64_t bytes_min = 0;      // the least traffic
  uint64_t memory_cycles = 0;  // bytes_min at the memory's bytes per cycle
  uint64_t bound = 0;          // the larger of ideal and memory_cycles
};

ShapeBound Bound(const BenchShape& shape, const driver::DeviceConfig& config,
                 const MemoryTiming& timing) {
  const uint64_t m = shape.m, k = shape.k, n = shape.n;
  const uint64_t pes = uint64_t{config.rows} * config.cols;
  ShapeBound b;
  b.ideal = (shape.macs() + pes - 1) / pes;
  // The least traffic: A and B read once (bf16, or int8), C written once (fp32 or int32), on the
  // one channel that reads and writes share; and the bias (N fp32) where there is one.
  const uint64_t in_bytes = shape.int8 ? 1 : 2;
  b.bytes_min = in_bytes * (m * k + k * n) + 4 * m * n + (shape.bias ? 4 * n : 0);
  b.memory_cycles = (b.bytes_min + timing.bytes_per_cycle - 1) / timing.bytes_per_cycle;
  b.bound = std::max(b.ideal, b.memory_cycles);
  return b;
}

// The shape's request on random operands from the seed, and a random bias for a forward layer.
void MakeRequest(const BenchShape& shape, uint64_t seed, GemmOperands* operands,
                 driver::GemmRequest* request) {
  golden::BitSource bits(seed);
  request->trans_a = shape.ta;
  request->trans_b = shape.tb;
  SetRandomOperands(shape.m, shape.k, shape.n, shape.int8, bits, operands, request);
  request->output = shape.int8 ? driver::OutputType::kInt32 : driver::OutputType::kFp32;
  if (shape.bias) {
    for (int j = 0; j < shape.n; ++j) {
      operands->bias.push_back((float(bits.Below(2001)) - 1000) / 256);
    }
    request->bias = &operands->bias;
  }
  request->relu = shape.relu;
}

// The row's shape, the memory setting it ran under and its cycles against the ideal and the
// bound.
Json ShapeRow(const BenchShape& shape, const driver::DeviceConfig& config, size_t setting,
              const MemoryTiming& timing, uint64_t cycles, const ShapeBound& b) {
  return {
      {"setting", setting},
      {"latency_cycles", timing.latency_cycles},
      {"bytes_per_cycle", timing.bytes_per_cycle},
      {"max_in_flight", timing.max_in_flight},
      {"array_rows", config.rows},
      {"array_cols", config.cols},
      {"bus_bytes", config.bus_bytes},
      {"name", shape.name},
      {"shape", ShapeText(shape)},
      {"m", shape.m},
      {"k", shape.k},
      {"n", shape.n},
      {"ta", shape.ta},
      {"tb", shape.tb},
      {"bias", shape.bias},
      {"relu", shape.relu},
      {"dtype", shape.int8 ? "int8" : "bf16"},
      {"macs", shape.macs()},
      {"cycles", cycles},
      {"ideal_cycles", b.ideal},
      {"bytes_min", b.bytes_min},
      {"memory_cycles", b.memory_cycles},
      {"bound_cycles", b.bound},
      {"bound_by", b.memory_cycles > b.ideal ? "memory" : "compute"},
      {"utilization_ideal", cycles ? double(b.ideal) / double(cycles) : 0.0},
      {"utilization_bound", cycles ? double(b.bound) / double(cycles) : 0.0},
  };
}

// The GEMM run, a failure (the watchdog's) naming which of the table's GEMMs it was.
driver::GemmResult GemmNamed(driver::Device& device, const driver::DeviceConfig& config,
                             const driver::GemmRequest& request, const BenchRunOptions& options,
                             const BenchShape& shape) {
  try {
    return driver::Gemm(device, config, request, options.device.watchdog_cycles);
  } catch (const driver::DeviceError& error) {
    const std::string text = ShapeText(shape);
    throw driver::DeviceError("GEMM " + shape.name + (shape.name == text ? "" : " (" + text + ")") +
                              ": " + error.what());
  }
}

// One GEMM on the open device: its row of the table.
Json RunShape(driver::Device& device, const driver::DeviceConfig& config,
              const BenchRunOptions& options, size_t setting, const MemoryTiming& timing,
              const BenchShape& shape) {
  GemmOperands operands;
  driver::GemmRequest request;
  MakeRequest(shape, options.seed, &operands, &request);
  const driver::GemmResult result = GemmNamed(device, config, request, options, shape);

  Json r = ShapeRow(shape, config, setting, timing, result.stats.counter(csr::Counter::kCycles),
                    Bound(shape, config, timing));
  AddRunCounters(result, &r);
  if (options.check) {
    const GoldenCheck check = CheckWithGolden(request, result, config, shape.name + ": ");
    r["checked"] = check.compared;
    r["mismatches"] = check.mismatches;
  }
  return r;
}

void PrintSettingHeading(const MemoryTiming& timing, const std::string& backend, unsigned rows,
                         unsigned cols) {
  std::printf("memory: %s (%s backend, %u x %u array)\n", TimingText(timing).c_str(),
              backend.c_str(), rows, cols);
}

// On a terminal, while GEMMs run in parallel: how many are done and which are running.
class JobsStatus {
 public:
  JobsStatus(const std::vector<BenchShape>& shapes, bool show) : shapes_(shapes), show_(show) {}
  ~JobsStatus() { Clear(); }
  JobsStatus(const JobsStatus&) = delete;
  JobsStatus& operator=(const JobsStatus&) = delete;

  void Started(size_t index) { running_.push_back(index), Show(); }
  void Finished(size_t index) {
    running_.erase(std::find(running_.begin(), running_.end(), index));
    ++done_;
  }
  void Show() {
    if (!show_) return;
    std::string line =
        std::to_string(done_) + " of " + std::to_string(shapes_.size()) + " GEMMs done; running:";
    for (size_t index : running_) {
      line += " " + shapes_[index].name + " (" + std::to_string(index + 1) + ")";
    }
    if (line.size() > 100) line = line.substr(0, 97) + "...";
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void Clear() {
    if (!shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  const std::vector<BenchShape>& shapes_;
  const bool show_;
  std::vector<size_t> running_;
  size_t done_ = 0;
  bool shown_ = false;
};

// The GEMMs in `jobs` children, on_done(index, part) as each finishes; the terminal's status
// line kept.
void RunJobs(const BenchRunOptions& options, const std::vector<BenchShape>& shapes, size_t setting,
             const MemoryTiming& given, size_t jobs, JobsStatus& status,
             const std::function<void(size_t, Json)>& on_done) {
  RunInChildren(
      shapes.size(),
      [&](size_t index) {
        return RunSetting(options, {shapes[index]}, setting, given, /*print=*/false);
      },
      jobs,
      [&](size_t index) {
        return "GEMM " + std::to_string(index + 1) + " (" + shapes[index].name + ")";
      },
      [&](size_t index, Json part) {
        status.Finished(index);
        status.Clear();
        on_done(index, std::move(part));
        status.Show();
      },
      /*capture_stdout=*/false, [&](size_t index) { status.Started(index); });
}

// The table's heading from a device opened in a child of its own; nothing where the device fails
// there too (the caller reports the first failure). A signal or a fault of this process passes.
void PrintHeadingApart(const BenchRunOptions& options, const MemoryTiming& given,
                       const std::function<void(const Json&)>& print_heading) {
  try {
    print_heading(RunInChild(
        [&] {
          DeviceOptions device_options = options.device;
          device_options.timing = given;
          auto device = OpenDevice(device_options);
          return Json{{"backend", device->name()},
                      {"device", ConfigJson(driver::ReadDeviceConfig(*device))}};
        },
        "the device"));
  } catch (const UsageError&) {
  } catch (const driver::DeviceError&) {
  }
}

}  // namespace

Json RunSetting(const BenchRunOptions& options, const std::vector<BenchShape>& shapes,
                size_t setting, const MemoryTiming& given, bool print) {
  DeviceOptions device_options = options.device;
  device_options.timing = given;
  auto device = OpenDevice(device_options);
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*device);
  // The memory the backend put behind the port: the bound and the rows take its width.
  const MemoryTiming timing = given.ForPort(config.bus_bytes);
  const BenchColumns columns = ColumnsFor(shapes);
  if (print) {
    PrintSettingHeading(timing, device->name(), config.rows, config.cols);
    PrintHeader(columns);
  }
  Json out;
  out["backend"] = device->name();
  out["device"] = ConfigJson(config);
  out["rows"] = Json::array();
  // On a terminal, a long GEMM shows its progress, named by its row (layer) and place.
  const bool progress = print && isatty(STDERR_FILENO);
  for (size_t k = 0; k < shapes.size(); ++k) {
    const BenchShape& shape = shapes[k];
    ProgressDevice shown(
        *device, ProgressAfterSeconds(),
        shape.name + " (" + std::to_string(k + 1) + "/" + std::to_string(shapes.size()) + ")");
    driver::Device& run_on = progress ? static_cast<driver::Device&>(shown) : *device;
    out["rows"].push_back(RunShape(run_on, config, options, setting, timing, shape));
    if (print) PrintRow(out["rows"].back(), columns);
  }
  return out;
}

Json RunSettingInJobs(const BenchRunOptions& options, const std::vector<BenchShape>& shapes,
                      size_t setting, const MemoryTiming& given, size_t jobs, bool print) {
  const BenchColumns columns = ColumnsFor(shapes);
  std::vector<Json> rows(shapes.size());
  size_t printed = 0;  // rows print in the table's order, as soon as those before them are done
  Json out;
  JobsStatus status(shapes, print && isatty(STDERR_FILENO));
  const auto print_heading = [&](const Json& part) {
    const Json& d = part["device"];
    PrintSettingHeading(given.ForPort(d["bus_bytes"].get<unsigned>()),
                        part["backend"].get<std::string>(), d["array_rows"].get<unsigned>(),
                        d["array_cols"].get<unsigned>());
    PrintHeader(columns);
  };
  try {
    RunJobs(options, shapes, setting, given, jobs, status, [&](size_t index, Json part) {
      if (out.is_null()) {
        out["backend"] = part["backend"];
        out["device"] = part["device"];
        out["rows"] = Json::array();
        if (print) print_heading(part);
      }
      rows[index] = std::move(part["rows"][0]);
      for (; printed < rows.size() && !rows[printed].is_null(); ++printed) {
        if (print) PrintRow(rows[printed], columns);
      }
    });
  } catch (const Interrupted&) {
    throw;
  } catch (...) {
    // A failure before any GEMM finished: the table's heading as one process prints it before
    // its first GEMM, from a device opened for it alone.
    if (print && out.is_null()) PrintHeadingApart(options, given, print_heading);
    throw;
  }
  for (Json& row : rows) out["rows"].push_back(std::move(row));
  return out;
}

}  // namespace mxu::host
