#!/usr/bin/env python3
"""Where a PyTorch model's device cycles go, per op, batched and not (a benchmark, not a test):
the transformer encoder (examples/torch/transformer.py) and the LSTM (examples/torch/rnn.py), a
few training steps and their evaluation each, under mxu.torch on the model backend, once with
each op's independent products as one device program (the default) and once with one program
per GEMM (--unbatched, as before batching). Prints a table per example, or with --json one JSON
object (the figures generator's source `torch_ops`, docs/performance.md).

Usage: scripts/bench_torch_ops.py [--steps N] [--build DIR] [--json]
       (default: 5 steps, build/)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from build_python import build_python  # noqa: E402
from one_line_parser import OneLineParser, positive_int  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = (("transformer", "examples/torch/transformer.py"), ("lstm", "examples/torch/rnn.py"))



def profile(script, steps, batched, build):
    """The example's report (mxu.torch.write_report) and its wall time."""
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "report.json")
        command = [build_python(build), script, "--backend", "model", "--steps", str(steps),
                   "--report", report, "--json"] + ([] if batched else ["--unbatched"])
        env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
        start = time.perf_counter()
        result = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        if result.returncode != 0:
            last = result.stderr.strip().splitlines()[-1:] or [""]
            sys.exit(f"bench_torch_ops: {' '.join(command)} failed ({result.returncode}): "
                     f"{last[0]}")
        with open(report, encoding="utf-8") as f:
            return json.load(f), wall


def by_op(report, rows, cols):
    """Per op kind: device GEMMs, cycles, MACs, energy, cycles per GEMM, utilization, share."""
    ops = {}
    for e in report["ops"]:
        if not e["device_gemms"]:
            continue
        o = ops.setdefault(e["op"], {"device_gemms": 0, "device_cycles": 0, "device_macs": 0,
                                     "energy_uj": 0.0})
        for key in o:
            o[key] += e[key]
    total = report["totals"]["device_cycles"]
    for o in ops.values():
        o["cycles_per_gemm"] = round(o["device_cycles"] / o["device_gemms"], 1)
        o["utilization"] = round(o["device_macs"] / (o["device_cycles"] * rows * cols), 4)
        o["share"] = round(o["device_cycles"] / total, 4)
        o["energy_uj"] = round(o["energy_uj"], 1)
    return dict(sorted(ops.items(), key=lambda item: -item[1]["device_cycles"]))


def summary(report):
    t = report["totals"]
    return {"device_gemms": t["device_gemms"], "device_cycles": t["device_cycles"],
            "utilization": round(t["utilization"], 4), "energy_uj": round(t["energy_uj"], 1),
            "seconds_at_fmax": round(t["seconds_at_fmax"], 6)}


def main():
    p = OneLineParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=positive_int, default=5, help="training steps (default 5)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = p.parse_args()
    if not os.path.isfile(os.path.join(args.build, "CMakeCache.txt")) or not os.path.isdir(
            os.path.join(args.build, "python", "mxu")):
        p.error(f"--build {args.build}: no build with the Python package (scripts/setup.sh)")
    result = {"backend": "model", "steps": args.steps, "examples": {}, "wall_seconds": {}}
    for name, script in EXAMPLES:
        runs = {}
        for batched in (True, False):
            report, wall = profile(script, args.steps, batched, args.build)
            device = report["device"]
            mode = "batched" if batched else "unbatched"
            runs[mode] = {"totals": summary(report),
                          "ops": by_op(report, device["array_rows"], device["array_cols"])}
            result["wall_seconds"][f"{name}_{mode}"] = round(wall, 2)
        runs["device"] = {k: device[k] for k in ("device", "array_rows", "array_cols")}
        runs["energy_table"] = report["energy"]
        result["examples"][name] = runs
    if args.json:
        print(json.dumps(result))
        return
    for name, runs in result["examples"].items():
        b, u = runs["batched"], runs["unbatched"]
        print(f"{name}: {args.steps} steps and the evaluation, model backend, device "
              f"{runs['device']['device']}")
        print(f"{'op':<26} {'GEMMs':>7} {'cycles/GEMM':>21} {'utilization':>15} "
              f"{'share of cycles':>17}")
        for op, o in u["ops"].items():
            n = b["ops"].get(op, o)
            print(f"{op:<26} {o['device_gemms']:>7,} {o['cycles_per_gemm']:>9,.1f} -> "
                  f"{n['cycles_per_gemm']:>8,.1f} {100 * o['utilization']:>5.1f}% -> "
                  f"{100 * n['utilization']:>5.1f}% {100 * o['share']:>6.1f}% -> "
                  f"{100 * n['share']:>5.1f}%")
        print(f"{'whole run':<26} {u['totals']['device_gemms']:>7,} cycles "
              f"{u['totals']['device_cycles']:,} -> {b['totals']['device_cycles']:,}, "
              f"utilization {100 * u['totals']['utilization']:.1f}% -> "
              f"{100 * b['totals']['utilization']:.1f}%, energy "
              f"{u['totals']['energy_uj']:,.0f} -> {b['totals']['energy_uj']:,.0f} uJ "
              f"({runs['energy_table']['node_nm']} nm), wall "
              f"{result['wall_seconds'][name + '_unbatched']:.1f} -> "
              f"{result['wall_seconds'][name + '_batched']:.1f} s\n")


if __name__ == "__main__":
    main()
