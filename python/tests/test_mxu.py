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
import sys
import textwrap

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


def strided_views(x):
    """Views of x that are not C-contiguous: transposed twice over, every other row backwards,
    every third column, a single column."""
    wide = np.ascontiguousarray(x.T).T  # x's values, laid out column-major
    backwards = np.repeat(x[::-1], 2, axis=0)[::-2]
    thirds = np.repeat(x, 3, axis=1)[:, 1::3]
    return {"transposed": wide, "backwards": backwards, "thirds": thirds}


@pytest.mark.parametrize("layout", ["transposed", "backwards", "thirds"])
@pytest.mark.parametrize("dtype", ["float32", "uint16"])
def test_operands_of_any_strides_are_laid_out_by_the_extension(dev, layout, dtype):
    # The extension converts a view where it lies (python/arguments.cc), without a row-major
    # copy first: float32 values that are not bf16 round to nearest even, bf16 bits travel.
    rng = np.random.default_rng(7)
    m, k, n = 37, 45, 29
    values = rng.standard_normal((m, k)).astype(np.float32)  # most not representable in bf16
    bits = to_bf16_bits(values)
    a = strided_views(values if dtype == "float32" else bits)[layout]
    assert not a.flags.c_contiguous and a.shape == (m, k)
    b = moderate(rng, (k, n))
    exact = (bits.astype(np.uint32) << 16).view(np.float32)  # the bf16 operand, in float32
    want = contract_gemm(exact, b, dev.info()["array_rows"])
    assert same_bits(dev.gemm(a, b), want)
    assert same_bits(dev.gemm_batch([a, a], [b, b])[1], want)
    # (A B)^T = B^T A^T: the view as the B operand, beside a transposed view as A.
    assert same_bits(dev.gemm(b.T, a.T), contract_gemm(np.ascontiguousarray(b.T),
                                                       np.ascontiguousarray(exact.T),
                                                       dev.info()["array_rows"]))


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


def test_gemm_batch_is_gemm_on_each_element(dev):
    """Independent GEMMs of different shapes and options as one program: every output bit as
    gemm gives it (and as the golden model, check=True), in fewer cycles than one program each."""
    rng = np.random.default_rng(12)
    shapes = [(10, 16, 10), (33, 20, 7), (5, 40, 18), (10, 16, 10)]
    ta, tb, relu = [False, True, False, True], [False, False, True, True], [False, True, True, False]
    a = [moderate(rng, (k, m) if t else (m, k)) for (m, k, _), t in zip(shapes, ta)]
    b = [moderate(rng, (n, k) if t else (k, n)) for (_, k, n), t in zip(shapes, tb)]
    bias = [None, moderate(rng, (7,)), None, None]
    accumulate = [None, None, moderate(rng, (5, 18)), None]
    got = dev.gemm_batch(a, b, ta=ta, tb=tb, relu=relu, bias=bias, accumulate=accumulate,
                         check=True)
    batch = dev.counters()
    assert batch["gemms"] == 4 and batch["mismatches"] == 0
    assert batch["checked"] == sum(m * n for m, _, n in shapes)
    separate = 0
    for i in range(4):
        want = dev.gemm(a[i], b[i], ta=ta[i], tb=tb[i], relu=relu[i], bias=bias[i],
                        accumulate=accumulate[i])
        separate += dev.counters()["cycles"]
        assert same_bits(got[i], want)
    assert batch["cycles"] < separate
    # 3-D arrays in, one 3-D array out; bf16 output as gemm's
    a3, b3 = moderate(rng, (6, 10, 16)), moderate(rng, (6, 16, 10))
    c3 = dev.gemm_batch(a3, b3, out="bf16")
    assert c3.shape == (6, 10, 10) and c3.dtype == np.uint16
    for i in range(6):
        assert same_bits(c3[i], dev.gemm(a3[i], b3[i], out="bf16"))


