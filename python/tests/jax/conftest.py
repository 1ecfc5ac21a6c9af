"""mxu.jax's tests: run by the project's venv (.venv/bin/python, scripts/setup.sh), which has
JAX from PyPI. Without JAX they fail, naming the package (they never skip): the set-up's pip
install did not succeed. One device per process: the default device's RTL."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch"))


def require(package, pin):
    """The module `package`, or the whole run stops (exit code 1) naming it and the fix."""
    try:
        return __import__(package)
    except ImportError as e:
        pytest.exit(f"{package} is not installed for {sys.executable} ({e}): run "
                    f"scripts/setup.sh, which pip-installs {pin} into .venv, and run the tests "
                    "with .venv/bin/python", returncode=1)


require("jax", "jax[cpu]==0.4.30")
import mxu  # noqa: E402


@pytest.fixture(scope="session")
def dev():
    return mxu.Device(backend="rtl", mem_latency=50, mem_bytes_per_cycle=32, mem_in_flight=8)


@pytest.fixture(scope="session")
def rows(dev):
    return int(dev.info()["array_rows"])
