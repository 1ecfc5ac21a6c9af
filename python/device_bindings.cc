// mxu.Device: a device on a backend, GEMMs on it (bf16 and the int8 mode, optionally checked
// against the golden model), its counters and configuration.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/built_devices.h"
#include "backends/device_factory.h"
#include "common/csr_map.h"
#include "common/device_spec.h"
#include "common/memory_timing.h"
#include "driver/device.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "driver/golden_request.h"
#include "golden/numerics.h"
#include "python/arguments.h"

namespace mxu::python {
namespace {

// The Python defaults are the one definition's (common/memory_timing.h).
const MemoryTiming kDefaultMemory;
constexpr long long kDefaultWatchdog = 200'000'000;  // the command line's --watchdog

// One device per process, whichever extension of the package opens it (SystemC elaborates once
// per process): the mark lives in pybind11's data, which every extension shares.
constexpr const char* kDeviceOpenedKey = "mxu.device_opened";
char g_device_opened_mark;

// A GEMM's counters and statistics, as `mxu gemm --json`.
py::dict GemmCounters(int m, int k, int n, const char* dtype, const driver::GemmResult& result) {
  const driver::RunStats& s = result.stats;
  const uint64_t cycles = s.counter(csr::Counter::kCycles);
  py::dict counters;
  counters["m"] = m;
  counters["k"] = k;
  counters["n"] = n;
  counters["dtype"] = dtype;
  for (uint32_t i = 0; i < csr::kNumCounters; ++i) {
    std::string name = csr::CounterName(static_cast<csr::Counter>(i));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    counters[py::str(name)] = s.counters[i];
  }
  const driver::BufferAccesses& a = s.accesses;
  py::dict accesses;
  accesses["ub_reads"] = a.ub_reads;
  accesses["ub_writes"] = a.ub_writes;
  accesses["acc_reads"] = a.acc_reads;
  accesses["acc_writes"] = a.acc_writes;
  accesses["wfifo_reads"] = a.wfifo_reads;
  accesses["wfifo_writes"] = a.wfifo_writes;
  accesses["transpose_reads"] = a.transpose_reads;
  accesses["transpose_writes"] = a.transpose_writes;
  counters["buffer_accesses"] = accesses;  // the program's on-chip traffic (the energy model's)
  counters["ideal_cycles"] = result.ideal_cycles;
  counters["utilization"] = result.utilization;
  counters["program_instructions"] = result.instructions;
  counters["m_block"] = result.blocking.m_block;
  counters["n_group"] = result.blocking.n_group;
  counters["a_resident"] = result.blocking.a_resident;
  counters["wall_seconds"] = s.wall_seconds;
  counters["sim_cycles_per_second"] = s.wall_seconds > 0 ? cycles / s.wall_seconds : 0.0;
  return counters;
}

// A 3-D array: one GEMM operand per leading index.
bool IsStack(const py::object& x) {
  return py::isinstance<py::array>(x) && py::array(x).ndim() == 3;
}

// A batch's operands: the leading index of a 3-D array, or the items of a sequence.
std::vector<py::array> Elements(const char* name, const py::object& x) {
  std::vector<py::array> items;
  if (py::isinstance<py::array>(x)) {
    const py::array array(x);
    if (array.ndim() != 3) {
      throw ArgumentError(std::string(name) +
                          ": expected a 3-D array or a sequence of 2-D "
                          "arrays, got an array of rank " +
                          std::to_string(array.ndim()));
    }
    for (py::ssize_t i = 0; i < array.shape(0); ++i) items.push_back(array[py::int_(i)]);
    return items;
  }
  if (!py::isinstance<py::sequence>(x) || py::isinstance<py::str>(x)) {
    throw py::type_error(std::string(name) +
                         ": expected a 3-D array or a sequence of 2-D "
                         "arrays, got " +
                         std::string(py::str(py::type::of(x).attr("__name__"))));
  }
  for (const py::handle item : py::reinterpret_borrow<py::sequence>(x)) {
    if (!py::isinstance<py::array>(item)) {
      throw py::type_error(std::string(name) + "[" + std::to_string(items.size()) +
                           "]: expected a NumPy array, got " +
                           std::string(py::str(py::type::of(item).attr("__name__"))));
    }
    items.push_back(py::reinterpret_borrow<py::array>(item));
  }
  return items;
}

// One flag for every GEMM of a batch, or one each.
std::vector<bool> Flags(const char* name, const py::object& x, size_t count) {
  if (py::isinstance<py::bool_>(x)) return std::vector<bool>(count, x.cast<bool>());
  if (!py::isinstance<py::sequence>(x) || py::isinstance<py::str>(x)) {
    throw py::type_error(std::string(name) + ": expected a bool or a sequence of bools");
  }
  const auto items = py::reinterpret_borrow<py::sequence>(x);
  if (items.size() != count) {
    throw ArgumentError(std::string(name) + ": " + std::to_string(items.size()) + " values for " +
                        std::to_string(count) + " GEMMs");
  }
  std::vector<bool> flags;
  for (const py::handle item : items) {
    if (!py::isinstance<py::bool_>(item)) {
      throw py::type_error(std::string(name) + ": expected bools, got " +
                           std::string(py::str(py::type::of(item).attr("__name__"))));
    }
    flags.push_back(item.cast<bool>());
  }
  return flags;
}

// None for every GEMM of a batch, or one array (or None) each.
std::vector<std::optional<py::array>> Optional(const char* name, const py::object& x,
                                               size_t count) {
  std::vector<std::optional<py::array>> values(count);
  if (x.is_none()) return values;
  std::vector<py::object> items;
  if (py::isinstance<py::array>(x)) {
    const py::array array(x);
    if (array.ndim() < 1) throw ArgumentError(std::string(name) + ": a scalar, not one per GEMM");
    for (py::ssize_t i = 0; i < array.shape(0); ++i) items.push_back(array[py::int_(i)]);
  } else if (py::isinstance<py::sequence>(x) && !py::isinstance<py::str>(x)) {
    for (const py::handle item : py::reinterpret_borrow<py::sequence>(x)) {
      items.push_back(py::reinterpret_borrow<py::object>(item));
    }
  } else {
    throw py::type_error(std::string(name) + ": expected None or one array (or None) per GEMM");
  }
  if (items.size() != count) {
    throw ArgumentError(std::string(name) + ": " + std::to_string(items.size()) + " entries for " +
                        std::to_string(count) + " GEMMs");
  }
  for (size_t i = 0; i < count; ++i) {
    if (items[i].is_none()) continue;
    if (!py::isinstance<py::array>(items[i])) {
      throw py::type_error(std::string(name) + "[" + std::to_string(i) +
                           "]: expected a NumPy array or None");
    }
    values[i] = py::reinterpret_borrow<py::array>(items[i]);
  }
  return values;
}

class Device {
 public:
  Device(const std::string& backend, const std::string& device, long long mem_latency,
         std::optional<long long> mem_bytes_per_cycle, long long mem_in_flight,
         long long watchdog) {
    backends::BackendOptions options;
    options.backend = backend;
    // As the command line's --device: a device of this build, or any spec (the model backend's;
    // the factory refuses it on the others).
    options.device_spec = device;
    if (!device.empty() && backends::FindBuiltDevice(device) == nullptr) {
      try {
        ParseDeviceSpec(device);
      } catch (const DeviceSpecError& error) {
        throw ArgumentError("device '" + device + "' is neither a device of this build (" +
                            backends::BuiltDeviceNames() + ") nor a device spec: " + error.what());
      }
    }
    options.timing.latency_cycles =
        static_cast<unsigned>(CheckedRange("mem_latency", mem_latency, 0, 100000));
    // None: as wide as the device's memory port (kPortWidth), as the command line's default.
    if (mem_bytes_per_cycle) {
      options.timing.bytes_per_cycle =
          static_cast<unsigned>(CheckedRange("mem_bytes_per_cycle", *mem_bytes_per_cycle, 1, 4096));
    }
    options.timing.max_in_flight =
        static_cast<unsigned>(CheckedRange("mem_in_flight", mem_in_flight, 1, 1024));
    watchdog_ = CheckedRange("watchdog", watchdog, 1, kMaxWatchdogCycles);
    timing_ = options.timing;
    memory_given_ = mem_bytes_per_cycle.has_value();
    // SystemC's rule, so the RTL's: it elaborates once a process. The model backend has no
    // SystemC and opens as many devices as asked (one per simulated chip).
    const bool elaborates = backend != "model";
    if (elaborates && py::get_shared_data(kDeviceOpenedKey) != nullptr) {
      throw std::runtime_error(
          "one RTL device per process: this process has already opened one (SystemC elaborates "
          "the RTL once), so backend='" +
          backend + "' cannot open another; keep using it, or open more on the model backend");
    }
    // The SystemC banner would land in the user's output.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    // std::invalid_argument for an unknown backend, or a spec the backend does not simulate.
    device_ = backends::OpenDevice(options);
    if (elaborates) py::set_shared_data(kDeviceOpenedKey, &g_device_opened_mark);
    device_name_ = device.empty() ? backends::ThisDevice().name : device;
    config_ = driver::ReadDeviceConfig(*device_);
    timing_ = timing_.ForPort(config_.bus_bytes);  // as the backend resolved it
  }