def test_gemm_batch_bad_arguments_name_the_element(dev):
    rng = np.random.default_rng(13)
    good, wrong = moderate(rng, (4, 8)), moderate(rng, (9, 4))
    cycles = dev.read_csr(mxu.CSR["COUNTER_BASE"])  # the first counter: cycles, low word
    with pytest.raises(ValueError, match="^batch element 1: .*inner dimensions differ"):
        dev.gemm_batch([good, good], [good.T.copy(), wrong])
    with pytest.raises(TypeError, match="^batch element 0: b: expected float32"):
        dev.gemm_batch([good], [good.T.astype(np.float64)])
    with pytest.raises(ValueError, match="a has 2 GEMMs and b 1"):
        dev.gemm_batch([good, good], [good.T.copy()])
    with pytest.raises(ValueError, match="relu: 1 values for 2 GEMMs"):
        dev.gemm_batch([good, good], [good.T.copy()] * 2, relu=[True])
    with pytest.raises(ValueError, match="bias: 3 entries for 2 GEMMs"):
        dev.gemm_batch([good, good], [good.T.copy()] * 2, bias=[None] * 3)
    with pytest.raises(ValueError, match="needs a GEMM"):
        dev.gemm_batch([], [])
    with pytest.raises(ValueError, match="3-D array or a sequence"):
        dev.gemm_batch(good, good)
    with pytest.raises(TypeError, match=r"a\[1\]: expected a NumPy array"):
        dev.gemm_batch([good, [[1.0]]], [good.T.copy()] * 2)
    assert dev.read_csr(mxu.CSR["COUNTER_BASE"]) == cycles  # nothing ran


def test_energy_model_prices_counts_as_bench_does(dev):
    assert 180 in mxu.energy_nodes() and mxu.energy_nodes() == sorted(mxu.energy_nodes())
    table = mxu.energy_table()
    assert table["node_nm"] == 180 and table["measured"] and table["clock_mhz"] > 0
    assert not mxu.energy_table(mxu.energy_nodes()[0])["measured"] or \
        mxu.energy_nodes()[0] == 180
    rng = np.random.default_rng(14)
    dev.gemm(moderate(rng, (32, 48)), moderate(rng, (48, 16)))
    c = dev.counters()
    counts = dict(c, device_macs=c["macs"], array_rows=16, array_cols=16, bus_bytes=32)
    one = mxu.energy(180, counts)
    assert one["total_uj"] == pytest.approx(
        one["mac_uj"] + one["clock_uj"] + one["sram_uj"] + one["dram_uj"])
    assert min(one.values()) > 0
    doubled = {k: 2 * v for k, v in counts.items() if isinstance(v, int)}
    doubled.update(buffer_accesses={k: 2 * v for k, v in c["buffer_accesses"].items()},
                   array_rows=16, array_cols=16, bus_bytes=32, dtype="bf16")
    assert mxu.energy(180, doubled)["total_uj"] == pytest.approx(2 * one["total_uj"])
    with pytest.raises(ValueError, match="node 5: no energy table"):
        mxu.energy(5, counts)
    with pytest.raises(ValueError, match="counts without 'buffer_accesses'"):
        mxu.energy(180, {k: v for k, v in counts.items() if k != "buffer_accesses"})


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
    assert info["mem_bytes_per_cycle_from"] == "given"
    assert info["backend"] == dev.backend == "rtl"
    assert "rtl" in mxu.backends()


@pytest.mark.skipif("MXU_BINARY" not in os.environ, reason="needs the mxu tool (MXU_BINARY)")
def test_info_matches_the_command_line(dev):
    # The session device's memory (conftest.py), given to the command line too.
    memory = ["--mem-latency", "50", "--mem-bytes-per-cycle", "32", "--mem-in-flight", "8"]
    cli = json.loads(subprocess.run([os.environ["MXU_BINARY"], "info", "--json", *memory],
                                    check=True, capture_output=True, text=True).stdout)
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


