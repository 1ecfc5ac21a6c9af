"""What the PyTorch examples share: options, seeding, the device and its mode, the summary.

An example builds its parser with `parser(...)`, adds its own sizes, and calls `start(parser)`:
that parses the options (a bad one is one line on stderr and exit code 2), seeds Python, NumPy
and torch, and opens the device unless `--backend host`. `run.mode()` is the context in which
every matrix product of the model runs on the device (`mxu.torch.device_mode`; with `--backend
host` it does nothing), `run.log(...)` prints progress, `run.finish(metrics)` prints the summary
(or one JSON object with `--json`) and writes the report (`--report`, `--plot`).
"""
import contextlib
import json
import os
import random
import sys
import time

import numpy as np
import torch

# The command line's checked values (framework-free, shared with the JAX and Keras examples).
from options import Parser as _Parser
from options import positive_float, positive_int, probability, seed_int  # noqa: F401

BACKENDS = ("host", "rtl", "model", "cross")


def parser(prog, description):
    """The options every example takes; the example adds its sizes."""
    p = _Parser(prog=prog, description=description)
    p.add_argument("--backend", default="model", choices=BACKENDS,
                   help="where the matrix products run: host (plain PyTorch fp32, without the "
                        "mode), or the device's rtl, model or cross backend (default: model)")
    p.add_argument("--device", metavar="SPEC",
                   help="device spec, e.g. 16x16 or 32x32:pe=3 (default: the build's)")
    p.add_argument("--seed", type=seed_int, default=1, help="random seed (default: 1)")
    p.add_argument("--report", metavar="FILE.json",
                   help="write the device report (mxu.torch.write_report)")
    p.add_argument("--plot", action="store_true",
                   help="with --report: draw the report's plot beside it, as FILE.png")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object with the final metrics and the device totals "
                        "(progress goes to stderr)")
    p.add_argument("--unbatched", action="store_true",
                   help="run a batch's products (bmm, grouped convolutions, a convolution's "
                        "backward) one device program each instead of as one program "
                        "(mxu.torch.device_mode(batch=False): the same bits, other cycles)")
    p.add_argument("--threads", type=positive_int,
                   help="torch's CPU threads (default: torch's choice)")
    return p


def _die(prog, message, code):
    sys.stderr.write(f"{prog}: error: {message}\n")
    sys.exit(code)


def import_mxu_torch(prog):
    """mxu and mxu.torch, or one line on stderr and exit code 1 when they cannot be imported."""
    try:
        import mxu
        import mxu.torch  # noqa: F401  (the submodule, reached as mxu.torch)
    except Exception as e:  # ImportError, or an extension built for another Python
        _die(prog, f"mxu.torch cannot be imported ({type(e).__name__}: {e}); build it and run "
                   "with PYTHONPATH=build/python, or use --backend host", 1)
    return mxu


class Run:
    """One run of an example: its options, the device (None on the host), the mode, the clock."""

    def __init__(self, prog, args):
        self.prog = prog
        self.args = args
        self.dev = None
        self.mxu = None
        self._mode = None
        self._start = time.perf_counter()
        self._out = sys.stderr if args.json else sys.stdout

    def fail(self, message, code=2):
        """One line on stderr, then exit (2: bad arguments or data)."""
        _die(self.prog, message, code)

    def log(self, line):
        """Progress: stdout, or stderr with --json (stdout holds only the JSON object)."""
        print(line, file=self._out, flush=True)

    def where(self):
        if self.dev is None:
            return "host fp32 (plain PyTorch)"
        return f"the {self.args.backend} backend, device {self.args.device or 'default'}"

    @contextlib.contextmanager
    def mode(self):
        """Every matrix product inside runs on the device (nothing changes with --backend host).

        Entered once around the whole run, so the report counts training and evaluation.
        """
        if self.dev is None:
            yield None
            return
        with self.mxu.torch.device_mode(self.dev, batch=not self.args.unbatched) as m:
            self._mode = m
            yield m

    def totals(self):
        if self._mode is None:
            return None
        return dict(self._mode.report()["totals"])

    def finish(self, metrics):
        """The summary (or the JSON object), and the report. `metrics`: name -> value."""
        wall = time.perf_counter() - self._start
        totals = self.totals()
        if self.args.report:
            plot = os.path.splitext(self.args.report)[0] + ".png" if self.args.plot else None
            self.mxu.torch.write_report(self._mode, self.args.report, plot=plot)
        if self.args.json:
            out = {"example": self.prog, "backend": self.args.backend,
                   "device": self.args.device, "seed": self.args.seed}
            out.update(metrics)
            out["wall_s"] = round(wall, 3)
            if totals is not None:
                out["device_totals"] = totals
            print(json.dumps(out, default=_jsonable))
            return
        for name, value in metrics.items():
            if isinstance(value, (list, dict)):
                continue
            print(f"  {name:<24} {_human(name, value)}")
        print(f"  {'wall time':<24} {wall:.1f} s")
        if totals is not None:
            print(f"  {'device GEMMs':<24} {totals.get('device_gemms')}")
            print(f"  {'device MACs':<24} {totals.get('device_macs'):,}")
            print(f"  {'device cycles':<24} {totals.get('device_cycles'):,}")
            print(f"  {'host products':<24} {totals.get('host_products')}"
                  + ("" if totals.get("host_products") == 0 else "  (matrix products that "
                     "ran on the host: see the report's ops)"))
        if self.args.report:
            print(f"  {'report':<24} {self.args.report}"
                  + (f" (plot {os.path.splitext(self.args.report)[0]}.png)"
                     if self.args.plot else ""))


