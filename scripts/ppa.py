#!/usr/bin/env python3
"""Area, timing and power of the RTL on an open 180 nm library: the flow behind scripts/ppa.sh.

See scripts/ppa.sh for the usage and docs/ppa.md for the method, the figures and their limits.
This is the command line; the flow itself is scripts/lib/ppa_lib, one concern a module.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import yosys  # noqa: E402 (scripts/lib, put on the path above)
from ppa_lib.config import LIBERTY  # noqa: E402
from ppa_lib.energy import ENERGY_DIR, write_energy_tables  # noqa: E402
from ppa_lib.flow import measure  # noqa: E402
from ppa_lib.liberty import gating_cells  # noqa: E402
from ppa_lib.workdirs import (die, keep_dir_problem, make_keep_dir,  # noqa: E402
                              out_dir_problem)


def check_args(args) -> None:
    """Every value checked before any tool runs: a bad one is one line, exit 2."""
    if args.timeout < 1:
        die(f"--timeout {args.timeout}: expected a positive number of seconds")
    if not (0.5 <= args.target_ns <= 100):
        die(f"--target-ns {args.target_ns}: expected 0.5 to 100")
    if args.module:
        if yosys.module_file(args.module) and args.module.endswith("_pkg"):
            die(f"--module '{args.module}': rtl/{args.module}.sv is a package, not a module")
        if not yosys.module_file(args.module):
            die(f"--module '{args.module}': no {args.module}.sv in rtl/ or its rooms")
    for problem in (args.keep and keep_dir_problem(args.keep, "ppa.sh"),
                    args.out and out_dir_problem(args.out)):
        if problem:
            die(problem)


def parse_args():
    class Parser(argparse.ArgumentParser):
        def error(self, message):  # one line, exit 2
            die(message)

    ap = Parser(prog="ppa.sh", add_help=True)
    ap.add_argument("--device")
    ap.add_argument("--module")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--target-ns", type=float, default=4.0)
    ap.add_argument("--no-power", action="store_true")
    ap.add_argument("--keep")
    ap.add_argument("--timeout", type=int, default=3600)
    ap.add_argument("--calibrate", action="store_true")
    ap.add_argument("--from", dest="from_json")
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.from_json or args.out:
        if not args.calibrate:
            die("--from and --out go with --calibrate")
    check_args(args)
    if args.calibrate and (args.module or args.no_power):
        die("--calibrate needs the whole device's power: not with --module or --no-power")
    return args


def calibrate_from(path: str, out: str | None) -> int:
    """--calibrate --from PPA.json: the energy tables from a kept result, their paths printed."""
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        die(f"--from {path}: {e}")
    if not isinstance(r, dict):
        die(f"--from {path}: not a PPA result (a JSON object from scripts/ppa.sh --json)")
    try:
        paths = write_energy_tables(r, out or ENERGY_DIR)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        die(f"--from {path}: not a whole PPA result with power ({type(e).__name__}: {e})")
    except OSError as e:
        die(f"--out {out or ENERGY_DIR}: {e.strerror}")
    for p in paths:
        print(p)
    return 0


def check_tools() -> dict:
    """The liberty and the tools, before any work; the liberty's gating cells."""
    if not os.path.isfile(LIBERTY):
        die(f"liberty {LIBERTY} not found (apt-get install qflow-tech-osu018)")
    gating = gating_cells(LIBERTY)
    for tool, pkg in (("yosys", "yosys"), ("sta", "opensta")):
        if not shutil.which(tool):
            die(f"{tool} not found (apt-get install {pkg})")
    return gating


def save_calibration(result: dict, out: str | None) -> None:
    """--calibrate: the result kept as OUT/ppa.json, and the energy tables made from it."""
    os.makedirs(out or ENERGY_DIR, exist_ok=True)
    src = os.path.join(out or ENERGY_DIR, "ppa.json")
    with open(src + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
    os.replace(src + ".tmp", src)
    for p in write_energy_tables(result, out or ENERGY_DIR):
        print(p, file=sys.stderr)


def main() -> int:
    args = parse_args()
    if args.calibrate and args.from_json:
        return calibrate_from(args.from_json, args.out)
    gating = check_tools()
    try:
        work = make_keep_dir(args.keep, "ppa.sh") if args.keep else tempfile.mkdtemp(
            prefix="mxu-ppa-")
    except OSError as e:
        die(f"--keep {args.keep}: {e.strerror}")
    t0 = time.time()

    def log(msg):
        print(f"ppa.sh: [{time.time() - t0:6.0f} s] {msg}", file=sys.stderr)

    try:
        result = measure(args, gating, work, log)
        log("done")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.calibrate:
        save_calibration(result, args.out)
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 0


def print_table(r: dict) -> None:
    print(f"# PPA of {r['top']} at {r['device']}: {r['library']} (180 nm, measured)")
    print(f"clock constraint {r['clock_constraint_ns']} ns; Fmax {r['fmax_mhz']} MHz "
          f"({r['fmax_note']})")
    if r["worst_path"]:
        w = r["worst_path"]
        print(f"worst path {w['ns']} ns in {w['module']}: {w['start']} -> {w['end']}")
    a = r["area_um2"]
    print(f"area um^2: logic {a['logic']:,.0f} (clock gates {a['clock_gating']:,.0f}), "
          f"SRAM {a['sram']:,.0f} (model), total {a['total']:,.0f}")
    print()
    print("| module | instances | area um^2 (one, with submodules) | worst path ns | start -> end |")
    print("|---|---|---|---|---|")
    for m in r["modules"]:
        wp = m.get("worst_path")
        print(f"| {m['module']} | {m['instances']} | {m['area_um2']:,.0f} | "
              f"{m['worst_path_ns'] if m['worst_path_ns'] is not None else m.get('timing', '-')} | "
              f"{(wp['start'] + ' -> ' + wp['end']) if wp else '-'} |")
    if r["srams"]:
        print()
        print("| SRAM (model) | instances | depth x width | area um^2 | read pJ | write pJ | access ns |")
        print("|---|---|---|---|---|---|---|")
        for s in r["srams"]:
            print(f"| {s['module']} | {s['instances']} | {s['depth']} x {s['width']} | "
                  f"{s['area_um2']:,.0f} | {s['read_pj']} | {s['write_pj']} | {s['access_ns']} |")
    if isinstance(r["power_mw"], dict):
        print()
        print(f"power mW at Fmax: logic {r['power_mw']}, SRAM {r['sram_power_mw']}, total "
              f"{r['total_power_mw']}; pJ/MAC (logic + SRAM): {r['energy_pj_per_mac']}")
        for w, duty in r["clock_gates"]["duty"].items():
            if duty:
                print(f"clock gates' duty, {w}: mean {sum(duty.values()) / len(duty):.3f} "
                      f"over {len(duty)} gates, {min(duty.values()):.3f} to "
                      f"{max(duty.values()):.3f}")
    for node, s in r["scaled"].items():
        print(f"SCALED to {node} nm ({s['method']}): Fmax {s['fmax_mhz']} MHz, area "
              f"{s['area_um2']}, pJ/MAC {s['energy_pj_per_mac']}")


if __name__ == "__main__":
    sys.exit(main())