  py::array Gemm(const py::array& a, const py::array& b, bool ta, bool tb, bool relu,
                 const std::optional<py::array>& bias, const std::optional<py::array>& accumulate,
                 const std::string& out, bool check, std::optional<long long> watchdog) {
    const uint64_t watchdog_cycles =
        watchdog ? CheckedRange("watchdog", *watchdog, 1, kMaxWatchdogCycles) : watchdog_;
    const auto args = ParseGemm(a, b, ta, tb, relu, bias, accumulate, out, config_.subnormals);
    const driver::GemmResult result =
        driver::Gemm(*device_, config_, args->request, watchdog_cycles);
    py::dict counters = GemmCounters(args->m, args->k, args->n, "bf16", result);

    std::vector<uint32_t> got(static_cast<size_t>(args->m) * args->n);
    for (size_t i = 0; i < got.size(); ++i) {
      got[i] = args->request.output == driver::OutputType::kBf16
                   ? result.c_bf16.data[i]
                   : golden::FloatBits(result.c.data[i]);
    }
    counters_ = counters;
    if (check) {
      CompareWithGolden(
          got,
          driver::GoldenBits(args->request, static_cast<int>(config_.rows), config_.subnormals),
          args->n, [](uint32_t device, uint32_t golden) {
            char text[64];
            std::snprintf(text, sizeof text, "device 0x%08x, golden 0x%08x", device, golden);
            return std::string(text);
          });
    }
    return ToArray(got, args->m, args->n, args->request.output);
  }

