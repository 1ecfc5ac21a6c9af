// The energy model's tables as built into the tool (generated from energy/NODEnm.json).
#ifndef MXU_ENERGY_ENERGY_TABLES_H_
#define MXU_ENERGY_ENERGY_TABLES_H_

#include <vector>

namespace mxu::energy {

struct EnergyTableText {
  int node_nm;
  const char* json;
};

const std::vector<EnergyTableText>& BuiltInEnergyTables();

}  // namespace mxu::energy

#endif  // MXU_ENERGY_ENERGY_TABLES_H_
