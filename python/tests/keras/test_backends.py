"""Backends. The device's: a few training steps of a small Keras MLP under DeviceStrategy give
the same weights, bit for bit, on the model and the RTL backends of a small device, each in its
own process (one device per process). Keras's (issue 69): in a fresh HOME, Keras runs on JAX in
the project's venv whatever is imported first; a backend the user chose (keras.json,
KERAS_BACKEND) is refused by mxu.keras with one line naming the fix, in either import order. Each
import runs in a process of its own, HOME a temporary folder, KERAS_HOME and KERAS_BACKEND unset.
"""
import json
import os
import subprocess
import sys

import pytest

import mxu
from mxu.keras import _backend

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


# Imports `first`, then mxu.keras, after `setup`; the last line: Keras's backend, or the error.
IMPORTS = """
import json, sys
{setup}
try:
    import {first}
    import mxu, mxu.keras
    print(json.dumps("backend " + sys.modules["keras"].backend.backend()))
except ImportError as error:
    print(json.dumps(f"error {{error}}"))
"""


def run_imports(home, first, setup="", **env):
    environment = {k: v for k, v in os.environ.items() if k not in ("KERAS_BACKEND", "KERAS_HOME")}
    environment.update(HOME=str(home), **env)
    code = IMPORTS.format(first=first, setup=setup)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=environment, timeout=300)
    assert run.returncode == 0, run.stderr[-4000:]
    return json.loads(run.stdout.strip().splitlines()[-1])  # one line, a newline in it kept


def keras_json(home):
    return json.loads((home / ".keras" / "keras.json").read_text())


def test_the_venv_runs_keras_on_jax_in_a_fresh_home_whatever_is_imported_first(tmp_path):
    """The project's venv as scripts/setup.sh makes it (its .pth line runs _backend's hook)."""
    assert run_imports(tmp_path, "keras") == "backend jax"
    assert keras_json(tmp_path)["backend"] == "jax"  # the next process reads it so
    assert run_imports(tmp_path, "keras") == "backend jax"


KERAS_DEFAULTS = {"floatx": "float32", "epsilon": 1e-07, "image_data_format": "channels_last"}


def test_the_venv_hook_makes_jax_the_default_in_a_fresh_home(tmp_path):
    """The hook as scripts/setup.sh installs it into the venv (here into a folder the process
    adds as a site folder, as the venv's site-packages): Keras's own keras.json, naming JAX."""
    site = tmp_path / "site"
    site.mkdir()
    subprocess.run([sys.executable, _backend.__file__, str(site)], check=True, timeout=60)
    assert (site / _backend.PTH_NAME).is_file()
    home = tmp_path / "home"
    home.mkdir()
    setup = f"import site; site.addsitedir({str(site)!r})"
    assert run_imports(home, "keras", setup=setup) == "backend jax"
    assert keras_json(home) == dict(KERAS_DEFAULTS, backend="jax")
    # Under KERAS_BACKEND=jax (as CTest runs the tests) too: Keras would write TensorFlow into
    # the new keras.json, and the next process without it would fail.
    other = tmp_path / "other"
    other.mkdir()
    assert run_imports(other, "keras", setup=setup, KERAS_BACKEND="jax") == "backend jax"
    assert keras_json(other) == dict(KERAS_DEFAULTS, backend="jax")


@pytest.mark.parametrize("env", [{}, {"KERAS_BACKEND": "jax"}])
def test_mxu_keras_imported_first_makes_jax_the_default_in_a_fresh_home(tmp_path, env):
    assert run_imports(tmp_path, "mxu.keras", **env) == "backend jax"
    assert keras_json(tmp_path) == dict(KERAS_DEFAULTS, backend="jax")


@pytest.mark.parametrize("first,backend", [("keras", "numpy"), ("mxu.keras", "numpy"),
                                           ("mxu.keras", "tensorflow")])
def test_a_backend_the_user_chose_in_keras_json_is_refused_in_one_line(tmp_path, first, backend):
    # numpy: a backend this Keras imports; tensorflow (what Keras writes into a new keras.json):
    # refused before Keras's own import of it fails, the venv having no TensorFlow.
    (tmp_path / ".keras").mkdir()
    path = tmp_path / ".keras" / "keras.json"
    path.write_text(json.dumps({"backend": backend}))
    assert run_imports(tmp_path, first) == (
        f"error mxu.keras needs Keras on the JAX backend, but {path} selects {backend!r}: set "
        "\"backend\": \"jax\" there, or KERAS_BACKEND=jax")
    assert json.loads(path.read_text()) == {"backend": backend}  # the user's, untouched


@pytest.mark.parametrize("first,backend", [("keras", "numpy"), ("mxu.keras", "tensorflow")])
def test_a_backend_the_user_chose_in_keras_backend_is_refused_in_one_line(tmp_path, first,
                                                                          backend):
    assert run_imports(tmp_path, first, KERAS_BACKEND=backend) == (
        f"error mxu.keras needs Keras on the JAX backend, but KERAS_BACKEND selects "
        f"{backend!r}: set KERAS_BACKEND=jax")
