#!/usr/bin/env python3
"""`mxu bench --energy` (energy/energy_model.h) against the formula worked here from the tables'
JSON (energy/NODEnm.json) and each row's own counters: energy = MACs x energy per MAC + cycles x
(PEs x a PE's clock + the rest of the logic's cycle) + each buffer's rows x bits x energy per bit
+ host-memory bytes x energy per byte. Also: the summary's sums and ranks, a sweep's areas, a
topology's inferences per joule, and bad input (an unknown node, --energy-node alone) refused on
one line with exit status 2.

Usage: bench_energy_test.py MXU_BINARY SOURCE_DIR"""

import json
import math
import os
import re
import subprocess
import sys
import tempfile

MXU, SRC = sys.argv[1], sys.argv[2]


def table(node: int) -> dict:
    with open(os.path.join(SRC, "energy", f"{node}nm.json")) as f:
        return json.load(f)


def expected_uj(t: dict, r: dict) -> dict:
    a = r["buffer_accesses"]
    bits = {"ub": 16 * r["array_rows"], "acc": 32 * r["array_cols"],
            "wfifo": 16 * r["array_cols"], "transpose": 8 * r["bus_bytes"]}
    sram = 0.0
    for kind, width in bits.items():
        e = t["sram_pj_per_bit"][kind]
        sram += (a[kind + "_reads"] * e["read"] + a[kind + "_writes"] * e["write"]) * width
    parts = {
        "mac_uj": r["device_macs"] * t["mac_pj"][r["dtype"]],
        "clock_uj": (r["array_rows"] * r["column_clocks"] * t["pe_cycle_pj"]
                     + r["acc_clocks"] * t["acc_cycle_pj"]
                     + r["activate_clocks"] * t["activate_cycle_pj"]
                     + r["dma_clocks"] * t["dma_cycle_pj"]
                     + r["cycles"] * t["control_cycle_pj"]),
        "sram_uj": sram,
        "dram_uj": (r["dma_read_bytes"] + r["dma_write_bytes"]) * t["dram_pj_per_byte"],
    }
    parts = {k: v * 1e-6 for k, v in parts.items()}
    parts["total_uj"] = sum(parts.values())
    return parts


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def bench(work: str, *args: str) -> dict:
    out = os.path.join(work, "b.json")
    r = subprocess.run([MXU, "bench", "--backend", "model", *args, "--json", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, (args, r.stderr)
    with open(out) as f:
        j = json.load(f)
    j["stdout"] = r.stdout
    return j


def check_rows(j: dict, node: int) -> None:
    t = table(node)
    assert j["energy_model"]["node_nm"] == node
    assert j["energy_model"]["measured"] == (node == 180)
    for r in j["rows"]:
        want = expected_uj(t, r)
        for k, v in want.items():
            assert close(r["energy"][k], v), (node, r["name"], k, r["energy"][k], v)
        assert r["energy"]["total_uj"] > 0 and r["energy"]["mac_uj"] > 0
        assert close(r["energy"]["pj_per_mac"], want["total_uj"] * 1e6 / r["macs"])
        assert close(r["energy"]["tops_per_watt"], 2 * r["macs"] / (want["total_uj"] * 1e6))
    # The summary: one group here, the sums of the rows.
    (g,) = j["energy"]
    assert close(g["total_uj"], sum(r["energy"]["total_uj"] for r in j["rows"]))
    assert g["rank_time"] == g["rank_energy"] == g["rank_area"] == 1


def refused(args: list[str], word: str) -> None:
    r = subprocess.run([MXU, "bench", *args], capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and word in lines[0], (args, r.returncode,
                                                                         r.stderr)


def labels_name_the_device(work: str) -> None:
    """Issue 58, item 15: the summary and energy[].device_spec name the device as given, options
    and all, and its memory by its figures, not its setting's number; a sweep's rows come under
    their device's heading."""
    for spec in ("8x4-flush", "32x32:pe=3"):
        j = bench(work, "--shape", "64x48x40", "--energy", "--device", spec)
        (g,) = j["energy"]
        assert g["device_spec"] == spec, g
        assert f"\n{spec}, memory latency " in j["stdout"], j["stdout"]
        assert " mem 0" not in j["stdout"], j["stdout"]
    j = bench(work, "--shape", "64x48x40", "--energy")
    assert j["energy"][0]["device_spec"] not in ("-", ""), j["energy"]
    assert j["energy"][0]["memory"].startswith("latency "), j["energy"]
    j = bench(work, "--shape", "64x48x40", "--energy", "--sweep", "8x8,16x16")
    energy = j["stdout"][j["stdout"].index("\nenergy at"):]
    first, second = energy.index("\n8x8, memory latency"), energy.index("\n16x16, memory latency")
    assert first < energy.index("\n64x48x40 ") < second, energy


def jobs_and_failures() -> None:
    """Issue 58, item 15: the jobs actually used, a watchdog failure naming its GEMM and, under
    --jobs, the table's heading printed before the failure as in one process."""
    shapes = ["--shape", "64x48x40", "--shape", "40x24x20", "--shape", "32x32x32"]
    with tempfile.TemporaryDirectory() as work:
        j = bench(work, *shapes, "--jobs", "64")
        assert j["summary"]["jobs"] == 3 and " on 3 jobs" in j["stdout"], j["stdout"]
    for jobs in ("1", "2"):
        r = subprocess.run([MXU, "bench", "--backend", "model", "--shape", "64x48x40", "--shape",
                            "40x24x20", "--watchdog", "10", "--jobs", jobs],
                           capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 1 and len(lines) == 1, (jobs, r.returncode, r.stderr)
        # Under --jobs either GEMM may fail first; each is named.
        assert re.search(r"GEMM (64x48x40|40x24x20): watchdog", lines[0]), lines
        assert r.stdout.startswith("memory: ") and "\nname " in r.stdout, (jobs, r.stdout)


def main() -> int:
    shapes = ["--shape", "64x48x40", "--shape", "40x24x20:ta:tb", "--shape", "32x32x32:int8"]
    with tempfile.TemporaryDirectory() as work:
        for node in (180, 28, 7):
            j = bench(work, *shapes, "--energy", "--energy-node", str(node))
            check_rows(j, node)
        # Scaled nodes cost less than the measured one, the same counts.
        j180 = bench(work, *shapes, "--energy")
        j7 = bench(work, *shapes, "--energy", "--energy-node", "7")
        for a, b in zip(j180["rows"], j7["rows"]):
            assert a["cycles"] == b["cycles"] and a["buffer_accesses"] == b["buffer_accesses"]
            assert b["energy"]["mac_uj"] < a["energy"]["mac_uj"]
        assert "pJ/MAC" in j180["stdout"] and "TOPS/W" in j180["stdout"]

        # A sweep: one group per device, the bigger device bigger in area, ranks a permutation.
        j = bench(work, "--shape", "128x128x128", "--energy", "--sweep", "8x8,16x16,32x32")
        groups = j["energy"]
        assert [g["device_spec"] for g in groups] == ["8x8", "16x16", "32x32"]
        assert groups[0]["area_mm2"] < groups[1]["area_mm2"] < groups[2]["area_mm2"]
        assert [g["rank_area"] for g in groups] == [1, 2, 3]
        for key in ("rank_time", "rank_energy"):
            assert sorted(g[key] for g in groups) == [1, 2, 3], groups
        assert [g["rank_time"] for g in groups] == [3, 2, 1]  # more PEs, fewer cycles

        # Energy follows the clock gates: the same GEMM on a gated device and an ungated one
        # (gate=0) takes the same cycles; ungated, every clock counter counts every cycle, and
        # the clocks cost more.
        j = bench(work, "--shape", "64x256x4", "--energy", "--sweep", "16x16,16x16:gate=0")
        gated, plain = j["rows"]
        assert gated["cycles"] == plain["cycles"], (gated["cycles"], plain["cycles"])
        cycles = plain["cycles"]
        assert plain["column_clocks"] == 16 * cycles and plain["acc_clocks"] == cycles
        assert plain["activate_clocks"] == cycles and plain["dma_clocks"] == 3 * cycles
        assert 0 < gated["column_clocks"] < plain["column_clocks"], gated
        assert gated["acc_clocks"] < cycles and gated["activate_clocks"] < cycles, gated
        assert gated["energy"]["clock_uj"] < plain["energy"]["clock_uj"], (gated, plain)

        # A topology: one inference, inferences per joule.
        j = bench(work, "--topology", os.path.join(SRC, "topologies", "mobilenet_v1_pointwise.csv"),
                  "--energy")
        (g,) = j["energy"]
        assert close(g["total_uj"], sum(r["energy"]["total_uj"] for r in j["rows"]))
        assert "inferences per joule" in j["stdout"]

        labels_name_the_device(work)
    jobs_and_failures()

    refused(["--shape", "16x16x16", "--energy", "--energy-node", "45"], "45")
    refused(["--shape", "16x16x16", "--energy-node", "7"], "--energy")
    print("bench --energy: formula, summary, sweep, topology and bad input checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
