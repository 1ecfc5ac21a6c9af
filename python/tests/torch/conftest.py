"""The device of the mode's tests: the default device's RTL, one per process (pytest may run this
folder on its own, without python/tests/conftest.py)."""
import pytest

import mxu


@pytest.fixture(scope="session")
def dev():
    return mxu.Device(backend="rtl", mem_latency=50, mem_bytes_per_cycle=32, mem_in_flight=8)