def test_the_package_splits_by_the_drivers_limits():
    # Python's GEMM splitting reads the limits from the driver (driver/gemm_limits.h), no copy.
    from mxu import _gemms
    limits = mxu._mxu._GEMM_LIMITS
    assert (_gemms.MAX_DIMENSION, _gemms.MAX_PROBLEM_BYTES, _gemms.MAX_WATCHDOG) == (
        limits["max_dimension"], limits["max_problem_bytes"], limits["max_watchdog"])
    assert (_gemms.MAX_DIMENSION, _gemms.MAX_PROBLEM_BYTES) == (65535, 2 << 30)


def test_the_golden_model_refuses_inner_dimensions_in_the_drivers_words():
    a = np.ones((4, 5), np.float32)
    with pytest.raises(ValueError, match=r"^op\(A\) is 4x5 but op\(B\) is 6x4: inner dimensions "
                       r"differ$"):
        mxu.golden_gemm(a, np.ones((6, 4), np.float32))
    with pytest.raises(ValueError, match=r"^op\(A\) is 4x5 but op\(B\) is 3x5: inner dimensions "
                       r"differ$"):
        mxu.golden_gemm_int8(np.ones((4, 5), np.int8), np.ones((5, 3), np.int8), tb=True)


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


def test_one_rtl_device_per_process(dev):
    with pytest.raises(RuntimeError, match="^one RTL device per process: .* backend='rtl' cannot"):
        mxu.Device()
    with pytest.raises(RuntimeError, match="one RTL device per process"):
        mxu.Device(backend="cross")


def test_model_devices_open_beside_the_rtl_one_and_keep_their_own_counters(dev):
    rng = np.random.default_rng(3)
    a, b = moderate(rng, (16, 24)), moderate(rng, (24, 8))
    first, second = mxu.Device(backend="model"), mxu.Device(backend="model")
    assert same_bits(first.gemm(a, b), contract_gemm(a, b, 16))
    assert first.counters()["m"] == 16 and second.counters() == {}  # each its own last GEMM
    bt = b.T.copy()
    assert same_bits(second.gemm(bt, b), contract_gemm(bt, b, 16))
    assert first.counters()["m"] == 16 and second.counters()["m"] == 8


def test_bad_device_settings_raise_value_error(dev):
    with pytest.raises(ValueError, match=r"^mem_bytes_per_cycle must be in \[1, 4096\], got 0$"):
        mxu.Device(mem_bytes_per_cycle=0)


# ---- the package: every name of the module it was, and devices other than the session's ----

def test_the_package_keeps_every_name_of_the_module():
    # What `import mxu` offered when it was one extension module, and the package's own.
    for name in ("Device", "DeviceError", "CheckError", "DtypeError", "CSR", "backends",
                 "built_devices", "golden_gemm", "golden_gemm_int8", "quantize_multiplier",
                 "float_to_bf16", "bf16_to_float"):
        assert name in dir(mxu), name
    assert {n for n in dir(mxu._mxu) if not n.startswith("_")} <= set(dir(mxu))
    assert mxu.__doc__ and os.path.basename(os.path.dirname(mxu.__file__)) == "mxu"
    assert mxu.DeviceError.__module__ == "mxu" and mxu.DeviceError.__name__ == "DeviceError"


def test_the_session_device_is_a_package_device(dev):
    assert isinstance(dev, mxu.Device)
    assert dev.info()["device"] == mxu.built_devices()[0]
    assert repr(dev) == f"<mxu.Device '{mxu.built_devices()[0]}' on rtl>"


