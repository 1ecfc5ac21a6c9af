"""One device per process: every test shares the session's device."""
import pytest

import mxu


@pytest.fixture(scope="session")
def dev():
    return mxu.Device(mem_latency=50, mem_bytes_per_cycle=32, mem_in_flight=8)
