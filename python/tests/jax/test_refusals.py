"""What mxu.jax does not put on the device, and bad arguments: integer products run on the host
and are counted each time they run; a product inside a primitive the interpreter does not know
(custom_vmap_call, pmap, shard_map) is counted too; strict=True refuses both before anything
runs, naming the primitive; a bad argument, a failed product, is one line. On the exact stand-in
device (no simulator)."""
import logging
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.custom_batching import custom_vmap
from jax.experimental.shard_map import shard_map
from jax.sharding import Mesh, PartitionSpec

import mxu.jax
from exact_device import ExactDevice  # python/tests/torch/exact_device.py


def totals(fn):
    return fn.report()["totals"]


def test_integer_products_run_on_the_host_and_are_counted_each_run():
    exact = ExactDevice()
    a, b = np.arange(6, dtype=np.int32).reshape(2, 3), np.ones((3, 2), np.int32)
    step = mxu.jax.on_device(lambda a, b: lax.scan(lambda c, _: (c @ b @ b.T, None), a,
                                                   None, length=3)[0], exact)
    want = a @ b @ b.T @ b @ b.T @ b @ b.T
    np.testing.assert_array_equal(np.asarray(step(a, b)), want)
    assert totals(step)["host_products"] == 6 and exact.shapes == []
    step(a, b)
    assert totals(step)["host_products"] == 12


def test_one_host_product_error_for_every_mode():
    # One class per concept (issue 56): `except mxu.torch.HostProductError` catches mxu.jax's.
    torch = pytest.importorskip("torch")  # noqa: F841
    import mxu.keras
    import mxu.torch
    assert mxu.jax.HostProductError is mxu.torch.HostProductError is mxu.keras.HostProductError
    assert issubclass(mxu.jax.HostProductError, RuntimeError)


def test_strict_refuses_an_integer_product_naming_it():
    step = mxu.jax.on_device(lambda a: a @ a, ExactDevice(), strict=True)
    with pytest.raises(mxu.jax.HostProductError,
                       match=r"dot_general with int32 operands .* on the host \(strict=True\)"):
        step(np.ones((2, 2), np.int32))


@custom_vmap
def hidden(x, w):
    return x @ w


hidden.def_vmap(lambda axis_size, in_batched, x, w: (x @ w, True))


def test_a_product_inside_an_unknown_primitive_is_counted_or_refused():
    exact = ExactDevice()
    x, w = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    step = mxu.jax.on_device(hidden, exact)
    np.testing.assert_array_equal(np.asarray(step(x, w)), x @ w)
    assert totals(step)["host_products"] == 1 and exact.shapes == []
    ops = [e["op"] for e in step.report()["ops"]]
    assert ops == ["custom_vmap_call"]
    strict = mxu.jax.on_device(hidden, exact, strict=True)
    with pytest.raises(mxu.jax.HostProductError,
                       match="custom_vmap_call holds a dot_general that the interpreter cannot "
                             "reach"):
        strict(x, w)


MESH = Mesh(np.array(jax.devices()[:1]), ("i",))
MAPPED = {  # a product inside each of JAX's parallel maps, over one CPU device
    "xla_pmap": lambda x, w: jax.pmap(lambda a: a @ w)(x),
    "shard_map": lambda x, w: shard_map(lambda a: a @ w, MESH, in_specs=PartitionSpec("i"),
                                        out_specs=PartitionSpec("i"))(x[0]),
}


@pytest.mark.parametrize("primitive", sorted(MAPPED))
def test_a_product_inside_pmap_or_shard_map_runs_on_the_host_counted_or_refused(primitive):
    # Issue 69: they were bound again with parameters they refuse (an AssertionError, a
    # TypeError naming out_names).
    fn, exact = MAPPED[primitive], ExactDevice()
    x, w = np.arange(6, dtype=np.float32).reshape(1, 2, 3), np.ones((3, 4), np.float32)
    step = mxu.jax.on_device(fn, exact)
    for runs in (1, 2):
        np.testing.assert_array_equal(np.asarray(step(x, w)), np.asarray(fn(x, w)))
        assert totals(step)["host_products"] == runs and exact.shapes == []
    assert [e["op"] for e in step.report()["ops"]] == [primitive]
    strict = mxu.jax.on_device(fn, exact, strict=True)
    with pytest.raises(mxu.jax.HostProductError,
                       match=f"^mxu.jax: {primitive} holds a dot_general that the interpreter "
                             r"cannot reach: it would run on the host \(strict=True\)$"):
        strict(x, w)


