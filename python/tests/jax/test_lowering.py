"""The lowerings of mxu.jax (dot_general, conv_general_dilated in every form, the control flow
it walks) against JAX's own ops, on an exact stand-in device: integer-valued operands, so that
every product and sum is exact and any difference is a lowering's mistake (a wrong dimension,
stride, dilation, flip, group or padding), not rounding. No simulator."""
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import mxu.jax
from exact_device import ExactDevice  # python/tests/torch/exact_device.py


def integers(shape, seed):
    return np.random.default_rng(seed).integers(-3, 4, shape).astype(np.float32)


def both(fn, *args):
    """fn(*args) in plain JAX and under on_device on an exact device, and the device."""
    exact = ExactDevice()
    on = mxu.jax.on_device(fn, exact, strict=True)
    return fn(*args), on(*args), exact, on


def assert_same(want, got):
    for w, g in zip(jax.tree_util.tree_leaves(want), jax.tree_util.tree_leaves(got)):
        assert w.dtype == g.dtype and w.shape == g.shape
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


DOTS = [  # (lhs shape, rhs shape, ((lhs contracting, rhs contracting), (lhs batch, rhs batch)))
    ((5, 7), (7, 6), (((1,), (0,)), ((), ()))),
    ((7, 5), (7, 6), (((0,), (0,)), ((), ()))),
    ((5, 7), (6, 7), (((1,), (1,)), ((), ()))),
    ((3, 5, 7), (3, 7, 4), (((2,), (1,)), ((0,), (0,)))),
    ((5, 3, 7), (7, 4, 3), (((2,), (0,)), ((1,), (2,)))),
    ((2, 3, 4, 5), (4, 5, 6), (((2, 3), (0, 1)), ((), ()))),
    ((2, 3, 4, 7), (2, 7, 4, 5), (((3,), (1,)), ((0, 2), (0, 2)))),
    ((7,), (7,), (((0,), (0,)), ((), ()))),
    ((4, 0), (0, 3), (((1,), (0,)), ((), ()))),
]


@pytest.mark.parametrize("lhs_shape,rhs_shape,dn", DOTS)
def test_dot_general_and_its_gradients_match_jax(lhs_shape, rhs_shape, dn):
    lhs, rhs = integers(lhs_shape, 1), integers(rhs_shape, 2)

    def f(a, b):
        out = lax.dot_general(a, b, dn)
        grads = jax.grad(lambda a, b: (lax.dot_general(a, b, dn) * out).sum(), (0, 1))(a, b)
        return out, grads
    want, got, exact, _ = both(f, lhs, rhs)
    assert_same(want, got)
    if 0 not in lhs_shape:
        assert exact.shapes, "no product reached the device"


def conv_cases():
    # (lhs shape, rhs shape, dimension numbers, strides, padding, lhs dil, rhs dil, fgc, bgc)
    yield (2, 3, 9, 8), (4, 3, 3, 2), ("NCHW", "OIHW", "NCHW"), (1, 1), "VALID", None, None, 1, 1
    yield (2, 9, 8, 3), (3, 3, 3, 4), ("NHWC", "HWIO", "NHWC"), (2, 2), "SAME", None, None, 1, 1
    yield (2, 9, 8, 3), (3, 2, 3, 4), ("NHWC", "HWIO", "NHWC"), (2, 1), ((2, 1), (-1, 2)), None, \
        (2, 1), 1, 1
    yield (2, 4, 7, 6), (6, 2, 3, 3), ("NCHW", "OIHW", "NCHW"), (1, 2), ((1, 1), (0, 1)), None, \
        None, 2, 1
    yield (2, 3, 5, 5), (4, 3, 3, 3), ("NCHW", "OIHW", "NCHW"), (1, 1), ((2, 2), (2, 2)), \
        (2, 2), None, 1, 1
    yield (4, 3, 5, 5), (6, 3, 2, 2), ("NCHW", "OIHW", "NCHW"), (1, 1), "VALID", None, None, 1, 2
    yield (2, 11, 3), (3, 3, 5), ("NWC", "WIO", "NWC"), (2,), "SAME", None, (2,), 1, 1
    yield (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), ("NCDHW", "OIDHW", "NCDHW"), (1, 2, 1), "SAME", None, \
        None, 1, 1


@pytest.mark.parametrize("case", list(conv_cases()), ids=lambda c: "x".join(map(str, c[0])))
def test_convolution_forward_and_backward_match_jax(case):
    lhs_shape, rhs_shape, dn, strides, padding, lhs_dil, rhs_dil, fgc, bgc = case
    x, w = integers(lhs_shape, 3), integers(rhs_shape, 4)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, strides, padding, lhs_dilation=lhs_dil,
                                        rhs_dilation=rhs_dil, dimension_numbers=dn,
                                        feature_group_count=fgc, batch_group_count=bgc)

    def f(x, w):
        y = conv(x, w)
        return y, jax.grad(lambda x, w: (conv(x, w) * y).sum(), (0, 1))(x, w)
    want, got, exact, on = both(f, x, w)
    assert_same(want, got)
    totals = on.report()["totals"]
    assert totals["host_products"] == 0 and totals["device_gemms"] >= 3 * fgc * bgc