def run_python(code):
    """Runs code in a fresh python (one device per process), with this one's path; its result."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=os.environ, timeout=240)


def python_error(code):
    """The last line of what code raised in a fresh python."""
    result = run_python(code)
    assert result.returncode != 0, result.stdout
    return result.stderr.strip().split("\n")[-1]


def test_a_device_spec_on_the_model_backend():
    result = run_python("""
        import json, mxu, numpy as np
        dev = mxu.Device(backend="model", device="32x8:pe=2", mem_latency=20)
        rng = np.random.default_rng(2)
        a = rng.standard_normal((70, 45), dtype=np.float32)
        b = rng.standard_normal((45, 19), dtype=np.float32)
        c = dev.gemm(a, b, relu=True, check=True)
        assert c.shape == (70, 19) and dev.counters()["mismatches"] == 0
        c8 = dev.gemm_int8(np.ones((9, 40), np.int8), np.ones((40, 11), np.int8), check=True)
        assert (c8 == 40).all()
        print(json.dumps(dev.info()))
        """)
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["device"] == "32x8:pe=2" and info["backend"] == "model"
    assert (info["array_rows"], info["array_cols"], info["pe_stages"]) == (32, 8, 2)
    assert (info["mem_latency"], info["subnormals"]) == (20, "ieee")


def test_the_memory_is_as_wide_as_the_port_unless_given():
    # Issue 39: a 512-byte port behind the old 32-byte default memory ran at a fifth of its speed.
    result = run_python("""
        import json, mxu, numpy as np
        dev = mxu.Device(backend="model", device="128x128:bus=512")
        a = np.ones((256, 512), np.float32)
        b = np.ones((512, 512), np.float32)
        dev.gemm(a, b)
        print(json.dumps([dev.info(), dev.counters()["cycles"]]))
        """)
    assert result.returncode == 0, result.stderr
    info, cycles = json.loads(result.stdout)
    assert (info["bus_bytes"], info["mem_bytes_per_cycle"]) == (512, 512)
    assert info["mem_bytes_per_cycle_from"] == "port"
    assert mxu.Device.__init__.__defaults__[3] is None  # mem_bytes_per_cycle
    result = run_python("""
        import json, mxu, numpy as np
        dev = mxu.Device(backend="model", device="128x128:bus=512", mem_bytes_per_cycle=32)
        dev.gemm(np.ones((256, 512), np.float32), np.ones((512, 512), np.float32))
        print(json.dumps([dev.info(), dev.counters()["cycles"]]))
        """)
    assert result.returncode == 0, result.stderr
    narrow, narrow_cycles = json.loads(result.stdout)
    assert (narrow["mem_bytes_per_cycle"], narrow["mem_bytes_per_cycle_from"]) == (32, "given")
    assert narrow_cycles > 3 * cycles


def test_an_invalid_device_spec_raises_value_error_naming_it():
    error = python_error("import mxu; mxu.Device(backend='model', device='32y8')")
    assert error.startswith("ValueError: device '32y8' is neither a device of this build (")
    for name in mxu.built_devices():
        assert f"'{name}'" in error
    error = python_error("import mxu; mxu.Device(backend='model', device='16x16:pe=9')")
    assert error.startswith("ValueError: device '16x16:pe=9' is neither") and "pe=9" in error
    assert python_error("import mxu; mxu.Device(device=16)").startswith("TypeError: device:")


@pytest.mark.parametrize("backend", ["rtl", "cross"])
def test_a_device_that_is_not_built_is_refused_on_the_rtl(backend):
    error = python_error(f"import mxu; mxu.Device(backend='{backend}', device='32x8:pe=2')")
    assert error.startswith("ValueError: device '32x8:pe=2' is not built here (built: ")
    for name in mxu.built_devices():
        assert f"'{name}'" in error


def test_device_names_the_default_device():
    result = run_python("""
        import mxu
        dev = mxu.Device(backend="model", device=mxu.built_devices()[0])
        print(dev.info()["device"], dev.info()["array_rows"])
        """)
    assert result.returncode == 0, result.stderr
    name = mxu.built_devices()[0]
    assert result.stdout.split() == [name, name.split("x")[0]]


@pytest.mark.skipif("8x4-flush" not in mxu.built_devices(),
                    reason="the build has no device 8x4-flush (MXU_DEVICES)")
@pytest.mark.parametrize("backend", ["rtl", "model"])
def test_another_built_device_runs_in_its_own_extension(backend):
    result = run_python(f"""
        import json, sys, mxu, numpy as np
        dev = mxu.Device(backend="{backend}", device="8x4-flush")
        assert isinstance(dev, mxu.Device)
        assert "mxu._mxu_8x4_flush" in sys.modules
        rng = np.random.default_rng(3)
        a = rng.standard_normal((21, 30), dtype=np.float32)
        b = rng.standard_normal((30, 13), dtype=np.float32)
        c = dev.gemm(a, b, bias=rng.standard_normal(13, dtype=np.float32), check=True)
        assert c.shape == (21, 13) and dev.counters()["mismatches"] == 0
        print(json.dumps(dev.info()))
        """)
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["device"] == "8x4-flush" and info["backend"] == backend
    assert (info["array_rows"], info["array_cols"], info["subnormals"]) == (8, 4, "flush")
    assert (info["ub_depth"], info["acc_depth"], info["pe_stages"], info["bus_bytes"]) == (
        1024, 256, 3, 64)


@pytest.mark.skipif(len(mxu.built_devices()) < 2, reason="the build has one device")
def test_one_device_per_process_across_extensions():
    other = mxu.built_devices()[1]
    for first, second in ((f"backend='cross', device='{other}'", ""),
                          (f"device='{other}'", "backend='rtl'")):
        error = python_error(f"import mxu; mxu.Device({first}); mxu.Device({second})")
        assert error.startswith("RuntimeError: one RTL device per process"), error
    # The model backend's devices, of any extension, open beside each other.
    assert run_python(f"import mxu; mxu.Device(backend='model'); "
                      f"mxu.Device(backend='model', device='{other}')").returncode == 0
    # Errors of every extension are the package's classes.
    result = run_python(f"""
        import mxu, numpy as np
        dev = mxu.Device(device='{other}')
        try:
            dev.gemm(np.ones((64, 64), np.float32), np.ones((64, 64), np.float32), watchdog=50)
        except mxu.DeviceError as e:
            print("DeviceError", type(e) is mxu.DeviceError)
        try:
            dev.gemm_int8(np.ones((2, 2), np.float32), np.ones((2, 2), np.int8))
        except mxu.DtypeError:
            print("DtypeError")
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["DeviceError", "True", "DtypeError"]


