#include "energy/energy_model.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "energy/energy_tables.h"

namespace mxu::energy {
namespace {

using Json = nlohmann::json;

const Json& Key(const Json& json, const char* key) {
  if (!json.is_object() || !json.contains(key)) {
    throw std::runtime_error(std::string("energy table: no '") + key + "'");
  }
  return json.at(key);
}

SramBitEnergy SramOf(const Json& srams, const char* kind) {
  const Json& s = Key(srams, kind);
  return {Key(s, "read").get<double>(), Key(s, "write").get<double>()};
}

uint64_t Count(const nlohmann::ordered_json& row, const char* key) {
  if (!row.contains(key)) throw std::runtime_error(std::string("bench row: no '") + key + "'");
  return row.at(key).get<uint64_t>();
}

}  // namespace

EnergyTable ParseEnergyTable(const Json& json) {
  EnergyTable t;
  t.node_nm = Key(json, "node_nm").get<int>();
  t.measured = Key(json, "measured").get<bool>();
  t.method = Key(json, "method").get<std::string>();
  t.clock_mhz = Key(json, "clock_mhz").get<double>();
  t.pe_cycle_pj = Key(json, "pe_cycle_pj").get<double>();
  t.acc_cycle_pj = Key(json, "acc_cycle_pj").get<double>();
  t.activate_cycle_pj = Key(json, "activate_cycle_pj").get<double>();
  t.dma_cycle_pj = Key(json, "dma_cycle_pj").get<double>();
  const Json& mac = Key(json, "mac_pj");
  t.mac_bf16_pj = Key(mac, "bf16").get<double>();
  t.mac_int8_pj = Key(mac, "int8").get<double>();
  t.control_cycle_pj = Key(json, "control_cycle_pj").get<double>();
  const Json& srams = Key(json, "sram_pj_per_bit");
  t.ub = SramOf(srams, "ub");
  t.acc = SramOf(srams, "acc");
  t.wfifo = SramOf(srams, "wfifo");
  t.transpose = SramOf(srams, "transpose");
  t.dram_pj_per_byte = Key(json, "dram_pj_per_byte").get<double>();
  const Json& area = Key(json, "area_um2");
  t.pe_um2 = Key(area, "pe").get<double>();
  t.control_um2 = Key(area, "control").get<double>();
  t.sram_um2_per_bit = Key(area, "sram_per_bit").get<double>();
  return t;
}

std::vector<int> EnergyNodes() {
  std::vector<int> nodes;
  for (const EnergyTableText& t : BuiltInEnergyTables()) nodes.push_back(t.node_nm);
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

EnergyTable EnergyTableFor(int node_nm) {
  for (const EnergyTableText& t : BuiltInEnergyTables()) {
    if (t.node_nm == node_nm) return ParseEnergyTable(Json::parse(t.json));
  }
  std::string known;
  for (int node : EnergyNodes()) known += (known.empty() ? "" : ", ") + std::to_string(node);
  throw std::invalid_argument("--energy-node " + std::to_string(node_nm) +
                              ": no energy table for that node (" + known + " nm)");
}

Energy EnergyOfRow(const EnergyTable& t, const nlohmann::ordered_json& row) {
  const double rows = Count(row, "array_rows"), cols = Count(row, "array_cols");
  const double bus_bits = 8.0 * Count(row, "bus_bytes");
  const bool int8 = row.at("dtype").get<std::string>() == "int8";
  const nlohmann::ordered_json& a = row.at("buffer_accesses");
  // Bits of a row of each memory: the unified buffer's lanes are the array's rows, bf16; the
  // accumulators' and the weight FIFO's its columns, fp32 and bf16; a transposer lane memory's
  // word is a host-memory beat.
  const double ub_bits = 16 * rows, acc_bits = 32 * cols, wfifo_bits = 16 * cols;
  constexpr double kMicro = 1e-6;  // pJ -> uJ
  Energy e;
  e.mac_uj = Count(row, "device_macs") * (int8 ? t.mac_int8_pj : t.mac_bf16_pj) * kMicro;
  // COLUMN_CLOCKS counts a column's cycle once per column: times the rows, PE cycles.
  e.clock_uj =
      (rows * Count(row, "column_clocks") * t.pe_cycle_pj +
       Count(row, "acc_clocks") * t.acc_cycle_pj +
       Count(row, "activate_clocks") * t.activate_cycle_pj +
       Count(row, "dma_clocks") * t.dma_cycle_pj + Count(row, "cycles") * t.control_cycle_pj) *
      kMicro;
  e.sram_uj =
      (Count(a, "ub_reads") * ub_bits * t.ub.read + Count(a, "ub_writes") * ub_bits * t.ub.write +
       Count(a, "acc_reads") * acc_bits * t.acc.read +
       Count(a, "acc_writes") * acc_bits * t.acc.write +
       Count(a, "wfifo_reads") * wfifo_bits * t.wfifo.read +
       Count(a, "wfifo_writes") * wfifo_bits * t.wfifo.write +
       Count(a, "transpose_reads") * bus_bits * t.transpose.read +
       Count(a, "transpose_writes") * bus_bits * t.transpose.write) *
      kMicro;
  e.dram_uj = double(Count(row, "dma_read_bytes") + Count(row, "dma_write_bytes")) *
              t.dram_pj_per_byte * kMicro;
  return e;
}

nlohmann::ordered_json EnergyJson(const Energy& e, double useful_macs) {
  nlohmann::ordered_json j = {{"mac_uj", e.mac_uj},
                              {"clock_uj", e.clock_uj},
                              {"sram_uj", e.sram_uj},
                              {"dram_uj", e.dram_uj},
                              {"total_uj", e.total_uj()}};
  if (useful_macs > 0 && e.total_uj() > 0) {
    j["pj_per_mac"] = e.total_uj() * 1e6 / useful_macs;
    // 2 ops a MAC over the energy: ops per pJ = TOPS/W.
    j["tops_per_watt"] = 2 * useful_macs / (e.total_uj() * 1e6);
  }
  return j;
}

nlohmann::ordered_json EnergyTableJson(const EnergyTable& t) {
  return {{"node_nm", t.node_nm},
          {"measured", t.measured},
          {"method", t.method},
          {"clock_mhz", t.clock_mhz}};
}

}  // namespace mxu::energy