  // Independent GEMMs as one program (driver::GemmBatch): a and b sequences of 2-D arrays (or
  // 3-D arrays, one GEMM per leading index); ta, tb, relu one value for all or one per GEMM;
  // bias and accumulate None or one entry (or None) per GEMM. A list of results, or one 3-D
  // array when a and b were 3-D arrays.
  py::object GemmBatch(const py::object& a, const py::object& b, const py::object& ta,
                       const py::object& tb, const py::object& relu, const py::object& bias,
                       const py::object& accumulate, const std::string& out, bool check,
                       std::optional<long long> watchdog) {
    const uint64_t watchdog_cycles =
        watchdog ? CheckedRange("watchdog", *watchdog, 1, kMaxWatchdogCycles) : watchdog_;
    const std::vector<py::array> as = Elements("a", a), bs = Elements("b", b);
    if (as.size() != bs.size()) {
      throw ArgumentError("a has " + std::to_string(as.size()) + " GEMMs and b " +
                          std::to_string(bs.size()) + ": give one B per A");
    }
    if (as.empty()) throw ArgumentError("a GEMM batch needs a GEMM");
    const size_t count = as.size();
    const std::vector<bool> tas = Flags("ta", ta, count), tbs = Flags("tb", tb, count),
                            relus = Flags("relu", relu, count);
    const std::vector<std::optional<py::array>> biases = Optional("bias", bias, count),
                                                starts = Optional("accumulate", accumulate, count);
    std::vector<std::unique_ptr<GemmArgs>> args;
    std::vector<driver::GemmRequest> requests;
    for (size_t i = 0; i < count; ++i) {
      try {
        args.push_back(ParseGemm(as[i], bs[i], tas[i], tbs[i], relus[i], biases[i], starts[i], out,
                                 config_.subnormals));
      } catch (const ArgumentError& e) {
        throw ArgumentError("batch element " + std::to_string(i) + ": " + e.what());
      } catch (const py::type_error& e) {
        throw py::type_error("batch element " + std::to_string(i) + ": " + e.what());
      }
      requests.push_back(args.back()->request);
    }
    const std::vector<driver::GemmResult> results =
        driver::GemmBatch(*device_, config_, requests, watchdog_cycles);
    py::dict counters = GemmCounters(args[0]->m, args[0]->k, args[0]->n, "bf16", results[0]);
    uint64_t macs = 0, ideal = 0;
    for (size_t i = 0; i < count; ++i) {
      macs += uint64_t(args[i]->m) * args[i]->k * args[i]->n;
      ideal += results[i].ideal_cycles;
    }
    // The program's counters; the shape is the batch's, not one GEMM's.
    for (const char* key : {"m", "k", "n"}) counters.attr("pop")(key);
    counters["gemms"] = count;
    counters["requested_macs"] = macs;
    counters["ideal_cycles"] = ideal;
    counters_ = counters;
    std::vector<py::array> outputs;
    size_t checked = 0, mismatches = 0;
    std::string first;
    for (size_t i = 0; i < count; ++i) {
      const GemmArgs& g = *args[i];
      std::vector<uint32_t> got(static_cast<size_t>(g.m) * g.n);
      for (size_t j = 0; j < got.size(); ++j) {
        got[j] = g.request.output == driver::OutputType::kBf16
                     ? results[i].c_bf16.data[j]
                     : golden::FloatBits(results[i].c.data[j]);
      }
      if (check) {
        const std::vector<uint32_t> want =
            driver::GoldenBits(g.request, static_cast<int>(config_.rows), config_.subnormals);
        for (size_t j = 0; j < want.size(); ++j) {
          if (got[j] == want[j] || mismatches++) continue;
          char bits[48];
          std::snprintf(bits, sizeof bits, "device 0x%08x, golden 0x%08x", got[j], want[j]);
          first = "GEMM " + std::to_string(i) + " C[" + std::to_string(j / g.n) + "][" +
                  std::to_string(j % g.n) + "]: " + bits;
        }
        checked += want.size();
      }
      outputs.push_back(ToArray(got, g.m, g.n, g.request.output));
    }
    if (check) {
      counters_["checked"] = checked;
      counters_["mismatches"] = mismatches;
      if (mismatches) {
        throw CheckError(std::to_string(checked) + " outputs, " + std::to_string(mismatches) +
                         " mismatches (first " + first + ")");
      }
    }
    if (IsStack(a) && IsStack(b)) {
      bool same = true;
      for (const py::array& o : outputs)
        same = same && o.shape(0) == outputs[0].shape(0) && o.shape(1) == outputs[0].shape(1);
      if (same) return py::module_::import("numpy").attr("stack")(outputs);
    }
    return py::cast(outputs);
  }