# ---- the int8 mode (Device.gemm_int8): exact integers, so NumPy's int64 product is the reference

def int8_operand(rng, shape):
    """Uniform int8 values with the extremes -128 and 127 forced in (the products' range ends)."""
    x = rng.integers(-128, 128, size=shape, dtype=np.int8)
    x.flat[::7] = -128
    x.flat[3::11] = 127
    return x


def op(x, transposed):
    return (x.T if transposed else x).astype(np.int64)


def requantize(x, scale, zero_point, relu):
    """docs/numerics.md, the integer mode, in Python ints: x = acc + bias, the scale's word."""
    multiplier, shift = mxu.quantize_multiplier(scale)
    word = multiplier << 8 | shift
    m, s = word >> 8, word & 63
    p = int(x) * m
    r = p if s == 0 else (p + (1 << (s - 1)) - (1 if p < 0 else 0)) >> s
    return max(zero_point if relu else -128, min(127, r + zero_point))


def requantize_matrix(acc, scales, zero_point, relu):
    m, n = acc.shape
    scales = np.broadcast_to(np.asarray(scales, np.float64), (n,))
    return np.array([[requantize(acc[i, j], float(scales[j]), zero_point, relu) for j in range(n)]
                     for i in range(m)], np.int8)


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (16, 16, 16), (17, 33, 15), (40, 70, 30)])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_int8_gemm_is_numpys_exact_integer_product(dev, m, k, n, ta, tb):
    rng = np.random.default_rng(m * 10000 + k * 100 + n + 2 * ta + tb)
    a = int8_operand(rng, (k, m) if ta else (m, k))
    b = int8_operand(rng, (n, k) if tb else (k, n))
    bias = rng.integers(-2**20, 2**20, size=n, dtype=np.int32)
    c = dev.gemm_int8(a, b, ta=ta, tb=tb, bias=bias)
    assert c.dtype == np.int32 and c.shape == (m, n)
    assert np.array_equal(c, op(a, ta) @ op(b, tb) + bias)
    assert np.array_equal(dev.gemm_int8(a, b, ta=ta, tb=tb), op(a, ta) @ op(b, tb))


