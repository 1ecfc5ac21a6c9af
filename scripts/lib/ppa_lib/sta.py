"""OpenSTA: a module's worst path as the shortest period it allows, its own cells' power at given
toggle rates, and that power under clock gating."""
import os
import re
import subprocess

from .config import LIBERTY
from .workdirs import run


# What both OpenSTA scripts start with: the libraries, the netlist, the clock, the outputs' load.
STA_DESIGN = """read_liberty {lib}
read_liberty {macro}
read_verilog {netlist}
link_design {top}
create_clock -name clk -period {period} [get_ports clk_i]
set_load 0.02 [all_outputs]
"""
STA_TIMING = STA_DESIGN + """\
# The registers' names: the nets their Q pins drive (the cells' own names are Yosys's numbers);
# a clock gate's AND by the net it drives.
proc qnet {{inst}} {{
  foreach pin {{Q Y}} {{
    if {{[catch {{set n [get_nets -of_objects [get_pins $inst/$pin]]}}] == 0 && $n ne ""}} {{
      return [get_full_name $n]
    }}
  }}
  return $inst
}}
# Register to register: paths into the flip-flops (and the SRAMs' port cells). A path into a
# clock gate's latch is not an end: it goes on through the latch to the gate's AND, where
# OpenSTA's clock-gating check ends it (group **clock_gating_default**).
set eps [all_registers -edge_triggered -data_pins]
set lds [all_registers -level_sensitive -data_pins]
foreach {{tag group}} {{CLK clk GATE **clock_gating_default** LATCH clk}} {{
  if {{$tag eq "CLK" && [llength $eps]}} {{
    report_checks -path_delay max -path_group $group -to $eps -digits 3 -format full > {rpt}
  }} elseif {{$tag eq "LATCH"}} {{
    if {{![llength $lds]}} {{ continue }}
    report_checks -path_delay max -path_group $group -to $lds -digits 3 -format full > {rpt}
  }} else {{
    report_checks -path_delay max -path_group $group -digits 3 -format full > {rpt}
  }}
  set fh [open {rpt}]
  set txt [read $fh]
  close $fh
  puts "PPA_GROUP $tag"
  puts $txt
  if {{[regexp {{Startpoint: (\\S+)}} $txt -> sp]}} {{ puts "PPA_START [qnet $sp]" }}
  if {{[regexp {{Endpoint: (\\S+)}} $txt -> ep]}} {{ puts "PPA_END [qnet $ep]" }}
}}
puts "PPA_GROUP ASYNC"
report_checks -path_delay max -path_group **async_default** -digits 3 -format end
"""


def parse_path(text: str, period: float, whole: bool = False) -> dict | None:
    """One OpenSTA full path report: its start, end, data arrival and the shortest clock period
    it allows. A path launched at time L and captured at C has C - L of the period to itself
    (the whole period register to register; half for a clock gate's latch, which opens on the
    falling edge), so it needs (C - L - slack) / ((C - L) / period). A latch that borrowed time
    (OpenSTA: "time given to startpoint") passes on a path launched a whole period earlier;
    whole: a path into a latch that ran out of time to borrow (it closes on the next rising
    edge, a whole period after the launch)."""
    m = re.search(r"Startpoint: (\S+).*?Endpoint: (\S+)", text, re.S)
    arrival = re.search(r"^\s*([-0-9.]+)\s+data arrival time", text, re.M)
    slack = re.search(r"^\s*([-0-9.]+)\s+slack", text, re.M)
    if not (m and arrival and slack):
        return None
    edges = [float(e) for e in re.findall(
        r"^\s*[-0-9.]+\s+([-0-9.]+)\s+clock \S+ \((?:rise|fall) edge\)", text, re.M)]
    launch, capture = (edges[0], edges[1]) if len(edges) >= 2 else (0.0, period)
    if "time given to startpoint" in text or whole:
        launch = capture - period
    span = capture - launch if capture > launch else period
    need = (span - float(slack.group(1))) * period / span
    return {"start": m.group(1), "end": m.group(2), "arrival_ns": float(arrival.group(1)),
            "ns": round(need, 3), "slack_ns": float(slack.group(1))}


