"""What the whole flow shares: the repository's paths, the liberty (MXU_PPA_LIBERTY overrides
osu018's) and the node and supply it measures at."""
import os

import yosys  # scripts/lib, on the path of whatever imports ppa_lib


ROOT = yosys.ROOT
RTL = yosys.RTL
LIBERTY = os.environ.get("MXU_PPA_LIBERTY", "/usr/share/qflow/tech/osu018/osu018_stdcells.lib")
NODE_NM = 180
VDD = 1.8
