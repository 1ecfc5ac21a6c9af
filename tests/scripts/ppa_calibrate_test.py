"""scripts/ppa.sh --calibrate --from energy/ppa.json regenerates the committed energy tables
(energy/NODEnm.json, built into `mxu bench --energy`) exactly; the scaling to other nodes follows
Stillmaker and Baas's factors (the paper's area table at 7 nm; 28 nm between 32 and 20 nm); bad
input is refused on one line with exit status 2. No synthesis: seconds."""

import json
import sys
import tempfile
from pathlib import Path

import pytest

from script_runs import ROOT, SCRIPTS, assert_refused, run_script

sys.path.insert(0, str(SCRIPTS / "lib"))
from ppa_lib import energy, nodes  # noqa: E402 (scripts/ppa.py's flow, imported)

SCRIPT = SCRIPTS / "ppa.sh"


def refused(args, word):
    assert_refused(SCRIPT, args, word)


def test_gated_calibration() -> None:
    """Under clock gating each block's clock is priced per cycle it runs (the clock counters):
    a PE's cycle is the array gates' clock power (clock_gates.clock_mw) per PE, each block's its
    gates' (a DMA engine's a third of the DMA's), a MAC the array's power above idle less its
    clocks at their duty, the rest of the logic less the gated blocks' clocks at their duty. A
    result with duties but no clock_mw is refused."""
    r = json.loads((ROOT / "energy" / "ppa.json").read_text())
    a, f_hz = r["array"], r["fmax_mhz"] * 1e6
    clock_mw = {"u_datapath/u_array/g_col[0]/u_col/g_gate/u_icg": 40.0,
                "u_datapath/u_array/g_gate/u_icg": 10.0, "u_datapath/u_acc/g_gate/u_icg": 6.0,
                "u_datapath/u_activation/g_gate/u_icg": 3.0, "u_dma/u_store/g_gate/u_icg": 9.0}
    r["clock_gates"] = {"duty": {w: dict.fromkeys(clock_mw, 0.5)
                                 for w in ("bf16", "int8", "quarter")}, "clock_mw": clock_mw}
    t = energy.energy_tables(r)[180]

    def pj(mw):
        return mw * 1e-3 / f_hz * 1e12

    ap, lp, mpc = r["array_power_mw"], r["power_mw"], r["macs_per_cycle"]
    want = {"pe_cycle_pj": pj(50.0) / (a["rows"] * a["cols"]), "acc_cycle_pj": pj(6.0),
            "activate_cycle_pj": pj(3.0), "dma_cycle_pj": pj(9.0) / 3,
            "control_cycle_pj": pj(lp["bf16"] - ap["bf16"] - 0.5 * (6.0 + 3.0 + 9.0))}
    for key, value in want.items():
        assert abs(t[key] - value) < 1e-5, (key, t[key], value)
    mac = (pj(ap["bf16"]) - pj(ap["idle"]) - pj(0.5 * 50.0)) / mpc["bf16"]
    assert abs(t["mac_pj"]["bf16"] - mac) < 1e-5, (t["mac_pj"], mac)
    del r["clock_gates"]["clock_mw"]
    with pytest.raises(SystemExit) as e:  # a result with duties and no clock_mw
        energy.energy_tables(r)
    assert e.value.code == 2, e.value.code


def test_tables_regenerate():
    tables = sorted((ROOT / "energy").glob("*nm.json"))
    assert [t.name for t in tables] == ["180nm.json", "28nm.json", "7nm.json"], tables
    with tempfile.TemporaryDirectory() as out:
        r = run_script(SCRIPT, "--calibrate", "--from", str(ROOT / "energy" / "ppa.json"), "--out", out)
        assert r.returncode == 0, r.stderr
        for t in tables:
            made = json.loads((Path(out) / t.name).read_text())
            assert made == json.loads(t.read_text()), (
                f"energy/{t.name} is not what scripts/ppa.sh --calibrate --from energy/ppa.json "
                f"makes: regenerate it")
        measured = json.loads((ROOT / "energy" / "180nm.json").read_text())
        assert measured["measured"] is True and measured["node_nm"] == 180
        for node in ("28", "7"):
            scaled = json.loads((ROOT / "energy" / f"{node}nm.json").read_text())
            assert scaled["measured"] is False and "Stillmaker" in scaled["method"]
            assert scaled["mac_pj"]["bf16"] < measured["mac_pj"]["bf16"]
            assert scaled["clock_mhz"] > measured["clock_mhz"]
        # A result without power, a missing file: one line each.
        no_power = Path(out) / "no_power.json"
        no_power.write_text(json.dumps({"fmax_mhz": 100.0, "power_mw": None}))
        refused(["--calibrate", "--from", str(no_power), "--out", out], "power")
        refused(["--calibrate", "--from", str(Path(out) / "missing.json")], "missing.json")
        # Issue 58, item 12: JSON that is not a result, a result cut short, an --out that is a
        # file: one line each, nothing written.
        listed = Path(out) / "list.json"
        listed.write_text("[1, 2]")
        refused(["--calibrate", "--from", str(listed)], "not a PPA result")
        partial = Path(out) / "partial.json"
        partial.write_text(json.dumps({"array_power_mw": {}, "fmax_mhz": 100.0}))
        refused(["--calibrate", "--from", str(partial), "--out", str(Path(out) / "p")],
                "not a whole PPA result")
        assert not (Path(out) / "p").exists()
        afile = Path(out) / "afile"
        afile.write_text("mine")
        refused(["--calibrate", "--from", str(ROOT / "energy" / "ppa.json"), "--out", str(afile)],
                "not a directory")
        assert afile.read_text() == "mine"
    refused(["--from", "x.json"], "--calibrate")
    refused(["--calibrate", "--module", "mxu_pe"], "--module")


def test_scaling_factors():
    """The paper's area factor at 7 nm; 180 nm is the unit; 28 nm lies between 32 and 20 nm; a
    node outside 180..7 nm refused."""
    assert nodes.scale(180) == {"area": 1.0, "delay": 1.0, "energy": 1.0, "vdd": 1.8}
    assert nodes.scale(7)["area"] == 0.0032
    for key in ("area", "energy"):
        assert nodes.scale(20)[key] < nodes.scale(28)[key] < nodes.scale(32)[key], key
    assert nodes.scale(7)["energy"] < nodes.scale(28)["energy"] < nodes.scale(65)["energy"] < 1
    with pytest.raises(SystemExit) as e:
        nodes.scale(5)
    assert e.value.code == 2