def test_int8_gemm_extremes_accumulate_and_relu(dev):
    k = 300  # every product 16,384: the sums reach 300 x 2^14
    a, b = np.full((20, k), -128, np.int8), np.full((k, 18), -128, np.int8)
    assert np.array_equal(dev.gemm_int8(a, b, check=True), np.full((20, 18), k * 16384))
    rng = np.random.default_rng(21)
    a, b = int8_operand(rng, (20, k)), int8_operand(rng, (k, 18))
    c0 = rng.integers(-2**24, 2**24, size=(20, 18), dtype=np.int32)
    want = a.astype(np.int64) @ b.astype(np.int64) + c0
    assert np.array_equal(dev.gemm_int8(a, b, accumulate=c0, check=True), want)
    assert dev.counters()["mismatches"] == 0
    # int32 output: ReLU zeroes the negatives (STORE's relu).
    assert np.array_equal(dev.gemm_int8(a, b, accumulate=c0, relu=True), np.maximum(want, 0))
    assert (want < 0).any()


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("zero_point", [0, -128, 5, 127])
@pytest.mark.parametrize("per_column", [False, True])
def test_int8_output_matches_the_requantization_rule(dev, relu, zero_point, per_column):
    m, k, n = 19, 40, 17
    rng = np.random.default_rng(1000 + 10 * relu + zero_point + 500 * per_column)
    a, b = int8_operand(rng, (m, k)), int8_operand(rng, (k, n))
    bias = rng.integers(-50000, 50000, size=n, dtype=np.int32)
    acc = a.astype(np.int64) @ b.astype(np.int64) + bias
    # Scales around what maps |acc| ~ 1e5 onto int8, some with ties (2^-k: r = x / 2^k exactly).
    scales = (np.exp(rng.uniform(np.log(1e-4), np.log(3e-3), size=n)) if per_column
              else 0.5**11)
    if per_column:
        scales[:3] = [0.5**10, 0.5**12, 1.0]
    c = dev.gemm_int8(a, b, bias=bias, scales=scales, zero_point=zero_point, relu=relu, check=True)
    assert c.dtype == np.int8 and c.shape == (m, n)
    assert dev.counters()["mismatches"] == 0
    assert np.array_equal(c, requantize_matrix(acc, scales, zero_point, relu))
    assert np.array_equal(c, mxu.golden_gemm_int8(a, b, bias=bias, scales=scales,
                                                  zero_point=zero_point, relu=relu))
    if relu and zero_point == 127:  # the clamp's both ends at 127
        assert (c == 127).all()
    else:
        assert len(np.unique(c)) > 20  # not all saturated


def test_requantization_rounds_half_away_from_zero(dev):
    # acc = +-(2j + 1) with scale 1/2: every output is a tie, +-(j + 1/2).
    a = np.array([[1], [-1]], np.int8)
    b = np.arange(1, 101, 2, dtype=np.int8).reshape(1, 50)
    c = dev.gemm_int8(a, b, scales=0.5, check=True)
    j = np.arange(50)
    assert np.array_equal(c, np.clip(np.stack([j + 1, -(j + 1)]), -128, 127))
    assert np.array_equal(c, requantize_matrix(np.array([[1], [-1]]) @ b.astype(np.int64), 0.5,
                                               0, False))