@pytest.mark.parametrize("kwargs,error,message", [
    ({"device": "16x16"}, TypeError, "device must be an mxu.Device, got '16x16'"),
    ({"strict": 1}, TypeError, "strict must be True or False, got 1"),
    ({"watchdog": 0}, ValueError, "watchdog must be 1 to"),
    ({"watchdog": 1.5}, TypeError, "watchdog must be a whole number of cycles"),
    ({"transposed": "yes"}, ValueError, "transposed must be 'copy' or 'device', got 'yes'"),
    ({"batch": None}, TypeError, "batch must be True or False, got None"),
])
def test_bad_arguments_are_one_line(kwargs, error, message):
    args = dict(device=ExactDevice())
    args.update(kwargs)
    with pytest.raises(error, match=message) as caught:
        mxu.jax.on_device(jnp.dot, **args)
    assert "\n" not in str(caught.value)


def test_fn_must_be_callable():
    with pytest.raises(TypeError, match="fn must be callable, got 3"):
        mxu.jax.on_device(3, ExactDevice())


class Failing(ExactDevice):
    def gemm(self, *args, **kwargs):
        raise RuntimeError("watchdog: GEMM did not finish in 5 cycles")
    gemm_batch = gemm


def test_a_device_error_is_one_line_naming_the_primitive(caplog, capfd):
    step = mxu.jax.on_device(jnp.dot, Failing())
    with caplog.at_level(logging.DEBUG):
        with pytest.raises(mxu.jax.DeviceOpError, match=r"^mxu.jax: dot_general\(2x3, 3x2\) on "
                           r"the device: watchdog: GEMM did not finish in 5 cycles$"):
            step(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32))
    # Issue 69: JAX logged the callback's 29-line traceback (jax.pure_callback failed) first.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert capfd.readouterr().err == ""


def test_another_exception_in_a_product_callback_is_still_logged(caplog):
    class Broken(ExactDevice):
        def gemm(self, *args, **kwargs):
            raise KeyError("a bug")
        gemm_batch = gemm
    step = mxu.jax.on_device(jnp.dot, Broken())
    with pytest.raises(Exception, match="a bug"):
        step(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32))
    assert "jax.pure_callback failed" in [r.getMessage() for r in caplog.records]


def test_functions_can_share_one_report_on_one_device():
    exact = ExactDevice()
    first = mxu.jax.on_device(jnp.dot, exact)
    second = mxu.jax.on_device(lambda a: a @ a, exact, share=first)
    first(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32))
    second(np.ones((2, 2), np.float32))
    assert totals(first)["device_gemms"] == totals(second)["device_gemms"] == 2
    with pytest.raises(TypeError, match="share must be a DeviceFunction, got 3"):
        mxu.jax.on_device(jnp.dot, exact, share=3)
    with pytest.raises(ValueError, match="share's device is another device"):
        mxu.jax.on_device(jnp.dot, ExactDevice(), share=first)


def test_an_outer_transformation_is_refused_in_one_line():
    step = mxu.jax.on_device(lambda a: (a @ a).sum(), ExactDevice())
    with pytest.raises(TypeError, match="put the transformation inside its function$"):
        jax.grad(step)(np.ones((2, 2), np.float32))


def test_a_jax_without_the_internals_used_fails_at_import_naming_the_version():
    code = ("import jax.extend.core as c; del c.Literal\n"
            "try:\n    import mxu.jax\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120).stdout.strip()
    assert out.startswith("mxu.jax needs jax >= 0.4.30 with jax.extend.core") and \
        out.endswith("lacks Literal"), out
