"""What the JAX and Keras examples share (examples/jax, examples/keras): options, seeding, the
device, Fashion-MNIST, the summary.

An example builds its parser with `parser(...)`, adds its own sizes, and calls `start(parser)`:
that parses the options (a bad one is one line on stderr and exit code 2), seeds NumPy (and
Keras, when it is imported) and opens the device unless `--backend host`. `run.log(...)` prints
progress, `run.finish(metrics, report)` prints the summary (or one JSON object with `--json`)
and writes the report (`--report`). Fashion-MNIST comes from examples/torch/fashion_mnist.py
(Debian's dataset-fashion-mnist; nothing is downloaded). Run them with the project's venv,
which has JAX and Keras (scripts/setup.sh): .venv/bin/python examples/keras/fashion_mlp.py.
"""
import json
import os
import sys
import time

import numpy as np

BACKENDS = ("host", "rtl", "model", "cross")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch"))
# examples/torch/fashion_mnist.py and options.py: framework-free.
import fashion_mnist  # noqa: E402
from options import Parser, positive_float, positive_int, seed_int  # noqa: E402,F401


def parser(prog, description, epochs, batch):
    """The options every example takes (training sizes with these defaults included)."""
    p = Parser(prog=prog, description=description)
    p.add_argument("--backend", default="model", choices=BACKENDS,
                   help="where the matrix products run: host (plain Keras/JAX on the CPU, "
                        "fp32), or the device's rtl, model or cross backend (default: model)")
    p.add_argument("--device", metavar="SPEC",
                   help="device spec, e.g. 16x16 or 32x32:pe=3 (default: the build's)")
    p.add_argument("--seed", type=seed_int, default=1, help="random seed (default: 1)")
    p.add_argument("--epochs", type=positive_int, default=epochs)
    p.add_argument("--batch", type=positive_int, default=batch)
    p.add_argument("--samples", type=positive_int,
                   help="train on the first N of the 60,000 training images")
    p.add_argument("--test-samples", type=positive_int,
                   help="test on the first N of the 10,000 test images")
    p.add_argument("--report", metavar="FILE.json", help="write the device report")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object with the final metrics and the device totals "
                        "(progress goes to stderr)")
    return p


class Run:
    """One run: its options, the device (None on the host), the clock, the output stream."""

    def __init__(self, prog, args):
        self.prog, self.args = prog, args
        self.dev = None
        self._start = time.perf_counter()
        self._out = sys.stderr if args.json else sys.stdout

    def fail(self, message, code=2):
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        sys.exit(code)

    def log(self, line):
        print(line, file=self._out, flush=True)

    def where(self):
        if self.dev is None:
            return "the host (plain JAX on the CPU, fp32)"
        return f"the {self.args.backend} backend, device {self.args.device or 'default'}"

    def fashion_mnist(self, flatten):
        """(x_train, y_train, x_test, y_test): float32 in [0, 1], flattened to 784 or NHWC
        (N, 28, 28, 1), labels int32; capped by --samples / --test-samples."""
        try:
            x, y, xt, yt = fashion_mnist.load(self.args.samples, self.args.test_samples)
        except fashion_mnist.DataError as e:
            self.fail(str(e))

        def shape(images):
            return images.reshape(len(images), -1) if flatten else images.transpose(0, 2, 3, 1)
        return shape(x), y.astype(np.int32), shape(xt), yt.astype(np.int32)

    def finish(self, metrics, report=None):
        """The summary, or one JSON object; `report` the device's profile (None on the host)."""
        wall = time.perf_counter() - self._start
        if self.args.report:
            with open(self.args.report, "w") as f:
                json.dump(report, f, indent=2)
        totals = None if report is None else report["totals"]
        if self.args.json:
            out = {"example": self.prog, "backend": self.args.backend,
                   "device": self.args.device, "seed": self.args.seed, **metrics,
                   "wall_s": round(wall, 3)}
            if totals is not None:
                out["device_totals"] = totals
            print(json.dumps(out))
            return
        for name, value in metrics.items():
            if isinstance(value, float):
                value = f"{100 * value:.2f}%" if "accuracy" in name else f"{value:.4f}"
            print(f"  {name:<24} {value}")
        print(f"  {'wall time':<24} {wall:.1f} s")
        if totals is not None:
            for key in ("device_gemms", "device_macs", "device_cycles", "host_products"):
                print(f"  {key.replace('_', ' '):<24} {totals[key]:,}")
            print(f"  {'interpreter us/GEMM':<24} {totals['mode_overhead_us_per_gemm']:.0f}")


def start(p, argv=None):
    """Parses the options, seeds NumPy (and Keras if loaded), opens the device: a Run."""
    args = p.parse_args(argv)
    if args.backend == "host" and (args.device or args.report):
        p.error(f"--{'device' if args.device else 'report'} needs a device backend "
                "(--backend rtl|model|cross), not host")
    np.random.seed(args.seed)
    if "keras" in sys.modules:
        sys.modules["keras"].utils.set_random_seed(args.seed)
    run = Run(p.prog, args)
    if args.backend != "host":
        try:
            import mxu
        except Exception as e:  # ImportError, or an extension built for another Python
            run.fail(f"mxu cannot be imported ({type(e).__name__}: {e}); build it (scripts/"
                     "setup.sh) and run with .venv/bin/python, or use --backend host", 1)
        try:
            run.dev = mxu.Device(backend=args.backend, device=args.device)
        except (ValueError, TypeError) as e:
            p.error(str(e).splitlines()[0] if str(e) else type(e).__name__)
    return run