  py::array GemmInt8(const py::array& a, const py::array& b, bool ta, bool tb, bool relu,
                     const std::optional<py::array>& bias,
                     const std::optional<py::array>& accumulate,
                     const std::optional<py::object>& scales, long long zero_point, bool check,
                     std::optional<long long> watchdog) {
    const uint64_t watchdog_cycles =
        watchdog ? CheckedRange("watchdog", *watchdog, 1, kMaxWatchdogCycles) : watchdog_;
    const auto args = ParseGemmInt8(a, b, ta, tb, relu, bias, accumulate, scales, zero_point);
    const driver::GemmResult result =
        driver::Gemm(*device_, config_, args->request, watchdog_cycles);
    py::dict counters = GemmCounters(args->m, args->k, args->n, "int8", result);
    const bool int8_out = args->request.output == driver::OutputType::kInt8;
    std::vector<int32_t> got(static_cast<size_t>(args->m) * args->n);
    if (int8_out) {
      std::copy(result.c_int8.data.begin(), result.c_int8.data.end(), got.begin());
    } else {
      std::copy(result.c_int32.data.begin(), result.c_int32.data.end(), got.begin());
    }
    counters_ = counters;
    if (check) {
      CompareWithGolden(got, GoldenInt8(*args), args->n, [](int32_t device, int32_t golden) {
        return "device " + std::to_string(device) + ", golden " + std::to_string(golden);
      });
    }
    return ToInt8ModeArray(got, args->m, args->n, args->request.output);
  }

