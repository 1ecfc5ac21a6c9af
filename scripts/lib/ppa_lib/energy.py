"""The energy model's tables (energy/NODEnm.json, mxu bench --energy) from a PPA result with
power."""
import json
import os

import device_table

from .config import NODE_NM, ROOT
from .nodes import SCALED_NODES, SCALING_METHOD, scale
from .sram import SRAM, sram_model
from .workdirs import die


# The energy model's per-action energies (mxu bench --energy, energy/energy_model.h): one file per
# node in energy/, made from a PPA result with power (--calibrate).
ENERGY_DIR = os.path.join(ROOT, "energy")
ACC_BANKS = device_table.constant("acc_banks")  # each bank a macro of AccDepth / ACC_BANKS rows
# rtl/datapath/mxu_unified_buffer.sv g_bank: even and odd rows, each a macro of UbDepth / 2
UB_BANKS = 2
# Host memory (DDR3-class DRAM), not scaled with the logic's node: Horowitz, "Computing's energy
# problem (and what we can do about it)", ISSCC 2014: a 64-bit DRAM access 1.3 to 2.6 nJ; the
# low end, 20 pJ a bit.
DRAM_PJ_PER_BYTE = 160.0


def energy_tables(r: dict) -> dict[int, dict]:
    """Per-action energies (pJ) at 180 nm (measured) and at SCALED_NODES (scaled), from a PPA
    result with power: per cycle each clock runs (the clock counters), a PE's (its column's
    gate open, the clock alone), the accumulators', the activation unit's, a DMA engine's; a MAC
    above its PE's clock; the rest of the logic's cycle (busy, bf16); each SRAM's read and write
    per bit (the model); a host-memory byte. On an ungated device the array's clock is its idle
    power and the blocks' clocks are in the rest."""
    if not isinstance(r.get("array_power_mw"), dict) or not r.get("fmax_mhz"):
        die("--calibrate needs a PPA result with power (array_power_mw): run it without "
            "--no-power or --module")
    a = r["array"]
    f_hz = r["fmax_mhz"] * 1e6

    def pj(mw: float) -> float:  # mW at Fmax -> pJ a cycle
        return mw * 1e-3 / f_hz * 1e12

    ap, lp, mpc = r["array_power_mw"], r["power_mw"], r["macs_per_cycle"]
    gates = r.get("clock_gates") or {}
    clock_mw, duty = gates.get("clock_mw", {}), gates.get("duty", {})
    if gates.get("duty", {}).get("bf16") and not clock_mw:
        die("--calibrate needs a PPA result with clock_gates.clock_mw: run scripts/ppa.sh again")

    def domain(part: str) -> list[str]:  # the gates of one block (a path element)
        # A PE's own gates (its pipelines', its weights': rtl/array/mxu_pe.sv) open per operation:
        # their clocks are a MAC's, not the column's cycle's.
        return [g for g in clock_mw if f"/{part}/" in f"/{g}/" and "/u_pe/" not in f"/{g}/"]

    def open_mw(part: str) -> float:  # the block's clock power, its gates open
        return sum(clock_mw[g] for g in domain(part))

    def run_mw(part: str, w: str) -> float:  # ... at the workload's duties
        return sum(clock_mw[g] * duty[w][g] for g in domain(part))

    engines = 3  # the DMA's gated engines: activation load, weight load, store (DMA_CLOCKS)
    array_gated = bool(domain("u_array"))
    array_clock = open_mw("u_array") if array_gated else ap["idle"]

    def per_bit(width: int, depth: int) -> dict:
        s = sram_model(width, depth)
        return {"width": width, "depth": depth, "read": s["read_pj"] / width,
                "write": s["write_pj"] / width}

    known = {(a["ub"] // UB_BANKS, a["rows"] * 16), (a["wfifo"], a["cols"] * 16),
             (a["acc"] // ACC_BANKS, a["cols"] * 32)}
    lanes = [s for s in r["srams"] if s["width"] == a["bus"] * 8
             and (s["depth"], s["width"]) not in known]
    t_depth = max((s["depth"] for s in lanes), default=a["wfifo"])
    base = {
        "clock_mhz": r["fmax_mhz"],
        "pe_cycle_pj": pj(array_clock) / (a["rows"] * a["cols"]),
        "acc_cycle_pj": pj(open_mw("u_acc")),
        "activate_cycle_pj": pj(open_mw("u_activation")),
        "dma_cycle_pj": pj(open_mw("u_dma")) / engines,
        "mac_pj": {w: (pj(ap[w]) - pj(ap["idle"]) -
                       (pj(run_mw("u_array", w)) if array_gated else 0.0)) / mpc[w]
                   for w in ("bf16", "int8")},
        "control_cycle_pj": pj(lp["bf16"] - ap["bf16"] - sum(
            run_mw(p, "bf16") for p in ("u_acc", "u_activation", "u_dma"))),
        "sram_pj_per_bit": {
            "ub": per_bit(a["rows"] * 16, a["ub"] // UB_BANKS),
            "acc": per_bit(a["cols"] * 32, a["acc"] // ACC_BANKS),
            "wfifo": per_bit(a["cols"] * 16, a["wfifo"]),
            "transpose": per_bit(a["bus"] * 8, t_depth)},
        "dram_pj_per_byte": DRAM_PJ_PER_BYTE,
        "area_um2": {"pe": r["array_area_um2"] / (a["rows"] * a["cols"]),
                     "control": r["area_um2"]["logic"] - r["array_area_um2"],
                     "sram_per_bit": SRAM["cell_um2"] / SRAM["array_efficiency"]},
    }
    source = {"device": r["device"], "library": r["library"],
              "ppa": "scripts/ppa.sh --device '" + r["device"] + "' --json",
              "pe_cycle": "the clock power of the array's column-clocked registers, their gates "
                          "open, per PE and cycle (clock_gates.clock_mw; a PE's own gates "
                          "are in mac)",
              "acc_cycle": "the accumulators' registers' clock power, their gate open, a cycle",
              "activate_cycle": "the activation unit's registers' clock power, its gate open",
              "dma_cycle": "a DMA engine's registers' clock power, its gate open (0: not gated)",
              "mac": "the array's logic power in a 256^3 GEMM above idle and its column "
                     "clocks at their duty, per MAC (a PE's own pipeline and weight gates "
                     "included)",
              "control_cycle": "every other module's logic power in the bf16 GEMM, less the "
                               "gated blocks' clocks at their duty, per cycle",
              "sram": "the SRAM model of scripts/ppa.py (docs/ppa.md), per bit of the macro's "
                      "width, at the calibration device's macro sizes",
              "area": "the array's synthesized cells per PE, every other module's together, "
                      "and the SRAM model's area per bit",
              "dram": "Horowitz, ISSCC 2014: 64-bit DRAM access 1.3-2.6 nJ (the low end); "
                      "not scaled with the node"}
    out = {}
    for node in [NODE_NM] + SCALED_NODES:
        f = scale(node)
        e = f["energy"]

        def sc(v):
            return round(v * e, 6) if node != NODE_NM else round(v, 6)

        t = {"node_nm": node, "measured": node == NODE_NM,
             "method": "osu018, OpenSTA" if node == NODE_NM else SCALING_METHOD,
             "vdd": f["vdd"],
             "clock_mhz": round(base["clock_mhz"] / f["delay"], 1),
             "pe_cycle_pj": sc(base["pe_cycle_pj"]),
             "acc_cycle_pj": sc(base["acc_cycle_pj"]),
             "activate_cycle_pj": sc(base["activate_cycle_pj"]),
             "dma_cycle_pj": sc(base["dma_cycle_pj"]),
             "mac_pj": {w: sc(v) for w, v in base["mac_pj"].items()},
             "control_cycle_pj": sc(base["control_cycle_pj"]),
             "sram_pj_per_bit": {k: {"width": v["width"], "depth": v["depth"],
                                     "read": sc(v["read"]), "write": sc(v["write"])}
                                 for k, v in base["sram_pj_per_bit"].items()},
             "dram_pj_per_byte": DRAM_PJ_PER_BYTE,
             "area_um2": {k: round(v * f["area"], 4) for k, v in base["area_um2"].items()},
             "source": source}
        out[node] = t
    return out


def write_energy_tables(r: dict, out_dir: str) -> list[str]:
    """energy/NODEnm.json for each node, each written whole (a temporary renamed)."""
    tables = energy_tables(r)  # a bad result refused before anything is made
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for node, t in tables.items():
        path = os.path.join(out_dir, f"{node}nm.json")
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(t, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
        paths.append(path)
    return paths
