#!/usr/bin/env python3
"""What a tile's extent costs (issue 66; a benchmark, not a test): on the model backend of each
device, a stream of 256 alike small products (the transformer's attention: 10 x 16 x 10 and
10 x 10 x 16, one device program, `Device.gemm_batch`), and single GEMMs at full width
(256 x 256 x 256), a quarter of the columns (256 x 256 x Cols/4) and a short K (256 x 4 x 256).
Per row: cycles (a product's, for the streams), the column clocks (COLUMN_CLOCKS: each column's
clock cycles) and the columns clocked a cycle against the full-width GEMM's: the share of its
array clock power.
Prints a table, or with --json one JSON object.

Usage: scripts/bench_tiles.py [--device SPEC ...] [--build DIR] [--json]
       (default: 16x16 and 128x128:bus=512, build/)
"""
import argparse
import json
import os
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from build_python import build_python  # noqa: E402
from one_line_parser import OneLineParser  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STREAM = 256  # products in a stream

# Runs in the build's Python (numpy and the mxu package): one device, every workload.
MEASURE = r"""
import json, sys
import numpy as np
import mxu
spec = sys.argv[1]
dev = mxu.Device(backend="model", device=spec)
cols = dev.info()["array_cols"]
rng = np.random.default_rng(66)
out = []

def record(name, m, k, n, products):
    c = dev.counters()
    out.append({"name": name, "shape": f"{m}x{k}x{n}", "products": products,
                "cycles": c["cycles"], "column_clocks": c["column_clocks"],
                "outputs": m * n * products})

for m, k, n in ((10, 16, 10), (10, 10, 16)):
    a = [rng.standard_normal((m, k)).astype(np.float32) for _ in range(STREAM)]
    b = [rng.standard_normal((k, n)).astype(np.float32) for _ in range(STREAM)]
    dev.gemm_batch(a, b)
    record("stream", m, k, n, STREAM)
for name, (m, k, n) in (("full", (256, 256, 256)), ("quarter", (256, 256, max(1, cols // 4))),
                        ("short_k", (256, 4, 256))):
    dev.gemm(rng.standard_normal((m, k)).astype(np.float32),
             rng.standard_normal((k, n)).astype(np.float32))
    record(name, m, k, n, 1)
print(json.dumps({"device": spec, "cols": cols, "rows": out}))
""".replace("STREAM", str(STREAM))


def measure(spec, build):
    if not os.path.isdir(os.path.join(build, "python", "mxu")):
        sys.exit(f"bench_tiles: no Python package in {build}/python (scripts/setup.sh builds it)")
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    r = subprocess.run([build_python(build), "-c", MEASURE, spec], env=env, cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or [""])[-1]
        sys.exit(f"bench_tiles: device {spec}: {last}")
    result = json.loads(r.stdout)
    full = next(row for row in result["rows"] if row["name"] == "full")
    per_cycle = full["column_clocks"] / full["cycles"]
    for row in result["rows"]:
        row["cycles_per_product"] = round(row["cycles"] / row["products"], 1)
        row["columns_per_cycle_vs_full"] = round(row["column_clocks"] / row["cycles"] / per_cycle,
                                                 3)
    return result


def main():
    parser = OneLineParser(prog="bench_tiles.py", description=__doc__.splitlines()[0])
    parser.add_argument("--device", action="append", metavar="SPEC",
                        help="a device spec (mxu info --list); repeatable")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    results = [measure(spec, args.build) for spec in args.device or ["16x16", "128x128:bus=512"]]
    if args.json:
        print(json.dumps({"devices": results}, indent=1))
        return 0
    print(f"{'device':<18} {'workload':<8} {'shape':<12} {'cycles':>9} {'a product':>10} "
          f"{'col clocks':>12} {'vs full':>8}")
    for result in results:
        for row in result["rows"]:
            print(f"{result['device']:<18} {row['name']:<8} {row['shape']:<12} "
                  f"{row['cycles']:>9} {row['cycles_per_product']:>10} "
                  f"{row['column_clocks']:>12} {row['columns_per_cycle_vs_full']:>8}")
    print("vs full: columns clocked a cycle against the full-width GEMM's (the share of its array "
          "clock power)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