def test_control_flow_and_transformations_reach_the_device():
    w, x = integers((6, 6), 5), integers((3, 6), 6)

    @jax.custom_jvp
    def custom(a):
        return a @ w

    custom.defjvp(lambda primals, tangents: (custom(primals[0]), tangents[0] @ w))

    @jax.custom_vjp
    def custom_v(a):
        return a @ w

    custom_v.defvjp(lambda a: (a @ w, None), lambda _, g: (g @ w.T,))

    def step(w, x):
        def body(c, xi):
            return jnp.tanh(c @ w / 16) + xi, (c @ w).sum()
        c, ys = lax.scan(body, x, jnp.stack([x, x]))
        c = lax.cond(ys.sum() > 0, lambda c: c @ w, lambda c: c @ w.T, c)
        c = jax.vmap(lambda r: w @ r)(c) + jax.checkpoint(lambda c: c @ w)(c)
        return (custom(c) + custom_v(c)).sum()

    def f(w, x):
        loss, grad = jax.value_and_grad(jax.jit(step))(w, x)
        # (reverse-mode differentiation does not go through a while loop; a loop runs here)
        grad = lax.while_loop(lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] @ w / 8),
                              (0, grad))[1]
        return loss, grad
    # The tanh makes the values other than integers: compared closely, not bit for bit.
    want, got, exact, on = both(f, w, x)
    for a, b in zip(jax.tree_util.tree_leaves(want), jax.tree_util.tree_leaves(got)):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-5, atol=1e-5)
    ops = on.report()["ops"]
    assert sum(e["host_products"] for e in ops) == 0
    # The scan's body runs twice, the while's body three times: each a device call each time.
    assert on.report()["totals"]["calls"] >= 2 * 2 + 3 + 4


def test_the_backward_products_are_reported_as_such_by_layer():
    w, x = integers((6, 4), 7), integers((3, 6), 8)

    def loss(w, x):
        with jax.named_scope("dense"):
            return (x @ w).sum()
    _, got, _, on = both(jax.grad(loss, (0, 1)), w, x)
    phases = sorted((e["module"], e["phase"], e["calls"]) for e in on.report()["ops"])
    assert phases == [("dense", "backward", 2)], phases


@pytest.mark.parametrize("batch", [True, False])
def test_a_batched_dot_general_is_one_program_unless_told(batch):
    a, b = integers((5, 3, 4), 9), integers((5, 4, 2), 10)
    exact = ExactDevice()
    f = mxu.jax.on_device(lambda a, b: jnp.einsum("bij,bjk->bik", a, b), exact, batch=batch)
    np.testing.assert_array_equal(np.asarray(f(a, b)), np.einsum("bij,bjk->bik", a, b))
    assert exact.batches == ([5] if batch else [])
    assert len(exact.shapes) == 5 and set(exact.shapes) == {(3, 4, 2)}


def test_arguments_are_pytrees_and_each_shape_is_traced_once():
    exact = ExactDevice()
    traced = []

    def f(p, x):
        traced.append(x.shape)
        return {"y": x @ p["w"]}
    on = mxu.jax.on_device(f, exact)
    for rows_, _ in itertools.product((2, 3), range(2)):
        x = integers((rows_, 4), rows_)
        out = on({"w": integers((4, 5), 1)}, x)
        np.testing.assert_array_equal(np.asarray(out["y"]), x @ integers((4, 5), 1))
    assert traced == [(2, 4), (3, 4)]


def test_keyword_arguments_are_taken_as_fn_takes_them():
    # Issue 69: they raised TypeError, though the result is called as fn.
    exact = ExactDevice()
    x, p, q = integers((2, 4), 21), integers((4, 3), 22), integers((4, 3), 23)

    def f(x, p, *, q, scale=None):  # p and q of one shape: swapped, the result would differ
        y = x @ p - 2 * (x @ q)
        return y if scale is None else y * scale["s"]
    on = mxu.jax.on_device(f, exact, strict=True)
    want = x @ p - 2 * (x @ q)
    np.testing.assert_array_equal(np.asarray(on(x, q=q, p=p)), want)
    np.testing.assert_array_equal(np.asarray(on(x, p, q=q)), want)
    np.testing.assert_array_equal(np.asarray(on(q=q, x=x, p=p, scale={"s": np.float32(3)})),
                                  3 * want)
    assert exact.shapes == [(2, 4, 3)] * 6


def test_custom_derivative_rules_called_without_a_derivative_reach_the_device():
    w, x = integers((4, 4), 11), integers((2, 4), 12)

    @jax.custom_vjp
    def custom_v(a):
        return a @ w

    custom_v.defvjp(lambda a: (a @ w, None), lambda _, g: (g @ w.T,))

    @jax.custom_jvp
    def custom_j(a):
        return a @ w.T

    custom_j.defjvp(lambda primals, tangents: (custom_j(primals[0]), tangents[0] @ w.T))
    want, got, exact, _ = both(lambda x: (custom_v(x), custom_j(x), jax.nn.relu(x @ w)), x)
    assert_same(want, got)
    assert exact.shapes == [(2, 4, 4)] * 3
