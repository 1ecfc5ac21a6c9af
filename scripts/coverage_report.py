#!/usr/bin/env python3
"""The coverage report of scripts/coverage.sh: line, toggle and FSM coverage from Verilator's merged
coverage file, with the waivers of scripts/coverage_waivers.txt applied, and the functional
coverage that isa_coverage_test wrote.

  coverage_report.py MERGED.dat WAIVERS SUMMARY.txt [--functional FILE] [--json]

Writes SUMMARY.txt (per module; the closure set against its targets; the FSM; what was waived)
and prints it, or with --json prints one object:
  {"modules": [{"module", "line", "toggle", "excluded", "in_closure_set"}...],
   "fsm": {"states", "states_reached", "transitions", "transitions_taken", "unreachable", "missed"},
   "functional": {"bins", "bins_hit", "missed"}, "closure": {...}, "total": {...}}
Fractions are 0..1.
"""
import argparse
import collections
import fnmatch
import json
import os
import re
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from one_line_parser import OneLineParser  # noqa: E402

# The control and data-movement modules held to the closure targets (issue 41): the controller and
# its parts, the CSRs, the DMA and its parts, the sequencers, the buffers and their primitives.
CLOSURE_SET = [
    "mxu_top", "mxu_controller", "mxu_ctrl_fetch", "mxu_ctrl_decode", "mxu_ctrl_dispatch",
    "mxu_ctrl_scoreboard", "mxu_csr", "mxu_dma", "mxu_dma_load", "mxu_dma_load_gen",
    "mxu_dma_load_pack", "mxu_dma_transpose", "mxu_dma_store", "mxu_mem_drain", "mxu_datapath",
    "mxu_matmul_seq", "mxu_activate_seq", "mxu_wload_seq", "mxu_unified_buffer",
    "mxu_accumulators", "mxu_weight_fifo", "mxu_sync_fifo", "mxu_fifo_ptr", "mxu_sram_1r1w",
    "mxu_delay_line", "mxu_pipe_reg",
]
LINE_TARGET, TOGGLE_TARGET = 0.98, 0.90


def base_module(name):
    """mxu_sync_fifo__W30_D4 -> mxu_sync_fifo (Verilator's parameterized copies)."""
    return name.split("__", 1)[0]


def read_points(path):
    points = []
    for raw in open(path, encoding="latin-1"):
        if not raw.startswith("C '"):
            continue
        key, count = raw[3:].rstrip("\n").rsplit("' ", 1)
        fields = dict(f.split("\x02", 1) for f in key.split("\x01") if "\x02" in f)
        page = fields.get("page", "")
        kind, _, module = page.partition("/")
        kind = {"v_line": "line", "v_branch": "line", "v_toggle": "toggle",
                "v_user": "user"}.get(kind)
        if kind is None:
            continue
        points.append({"kind": kind, "module": base_module(module), "name": fields.get("o", ""),
                       "file": fields.get("f", ""), "line": int(fields.get("l", "0") or 0),
                       "hier": fields.get("h", ""), "count": int(count)})
    return points