  // --check: every output against the golden model's; the counters get "checked" and
  // "mismatches", and a mismatch raises CheckError naming the first (`describe` its values).
  template <typename T, typename Describe>
  void CompareWithGolden(const std::vector<T>& got, const std::vector<T>& want, int n,
                         const Describe& describe) {
    size_t mismatches = 0;
    std::string first;
    for (size_t i = 0; i < want.size(); ++i) {
      if (got[i] == want[i]) continue;
      if (mismatches++ == 0) {
        first = "C[" + std::to_string(i / n) + "][" + std::to_string(i % n) +
                "]: " + describe(got[i], want[i]);
      }
    }
    counters_["checked"] = want.size();
    counters_["mismatches"] = mismatches;
    if (mismatches) {
      throw CheckError(std::to_string(want.size()) + " outputs, " + std::to_string(mismatches) +
                       " mismatches (first " + first + ")");
    }
  }

  py::dict Info() const {
    py::dict info;
    info["backend"] = device_->name();
    info["device"] = device_name_;  // as `mxu info --json`: the device name or spec
    driver::ForEachConfigField(config_,
                               [&](const char* name, const auto& value) { info[name] = value; });
    info["mem_latency"] = timing_.latency_cycles;
    info["mem_bytes_per_cycle"] = timing_.bytes_per_cycle;
    info["mem_bytes_per_cycle_from"] = memory_given_ ? "given" : "port";
    info["mem_in_flight"] = timing_.max_in_flight;
    info["watchdog"] = watchdog_;
    return info;
  }

  py::dict Counters() const { return counters_; }
  uint32_t ReadCsr(uint32_t addr) { return device_->ReadCsr(addr); }
  const char* name() const { return device_->name(); }