def _jsonable(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, torch.Tensor):
        return value.tolist()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def _human(name, value):
    if isinstance(value, float):
        if "accuracy" in name:
            return f"{100 * value:.2f}%"
        if name.endswith("_s"):
            return f"{value:.1f} s"
        return f"{value:.4f}" if abs(value) < 1e4 else f"{value:.4g}"
    return str(value)


def start(p, argv=None):
    """Parses the options, seeds everything and opens the device: a Run."""
    args = p.parse_args(argv)
    prog = p.prog
    if args.plot and not args.report:
        p.error("--plot needs --report FILE.json (the plot is written beside it)")
    if args.backend == "host" and (args.device or args.report):
        p.error(f"--{'device' if args.device else 'report'} needs a device backend "
                "(--backend rtl|model|cross), not host")
    if args.report and not args.report.endswith(".json"):
        p.error(f"--report {args.report}: the report is a .json file")
    if args.threads:
        torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    run = Run(prog, args)
    if args.backend != "host":
        run.mxu = import_mxu_torch(prog)
        try:
            run.dev = run.mxu.Device(backend=args.backend, device=args.device)
        except (ValueError, TypeError) as e:
            p.error(str(e).splitlines()[0] if str(e) else type(e).__name__)
    return run


def batches(n, batch, generator):
    """Shuffled index tensors of `batch` (the last one may be short), from `generator`."""
    order = torch.randperm(n, generator=generator)
    return [order[i:i + batch] for i in range(0, n, batch)]


def train_epoch(model, opt, loss_fn, x, y, batch, generator):
    """One epoch of mini-batches; returns the mean training loss and accuracy."""
    model.train()
    total_loss, correct = 0.0, 0
    for idx in batches(len(x), batch, generator):
        xb, yb = x[idx], y[idx]
        opt.zero_grad()
        logits = model(xb)
        loss = loss_fn(logits, yb)
        loss.backward()
        opt.step()
        total_loss += loss.item() * len(idx)
        correct += (logits.argmax(1) == yb).sum().item()
    return total_loss / len(x), correct / len(x)


def evaluate(model, loss_fn, x, y, batch=1024):
    """Mean loss and accuracy in eval mode under torch.no_grad(), in batches of `batch`."""
    model.eval()
    total_loss, correct = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(x), batch):
            logits = model(x[i:i + batch])
            total_loss += loss_fn(logits, y[i:i + batch]).item() * len(logits)
            correct += (logits.argmax(1) == y[i:i + batch]).sum().item()
    model.train()
    return total_loss / len(x), correct / len(x)


def add_fashion_mnist_arguments(p):
    """--samples and --test-samples, which load_fashion_mnist reads."""
    p.add_argument("--samples", type=positive_int,
                   help="train on the first N of the 60,000 training images")
    p.add_argument("--test-samples", type=positive_int,
                   help="test on the first N of the 10,000 test images")


def load_fashion_mnist(run):
    """Fashion-MNIST as torch tensors, capped by --samples / --test-samples."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import fashion_mnist
    try:
        x, y, xt, yt = fashion_mnist.load(run.args.samples, run.args.test_samples)
    except fashion_mnist.DataError as e:
        run.fail(str(e))
    return torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(xt), torch.from_numpy(yt)


def fit_classifier(run, model, opt, data, epochs, batch):
    """Trains an image classifier for `epochs`, evaluating the test set after each; metrics."""
    x, y, xt, yt = data
    loss_fn = torch.nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(run.args.seed)
    run.log(f"{run.prog}: {len(x)} train / {len(xt)} test images, "
            f"{sum(p.numel() for p in model.parameters())} parameters, batch {batch}, "
            f"{epochs} epochs, on {run.where()}")
    epoch_s, history = [], []
    with run.mode():
        for epoch in range(1, epochs + 1):
            t0 = time.perf_counter()
            loss, acc = train_epoch(model, opt, loss_fn, x, y, batch, generator)
            t1 = time.perf_counter()
            test_loss, test_acc = evaluate(model, loss_fn, xt, yt)
            t2 = time.perf_counter()
            epoch_s.append(round(t2 - t0, 3))
            history.append({"epoch": epoch, "train_loss": loss, "train_accuracy": acc,
                            "test_loss": test_loss, "test_accuracy": test_acc,
                            "train_s": round(t1 - t0, 3), "eval_s": round(t2 - t1, 3)})
            run.log(f"epoch {epoch}/{epochs}  loss {loss:.4f}  train {100 * acc:5.1f}%  "
                    f"test {100 * test_acc:5.2f}%  {t1 - t0:.1f} s + eval {t2 - t1:.1f} s")
    return {"train_samples": len(x), "test_samples": len(xt), "epochs": epochs, "batch": batch,
            "first_train_loss": history[0]["train_loss"], "train_loss": loss,
            "train_accuracy": acc, "test_loss": test_loss, "test_accuracy": test_acc,
            "epoch_s": epoch_s, "history": history}
