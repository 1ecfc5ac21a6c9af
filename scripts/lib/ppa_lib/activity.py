"""Switching activity from the RTL: traced GEMMs (mxu gemm --trace, scripts/ppa_activity.py) as
toggle rates per netlist module and clock gates' duties."""
import json
import os
import re
import shutil
import subprocess
import sys

from .config import ROOT
from .workdirs import die, run


# Traced; "idle" is modelled (every gate off, no data).
WORKLOADS = ("bf16", "int8", "quarter", "short_k")
WINDOW = 1000  # traced cycles; bf16 and int8 from cycle 30,000 (the 256^3 GEMM's steady state)


def workload_gemm(w: str, d: dict) -> list[str]:
    """mxu gemm's options for a traced workload: 256^3 bf16 and int8, a bf16 GEMM on a quarter
    of the array's columns (N = Cols / 4) and one of a short K (4: tiles of 4 rows)."""
    n = max(1, int(d["cols"]) // 4) if w == "quarter" else 256
    k = 4 if w == "short_k" else 256
    return ["--m", "256", "--k", str(k), "--n", str(n),
            "--dtype", "int8" if w == "int8" else "bf16"]


def measure_activity(d: dict, work: str, timeout: int, log) -> dict:
    """Toggle rates, SRAM accesses and clock gates' duties from the RTL, per workload: a window
    of WINDOW cycles in each GEMM's steady state, every signal traced (the quarter GEMM's window
    in its middle, after an untraced run gives its length)."""
    mxu = os.path.join(ROOT, "build", "bin", "mxu")
    if not os.access(mxu, os.X_OK):
        die(f"no build/bin/mxu: build the project first (scripts/setup.sh --target mxu)")
    listing = run([mxu, "info", "--list"], 60).stdout
    if not re.search(rf"^\s+{re.escape(d['name'])}\s", listing, re.M):
        die(f"--device '{d['spec']}': not a device of this build (mxu info --list)")
    for tool in ("fst2vcd",):
        if not shutil.which(tool):
            die(f"{tool} not found (apt-get install gtkwave)")
    act = {}
    for w in WORKLOADS:
        base = [mxu, "gemm", "--device", d["name"]] + workload_gemm(w, d) + ["--json"]
        start = 30000
        if w in ("quarter", "short_k"):
            r = run(base, timeout)
            if r.returncode:
                die(f"mxu gemm ({w}) failed: {r.stderr.strip()[-500:]}", 1)
            start = max(0, json.loads(r.stdout)["cycles"] // 2 - WINDOW // 2)
        m, k, n, dtype = workload_gemm(w, d)[1::2]
        log(f"activity: {w}, {dtype} GEMM {m} x {k} x {n}, cycles {start}-{start + WINDOW} traced")
        fst = os.path.join(work, f"{w}.fst")
        r = run(base + ["--trace", fst, "--trace-scope", "all", "--trace-start", str(start),
                        "--trace-cycles", str(WINDOW)], timeout)
        if r.returncode:
            die(f"mxu gemm ({w}) failed: {r.stderr.strip()[-500:]}", 1)
        stats = json.loads(r.stdout)
        p1 = subprocess.Popen(["fst2vcd", fst], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        p2 = run([sys.executable, os.path.join(ROOT, "scripts", "ppa_activity.py")], timeout,
                 stdin=p1.stdout)
        p1.wait()
        os.remove(fst)
        a = json.loads(p2.stdout)
        a["gemm"] = stats
        a["window"] = [start, start + WINDOW]
        act[w] = a
        with open(os.path.join(work, f"activity_{w}.json"), "w") as f:
            json.dump(a, f)
    return act


def scope_path(scope: str, root: str) -> str | None:
    """A trace scope as a netlist path below root ("" for root itself), or None outside it. A
    module verilated apart (hier=1: the PE column) traces as "a.b.c/MODULE_N/rest": its dotted
    instance path, then a scope named after the module; back to "a/b/c/rest"."""
    first, _, rest = scope.partition("/")
    if "." in first:
        rest = rest.partition("/")[2]
        scope = first.replace(".", "/") + ("/" + rest if rest else "")
    if scope == root:
        return ""
    return scope[len(root) + 1:] if scope.startswith(root + "/") else None


def gate_duties(act: dict, gates: list[str], root: str, log=None) -> dict[str, float]:
    """Each clock gate's duty: rising edges of its clock / the top clock's, in the window. A gate
    the trace lacks counts as always on (1.0: no saving claimed), and log says so."""
    cycles = max(1, act["cycles"])
    seen = {}
    for scope, g in act.get("gates", {}).items():
        p = scope_path(scope, root)
        if p is not None:
            seen[p] = min(1.0, g["edges"] / cycles)
    missing = [g for g in gates if g not in seen]
    if missing and log:
        log(f"{len(missing)} of {len(gates)} clock gates not in the trace (e.g. {missing[0]}): "
            "taken as always on")
    return {g: seen.get(g, 1.0) for g in gates}


def module_rates(act: dict, tree: list, root: str) -> dict[str, float]:
    """Toggles per bit per cycle of each netlist module's own signals, over all its instances:
    a trace scope belongs to the deepest netlist instance above it (generate blocks, unnamed
    blocks and the SRAM's own scopes go to the module that holds them)."""
    inst_paths = {p: m for p, m in tree}
    tot: dict[str, list[int]] = {}
    for scope, (bits, toggles) in act["scopes"].items():
        rel = scope_path(scope, root)
        if rel is None:
            continue
        parts = rel.split("/") if rel else []
        owner = ""
        for i in range(len(parts), 0, -1):
            if "/".join(parts[:i]) in inst_paths:
                owner = "/".join(parts[:i])
                break
        m = inst_paths[owner]
        t = tot.setdefault(m, [0, 0])
        t[0] += bits
        t[1] += toggles
    cycles = max(act["cycles"], 1)
    return {m: t[1] / t[0] / cycles for m, t in tot.items() if t[0]}


def trace_root(act: dict) -> str:
    for scope in act["scopes"]:
        if scope.endswith("/u_controller"):
            return scope.rsplit("/", 1)[0]
    return "mxu_top/mxu_top"
