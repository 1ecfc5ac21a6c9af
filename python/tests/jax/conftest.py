"""mxu.jax's tests: run by the project's venv (.venv/bin/python, scripts/setup.sh), which has
JAX from PyPI. Without JAX they fail, naming the package (they never skip): the set-up's pip
install did not succeed. One device per process: the default device's RTL."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "torch")]  # venv_packages.py; contract.py
from venv_packages import require  # noqa: E402

require("jax", "jax[cpu]==0.4.30")
import mxu  # noqa: E402


@pytest.fixture(scope="session")
def dev():
    return mxu.Device(backend="rtl", mem_latency=50, mem_bytes_per_cycle=32, mem_in_flight=8)


@pytest.fixture(scope="session")
def rows(dev):
    return int(dev.info()["array_rows"])
