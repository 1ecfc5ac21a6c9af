#!/usr/bin/env python3
"""The cost of PyTorch on the device (a benchmark, not a test): the Keras guide's Fashion-MNIST
MLP (784-512-10, dropout 0.2, Adam lr 1e-3, batch 1024) trained by `mxu train` in C++ and by
examples/torch/fashion_mlp.py under mxu.torch, side by side on the same backend, one after the
other; also plain PyTorch on the host for scale. Prints a table and writes JSON.

Usage: scripts/bench_torch.py [--epochs N] [--backend model] [--build DIR] [--json FILE]
       (default: 1 epoch on the model backend, build/, bench_torch.json)
"""
import argparse
import json
import os
import subprocess
import sys
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from build_python import build_python  # noqa: E402
from one_line_parser import OneLineParser  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = "/usr/share/datasets/fashion-mnist"


def run_json(command, env=None):
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"bench_torch: {' '.join(command)} failed ({result.returncode}): "
                 f"{result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ''}")
    return json.loads(result.stdout.strip().splitlines()[-1]), time.perf_counter() - start



def main():
    p = OneLineParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--backend", default="model", choices=("model", "rtl", "cross"))
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--json", default="bench_torch.json", metavar="FILE")
    args = p.parse_args()
    if args.epochs < 1:
        p.error("--epochs must be at least 1")
    env = dict(os.environ, PYTHONPATH=os.path.join(args.build, "python"))
    settings = ["--batch", "1024", "--epochs", str(args.epochs)]
    cpp, _ = run_json([os.path.join(args.build, "bin", "mxu"), "train", "--backend",
                       args.backend, "--data", DATA, "--hidden", "512", "--dropout", "0.2",
                       "--lr", "0.001", "--json", "--quiet"] + settings)
    example = [build_python(args.build), "examples/torch/fashion_mlp.py", "--json"] + settings
    torch_dev, _ = run_json(example + ["--backend", args.backend], env)
    host, _ = run_json(example + ["--backend", "host"], env)

    totals = torch_dev["device_totals"]
    steps = cpp["steps"]
    rows = [
        ("mxu train (C++)", cpp["wall_seconds"] / args.epochs, cpp["device_cycles"] / steps,
         cpp["test_accuracy"], None),
        ("mxu.torch (PyTorch)", sum(torch_dev["epoch_s"]) / args.epochs,
         totals["device_cycles"] / steps, torch_dev["test_accuracy"],
         totals["mode_overhead_us_per_gemm"]),
        ("PyTorch fp32 on the host", sum(host["epoch_s"]) / args.epochs, None,
         host["test_accuracy"], None),
    ]
    ratio = rows[1][1] / rows[0][1]
    print(f"Fashion-MNIST MLP 784-512-10, batch 1024, {args.epochs} epoch(s), backend "
          f"{args.backend} (epoch: training and the test set's evaluation)")
    print(f"{'run':<26} {'s/epoch':>8} {'cycles/step':>12} {'test acc':>9} {'mode us/GEMM':>13}")
    for name, seconds, cycles, accuracy, overhead in rows:
        print(f"{name:<26} {seconds:8.1f} {'' if cycles is None else f'{cycles:,.0f}':>12} "
              f"{100 * accuracy:8.2f}% {'' if overhead is None else f'{overhead:.0f}':>13}")
    print(f"mxu.torch / mxu train: {ratio:.2f}x the wall time per epoch")
    result = {"date": time.strftime("%Y-%m-%d"), "backend": args.backend,
              "epochs": args.epochs, "ratio": ratio,
              "mxu_train": {"seconds_per_epoch": rows[0][1], "cycles_per_step": rows[0][2],
                            "test_accuracy": cpp["test_accuracy"]},
              "mxu_torch": {"seconds_per_epoch": rows[1][1], "cycles_per_step": rows[1][2],
                            "test_accuracy": torch_dev["test_accuracy"], "totals": totals},
              "host": {"seconds_per_epoch": rows[2][1],
                       "test_accuracy": host["test_accuracy"]}}
    temporary = args.json + ".tmp"
    with open(temporary, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    os.replace(temporary, args.json)
    print(f"JSON: {args.json}")


if __name__ == "__main__":
    main()
