"""The Keras and JAX examples (examples/keras, examples/jax) on small sizes, each in its own
process (one device per process), with this interpreter (the venv's). On the model backend each
must finish, run every matrix product on the device (host_products == 0, device_gemms > 0) and
learn something in its few steps; each runs on the host (plain Keras/JAX) too; a bad argument is
one line on stderr and exit code 2. Wall times are not asserted."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
ENV = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1", KERAS_BACKEND="jax")
SMALL = {
    "keras/fashion_mlp": ["--samples", "256", "--test-samples", "100", "--batch", "64",
                          "--epochs", "2"],
    "keras/fashion_cnn": ["--samples", "64", "--test-samples", "32", "--batch", "32",
                          "--epochs", "2"],
    "jax/fashion_mlp": ["--samples", "256", "--test-samples", "100", "--batch", "64",
                        "--epochs", "2", "--hidden", "64"],
}


def run(script, *args, timeout=600):
    return subprocess.run([sys.executable, str(ROOT / "examples" / f"{script}.py"), *args],
                          env=ENV, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def run_json(script, *args):
    r = run(script, *args, "--json")
    assert r.returncode == 0, f"{script} exit code {r.returncode}:\n{r.stderr[-4000:]}"
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1, f"stdout is not one JSON object: {r.stdout[-2000:]}"
    return json.loads(lines[0])


@pytest.mark.parametrize("script", sorted(SMALL))
def test_model_backend(script):
    out = run_json(script, "--backend", "model", *SMALL[script])
    totals = out["device_totals"]
    assert totals["host_products"] == 0 and totals["device_gemms"] > 0, totals
    assert out["train_loss"] < out["first_train_loss"], out
    assert out["test_accuracy"] > (0.15 if "cnn" in script else 0.3), out  # chance: 0.1


def test_the_guides_program_with_the_mixed_bfloat16_policy():
    out = run_json("keras/fashion_mlp", "--backend", "model", "--mixed-bfloat16",
                   *SMALL["keras/fashion_mlp"])
    assert out["device_totals"]["host_products"] == 0, out
    assert out["train_loss"] < out["first_train_loss"] and out["test_accuracy"] > 0.3, out


def test_the_guides_program_on_two_chips():
    """--chips 2: the same program as 2 replicas, one chip (worker process) each (issue 67)."""
    out = run_json("keras/fashion_mlp", "--backend", "model", "--chips", "2",
                   *SMALL["keras/fashion_mlp"])
    assert out["replicas"] == 2 and [c["rank"] for c in out["chips"]] == [0, 1], out
    assert all(c["host_products"] == 0 and c["device_gemms"] > 0 for c in out["chips"]), out
    assert out["interconnect"]["all_reduces"] == 2 * 256 // 64, out  # a training step's each
    assert out["train_loss"] < out["first_train_loss"] and out["test_accuracy"] > 0.3, out


@pytest.mark.parametrize("script", sorted(SMALL))
def test_host(script):
    out = run_json(script, "--backend", "host", *SMALL[script])
    assert "device_totals" not in out and out["train_loss"] < out["first_train_loss"], out


@pytest.mark.parametrize("args,message", [
    (["--epochs", "0"], "argument --epochs: '0' is not a positive integer"),
    (["--backend", "host", "--device", "16x16"], "--device needs a device backend"),
    (["--device", "7x"], "7x"),
    (["--backend", "host", "--chips", "2"], "--chips needs a device backend"),
])
def test_a_bad_argument_is_one_line(args, message):
    r = run("keras/fashion_mlp", *args)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