 private:
  std::unique_ptr<driver::Device> device_;
  std::string device_name_;
  driver::DeviceConfig config_;
  MemoryTiming timing_;
  bool memory_given_ = false;  // mem_bytes_per_cycle given, not the port's width
  uint64_t watchdog_ = 0;
  py::dict counters_;
};

}  // namespace

void RegisterDevice(py::module_& m) {
  // The defaults, for the package's mxu.Device (python/mxu/__init__.py), which picks the extension
  // of the device and opens it through this class.
  py::dict defaults;
  defaults["mem_latency"] = kDefaultMemory.latency_cycles;
  defaults["mem_bytes_per_cycle"] = py::none();  // the device's port width (kPortWidth)
  defaults["mem_in_flight"] = kDefaultMemory.max_in_flight;
  defaults["watchdog"] = kDefaultWatchdog;
  m.attr("_DEVICE_DEFAULTS") = defaults;
  // Local to each extension: every extension of the package binds this class.
  py::class_<Device>(m, "Device", py::module_local(),
                     "A device on the named backend with the host memory's timing; device: a "
                     "device of this extension's build, or a device spec for the model backend. "
                     "One per process: SystemC elaborates the RTL device once.")
      .def(py::init<const std::string&, const std::string&, long long, std::optional<long long>,
                    long long, long long>(),
           py::arg("backend") = "rtl", py::arg("device") = "",
           py::arg("mem_latency") = kDefaultMemory.latency_cycles,
           py::arg("mem_bytes_per_cycle") = py::none(),
           py::arg("mem_in_flight") = kDefaultMemory.max_in_flight,
           py::arg("watchdog") = kDefaultWatchdog)
      .def("gemm", &Device::Gemm, py::arg("a"), py::arg("b"), py::kw_only(), py::arg("ta") = false,
           py::arg("tb") = false, py::arg("relu") = false, py::arg("bias") = py::none(),
           py::arg("accumulate") = py::none(), py::arg("out") = "fp32", py::arg("check") = false,
           py::arg("watchdog") = py::none(),
           "C = op(A) x op(B) (+ bias | + accumulate) (ReLU) on the device. a, b: float32 "
           "(rounded to bf16) or uint16 (raw bf16 bits), of any strides (a transposed view is "
           "laid out row-major while it is converted); ta/tb: the operand is stored "
           "transposed; bias: N float32 values; accumulate: M x N float32 (C += A x B); out: "
           "'fp32' (float32 result) or 'bf16' (uint16 bits). check: compare every bit with the "
           "golden model, raise mxu.CheckError on a mismatch. watchdog: this call's cycle limit "
           "(default: the device's).")
      .def("gemm_batch", &Device::GemmBatch, py::arg("a"), py::arg("b"), py::kw_only(),
           py::arg("ta") = false, py::arg("tb") = false, py::arg("relu") = false,
           py::arg("bias") = py::none(), py::arg("accumulate") = py::none(),
           py::arg("out") = "fp32", py::arg("check") = false, py::arg("watchdog") = py::none(),
           "Independent GEMMs as one device program: C[i] = op(A[i]) x op(B[i]) (+ bias[i] | + "
           "accumulate[i]) (ReLU), each GEMM's loads overlapping the one before it's compute. "
           "a, b: 3-D arrays (one GEMM per leading index) or sequences of 2-D arrays, of any "
           "shapes, as gemm takes them; ta, tb, relu: one bool for all or one per GEMM; bias, "
           "accumulate: None, or one array (or None) per GEMM. Results bit-identical to gemm "
           "called on each: a list, or one 3-D array when a and b are 3-D arrays. A bad element "
           "raises before anything runs, naming it ('batch element i: ...'); so does a device "
           "error in its instructions. counters(): the program's, with 'gemms'.")
      .def("gemm_int8", &Device::GemmInt8, py::arg("a"), py::arg("b"), py::kw_only(),
           py::arg("ta") = false, py::arg("tb") = false, py::arg("relu") = false,
           py::arg("bias") = py::none(), py::arg("accumulate") = py::none(),
           py::arg("scales") = py::none(), py::arg("zero_point") = 0, py::arg("check") = false,
           py::arg("watchdog") = py::none(),
           "The int8 mode (`mxu gemm --dtype int8`): C = op(A) x op(B) (+ bias | + accumulate), "
           "exact in int32. a, b: int8 (any other dtype raises mxu.DtypeError, a TypeError and "
           "a ValueError); ta/tb: the operand is stored transposed; bias: N int32 values; "
           "accumulate: M x N int32 (C += A x B; sums wrap modulo 2^32). Without scales: an "
           "int32 result, relu zeroes negatives. With scales (a real number, or N of them, "
           "finite and positive: column n's scale): the device requantizes C to int8, "
           "y = clamp(round(C * scale) + zero_point, relu ? zero_point : -128, 127) with the "
           "scale as mxu.quantize_multiplier gives it and rounding half away from zero "
           "(docs/numerics.md); zero_point in [-128, 127]. check: compare every output with the "
           "golden model (golden_gemm_int8), raise mxu.CheckError on a mismatch. watchdog: this "
           "call's cycle limit (default: the device's).")
      .def("counters", &Device::Counters,
           "The last GEMM's counters and statistics (as `mxu gemm --json`).")
      .def("info", &Device::Info,
           "The device configuration read from its CSRs and the host memory's settings (as "
           "`mxu info --json`): mem_bytes_per_cycle as it runs, mem_bytes_per_cycle_from 'port' "
           "(the default: the port's width) or 'given'.")
      .def("read_csr", &Device::ReadCsr, py::arg("addr"), "Reads one CSR (mxu.CSR names some).")
      .def_property_readonly("backend", &Device::name);
}

}  // namespace mxu::python
