// The energy model of `mxu bench --energy` from Python (energy/energy_model.h, one code for both):
// mxu.energy_nodes(), mxu.energy_table(node), mxu.energy(node, counts). mxu.torch's report prices
// its ops with it.
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "energy/energy_model.h"
#include "python/arguments.h"

namespace mxu::python {
namespace {

const char* const kAccessKeys[] = {"ub_reads",        "ub_writes",       "acc_reads",
                                   "acc_writes",      "wfifo_reads",     "wfifo_writes",
                                   "transpose_reads", "transpose_writes"};

uint64_t Count(const py::dict& counts, const char* key) {
  if (!counts.contains(key))
    throw ArgumentError(std::string("energy: counts without '") + key + "'");
  const long long value = counts[key].cast<long long>();
  if (value < 0) throw ArgumentError(std::string("energy: a negative '") + key + "'");
  return static_cast<uint64_t>(value);
}

energy::EnergyTable Table(int node_nm) {
  try {
    return energy::EnergyTableFor(node_nm);
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    // "--energy-node N: ..." is the command line's wording; here the argument is `node`.
    const std::string prefix = "--energy-node ";
    if (what.rfind(prefix, 0) == 0) what = "node " + what.substr(prefix.size());
    throw ArgumentError(what);
  }
}

py::dict TableInfo(const energy::EnergyTable& t) {
  py::dict info;
  info["node_nm"] = t.node_nm;
  info["measured"] = t.measured;
  info["method"] = t.method;
  info["clock_mhz"] = t.clock_mhz;
  return info;
}

}  // namespace

void RegisterEnergy(py::module_& m) {
  m.def(
      "energy_nodes", [] { return energy::EnergyNodes(); },
      "The process nodes (nm) with a built-in energy table, ascending (docs/ppa.md, \"Energy\").");
  m.def(
      "energy_table", [](int node) { return TableInfo(Table(node)); }, py::arg("node") = 180,
      "The energy table of a node: node_nm, measured (180 nm: measured on the RTL with open "
      "tools; the others scaled, `method` says how), and clock_mhz, the default device's Fmax "
      "at that node.");
  m.def(
      "energy",
      [](int node, const py::dict& counts) {
        const energy::EnergyTable table = Table(node);
        nlohmann::ordered_json row;
        for (const char* key : {"cycles", "device_macs", "dma_read_bytes", "dma_write_bytes",
                                "column_clocks", "acc_clocks", "activate_clocks", "dma_clocks",
                                "array_rows", "array_cols", "bus_bytes"}) {
          row[key] = Count(counts, key);
        }
        row["dtype"] = counts.contains("dtype") ? counts["dtype"].cast<std::string>() : "bf16";
        if (!counts.contains("buffer_accesses")) {
          throw ArgumentError("energy: counts without 'buffer_accesses'");
        }
        const py::dict accesses = counts["buffer_accesses"].cast<py::dict>();
        for (const char* key : kAccessKeys) row["buffer_accesses"][key] = Count(accesses, key);
        const energy::Energy e = energy::EnergyOfRow(table, row);
        py::dict out;
        out["mac_uj"] = e.mac_uj;
        out["clock_uj"] = e.clock_uj;
        out["sram_uj"] = e.sram_uj;
        out["dram_uj"] = e.dram_uj;
        out["total_uj"] = e.total_uj();
        return out;
      },
      py::arg("node"), py::arg("counts"),
      "A run's energy in microjoules (mac_uj, clock_uj, sram_uj, dram_uj, total_uj) from its "
      "counts, as `mxu bench --energy` prices a row: cycles, device_macs (the array's MACs), "
      "dma_read_bytes, dma_write_bytes, the clock counters (column_clocks, acc_clocks, "
      "activate_clocks, dma_clocks), buffer_accesses (a dict: ub_reads, ub_writes, "
      "acc_reads, acc_writes, wfifo_reads, wfifo_writes, transpose_reads, transpose_writes), "
      "array_rows, array_cols, bus_bytes, and dtype ('bf16' or 'int8').");
}

}  // namespace mxu::python
