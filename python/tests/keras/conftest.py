"""mxu.keras's tests: run by the project's venv (.venv/bin/python, scripts/setup.sh), which has
Keras and JAX from PyPI. Without them they fail, naming the package (they never skip): the
set-up's pip install did not succeed. One device per process: the model backend of the default
device (training loops; the bits are the RTL's, test_backends.py checks it)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "torch"))  # contract.py
sys.path.insert(0, os.path.join(HERE, "..", "jax"))  # venv_packages.py
os.environ.setdefault("KERAS_BACKEND", "jax")

from venv_packages import require  # noqa: E402

require("jax", "jax[cpu]==0.4.30")
require("keras", "keras==3.15.1")
import mxu  # noqa: E402


@pytest.fixture(scope="session")
def dev():
    return mxu.Device(backend="model")


@pytest.fixture(scope="session")
def rows(dev):
    return int(dev.info()["array_rows"])
