"""scripts/ppa.sh --json on one small module (the weight FIFO of a 4x4 device: its pointers and
the SRAM's port cells, seconds of Yosys and OpenSTA): one JSON object with the issue's keys, a
positive worst path, the SRAM from the model, the scaled nodes labelled as not measured; a bad
option, device, module or a missing liberty: one line, exit status 2. The PPA figures themselves
are not asserted (they depend on the tools' versions), only their presence and sign. And
scripts/ppa_activity.py's SRAM access count on a hand-made trace."""

import json
import os
import subprocess
import sys

import pytest

from script_runs import SCRIPTS, assert_refused, run_script

SCRIPT = SCRIPTS / "ppa.sh"


# A hand-made trace: a clock, an SRAM under a wrapper with the same port names (the accumulators'
# shape). The enables are sampled as they stand before each rising edge's time step: rd_en_i
# counts at edge 2 only (its rise in edge 1's own step does not count there), wr_en_i at 2 and 3.
VCD = """$scope module top $end
$var wire 1 ! clk_i $end
$scope module u_acc $end
$var wire 1 " rd_en_i $end
$var wire 2 # rd_addr_i [1:0] $end
$var wire 8 $ rd_data_o [7:0] $end
$var wire 1 % wr_en_i $end
$var wire 8 & wr_data_i [7:0] $end
$scope module u_sram $end
$var wire 1 " rd_en_i $end
$var wire 2 # rd_addr_i [1:0] $end
$var wire 8 $ rd_data_o [7:0] $end
$var wire 1 % wr_en_i $end
$var wire 8 & wr_data_i [7:0] $end
$upscope $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
0!
0"
b0 #
b0 $
0%
b0 &
#5
1!
1"
#10
0!
1%
#15
1!
0"
#20
0!
#25
1!
1%
#30
0!
0%
#35
1!
"""


def test_activity_counts_sram_accesses():
    tool = SCRIPT.parent / "ppa_activity.py"
    r = subprocess.run([sys.executable, str(tool)], input=VCD, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    assert a["cycles"] == 4, a
    assert list(a["srams"]) == ["top/u_acc/u_sram"], a["srams"]
    s = a["srams"]["top/u_acc/u_sram"]
    assert s == {"width": 8, "addr_bits": 2, "reads": 1, "writes": 2}, s


def test_weight_fifo():
    result = run_script(SCRIPT, "--device", "4x4", "--module", "mxu_weight_fifo", "--json")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, f"one JSON object expected, got {result.stdout!r}"
    obj = json.loads(lines[0])
    print(f"mxu_weight_fifo at 4x4: fmax {obj['fmax_mhz']} MHz, area {obj['area_um2']}")
    for key in ("node_nm", "fmax_mhz", "worst_path", "area_um2", "power_mw", "energy_pj_per_mac",
                "modules", "scaled"):
        assert key in obj, (key, obj)
    assert obj["node_nm"] == 180 and obj["measured"] is True, obj
    assert obj["worst_path"]["ns"] > 0 and obj["worst_path"]["start"], obj
    assert obj["fmax_mhz"] > 0, obj
    assert set(obj["area_um2"]) == {"logic", "sram", "total", "clock_gating"}, obj
    assert obj["area_um2"]["clock_gating"] == 0, obj  # the FIFO has no clock gate
    assert obj["area_um2"]["logic"] > 0 and obj["area_um2"]["sram"] > 0, obj
    assert set(obj["energy_pj_per_mac"]) == {"bf16", "int8"}, obj
    names = {m["module"] for m in obj["modules"]}
    assert {"mxu_weight_fifo", "mxu_fifo_ptr"} <= names, names
    for m in obj["modules"]:
        assert {"module", "area_um2", "worst_path_ns"} <= set(m), m
    # The FIFO's memory: one SRAM of the 4x4 device's weight FIFO, 4 lanes of 16 bits.
    assert len(obj["srams"]) == 1 and obj["srams"][0]["width"] == 4 * 16, obj["srams"]
    assert obj["srams"][0]["read_pj"] > 0 and obj["srams"][0]["access_ns"] > 0, obj["srams"]
    assert set(obj["scaled"]) == {"28", "7"}, obj["scaled"]
    for node, s in obj["scaled"].items():
        assert s["measured"] is False and s["node_nm"] == int(node), s
        assert s["area_um2"]["logic"] < obj["area_um2"]["logic"], s


@pytest.mark.parametrize("args,word", [
    (["--frobnicate"], "--frobnicate"),
    (["--device", "banana", "--json"], "banana"),
    (["--device", "4x4", "--module", "mxu_no_such_module"], "mxu_no_such_module"),
    (["--target-ns", "0"], "--target-ns"),
])
def test_refusals(args, word):
    assert_refused(SCRIPT, args, word)


def test_missing_liberty():
    env = dict(os.environ, MXU_PPA_LIBERTY="/nonexistent/osu018_stdcells.lib")
    assert_refused(SCRIPT, ["--module", "mxu_weight_fifo"], "liberty", env=env)
