"""A few training steps of a small Keras MLP under DeviceStrategy give the same weights, bit for
bit, on the model and the RTL backends of a small device. Each backend runs in its own process
(one device per process)."""
import json
import os
import subprocess
import sys

import mxu

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_steps.py")


def small_device():
    """The build's smallest device (fewest PEs): the RTL is slowest per PE."""
    def pes(name):
        rows, cols = name.split("-")[0].split("x")
        return int(rows) * int(cols)
    return min(mxu.built_devices(), key=pes)


def train(backend, device):
    run = subprocess.run([sys.executable, SCRIPT, "--backend", backend, "--device", device,
                          "--steps", "4"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-4000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_four_steps_give_the_same_bits_on_the_model_and_the_rtl():
    device = small_device()
    on_model, on_rtl = train("model", device), train("rtl", device)
    assert on_model["digest"] == on_rtl["digest"]
    assert on_model["loss"] == on_rtl["loss"]
    for run in (on_model, on_rtl):
        # 4 steps of 5 GEMMs (2 forward; backward both weight gradients, one input gradient)
        assert run["totals"]["device_gemms"] == 4 * 5 and run["totals"]["host_products"] == 0
