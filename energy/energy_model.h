// What a run costs in energy (`mxu bench --energy`, docs/ppa.md "Energy"): the device's exact
// counters and the program's buffer traffic (driver/buffer_accesses.h) times per-action energies
// measured on the RTL with open tools (scripts/ppa.sh --calibrate), as Accelergy does: energy =
// action counts x energy per action, each energy with its source. The tables, energy/NODEnm.json,
// are built into the library (the tool and the Python package price runs with the same code).
#ifndef MXU_ENERGY_ENERGY_MODEL_H_
#define MXU_ENERGY_ENERGY_MODEL_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mxu::energy {

// One SRAM kind's energy per bit of its row, read and written (pJ).
struct SramBitEnergy {
  double read = 0, write = 0;
};

struct EnergyTable {
  int node_nm = 0;
  bool measured = false;  // 180 nm: measured; others scaled (`method` says how)
  std::string method;
  double clock_mhz = 0;  // the calibration device's Fmax at this node
  // The clocks, per cycle each runs (the clock counters; docs/architecture.md "Clock gating"):
  double pe_cycle_pj = 0;        // a PE's, its column's clock running, no data
  double acc_cycle_pj = 0;       // the accumulators'
  double activate_cycle_pj = 0;  // the activation unit's
  double dma_cycle_pj = 0;       // a DMA engine's (0 while the engines are not gated)
  double control_cycle_pj = 0;   // the rest of the logic, every cycle of a program
  double mac_bf16_pj = 0;        // a MAC above its PE's clock, bf16
  double mac_int8_pj = 0;        // ... int8
  SramBitEnergy ub, acc, wfifo, transpose;
  double dram_pj_per_byte = 0;  // host memory
  // Area (um^2) for ranking design points: a PE, the rest of the logic, an SRAM bit.
  double pe_um2 = 0, control_um2 = 0, sram_um2_per_bit = 0;
};

// The nodes with a built-in table, ascending.
std::vector<int> EnergyNodes();
// The built-in table of a node; std::invalid_argument naming the nodes there are otherwise.
EnergyTable EnergyTableFor(int node_nm);
// A table from its JSON (energy/NODEnm.json's layout); std::runtime_error naming a missing key.
EnergyTable ParseEnergyTable(const nlohmann::json& json);

// A run's energy in microjoules, by what spends it.
struct Energy {
  double mac_uj = 0;    // MACs: the array's work above its clock
  double clock_uj = 0;  // the clocks as they run: the columns', the gated blocks', the rest
  double sram_uj = 0;   // unified buffer, accumulators, weight FIFO, transposer
  double dram_uj = 0;   // host-memory bytes read and written by the DMA
  double total_uj() const { return mac_uj + clock_uj + sram_uj + dram_uj; }
};

// The energy of one bench row (its counters: cycles, device_macs, dma_read_bytes,
// dma_write_bytes, column_clocks, acc_clocks, activate_clocks, dma_clocks, buffer_accesses; its
// device: array_rows, array_cols, bus_bytes; dtype).
Energy EnergyOfRow(const EnergyTable& table, const nlohmann::ordered_json& row);

// {"mac_uj", "clock_uj", "sram_uj", "dram_uj", "total_uj"}; with useful MACs (M x K x N), also
// "pj_per_mac" and "tops_per_watt" (2 ops a MAC).
nlohmann::ordered_json EnergyJson(const Energy& energy, double useful_macs);

// The table's identity for --json: node, measured or scaled, method, clock.
nlohmann::ordered_json EnergyTableJson(const EnergyTable& table);

}  // namespace mxu::energy

#endif  // MXU_ENERGY_ENERGY_MODEL_H_
