"""Every product of mxu.jax on the session's device (the RTL), bit for bit against the NumPy
reproduction of the numeric contract (python/tests/torch/contract.py: no code shared with the
device or the interpreter): dot_general with batch dimensions, a Dense layer's forward and
backward, and every convolution of a Conv1D / Conv2D layer's forward and backward, each
reference written here from the definition with the K order docs/keras_jax.md gives."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import contract
import mxu.jax


def same_bits(got, want):
    got = np.ascontiguousarray(np.asarray(got, np.float32)).view(np.int32)
    want = np.ascontiguousarray(contract.canonical(want)).view(np.int32)
    np.testing.assert_array_equal(got, want)


def rand(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.fixture(scope="module")
def run(dev):
    """run(fn, *args): fn(*args) under on_device on the session's device, strict."""
    def call(fn, *args):
        return mxu.jax.on_device(fn, dev, strict=True)(*args)
    return call


def test_dot_general_with_batch_dimensions(run, rows):
    # (batch 3 at lhs axis 1 and rhs axis 2, K = 37: three tiles of the array's rows)
    lhs, rhs = rand((5, 3, 37), 1), rand((37, 4, 3), 2)
    dn = (((2,), (0,)), ((1,), (2,)))
    got = run(lambda a, b: lax.dot_general(a, b, dn), lhs, rhs)
    assert got.shape == (3, 5, 4)
    for i in range(3):
        same_bits(got[i], contract.gemm(lhs[:, i, :], rhs[:, :, i], rows))


def test_dense_forward_and_backward(run, rows):
    x, w, b, g = rand((6, 37), 3), rand((37, 5), 4), rand((5,), 5), rand((6, 5), 6)

    def dense(x, w, b):
        return x @ w + b

    def f(x, w, b):
        y, vjp = jax.vjp(dense, x, w, b)
        return (y,) + vjp(g)
    y, dx, dw, _ = run(f, x, w, b)
    # The bias is added on the host after the product (Keras's Dense does the same).
    same_bits(y, contract.gemm(x, w, rows) + b)
    same_bits(dx, contract.gemm(g, w.T, rows))
    same_bits(dw, contract.gemm(x.T, g, rows))


def test_matmul_einsum_and_vmap_reach_the_same_gemms(run, rows):
    a, b = rand((4, 7, 20), 7), rand((4, 20, 3), 8)
    got = run(lambda a, b: (a @ b, jnp.einsum("bij,bjk->bik", a, b),
                            jax.vmap(jnp.dot)(a, b)), a, b)
    for out in got:
        for i in range(4):
            same_bits(out[i], contract.gemm(a[i], b[i], rows))


def patches(x, kernel, strides, rhs_dilation):
    """x (N, C, *S), already spread and padded -> (N x L, C x K): rows (image, output position),
    K (channel, kernel offsets), all row-major; written from the definition, with loops."""
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    out = [(s - d * (k - 1) - 1) // st + 1
           for s, k, st, d in zip(spatial, kernel, strides, rhs_dilation)]
    rows_ = []
    for image in range(n):
        for pos in np.ndindex(*out):
            row = []
            for ch in range(c):
                for off in np.ndindex(*kernel):
                    at = tuple(p * st + o * d for p, o, st, d in
                               zip(pos, off, strides, rhs_dilation))
                    row.append(x[(image, ch) + at])
            rows_.append(row)
    return np.array(rows_, np.float32), out


def spread_pad(x, stride, low, high):
    """x (N, C, *S) with stride - 1 zeros between values, then padded by low / high."""
    shape = [(s - 1) * st + 1 for s, st in zip(x.shape[2:], stride)]
    out = np.zeros(x.shape[:2] + tuple(shape), np.float32)
    out[(slice(None), slice(None)) + tuple(slice(None, None, st) for st in stride)] = x
    return np.pad(out, [(0, 0), (0, 0)] + list(zip(low, high)))


