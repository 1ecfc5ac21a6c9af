#include "common/device_spec.h"

#include <cstddef>
#include <set>

#include "common/pe_pipeline.h"

namespace mxu {

namespace {

// A decimal number of at most 9 digits (so that it fits), or -1.
int64_t Number(const std::string& text) {
  if (text.empty() || text.size() > 9) return -1;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

bool PowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

DeviceSpec ParseDeviceSpec(const std::string& entry, uint32_t hier_min_pes) {
  const auto fail = [](const std::string& rule) { throw DeviceSpecError(rule); };
  const size_t colon = entry.find(':');
  DeviceSpec spec;
  spec.name = entry.substr(0, colon);
  std::string dims = spec.name;
  const std::string flush_suffix = "-flush";
  if (dims.size() > flush_suffix.size() &&
      dims.compare(dims.size() - flush_suffix.size(), flush_suffix.size(), flush_suffix) == 0) {
    spec.flush_subnormals = true;
    dims.resize(dims.size() - flush_suffix.size());
  }
  const size_t x = dims.find('x');
  const int64_t rows = x == std::string::npos ? -1 : Number(dims.substr(0, x));
  const int64_t cols = x == std::string::npos ? -1 : Number(dims.substr(x + 1));
  if (rows < 0 || cols < 0) fail(std::string("expected ") + kDeviceSpecSyntax);
  if (rows < 1 || rows > 255 || cols < 1 || cols > 255) fail("rows and columns must be 1 to 255");
  spec.rows = static_cast<uint32_t>(rows);
  spec.cols = static_cast<uint32_t>(cols);
  spec.wfifo_depth = 2 * spec.rows;
  spec.hier = spec.rows * spec.cols >= hier_min_pes;

  std::set<std::string> seen;
  size_t pos = colon;
  while (pos != std::string::npos) {
    const size_t next = entry.find(':', pos + 1);
    const std::string option =
        entry.substr(pos + 1, next == std::string::npos ? next : next - pos - 1);
    pos = next;
    const size_t eq = option.find('=');
    if (eq == std::string::npos || eq == 0) {
      fail("option '" + option + "': expected KEY=N (" + kDeviceSpecSyntax + ")");
    }
    const std::string key = option.substr(0, eq);
    const int64_t value = Number(option.substr(eq + 1));
    if (!seen.insert(key).second) fail(key + " given twice");
    const std::string given = option;
    if (key == "ub" || key == "acc") {
      if (value < 16 || value > 65536 || !PowerOfTwo(value)) {
        fail(given + " must be a power of two from 16 to 65536");
      }
      (key == "ub" ? spec.ub_depth : spec.acc_depth) = static_cast<uint32_t>(value);
    } else if (key == "wfifo") {
      if (value < spec.rows || value > 65535) {
        fail(given + " must be " + std::to_string(spec.rows) + " (one tile) to 65535");
      }
      spec.wfifo_depth = static_cast<uint32_t>(value);
    } else if (key == "pe") {
      if (value < 1 || value > kPeMaxStages) {
        fail(given + " must be 1 to " + std::to_string(kPeMaxStages) +
             " (the PE's pipeline stages)");
      }
      spec.pe_stages = static_cast<uint32_t>(value);
    } else if (key == "bus") {
      if (value < kMinBusBytes || value > kMaxBusBytes || !PowerOfTwo(value)) {
        fail(given + " must be a power of two from " + std::to_string(kMinBusBytes) + " to " +
             std::to_string(kMaxBusBytes) + " (bytes per beat)");
      }
      spec.bus_bytes = static_cast<uint32_t>(value);
    } else if (key == "hier") {
      if (value != 0 && value != 1) fail(given + " must be 0 or 1");
      spec.hier = value == 1;
    } else if (key == "threads") {
      if (value < 1 || value > kMaxSimThreads) {
        fail(given + " must be 1 to " + std::to_string(kMaxSimThreads));
      }
      spec.threads = static_cast<uint32_t>(value);
    } else if (key == "gate") {
      if (value != 0 && value != 1) fail(given + " must be 0 or 1");
      spec.clock_gating = value == 1;
    } else {
      fail("unknown option '" + key + "' (ub, acc, wfifo, pe, bus, hier, threads, gate)");
    }
  }
  if (spec.threads > 1 && spec.hier) {
    fail("threads=" + std::to_string(spec.threads) +
         " needs a flat device (hier=0): Verilator 5.006 runs a hierarchical model on one thread");
  }
  return spec;
}

}  // namespace mxu
