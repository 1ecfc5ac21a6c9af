"""The PyTorch examples (examples/torch) on small sizes, each in its own process.

Every example runs as `sys.executable examples/torch/NAME.py ... --json` with the environment's
PYTHONPATH (one device per process: nothing here opens one). On the model backend each must
finish, run every matrix product on the device (host_products == 0, device_gemms > 0) and learn
something in its few steps; one example runs on the RTL and one on the cross backend; each script
refuses a bad argument with one line on stderr and exit code 2. Wall times are not asserted.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "torch"
SCRIPTS = ("fashion_mlp", "fashion_cnn", "transformer", "rnn")

ENV = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")


# mxu.torch and Fashion-MNIST are what the set-up builds and installs: a test that cannot find
# them fails (the child's one-line error says why); none is skipped.

# Small runs: seconds each on the model backend.
SMALL = {
    "fashion_mlp": ["--samples", "512", "--test-samples", "200", "--batch", "64",
                    "--epochs", "2", "--hidden", "64"],
    "fashion_cnn": ["--samples", "256", "--test-samples", "100", "--batch", "32",
                    "--epochs", "2"],
    "transformer": ["--steps", "8", "--batch", "16", "--samples", "50"],
    "rnn": ["--steps", "10", "--batch", "8", "--length", "12", "--hidden", "16",
            "--samples", "20"],
}


def run(script, *args, timeout=600):
    return subprocess.run([sys.executable, str(EXAMPLES / f"{script}.py"), *args], env=ENV,
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def run_json(script, *args, timeout=600):
    r = run(script, *args, "--json", timeout=timeout)
    assert r.returncode == 0, f"{script} exit code {r.returncode}:\n{r.stderr[-4000:]}"
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1, f"stdout is not one JSON object: {r.stdout[-2000:]}"
    return json.loads(lines[0])


def assert_learned(script, out):
    """The few steps of a small run learned something: accuracy above chance or a lower loss."""
    if script.startswith("fashion"):
        assert out["test_accuracy"] > 0.2, out  # ten classes: chance is 0.1
        assert out["train_loss"] < out["first_train_loss"], out
    else:
        assert out["test_loss"] < out["first_loss"], out


def assert_on_device(out):
    totals = out["device_totals"]
    assert totals["host_products"] == 0, totals
    assert totals["device_gemms"] > 0, totals
    assert totals["device_macs"] > 0 and totals["device_cycles"] > 0, totals


def small(script):
    return pytest.param(script, id=script)


@pytest.mark.parametrize("script", [small(s) for s in SCRIPTS])
def test_model_backend(script):
    out = run_json(script, "--backend", "model", *SMALL[script])
    assert out["backend"] == "model"
    assert_on_device(out)
    assert_learned(script, out)
    if script == "transformer":
        # model.eval() inference under torch.no_grad() runs on the device too.
        assert out["eval_device_gemms"] > 0 and out["eval_host_products"] == 0, out


def test_gru_on_model_backend():
    out = run_json("rnn", "--backend", "model", "--cell", "gru", *SMALL["rnn"])
    assert out["cell"] == "gru"
    assert_on_device(out)
    assert_learned("rnn", out)


@pytest.mark.parametrize("script", SCRIPTS)
def test_host_backend(script):
    """--backend host is plain PyTorch: no device, no totals, and it needs no mxu.torch."""
    out = run_json(script, "--backend", "host", *SMALL[script])
    assert "device_totals" not in out
    assert_learned(script, out)


def without_times(out):
    """A run's JSON without what depends on the machine: wall times (`*_s`, `*seconds*`...)."""
    timed = lambda key: key.endswith("_s") or "second" in key or "_us_" in key
    out = {k: v for k, v in out.items() if not timed(k)}
    if "device_totals" in out:
        out["device_totals"] = {k: v for k, v in out["device_totals"].items() if not timed(k)}
    return out


def test_host_run_is_reproducible():
    first = without_times(run_json("rnn", "--backend", "host", "--seed", "7", *SMALL["rnn"]))
    second = without_times(run_json("rnn", "--backend", "host", "--seed", "7", *SMALL["rnn"]))
    other = without_times(run_json("rnn", "--backend", "host", "--seed", "8", *SMALL["rnn"]))
    assert first == second
    assert first["test_loss"] != other["test_loss"]


def test_model_run_is_reproducible():
    outs = [without_times(run_json("rnn", "--backend", "model", "--seed", "3", *SMALL["rnn"]))
            for _ in range(2)]
    assert outs[0] == outs[1]
    assert outs[0]["device_totals"]["device_cycles"] > 0


