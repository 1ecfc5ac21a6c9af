// `mxu bench --energy`: each GEMM's energy (energy/energy_model.h) in its row, the totals of each
// device and memory setting with their estimated area, ranked by time, energy and area, and the
// table on stdout.
#ifndef MXU_HOST_BENCH_ENERGY_REPORT_H_
#define MXU_HOST_BENCH_ENERGY_REPORT_H_

#include <nlohmann/json.hpp>
#include <string>

#include "energy/energy_model.h"

namespace mxu::host {

// The energy model's types, as the tool's reports speak of them.
using energy::Energy;
using energy::EnergyJson;
using energy::EnergyOfRow;
using energy::EnergyTable;
using energy::EnergyTableJson;

// The built-in table of a node; UsageError naming the nodes there are otherwise.
EnergyTable EnergyTableFor(int node_nm);

// The device's area at the table's node (mm^2), estimated from its configuration (ConfigJson):
// its PEs and the rest of the logic as synthesized for the table, its unified buffer,
// accumulators and weight FIFO at the SRAM model's area per bit (the transposer's small lane
// memories left out).
double EstimatedAreaMm2(const EnergyTable& table, const nlohmann::ordered_json& device);

// row["energy"] (EnergyJson, useful MACs = the row's M x K x N) and row["device_area_mm2"].
void AddEnergy(const EnergyTable& table, const nlohmann::ordered_json& device,
               nlohmann::ordered_json* row);

// One entry per device and memory setting of the rows (by "point", "device_spec", "setting"):
// the device's spec (device_spec for rows that name none: no --sweep), its memory ("latency L,
// B B/cycle, F in flight"), the energy parts summed, pJ per MAC, TOPS/W, microseconds at the
// table's clock, area, TOPS per mm^2, and each group's rank (1 = best) by time, by energy and by
// area.
nlohmann::ordered_json EnergySummary(const EnergyTable& table, const nlohmann::ordered_json& rows,
                                     const std::string& device_spec);

// Each GEMM's energy, then the summary; with `network`, one inference per group (inferences
// per joule).
void PrintEnergy(const EnergyTable& table, const nlohmann::ordered_json& rows,
                 const nlohmann::ordered_json& summary, bool network);

}  // namespace mxu::host

#endif  // MXU_HOST_BENCH_ENERGY_REPORT_H_