def sta_timing(netlist: str, top: str, period: float, work: str, timeout: int) -> dict | None:
    """The module's worst path, register to register or into a clock gate (its clock-gating
    setup check), as the shortest period it allows; the async reset's recovery apart."""
    tcl = os.path.join(work, f"t_{top}.tcl")
    open(tcl, "w").write(STA_TIMING.format(lib=LIBERTY, macro=os.path.join(work, "macro.lib"),
                                           netlist=netlist, top=top, period=period,
                                           rpt=os.path.join(work, f"t_{top}.rpt")))
    try:
        r = run(["sta", "-no_splash", "-exit", tcl], timeout, cwd=work)
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    chunks = {c.split("\n", 1)[0].strip(): c for c in r.stdout.split("PPA_GROUP ")[1:]}
    res: dict = {"ns": None}
    for tag, check in (("CLK", "setup"), ("GATE", "clock gating"), ("LATCH", "clock gating")):
        path = parse_path(chunks.get(tag, ""), period, whole=tag == "LATCH")
        # Into a gate's latch: a path that borrows within the period goes on to the AND's check
        # (GATE); one that needs more than the whole period ends here, short of its enable.
        if not path or (tag == "LATCH" and path["slack_ns"] >= 0):
            continue
        for key, mark in (("start", "PPA_START"), ("end", "PPA_END")):
            n = re.search(rf"^{mark} (.*)$", chunks[tag], re.M)
            if n:
                path[key] = n.group(1).strip()
        path["check"] = check
        if check == "clock gating":
            res["gating"] = path
        if res["ns"] is None or path["ns"] > res["ns"]:
            res.update(path)
    a = re.search(r"group \*\*async_default\*\*.*?-{20,}\n(\S+)\s+\S+\s+([0-9.]+)\s+([-0-9.]+)",
                  chunks.get("ASYNC", ""), re.S)
    if a:
        res["recovery"] = {"end": a.group(1), "arrival_ns": float(a.group(2)),
                           "slack_ns": float(a.group(3))}
    return res


# Power: the design alone; sta_power() adds the activity and the reports.
STA_POWER = STA_DESIGN


def _tcl_names(names: list[str]) -> str:
    return " ".join("{" + n.replace("[", "\\[").replace("]", "\\]") + "}" for n in names)


def sta_power(netlist: str, top: str, period: float, rates: dict[str, float],
              groups: dict[tuple, list[str]], work: str, timeout: int) -> dict:
    """The module's own cells (netlist from own_netlist: its submodules empty shells), in mW:
    "leak" (leakage), "dyn0" (dynamic power with every data net still: the clock's share),
    "dyn" {workload: dynamic power at the workload's toggle rate}, and "clock" {group: the
    dyn0 of the sequential cells of each clock group other than the module's clk_i's}. OpenSTA
    gives every register its clock at full rate, gated or not; the caller scales by duty."""
    tcl = os.path.join(work, f"p_{top}.tcl")
    s = STA_POWER.format(lib=LIBERTY, macro=os.path.join(work, "macro.lib"), netlist=netlist,
                         top=top, period=period)
    keyed = {k: v for k, v in groups.items() if k != ("port", "clk_i")}
    for w, rate in [("__zero", 0.0)] + list(rates.items()):
        s += (f"set_power_activity -global -activity {rate:.6f}\n"
              f"set_power_activity -input -activity {rate:.6f}\n"
              f"puts \"PPA_WORKLOAD {w}\"\nreport_power -digits 6\n")
    for i, names in enumerate(keyed.values()):
        s += (f"set_power_activity -global -activity 0\nset_power_activity -input -activity 0\n"
              f"puts \"PPA_WORKLOAD __group{i}\"\n"
              f"report_power -instances [get_cells -quiet [list {_tcl_names(names)}]] -digits 6\n")
    open(tcl, "w").write(s)
    r = run(["sta", "-no_splash", "-exit", tcl], timeout, cwd=work)
    res = {"leak": 0.0, "dyn0": 0.0, "dyn": {}, "clock": {}}
    keys = list(keyed)
    for chunk in r.stdout.split("PPA_WORKLOAD ")[1:]:
        w = chunk.split()[0]
        if w.startswith("__group"):
            rows = re.findall(r"^\s*(\S+)\s+(\S+)\s+\S+\s+\S+\s+\S+\s*$", chunk, re.M)
            res["clock"][keys[int(w[7:])]] = sum(
                _float(a) + _float(b) for a, b in rows if _float(a) is not None) * 1e3
            continue
        m = re.search(r"^Total\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", chunk, re.M)
        dyn, leak = ((float(m.group(1)) + float(m.group(2))) * 1e3, float(m.group(3)) * 1e3) \
            if m else (0.0, 0.0)
        if w == "__zero":
            res["dyn0"], res["leak"] = dyn, leak
        else:
            res["dyn"][w] = dyn
    return res


def _float(v: str) -> float | None:
    try:
        return float(v)
    except ValueError:
        return None


def gated_power(p: dict, groups: list[tuple], duty_of) -> dict[str, float]:
    """One instance's power (mW) under clock gating, from sta_power's figures: leakage always;
    each clock group's clock share (dyn0) times its domain's duty (duty_of(group) -> {workload:
    duty}), the rest of dyn0 times the instance's own (duty_of(("local",))); the data's share,
    dyn - dyn0, as measured (toggles over every cycle of the window). OpenSTA's power is linear
    in the toggle rate, so this is duty x the power at the rate while clocked (toggles / bits /
    clocked cycles), per docs/ppa.md's model."""
    out = {}
    local = duty_of(("local",))
    for w, dyn in p["dyn"].items():
        rest = p["dyn0"] - sum(p["clock"].get(g, 0.0) for g in groups)
        clk = rest * local[w] + sum(p["clock"].get(g, 0.0) * duty_of(g)[w] for g in groups)
        out[w] = p["leak"] + clk + max(0.0, dyn - p["dyn0"])
    return out
