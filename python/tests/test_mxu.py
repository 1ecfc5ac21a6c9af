"""The mxu Python module on the RTL device.

Results are checked bit for bit against two references: the golden model exposed by the module
(mxu.golden_gemm, the C++ model every other check of the project uses), and, for operands where
it is exact, an independent NumPy reproduction of the numeric contract's accumulation order
(docs/numerics.md): K cut into tiles of ArrayRows; within a tile a float32 partial sum starting
at +0.0 adds the products in increasing k; the first tile's sum starts C (or every tile's sum is
added to C0/bias). bf16 x bf16 products are exact in float32 for the moderate values used, so
NumPy's float32 multiply and add give the contract's bits. Plain `a @ b` does not: NumPy sums in
its own order (pairwise, BLAS), which is not the device's.
"""
import json
import os
import subprocess

import numpy as np
import pytest

import mxu


def moderate(rng, shape):
    """float32 values already representable in bf16, exponents around 1.0, both signs."""
    bits = (rng.integers(0, 1 << 7, size=shape) | (rng.integers(120, 132, size=shape) << 7)
            | (rng.integers(0, 2, size=shape) << 15))
    return mxu.bf16_to_float(bits.astype(np.uint16))


def contract_gemm(a, b, rows, c0=None):
    """The contract's accumulation order in NumPy float32 (a: M x K, b: K x N, float32)."""
    m, k = a.shape
    n = b.shape[1]
    c = None if c0 is None else c0.astype(np.float32).copy()
    for k0 in range(0, k, rows):
        tile = np.zeros((m, n), np.float32)
        for kk in range(k0, min(k0 + rows, k)):
            tile = tile + a[:, kk:kk + 1] * b[kk:kk + 1, :]
        c = tile if c is None else c + tile
    return c


