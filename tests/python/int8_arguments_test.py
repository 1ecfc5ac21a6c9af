#!/usr/bin/env python3
"""Issue 43, defects 11 and 12, for the Python module (python/int8_arguments.cc).

Device.gemm_int8 and golden_gemm_int8 refuse oversize operands from their shapes, before any
copy: a broadcast int8 view of 65535 x 65535 (4 GiB as a copy) raised its ValueError only after
copying it. Run under a 3 GiB address-space limit, a copy first would raise MemoryError instead.
The sizes are the int8 mode's: 1 byte an operand element.
"""
import resource
import sys

resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

import numpy as np  # noqa: E402 (after the limit: its own allocations count too)
import mxu  # noqa: E402


def refused(call, fragment):
    try:
        call()
    except ValueError as error:
        assert fragment in str(error), f"{fragment!r} not in {error!r}"
        return
    raise AssertionError(f"no ValueError ({fragment})")


def main():
    dev = mxu.Device(backend="model")
    huge = np.broadcast_to(np.int8(1), (65535, 65535))
    for gemm in (dev.gemm_int8, mxu.golden_gemm_int8):
        refused(lambda: gemm(huge, huge), "a 65535 x 65535 x 65535 GEMM needs")
        refused(lambda: gemm(huge, huge, scales=0.5), "a 65535 x 65535 x 65535 GEMM needs")
    # At 1 byte an element: A is 2.44 GiB (4.88 GiB at bf16's 2).
    a = np.broadcast_to(np.int8(1), (65535, 40000))
    b = np.broadcast_to(np.int8(1), (40000, 1))
    refused(lambda: dev.gemm_int8(a, b), "(A 2.44 GiB, B 0.00 GiB, C 0.00 GiB)")
    # A bias or C0 is checked before it is copied too.
    a, b = np.ones((4, 5), np.int8), np.ones((5, 3), np.int8)
    wide = np.broadcast_to(np.int32(1), (65535, 65535))
    refused(lambda: dev.gemm_int8(a, b, bias=wide), "bias: expected a 1-D array, got rank 2")
    refused(lambda: mxu.golden_gemm_int8(a, b, accumulate=wide),
            "accumulate: expected an int32 array of shape (4, 3)")
    # And what fits still runs.
    assert np.array_equal(dev.gemm_int8(a, b), np.full((4, 3), 5, np.int32))
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