def test_quantize_multiplier():
    assert mxu.quantize_multiplier(1.0) == (1 << 23, 23)
    assert mxu.quantize_multiplier(0.5) == (1 << 23, 24)
    assert mxu.quantize_multiplier(3) == (3 << 22, 22)
    for scale in (1e-3, 0.1, 0.7, 123.456, 2.0**24 - 1):
        multiplier, shift = mxu.quantize_multiplier(scale)
        assert 1 << 23 <= multiplier < 1 << 24 and 0 <= shift <= 63
        assert abs(multiplier / 2.0**shift - scale) <= scale * 2.0**-24
    assert mxu.quantize_multiplier(1e-15) == (round(1e-15 * 2.0**63), 63)  # below 2^-40
    with pytest.raises(ValueError, match=r"^scale = -1.0: a scale must be finite and positive$"):
        mxu.quantize_multiplier(-1.0)
    with pytest.raises(ValueError, match="too large"):
        mxu.quantize_multiplier(2.0**24)


def test_int8_counters_report_the_run(dev):
    rng = np.random.default_rng(4)
    dev.gemm_int8(int8_operand(rng, (32, 48)), int8_operand(rng, (48, 16)))
    c = dev.counters()
    assert (c["m"], c["k"], c["n"], c["dtype"]) == (32, 48, 16, "int8")
    assert c["ideal_cycles"] == 32 * 48 * 16 // (16 * 16)
    assert c["cycles"] >= c["ideal_cycles"] > 0
    assert "checked" not in c
    dev.gemm(moderate(rng, (4, 4)), moderate(rng, (4, 4)))
    assert dev.counters()["dtype"] == "bf16"