def test_rtl_backend():
    # The RTL simulates ~50k cycles/s: a tiny LSTM, two steps.
    out = run_json("rnn", "--backend", "rtl", "--steps", "2", "--batch", "4", "--length", "4",
                   "--hidden", "8", "--samples", "4")
    assert out["backend"] == "rtl"
    assert_on_device(out)


def test_cross_backend():
    # RTL and model compared after every program: a tiny MLP, two steps.
    out = run_json("fashion_mlp", "--backend", "cross", "--samples", "32", "--test-samples",
                   "16", "--batch", "16", "--epochs", "1", "--hidden", "16")
    assert out["backend"] == "cross"
    assert_on_device(out)


def test_report_and_plot(tmp_path):
    report = tmp_path / "r.json"
    out = run_json("rnn", "--backend", "model", *SMALL["rnn"], "--report", str(report),
                   "--plot")
    data = json.loads(report.read_text())
    assert data["totals"]["device_gemms"] == out["device_totals"]["device_gemms"]
    assert data["ops"], "the report lists no ops"
    assert (tmp_path / "r.png").stat().st_size > 0


def test_human_summary():
    r = run("transformer", "--backend", "model", *SMALL["transformer"])
    assert r.returncode == 0, r.stderr[-4000:]
    for text in ("test_accuracy", "wall time", "device GEMMs", "device cycles", "host products"):
        assert text in r.stdout, r.stdout


def assert_refused(r, text):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert text in lines[0], lines[0]


@pytest.mark.parametrize("script,args,text", [
    ("fashion_mlp", ["--epochs", "0"], "--epochs"),
    ("fashion_cnn", ["--batch", "-3"], "--batch"),
    ("transformer", ["--task", "copy"], "--task"),
    ("rnn", ["--cell", "rnn"], "--cell"),
])
def test_bad_argument(script, args, text):
    assert_refused(run(script, *args), text)


QUANTIZE = ["--samples", "512", "--test-samples", "200", "--calibration", "256"]


def test_quantize_runs_the_int8_model_on_the_integer_mode(tmp_path):
    checkpoint = tmp_path / "cnn.pt"
    out = run_json("quantize", "--backend", "model", *QUANTIZE, "--checkpoint", str(checkpoint))
    int8, bf16 = out["int8_device"], out["bf16_device"]
    assert int8["host_products"] == 0 and int8["gemms"] == int8["int8_gemms"] > 0, int8
    assert bf16["host_products"] == 0 and bf16["int8_gemms"] == 0 and bf16["gemms"] > 0, bf16
    assert int8["macs"] == bf16["macs"]  # the same model's products
    # Each logit within 1 of PyTorch's quantized kernels (qnnpack: where the roundings differ).
    assert out["logits_max_difference"] <= 1, out
    assert out["int8_device_accuracy"] > 0.2 and out["fp32_host_accuracy"] > 0.2, out
    assert checkpoint.stat().st_size > 0
    # The checkpoint is loaded, not trained again: the same fp32 model.
    again = run_json("quantize", "--backend", "host", *QUANTIZE, "--checkpoint", str(checkpoint))
    assert again["fp32_host_accuracy"] == out["fp32_host_accuracy"]
    assert again["int8_host_accuracy"] == out["int8_host_accuracy"]
    assert "int8_device" not in again


def test_quantize_refuses_a_bad_checkpoint(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_text("not a checkpoint")
    assert_refused(run("quantize", "--backend", "host", *QUANTIZE, "--checkpoint", str(bad)),
                   "--checkpoint")
    assert_refused(run("quantize", "--engine", "fbgemm"), "--engine")


@pytest.mark.parametrize("args,text", [
    (["--plot"], "--plot needs --report"),
    (["--backend", "host", "--device", "16x16"], "--device needs a device backend"),
    (["--backend", "tpu"], "--backend"),
    (["--steps", "10", "--unknown"], "unrecognized arguments"),
    (["--noise", "1.5"], "--noise"),
])
def test_bad_common_argument(args, text):
    assert_refused(run("rnn", *args), text)


def test_bad_device_spec():
    r = run("rnn", "--backend", "model", "--device", "bogus", *SMALL["rnn"])
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_missing_data_names_the_package(tmp_path):
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import fashion_mnist\n"
            "try:\n    fashion_mnist.load(10, 10, directory=sys.argv[2])\n"
            "except fashion_mnist.DataError as e:\n    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code, str(EXAMPLES), str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert "dataset-fashion-mnist" in r.stdout, (r.stdout, r.stderr)
