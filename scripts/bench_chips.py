#!/usr/bin/env python3
"""The guides' Keras program on 1, 2, 4 and 8 simulated chips (a benchmark, not a test): the
MLP of examples/keras/fashion_mlp.py (Dense(512, relu), Dropout(0.2), Dense(10)) trained under
mxu.keras.DeviceStrategy(mxu.Devices(N, backend="model")) at a global batch of 1,024, each chip a
worker process, as replicas (data parallelism: `steps` steps) and with each Dense kernel split
by output columns (model parallelism: half as many steps). Per chip count: each step's compute
cycles (the busiest chip), the interconnect's cycles, the simulated scaling efficiency, the
chips' and the links' energy, the last step's loss, and the wall time of the steps on this
machine (the chips run side by side on its cores). Prints a table, or with --json one JSON
object (the figures generator's source `keras_chips`, docs/keras_jax.md).

Usage: scripts/bench_chips.py [--chips N,N,...] [--steps N] [--build DIR] [--json]
       (default: 1,2,4,8 chips, 8 steps, build/)
"""
import argparse
import json
import os
import subprocess
import sys
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from one_line_parser import OneLineParser, positive_int  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
BATCH = 1024


def chip_counts(text):
    try:
        counts = [int(c) for c in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of chip counts") from None
    if not counts or any(c < 1 or c > 64 for c in counts):
        raise argparse.ArgumentTypeError(f"{text!r}: chip counts are 1 to 64")
    return counts


def measure(chips, steps, parallel):
    """One chip count, in this process (run under the venv's Python by `--one`): the report's
    per-step figures over `steps` steps, after one step that traces the shapes."""
    os.environ.setdefault("KERAS_BACKEND", "jax")
    sys.path.insert(0, os.path.join(ROOT, "examples", "torch"))
    import keras
    import numpy as np
    import mxu
    import mxu.keras
    import fashion_mnist
    x, y, _, _ = fashion_mnist.load(BATCH * (steps + 1), 10)
    x, y = x.reshape(len(x), -1), y.astype(np.int32)
    keras.utils.set_random_seed(1)
    with mxu.Devices(chips, backend="model") as devices:
        strategy = mxu.keras.DeviceStrategy(devices, **(
            {"parallel": "model"} if parallel == "model" and chips > 1 else {}))
        with strategy.scope():
            model = keras.Sequential([keras.layers.Dense(512, activation="relu"),
                                      keras.layers.Dropout(0.2), keras.layers.Dense(10)])
            model.compile(optimizer="adam", metrics=["sparse_categorical_accuracy"],
                          loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(x[:BATCH], y[:BATCH], batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
        before = strategy.report()
        start = time.perf_counter()
        history = model.fit(x[BATCH:], y[BATCH:], batch_size=BATCH, epochs=1, verbose=0,
                            shuffle=False)
        wall = time.perf_counter() - start
        after = strategy.report()

    def per_step(get):
        return (get(after) - get(before)) / steps
    compute = per_step(lambda r: r["step_time"]["compute_cycles"])
    comm = per_step(lambda r: r["step_time"]["communication_cycles"])
    per_chip = [(a["device_cycles"] - b["device_cycles"]) / steps
                for a, b in zip(after["chips"], before["chips"])]
    return {"chips": chips, "parallel": parallel,
            "rows_per_chip": BATCH // chips if parallel == "data" else BATCH,
            "compute_cycles_per_step": round(compute),
            "interconnect_cycles_per_step": round(comm),
            "all_reduce_bytes": after["interconnect"]["all_reduce_bytes"] //
            max(1, after["interconnect"]["all_reduces"]),
            "scaling_efficiency": round(sum(per_chip) / chips / (compute + comm), 4),
            "chips_energy_mj_per_step": round(per_step(lambda r: r["totals"]["energy_uj"]) / 1e3,
                                              1),
            "links_energy_uj_per_step": round(
                per_step(lambda r: r["interconnect"]["link_energy_uj"]), 1),
            "loss": round(float(history.history["loss"][-1]), 6), "wall_s": round(wall, 2)}


def run_one(chips, steps, parallel, build):
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    command = [VENV_PYTHON, os.path.abspath(__file__), "--one", str(chips), "--steps", str(steps),
               "--parallel", parallel]
    result = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        last = result.stderr.strip().splitlines()[-1:] or [""]
        sys.exit(f"bench_chips: {chips} chips failed ({result.returncode}): {last[0]}")
    return json.loads(result.stdout)


def main():
    p = OneLineParser(description=__doc__.splitlines()[0])
    p.add_argument("--chips", type=chip_counts, default=[1, 2, 4, 8])
    p.add_argument("--steps", type=positive_int, default=8, help="measured steps (default 8)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--json", action="store_true", help="print one JSON object instead")
    p.add_argument("--one", type=positive_int, help=argparse.SUPPRESS)
    p.add_argument("--parallel", choices=("data", "model"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.steps, args.parallel or "data")))
        return
    if not os.path.isdir(os.path.join(args.build, "python", "mxu")):
        p.error(f"--build {args.build}: no build with the Python package (scripts/setup.sh)")
    if not os.access(VENV_PYTHON, os.X_OK):
        p.error(f"{VENV_PYTHON}: no project venv with Keras and JAX (scripts/setup.sh)")
    rows = [run_one(chips, args.steps, "data", args.build) for chips in args.chips]
    model_steps = max(1, args.steps // 2)
    model_rows = [run_one(chips, model_steps, "model", args.build) for chips in args.chips]
    for table in (rows, model_rows):
        one = next((r for r in table if r["chips"] == 1), None)
        for r in table:
            r["wall_over_one_chip"] = round(r["wall_s"] / one["wall_s"], 3) if one else None
    result = {"backend": "model", "device": "16x16", "global_batch": BATCH, "steps": args.steps,
              "model_steps": model_steps, "cores": os.cpu_count(), "rows": rows,
              "model_rows": model_rows}
    if args.json:
        print(json.dumps(result))
        return
    for name, table, steps in (("replicas", rows, args.steps),
                               ("split kernels", model_rows, model_steps)):
        print(f"the guides' MLP, {name}, global batch {BATCH}, {steps} steps, model backend, "
              f"{os.cpu_count()} cores")
        print(f"{'chips':>5} {'rows/chip':>9} {'compute/chip':>13} {'interconn.':>10} "
              f"{'efficiency':>10} {'chips mJ':>9} {'links uJ':>9} {'loss':>9} {'wall s':>7} "
              f"{'vs 1':>6}")
        for r in table:
            ratio = f"{r['wall_over_one_chip']:.2f}" if r["wall_over_one_chip"] else "-"
            print(f"{r['chips']:>5} {r['rows_per_chip']:>9,} {r['compute_cycles_per_step']:>13,} "
                  f"{r['interconnect_cycles_per_step']:>10,} "
                  f"{100 * r['scaling_efficiency']:>9.1f}% {r['chips_energy_mj_per_step']:>9,.1f} "
                  f"{r['links_energy_uj_per_step']:>9,.1f} {r['loss']:>9.6f} {r['wall_s']:>7.2f} "
                  f"{ratio:>6}")


if __name__ == "__main__":
    main()