def read_waivers(path):
    """Lines `KIND MODULE PATTERN | REASON`: KIND toggle (PATTERN globs the point's signal and
    bit, or is `signal[RULE]`: toggle_matches), line (PATTERN is text of the source line) or fsm
    (PATTERN names a cover)."""
    waivers = []
    for number, raw in enumerate(open(path, encoding="utf-8"), 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        head, sep, reason = text.partition("|")
        parts = head.split(None, 2)
        if not sep or len(parts) != 3 or parts[0] not in ("toggle", "line", "fsm") or not reason.strip():
            sys.exit(f"coverage_report.py: {path}:{number}: expected 'KIND MODULE PATTERN | REASON'")
        waivers.append({"kind": parts[0], "module": parts[1], "pattern": parts[2].strip(),
                        "reason": reason.strip(), "points": 0, "covered": 0,
                        "by_module": collections.Counter()})
    return waivers


source_cache = {}


def source_line(path, line):
    if path not in source_cache:
        try:
            source_cache[path] = open(path, encoding="utf-8").read().split("\n")
        except OSError:
            source_cache[path] = []
    lines = source_cache[path]
    return lines[line - 1] if 0 < line <= len(lines) else ""


BIT_RULE = re.compile(r"^(?P<signal>[^\[]+)\[(?P<rule>[^\]]*[a-z][^\]]*)\]$")


def toggle_matches(name, pattern):
    """A glob over the signal's name (every bit), or `glob[RULE]` with RULE a condition on the
    bit i, e.g. `counters_q[i % 64 >= 32]` (the high half of each 64-bit counter)."""
    signal, _, bit = name.rpartition("[") if name.endswith("]") else (name, "", "")
    rule = BIT_RULE.match(pattern)
    if not rule:
        return fnmatch.fnmatchcase(signal, pattern)
    if not fnmatch.fnmatchcase(signal, rule["signal"]) or not bit.rstrip("]").isdigit():
        return False
    return bool(eval(rule["rule"], {"__builtins__": {}}, {"i": int(bit.rstrip("]"))}))


def waiver_of(point, waivers):
    for w in waivers:
        if not fnmatch.fnmatchcase(point["module"], w["module"]):
            continue
        if w["kind"] == "toggle" and point["kind"] == "toggle" and \
                toggle_matches(point["name"], w["pattern"]):
            return w
        if w["kind"] == "line" and point["kind"] == "line" and \
                w["pattern"] in source_line(point["file"], point["line"]):
            return w
        if w["kind"] == "fsm" and point["kind"] == "user" and point["name"] == w["pattern"]:
            return w
    return None



def main():
    parser = OneLineParser()
    parser.add_argument("merged")
    parser.add_argument("waivers")
    parser.add_argument("summary")
    parser.add_argument("--functional")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    points = read_points(args.merged)
    waivers = read_waivers(args.waivers)
    # (kind, module) -> [covered, total], waived points left out and counted on their waiver.
    tally = collections.defaultdict(lambda: [0, 0])
    fsm = []
    for p in points:
        w = waiver_of(p, waivers)
        if w:
            w["points"] += 1
            w["covered"] += p["count"] > 0
            w["by_module"][p["module"]] += 1
        if p["kind"] == "user":
            if p["name"].startswith("Fsm"):
                fsm.append((p, w))
            continue
        if w:
            continue
        entry = tally[(p["kind"], p["module"])]
        entry[0] += p["count"] > 0
        entry[1] += 1

    def frac(c_t):
        return c_t[0] / c_t[1] if c_t[1] else 1.0

    modules = []
    for m in sorted({m for (_, m) in tally}):
        line, toggle = tally.get(("line", m), [0, 0]), tally.get(("toggle", m), [0, 0])
        excluded = [{"kind": w["kind"], "pattern": w["pattern"], "points": w["by_module"][m],
                     "reason": w["reason"]} for w in waivers if w["by_module"].get(m)]
        modules.append({"module": m, "line": round(frac(line), 4), "toggle": round(frac(toggle), 4),
                        "line_points": line, "toggle_points": toggle, "excluded": excluded,
                        "in_closure_set": m in CLOSURE_SET})

    def sums(selected):
        out = {}
        for kind in ("line", "toggle"):
            c = sum(tally[(kind, m["module"])][0] for m in selected)
            t = sum(tally[(kind, m["module"])][1] for m in selected)
            out[kind] = round(c / t, 4) if t else 1.0
            out[kind + "_points"] = [c, t]
        return out

    closure_modules = [m for m in modules if m["in_closure_set"]]
    closure = sums(closure_modules)
    closure["line_target"], closure["toggle_target"] = LINE_TARGET, TOGGLE_TARGET
    closure["below_target"] = [m["module"] for m in closure_modules
                               if m["line"] < LINE_TARGET or m["toggle"] < TOGGLE_TARGET]

    states = [(p, w) for p, w in fsm if p["name"].startswith("FsmState_")]
    arcs = [(p, w) for p, w in fsm if p["name"].startswith("FsmArc_")]
    fsm_out = {
        "states": len(states), "states_reached": sum(p["count"] > 0 for p, _ in states),
        "transitions": len(arcs), "transitions_taken": sum(p["count"] > 0 for p, _ in arcs),
        "unreachable": [{"module": p["module"], "cover": p["name"], "reason": w["reason"],
                         "taken": p["count"] > 0} for p, w in fsm if w],
        "missed": [f'{p["module"]}.{p["name"]}' for p, w in fsm if p["count"] == 0 and not w],
    }
    functional = {"bins": 0, "bins_hit": 0, "missed": []}
    if args.functional:
        data = json.load(open(args.functional))
        functional = {"bins": data["bins"], "bins_hit": data["bins_hit"],
                      "missed": sorted(b for b, n in data["counts"].items() if n == 0)}
    report = {"modules": modules, "fsm": fsm_out, "functional": functional, "closure": closure,
              "total": sums(modules)}

    lines = []
    t = report["total"]
    lines.append(f"coverage: line {100 * t['line']:.1f}%, toggle {100 * t['toggle']:.1f}% "
                 f"(all modules in scope, waived points left out)")
    lines.append(f"closure set: line {100 * closure['line']:.1f}% (target {100 * LINE_TARGET:.0f}%), "
                 f"toggle {100 * closure['toggle']:.1f}% (target {100 * TOGGLE_TARGET:.0f}%)")
    lines.append(f"{'module':24s} {'line':>7s} {'points':>11s} {'toggle':>7s} {'points':>13s}")
    for m in modules:
        mark = "*" if m["in_closure_set"] else " "
        lp, tp = m["line_points"], m["toggle_points"]
        lines.append(f"{mark}{m['module']:23s} {100 * m['line']:6.1f}% {lp[0]:5d}/{lp[1]:<5d} "
                     f"{100 * m['toggle']:6.1f}% {tp[0]:6d}/{tp[1]:<6d}")
    lines.append("(* the closure set)")
    lines.append(f"FSM: states {fsm_out['states_reached']}/{fsm_out['states']}, "
                 f"transitions {fsm_out['transitions_taken']}/{fsm_out['transitions']}"
                 + (f"; missed: {', '.join(fsm_out['missed'])}" if fsm_out["missed"] else ""))
    for u in fsm_out["unreachable"]:
        lines.append(f"  unreachable {u['cover']}: {u['reason']}"
                     + (" (TAKEN: the waiver is wrong)" if u["taken"] else ""))
    if args.functional:
        lines.append(f"functional: {functional['bins_hit']}/{functional['bins']} bins"
                     + (f"; missed: {' '.join(functional['missed'])}" if functional["missed"] else ""))
    lines.append("waived:")
    for w in waivers:
        lines.append(f"  {w['kind']} {w['module']} {w['pattern']}: {w['points']} points "
                     f"({w['covered']} of them toggled anyway)")
    open(args.summary, "w").write("\n".join(lines) + "\n")
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        print()
    else:
        print("\n".join(lines))
    # A waiver that matches nothing is stale; one whose points were covered is wrong.
    bad = [w for w in waivers if w["points"] == 0 or (w["kind"] != "toggle" and w["covered"])]
    for w in bad:
        print(f"coverage_report.py: waiver '{w['kind']} {w['module']} {w['pattern']}' "
              f"{'matches no point' if w['points'] == 0 else 'waives covered points'}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
