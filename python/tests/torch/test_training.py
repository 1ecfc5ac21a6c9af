"""Training under the mode: the same bits on the model and the RTL backends, every product on the
device. Each backend runs in its own process (one device per process)."""
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

SCRIPT = os.path.join(os.path.dirname(__file__), "train_steps.py")


def train(backend, model):
    run = subprocess.run([sys.executable, SCRIPT, "--backend", backend, "--model", model,
                          "--steps", "20"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_twenty_steps_give_the_same_bits_on_the_model_and_the_rtl(model):
    on_model, on_rtl = train("model", model), train("rtl", model)
    assert on_model["digest"] == on_rtl["digest"]
    assert on_model["losses"] == on_rtl["losses"]
    assert on_model["losses"][-1] < on_model["losses"][0]
    for run in (on_model, on_rtl):
        assert run["totals"]["host_products"] == 0
        # forward: one per layer; backward: grad_weight per layer, grad_input but for the first
        assert run["totals"]["device_gemms"] == 20 * {"mlp": 2 + 3, "cnn": 3 + 5}[model]
