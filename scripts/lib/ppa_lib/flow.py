"""One design measured: synthesis, every module's timing and, for the device, its power: the PPA
result."""
import os

from .clocks import ICG, _base
from .config import LIBERTY, NODE_NM
from .liberty import liberty_areas
from .netlist import instance_tree, load_netlist, sta_netlist
from .nodes import scaled
from .power import device_power
from .sram import sram_instances
from .sta import sta_timing
from .synth import parse_spec, synthesize


def module_rows(timing: dict, count: dict, incl, self_area: dict) -> dict:
    """A row per module (its variants together): instances, area, worst path and checks."""
    rows = {}
    for m in timing:
        base = m.split("__")[0]
        t = timing[m]
        r = rows.setdefault(base, {"module": base, "instances": 0, "area_um2": 0.0,
                                   "worst_path_ns": None, "variants": 0})
        r["instances"] += count[m]
        r["variants"] += 1
        r["area_um2"] = max(r["area_um2"], round(incl(m), 1))
        r.setdefault("device_area_um2", 0.0)
        r["device_area_um2"] = round(r["device_area_um2"] + self_area[m] * count[m], 1)
        if t.get("timeout"):
            r["timing"] = f"OpenSTA over {t['timeout']} s"
        elif t.get("ns") is not None and (r["worst_path_ns"] is None
                                          or t["ns"] > r["worst_path_ns"]):
            r["worst_path_ns"] = t["ns"]
            r["worst_path"] = {"start": t["start"], "end": t["end"], "check": t["check"]}
        if t.get("gating") and t["gating"]["ns"] > r.get("clock_gating_ns", 0.0):
            r["clock_gating_ns"] = t["gating"]["ns"]  # its worst clock-gating check
        if t.get("recovery"):
            r["recovery_slack_ns"] = t["recovery"]["slack_ns"]
    return rows


def worst_path(timing: dict) -> tuple[dict | None, str | None]:
    """The slowest module's path, and that module's name."""
    worst = max((t for t in timing.values() if t.get("ns")), key=lambda t: t["ns"],
                default=None)
    worst_mod = None
    for m, t in timing.items():
        if t is worst:
            worst_mod = m.split("__")[0]
    return worst, worst_mod


def array_share(tree: list, self_area: dict) -> float:
    """The array's area (every instance below the systolic array's): the energy model
    (--calibrate) prices a PE's cycle, a MAC and a PE's area apart from the rest."""
    arrays = [p for p, m in tree if m.split("__")[0] == "mxu_systolic_array"]
    in_array: dict[str, int] = {}
    for path, m in tree:
        if any(path == a or path.startswith(a + "/") for a in arrays):
            in_array[m] = in_array.get(m, 0) + 1
    return sum(self_area[m] * n for m, n in in_array.items())


def measure(args, gating: dict, work: str, log) -> dict:
    """Synthesis, timing of every module and, for the device, power: the result."""
    d = parse_spec(args.device, work)
    top = args.module or "mxu_top"
    log(f"synthesis of {top} at {d['spec']} (Yosys, ABC -D {int(args.target_ns * 1000)} ps)")
    netlist = synthesize(top, d, work, int(args.target_ns * 1000), args.timeout, gating)
    modules, whole = load_netlist(netlist)
    sta_net = sta_netlist(whole, work)
    top_name = top if top in modules else next(m for m in modules if m.startswith(top + "__"))
    tree = instance_tree(modules, top_name)
    count: dict[str, int] = {}
    for _, m in tree:
        count[m] = count.get(m, 0) + 1
    areas = liberty_areas(LIBERTY)
    self_area = {m: sum(areas.get(c, 0.0) * n for c, n in v["cells"].items())
                 for m, v in modules.items()}

    def incl(m):
        return self_area[m] + sum(incl(c) for c, _ in modules[m]["insts"] if c in modules)

    srams = sram_instances(modules, count)
    # Timing: each module with its submodules, register to register.
    log(f"timing: {len([m for m in count])} modules (OpenSTA, clock {args.target_ns} ns)")
    timing = {}
    for m in sorted(count, key=lambda x: incl(x)):
        if m.split("__")[0] == "mxu_sram_1r1w":
            continue
        timing[m] = sta_timing(sta_net, m, args.target_ns, work, args.timeout)
    rows = module_rows(timing, count, incl, self_area)
    worst, worst_mod = worst_path(timing)
    logic_area = incl(top_name)
    sram_area = sum(s["area_um2"] * s["instances"] for s in srams)
    sram_access = max((s["access_ns"] for s in srams), default=0.0)
    fmax = 1e3 / worst["ns"] if worst else None
    result = {
        "node_nm": NODE_NM, "measured": True, "device": d["spec"], "top": top,
        "library": os.path.basename(LIBERTY),
        "clock_constraint_ns": args.target_ns,
        "fmax_mhz": round(fmax, 1) if fmax else None,
        "fmax_note": "logic, register to register (SRAM ports ideal)",
        "worst_path": ({"start": worst["start"], "end": worst["end"], "ns": worst["ns"],
                        "module": worst_mod, "check": worst["check"]} if worst else None),
        "sram_access_ns": sram_access,
        "area_um2": {"logic": round(logic_area, 1), "sram": round(sram_area, 1),
                     "total": round(logic_area + sram_area, 1),
                     "clock_gating": round(sum(incl(m) * n for m, n in count.items()
                                               if _base(m) == ICG), 1)},
        "array_area_um2": round(array_share(tree, self_area), 1),
        "array": {k: int(d[k]) for k in ("rows", "cols", "ub", "acc", "wfifo", "bus")},
        "power_mw": None,
        "energy_pj_per_mac": {"bf16": None, "int8": None},
        "modules": sorted(rows.values(), key=lambda r: -r["area_um2"]),
        "srams": srams,
    }
    # Power from measured activity, the clock gates' duties with it.
    if not args.no_power and not args.module and fmax:
        result.update(device_power(d, modules, top_name, tree, count, srams, fmax,
                                   gating, work, args.timeout, log))
    result["scaled"] = scaled(result, fmax)
    return result