@pytest.mark.parametrize("dims", [1, 2])
def test_conv_layer_forward_and_both_gradients(run, rows, dims):
    """A Keras-style convolution (channels last, kernel (*K, I, O), stride 2, 'SAME' padding):
    its forward, input-gradient and weight-gradient convolutions on the device."""
    spatial, kernel, stride = [9, 8][:dims], [3, 2][:dims], [2] * dims
    n, c, o = 2, 5, 4
    x = rand((n, *spatial, c), 9)
    w = rand((*kernel, c, o), 10)
    spec = {1: ("NWC", "WIO", "NWC"), 2: ("NHWC", "HWIO", "NHWC")}[dims]

    def conv(x, w):
        return lax.conv_general_dilated(x, w, stride, "SAME", dimension_numbers=spec)
    y_shape = jax.eval_shape(conv, x, w).shape
    g = rand(y_shape, 11)

    def f(x, w):
        y, vjp = jax.vjp(conv, x, w)
        return (y,) + vjp(g)
    y, dx, dw = run(f, x, w)
    out = list(y_shape[1:-1])
    # 'SAME': total padding max((out - 1) * stride + kernel - size, 0), the smaller half low.
    total = [max((q - 1) * st + k - s, 0) for q, st, k, s in zip(out, stride, kernel, spatial)]
    low = [t // 2 for t in total]
    high = [t - t // 2 for t in total]
    xc = np.moveaxis(x, -1, 1)  # (N, C, *S)
    wc = np.moveaxis(w, (-1, -2), (0, 1))  # (O, C, *K)
    gc = np.moveaxis(g, -1, 1)  # (N, O, *out)
    # Forward: rows (image, position) x K (channel, offset).
    cols, _ = patches(spread_pad(xc, [1] * dims, low, high), kernel, stride, [1] * dims)
    same_bits(y, contract.gemm(cols, wc.reshape(o, -1).T, rows).reshape(y_shape))
    # Input gradient: the output gradient spread by the stride and padded by kernel - 1 - low
    # (and up to the input's size), against the flipped kernel: K (output channel, offset).
    spread = [(q - 1) * st + 1 for q, st in zip(out, stride)]
    glow = [k - 1 - lo for k, lo in zip(kernel, low)]
    ghigh = [s + k - 1 - gl - sp for s, k, gl, sp in zip(spatial, kernel, glow, spread)]
    gcols, _ = patches(spread_pad(gc, stride, glow, ghigh), kernel, [1] * dims, [1] * dims)
    flipped = np.flip(wc, axis=tuple(range(2, 2 + dims)))  # (O, C, *K)
    wt = np.moveaxis(flipped, 1, 0).reshape(c, -1)  # (C, O x K)
    same_bits(dx, np.moveaxis(contract.gemm(gcols, wt.T, rows).reshape(n, *spatial, c), -1, -1))
    # Weight gradient: rows (input channel, kernel offset), K (image, output position).
    xp = spread_pad(xc, [1] * dims, low, high)
    a = np.zeros((c, *kernel, n, *out), np.float32)
    for off in np.ndindex(*kernel):
        window = tuple(slice(k, k + (q - 1) * st + 1, st) for k, q, st in zip(off, out, stride))
        a[(slice(None),) + off] = np.moveaxis(xp[(slice(None), slice(None)) + window], 1, 0)
    want = contract.gemm(a.reshape(c * int(np.prod(kernel)), -1),
                         np.moveaxis(gc, 1, -1).reshape(-1, o), rows)
    same_bits(dw, np.moveaxis(want.reshape(c, *kernel, o), 0, -2))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_other_float_dtypes_come_back_in_their_dtype(run, rows, dtype):
    a, b = rand((5, 20), 12).astype(dtype), rand((20, 3), 13).astype(dtype)
    got = run(lambda a, b: a @ b, a, b)
    assert got.dtype == np.dtype(dtype)
    want = contract.gemm(a.astype(np.float32), b.astype(np.float32), rows).astype(dtype)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint16), want.view(np.uint16))


def test_a_bfloat16_nan_is_the_canonical_one(run, rows):
    # As mxu.torch's (issue 69: it made 0xFFFF) and the CLI's: 0x7FC0 (docs/numerics.md).
    a, b = rand((3, 18), 16).astype("bfloat16"), rand((18, 4), 17).astype("bfloat16")
    a[0, 5], b[2, 3] = np.nan, np.inf
    got = np.asarray(run(lambda a, b: a @ b, a, b)).view(np.uint16)
    nan = np.isnan(contract.gemm(a.astype(np.float32), b.astype(np.float32), rows))
    assert nan.sum() >= 4 and (got[nan] == 0x7FC0).all()


def test_special_values(run, rows):
    a, b = rand((4, 18), 14), rand((18, 5), 15)
    a[0, 0], a[1, 1], a[2, 2], b[3, 0] = np.nan, np.inf, -np.inf, 1e-40
    same_bits(run(lambda a, b: a @ b, a, b), contract.gemm(a, b, rows))


def test_the_report_counts_what_ran_and_writes_json(dev, tmp_path):
    f = mxu.jax.on_device(lambda a, b: jax.grad(lambda a: (a @ b).sum())(a), dev)
    f(rand((8, 16), 16), rand((16, 4), 17))
    f(rand((8, 16), 18), rand((16, 4), 19))
    report = mxu.jax.write_report(f, str(tmp_path / "r.json"))
    totals = report["totals"]
    # Per call: the backward's one product (the forward's result is unused: XLA drops it).
    assert totals["device_gemms"] >= 2 and totals["host_products"] == 0
    assert totals["device_cycles"] > 0 and totals["energy_uj"] > 0
    assert (tmp_path / "r.json").read_text().startswith("{")
    assert {e["phase"] for e in report["ops"]} <= {"forward", "backward"}


@pytest.mark.parametrize("batch", [True, False])
def test_transposing_loads_and_unbatched_programs_give_the_same_bits(dev, rows, batch):
    x, w, g = rand((6, 37), 20), rand((37, 5), 21), rand((3, 6, 5), 22)

    def f(x, w, g):
        _, vjp = jax.vjp(lambda x, w: x @ w, x, w)
        # (a batched dot_general: one program of 3 GEMMs, or 3 programs)
        return vjp(g[0]) + (jnp.einsum("bij,bjk->bik", g, jnp.stack([w.T] * 3)),)
    dx, dw, batched = mxu.jax.on_device(f, dev, transposed="device", batch=batch, strict=True)(
        x, w, g)
    same_bits(dx, contract.gemm(g[0], w.T, rows))
    same_bits(dw, contract.gemm(x.T, g[0], rows))
    for i in range(3):
        same_bits(batched[i], contract.gemm(g[i], w.T, rows))