def test_int8_bad_arguments_raise_one_line_errors(dev):
    a, b = np.ones((4, 5), np.int8), np.ones((5, 3), np.int8)
    with pytest.raises(ValueError, match="^a: the int8 mode takes int8 arrays, got float32$"):
        dev.gemm_int8(a.astype(np.float32), b)
    with pytest.raises(TypeError, match="^b: the int8 mode takes int8 arrays, got uint8$"):
        dev.gemm_int8(a, b.astype(np.uint8))
    with pytest.raises(mxu.DtypeError, match="^bias: the int8 mode takes int32 arrays, got int64$"):
        dev.gemm_int8(a, b, bias=np.ones(3, np.int64))
    with pytest.raises(mxu.DtypeError, match="^accumulate: the int8 mode takes int32 arrays, got "
                       "float32$"):
        dev.gemm_int8(a, b, accumulate=np.ones((4, 3), np.float32))
    assert issubclass(mxu.DtypeError, TypeError) and issubclass(mxu.DtypeError, ValueError)
    with pytest.raises(ValueError, match=r"^op\(A\) is 4x5 but op\(B\) is 3x5: inner dimensions "
                       r"differ$"):
        dev.gemm_int8(a, b, tb=True)
    with pytest.raises(ValueError, match="^a: expected a 2-D array, got rank 1$"):
        dev.gemm_int8(np.ones(4, np.int8), b)
    with pytest.raises(ValueError, match="^b: a zero dimension$"):
        dev.gemm_int8(a, np.ones((5, 0), np.int8))
    with pytest.raises(ValueError, match="^bias: 4 values, expected N = 3$"):
        dev.gemm_int8(a, b, bias=np.ones(4, np.int32))
    with pytest.raises(ValueError, match="^bias: expected a 1-D array, got rank 2$"):
        dev.gemm_int8(a, b, bias=np.ones((1, 3), np.int32))
    with pytest.raises(ValueError, match=r"^accumulate: expected an int32 array of shape \(4, 3\)$"):
        dev.gemm_int8(a, b, accumulate=np.ones((3, 4), np.int32))
    with pytest.raises(ValueError, match="both set the accumulators' start"):
        dev.gemm_int8(a, b, bias=np.ones(3, np.int32), accumulate=np.ones((4, 3), np.int32))
    for scales, where in ((float("nan"), "scales = nan"), (0.0, "scales = 0.0"),
                          (-0.5, "scales = -0.5"), (np.inf, "scales = inf"),
                          (np.array([0.1, -2.0, 0.1]), r"scales\[1\] = -2.0"),
                          (np.array([0.1, 0.1, np.nan], np.float32), r"scales\[2\] = nan")):
        with pytest.raises(ValueError, match=f"^{where}: a scale must be finite and positive$"):
            dev.gemm_int8(a, b, scales=scales)
    with pytest.raises(ValueError, match=r"^scales: golden::QuantizeMultiplier: scale 16777216 is "
                       r"too large"):
        dev.gemm_int8(a, b, scales=2.0**24)
    with pytest.raises(ValueError, match=r"^scales: expected a real number or N = 3 of them \(one "
                       r"per column of C\), got shape \(2,\)$"):
        dev.gemm_int8(a, b, scales=[0.1, 0.2])
    with pytest.raises(mxu.DtypeError, match="^scales: expected a real number or N = 3 of them, "
                       "got bool$"):
        dev.gemm_int8(a, b, scales=True)
    with pytest.raises(ValueError, match=r"^zero_point must be in \[-128, 127\], got 128$"):
        dev.gemm_int8(a, b, scales=0.1, zero_point=128)
    with pytest.raises(ValueError, match="^zero_point is for int8 output: give scales too$"):
        dev.gemm_int8(a, b, zero_point=3)
    huge = np.broadcast_to(np.int8(1), (65535, 65535))
    with pytest.raises(ValueError, match=r"^a 65535 x 65535 x 65535 GEMM needs"):
        dev.gemm_int8(huge, huge)
    with pytest.raises(ValueError, match="^a: the int8 mode takes int8 arrays, got float64$"):
        mxu.golden_gemm_int8(np.ones((2, 2)), b)
    # The scales may be a sequence, and integers.
    assert np.array_equal(dev.gemm_int8(a, b, scales=[1, 2, 0.5]), [[5, 10, 3]] * 4)


def test_an_unknown_backend_is_named_even_after_a_device_is_open(dev):
    with pytest.raises(ValueError, match=r"unknown backend 'bogus' \(available: 'rtl', "):
        mxu.Device(backend="bogus")


def test_ring_interconnect_is_the_training_ring():
    # docs/training.md, "Several chips": 2 (N - 1) steps of latency + ceil(bytes / N / link).
    def ring(nbytes, chips, link=88, latency=350):
        if chips == 1:
            return 0
        chunk = -(-nbytes // chips)
        return 2 * (chips - 1) * (latency + -(-chunk // link))
    for nbytes, chips in ((0, 1), (5, 1), (1 << 20, 8), (1000, 3), (7, 2), (88 * 4, 4)):
        assert mxu.ring_all_reduce_cycles(nbytes, chips) == ring(nbytes, chips)
        assert mxu.ring_all_gather_cycles(nbytes, chips) == ring(nbytes, chips) // 2
    assert mxu.ring_all_reduce_cycles(1000, 4, link_bytes_per_cycle=1, link_latency_cycles=0) == \
        ring(1000, 4, link=1, latency=0)
    for call, match in ((lambda: mxu.ring_all_reduce_cycles(10, 0), r"^chips must be in \[1, "),
                        (lambda: mxu.ring_all_gather_cycles(-1, 2), r"^bytes must be in \[0, "),
                        (lambda: mxu.ring_all_reduce_cycles(8, 2, link_bytes_per_cycle=0),
                         r"^link_bytes_per_cycle must be in \[1, ")):
        with pytest.raises(ValueError, match=match):
            call()