def to_bf16_bits(x):
    """float32 -> bf16 bits, round to nearest even (finite values)."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def same_bits(x, y):
    return x.dtype == y.dtype and x.shape == y.shape and np.array_equal(
        x.view(np.uint32 if x.dtype == np.float32 else np.uint16),
        y.view(np.uint32 if y.dtype == np.float32 else np.uint16))


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (16, 16, 16), (17, 33, 15), (40, 50, 30)])
def test_gemm_matches_the_contract_in_numpy(dev, m, k, n):
    rng = np.random.default_rng(m * 10000 + k * 100 + n)
    a, b = moderate(rng, (m, k)), moderate(rng, (k, n))
    c = dev.gemm(a, b)
    assert c.dtype == np.float32 and c.shape == (m, n)
    assert same_bits(c, contract_gemm(a, b, dev.info()["array_rows"]))
    assert same_bits(c, mxu.golden_gemm(a, b, array_rows=dev.info()["array_rows"]))


def test_numpy_reference_is_not_a_plain_matmul(dev):
    # Why the tests reproduce the contract's order: K = 64 in tiles of 16 rounds differently
    # from a single float32 dot product for some outputs.
    rng = np.random.default_rng(5)
    a, b = moderate(rng, (64, 64)), moderate(rng, (64, 64))
    c = dev.gemm(a, b)
    assert same_bits(c, contract_gemm(a, b, dev.info()["array_rows"]))
    assert not same_bits(c, (a @ b).astype(np.float32))


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("init", ["none", "bias", "accumulate"])
@pytest.mark.parametrize("out", ["fp32", "bf16"])
def test_every_option_is_bit_exact_against_the_golden_model(dev, ta, tb, relu, init, out):
    m, k, n = 19, 21, 18
    rng = np.random.default_rng(hash((ta, tb, relu, init, out)) & 0xFFFF)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)  # rounded to bf16
    b = mxu.float_to_bf16(rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32))
    b[0, 0] = 0x7F80  # +Inf, and a NaN: specials travel too
    b[1, 1] = 0x7FC1
    kwargs = dict(ta=ta, tb=tb, relu=relu, out=out)
    if init == "bias":
        kwargs["bias"] = rng.standard_normal(n).astype(np.float32)
    elif init == "accumulate":
        kwargs["accumulate"] = rng.standard_normal((m, n)).astype(np.float32)
    c = dev.gemm(a, b, check=True, **kwargs)
    assert c.dtype == (np.uint16 if out == "bf16" else np.float32) and c.shape == (m, n)
    assert dev.counters()["mismatches"] == 0
    want = mxu.golden_gemm(a, b, array_rows=dev.info()["array_rows"], **kwargs)
    assert same_bits(c, want)


def test_bias_relu_and_bf16_output_match_the_contract_in_numpy(dev):
    rng = np.random.default_rng(11)
    a, b = moderate(rng, (20, 40)), moderate(rng, (40, 24))
    bias = moderate(rng, (24,))
    c = dev.gemm(a, b, bias=bias, relu=True, out="bf16")
    ref = contract_gemm(a, b, dev.info()["array_rows"], c0=np.broadcast_to(bias, (20, 24)))
    ref = np.where(ref > 0, ref, np.float32(0))
    assert same_bits(c, to_bf16_bits(ref))


def test_counters_report_the_run(dev):
    rng = np.random.default_rng(3)
    dev.gemm(moderate(rng, (32, 48)), moderate(rng, (48, 16)))
    c = dev.counters()
    assert (c["m"], c["k"], c["n"]) == (32, 48, 16)
    assert c["ideal_cycles"] == 32 * 48 * 16 // (16 * 16)
    assert c["cycles"] >= c["ideal_cycles"] > 0
    assert 0 < c["utilization"] <= 1
    assert c["dma_write_bytes"] == 32 * 16 * 4
    for key in ("array_busy", "macs", "dma_read_bytes", "instructions", "stall_dependency",
                "stall_weights", "stall_fetch", "stall_memory", "wall_seconds"):
        assert key in c


def test_info_matches_the_csrs(dev):
    info = dev.info()
    array = dev.read_csr(mxu.CSR["ARRAY"])
    features = dev.read_csr(mxu.CSR["FEATURES"])
    assert dev.read_csr(mxu.CSR["ID"]) == 0x4D585530
    version = dev.read_csr(mxu.CSR["VERSION"])
    assert info["version"] == f"{version >> 16}.{version & 0xFFFF}"
    assert (info["array_rows"], info["array_cols"]) == (array & 0xFFFF, array >> 16)
    assert info["ub_depth"] == dev.read_csr(mxu.CSR["UB_DEPTH"])
    assert info["acc_depth"] == dev.read_csr(mxu.CSR["ACC_DEPTH"])
    assert info["weight_fifo_depth"] == dev.read_csr(mxu.CSR["WFIFO_DEPTH"])
    assert info["bus_bytes"] == 1 << (features & 0xFF)
    assert info["ub_lanes"] == (features >> 16) & 0xFF
    assert info["max_in_flight"] == features >> 24
    assert info["subnormals"] == ("flush" if features & 0x100 else "ieee")
    assert (info["mem_latency"], info["mem_bytes_per_cycle"], info["mem_in_flight"]) == (50, 32, 8)
    assert info["backend"] == dev.backend == "rtl"
    assert "rtl" in mxu.backends()


@pytest.mark.skipif("MXU_BINARY" not in os.environ, reason="needs the mxu tool (MXU_BINARY)")
def test_info_matches_the_command_line(dev):
    cli = json.loads(subprocess.run([os.environ["MXU_BINARY"], "info", "--json"], check=True,
                                    capture_output=True, text=True).stdout)
    info = dev.info()
    assert {key: info[key] for key in cli} == cli


def test_bad_arguments_raise_one_line_errors(dev):
    a = np.ones((4, 5), np.float32)
    with pytest.raises(ValueError, match=r"^op\(A\) is 4x5 but op\(B\) is 6x4: inner dimensions "
                       r"differ$"):
        dev.gemm(a, np.ones((6, 4), np.float32))
    with pytest.raises(ValueError, match="^a: expected a 2-D array, got rank 1$"):
        dev.gemm(np.ones(4, np.float32), a)
    with pytest.raises(ValueError, match="^a: a zero dimension$"):
        dev.gemm(np.ones((0, 5), np.float32), a)
    with pytest.raises(TypeError, match="^b: expected float32 .* got float64$"):
        dev.gemm(a, np.ones((5, 4)))
    with pytest.raises(ValueError, match="^bias: 3 values, expected N = 4$"):
        dev.gemm(a, np.ones((5, 4), np.float32), bias=np.ones(3, np.float32))
    with pytest.raises(ValueError, match="both set the accumulators' start"):
        dev.gemm(a, np.ones((5, 4), np.float32), bias=np.ones(4, np.float32),
                 accumulate=np.ones((4, 4), np.float32))
    with pytest.raises(ValueError, match=r"^accumulate: expected a float32 array of shape \(4, 4\)$"):
        dev.gemm(a, np.ones((5, 4), np.float32), accumulate=np.ones((4, 5), np.float32))
    with pytest.raises(ValueError, match="^out must be 'fp32' or 'bf16', got 'fp16'$"):
        dev.gemm(a, np.ones((5, 4), np.float32), out="fp16")


def test_size_limits_are_checked_before_anything_is_allocated(dev):
    # Broadcast views cost no memory; converting them would take 8 GiB and more.
    huge = np.broadcast_to(np.float32(1), (65535, 65535))
    with pytest.raises(ValueError, match=r"^a 65535 x 65535 x 65535 GEMM needs .* the limit is "
                       r"2.00 GiB"):
        dev.gemm(huge, huge)
    with pytest.raises(ValueError, match="^a: a dimension above 65535$"):
        dev.gemm(np.broadcast_to(np.float32(1), (65536, 1)), np.ones((1, 1), np.float32))
    with pytest.raises(ValueError, match="a dimension above 65535"):
        mxu.golden_gemm(np.ones((1, 1), np.float32), np.broadcast_to(np.float32(1), (1, 65536)))


def test_conversions_raise_type_error_on_other_dtypes():
    with pytest.raises(TypeError, match="^bf16_to_float: expected uint16 .* got float32$"):
        mxu.bf16_to_float(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="^float_to_bf16: expected float32, got float64$"):
        mxu.float_to_bf16(np.ones(3))
    with pytest.raises(TypeError, match="^float_to_bf16: expected float32"):
        mxu.float_to_bf16(np.array(["1.0"]))
    with pytest.raises(TypeError, match="^bf16_to_float: expected uint16"):
        mxu.bf16_to_float(np.ones(3, np.int32))
    assert mxu.bf16_to_float(mxu.float_to_bf16(np.array([1.5], np.float32)))[0] == 1.5


def test_watchdog_expiry_raises_device_error_and_the_device_recovers(dev):
    rng = np.random.default_rng(9)
    a, b = moderate(rng, (64, 64)), moderate(rng, (64, 64))
    with pytest.raises(mxu.DeviceError, match="watchdog"):
        dev.gemm(a, b, watchdog=50)
    assert issubclass(mxu.DeviceError, RuntimeError)
    assert same_bits(dev.gemm(a, b), contract_gemm(a, b, 16))


def test_one_device_per_process(dev):
    with pytest.raises(RuntimeError, match="one device per process"):
        mxu.Device()


def test_bad_device_settings_raise_value_error(dev):
    with pytest.raises(ValueError, match=r"^mem_bytes_per_cycle must be in \[1, 4096\], got 0$"):
        mxu.Device(mem_bytes_per_cycle=0)
