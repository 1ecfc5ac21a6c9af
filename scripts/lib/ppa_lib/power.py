"""The device's power per workload: OpenSTA on each module at its measured toggle rate, each
register's clock times its gate's duty, the SRAMs by the model and the trace's accesses."""
import math

from .activity import (WINDOW, WORKLOADS, gate_duties, measure_activity, module_rates,
                       trace_root, workload_gemm)
from .clocks import ClockDomains, _base, own_clock_groups
from .netlist import own_netlist
from .sram import sram_model
from .sta import gated_power, sta_power


LOADS = WORKLOADS + ("idle",)


def device_power(d: dict, modules: dict, top: str, tree: list, count: dict,
                 srams: list, fmax: float, gating: dict, work: str, timeout: int, log) -> dict:
    """The device's power at Fmax per workload (power_mw and the keys beside it): each module's
    own cells by OpenSTA at the module's measured toggle rate, each instance's clock share
    scaled by its clock domain's duty (gated_power); the SRAMs by the model and the trace's
    accesses. Idle: the device powered with no command in flight, every gate's enable low
    (duty 0) and no data moving (toggle rate 0)."""
    act = measure_activity(d, work, timeout, log)
    root = trace_root(act["bf16"])
    rates = {w: module_rates(act[w], tree, root) for w in WORKLOADS}
    dom = ClockDomains(modules, top, gating)
    gates = dom.gates()
    duty = {w: gate_duties(act[w], gates, root, log) for w in WORKLOADS}
    duty["idle"] = dict.fromkeys(gates, 0.0)
    arrays = [p for p, m in tree if _base(m) == "mxu_systolic_array"]
    period = round(1e3 / fmax, 3)
    log(f"power: {len(count)} modules at {period} ns (OpenSTA report_power), "
        f"{len(gates)} clock gates")
    power = dict.fromkeys(LOADS, 0.0)
    array_power = dict.fromkeys(LOADS, 0.0)
    gate_clock = dict.fromkeys(gates, 0.0)  # each gate's registers' clock power, the gate open
    paths: dict[str, list[str]] = {}
    for path, (_, _, m) in dom.inst.items():
        paths.setdefault(m, []).append(path)
    for m in count:
        if _base(m) == "mxu_sram_1r1w":
            continue
        groups = own_clock_groups(modules, m, gating)
        keyed = [g for g in groups if g != ("port", "clk_i")]
        mr = {w: rates[w].get(m, 0.0) for w in WORKLOADS}
        mr["idle"] = 0.0
        p = sta_power(own_netlist(modules, m, work), m, period, mr, groups, work, timeout)
        for path in paths.get(m, []):
            def duty_of(g, path=path):
                where = dom.resolve(path, g)
                return {w: duty[w].get(where, 1.0) if where else 1.0 for w in LOADS}
            pw = gated_power(p, keyed, duty_of)
            # The clock share (dyn0) behind each gate: the groups' own, the rest the instance's.
            shares = {dom.resolve(path, ("local",)):
                      p["dyn0"] - sum(p["clock"].get(g, 0.0) for g in keyed)}
            for g in keyed:
                where = dom.resolve(path, g)
                shares[where] = shares.get(where, 0.0) + p["clock"].get(g, 0.0)
            for where, mw in shares.items():
                if where in gate_clock:
                    gate_clock[where] += mw
            inside = any(path == a or path.startswith(a + "/") for a in arrays)
            for w in LOADS:
                power[w] += pw[w]
                array_power[w] += pw[w] if inside else 0.0
    # The SRAMs: reads and writes counted in the trace (the enables at each rising edge,
    # scripts/ppa_activity.py) times the model's energy per access; idle: none.
    sram_pj = dict.fromkeys(LOADS, 0.0)  # pJ per cycle
    sram_acc = {}
    for w in WORKLOADS:
        cyc = max(1, act[w]["cycles"])
        for a in act[w].get("srams", {}).values():
            dep = next((s["depth"] for s in srams if s["width"] == a["width"] and
                        max(1, math.ceil(math.log2(max(s["depth"], 2)))) == a["addr_bits"]),
                       2 ** a["addr_bits"])
            e = sram_model(a["width"], dep)
            sram_pj[w] += (a["reads"] * e["read_pj"] + a["writes"] * e["write_pj"]) / cyc
            sram_acc[w] = sram_acc.get(w, 0) + a["reads"] + a["writes"]
    # MACs a cycle over the whole GEMM (M x K x N / its cycles: the quarter's useful ones).
    macs = {w: act[w]["gemm"]["macs"] / act[w]["gemm"]["cycles"] for w in WORKLOADS}
    f_hz = fmax * 1e6
    sram_mw = {w: sram_pj[w] * fmax * 1e-3 for w in sram_pj}
    q, s = workload_gemm("quarter", d), workload_gemm("short_k", d)
    return {
        "power_mw": {w: round(power[w], 2) for w in LOADS},
        "array_power_mw": {w: round(array_power[w], 2) for w in LOADS},
        "sram_power_mw": {w: round(sram_mw[w], 2) for w in LOADS},
        "total_power_mw": {w: round(power[w] + sram_mw[w], 2) for w in LOADS},
        # Each workload's logic power as a share of the bf16 GEMM's (issue 66's targets).
        "power_share": {w: round(power[w] / power["bf16"], 4) if power["bf16"] else None
                        for w in LOADS if w != "bf16"},
        "sram_accesses_per_cycle": {w: round(sram_acc.get(w, 0) / max(1, act[w]["cycles"]), 3)
                                    for w in WORKLOADS},
        "macs_per_cycle": {w: round(macs[w], 3) for w in WORKLOADS},
        "power_note": ("at Fmax; power_mw: synthesized logic, each register's clock times its "
                       "clock gate's duty (clock_gates.clock_mw: each gate's registers' clock "
                       "power with the gate open); sram_power_mw: the SRAM model times the accesses "
                       "counted in the trace; bf16/int8: 256^3 GEMM, cycles 30000-31000; "
                       f"quarter: bf16 {q[1]} x {q[3]} x {q[5]}, short_k: bf16 {s[1]} x {s[3]} x "
                       f"{s[5]}, the middle {WINDOW} cycles of each; "
                       "idle: no command in flight (every gate off, no data moving)"),
        "energy_pj_per_mac": {w: round((power[w] + sram_mw[w]) * 1e-3 / f_hz / macs[w] * 1e12, 3)
                              for w in WORKLOADS},
        "energy_pj_per_mac_logic": {w: round(power[w] * 1e-3 / f_hz / macs[w] * 1e12, 3)
                                    for w in WORKLOADS},
        "idle_energy_pj_per_cycle": round(power["idle"] * 1e-3 / f_hz * 1e12, 3),
        "toggle_rate": {w: round(sum(a[1] for a in act[w]["scopes"].values())
                                 / max(1, sum(a[0] for a in act[w]["scopes"].values()))
                                 / max(1, act[w]["cycles"]), 4) for w in WORKLOADS},
        "clock_gates": {"duty": {w: {g: round(duty[w][g], 4) for g in gates} for w in WORKLOADS},
                        "clock_mw": {g: round(gate_clock[g], 3) for g in gates},
                        "windows": {w: act[w]["window"] for w in WORKLOADS}},
    }
