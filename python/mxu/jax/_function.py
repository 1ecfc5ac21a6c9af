"""DeviceFunction: a JAX function whose products run on an mxu device (mxu.jax.on_device).

Called with arrays, it traces the function once per argument structure and shapes, rewrites its
jaxpr (mxu/jax/_interpret.py) into a jitted function whose product equations call the device,
and runs that. The report counts what ran: per (primitive, layer scope, pass), the device's
GEMMs, MACs, cycles and traffic, and the products that ran on the host.
"""
import logging
import threading
import time

import jax
import numpy as np

from mxu._gemms import (DeviceOpError, GemmRunner, add_program, check_options, device_lock,
                        new_call)
from mxu._report import Report
from mxu.jax import _products
from mxu.jax._interpret import SCOPE, Interpreter


class _ProductFailed(Exception):
    """A product's failure, raised inside XLA's host callback: the DeviceFunction raises the
    recorder's one-line DeviceOpError in place of what XLA makes of it."""


def _not_a_product_failure(record):
    return not (record.exc_info and isinstance(record.exc_info[1], _ProductFailed))


# JAX logs a failing pure_callback's whole traceback (jax._src.callback, logger.exception) before
# XLA passes the error on; for ours the one-line DeviceOpError says it all, so that log is dropped
# (any other exception in a callback is still logged).
logging.getLogger("jax._src.callback").addFilter(_not_a_product_failure)

_DEVICE_INFO = ("backend", "device", "array_rows", "array_cols", "pe_stages", "subnormals",
                "bus_bytes")


class DeviceRecorder:
    """The counters of one device mode: a GemmRunner on the device and the Report it fills.
    Several functions may share one (mxu.keras: train, test and predict steps)."""

    def __init__(self, device, strict=False, watchdog=None, transposed="copy", batch=True,
                 who="mxu.jax"):
        check_options(device, strict, watchdog, who)
        self.device = device
        self.strict = strict
        self.runner = GemmRunner(device, device_lock(device), self._record_batch, watchdog,
                                 transposed, batch)
        info = device.info()
        self.device_info = {k: info[k] for k in _DEVICE_INFO if k in info}
        self.report_data = Report(self.runner.rows, self.runner.cols)
        self._call = None
        self.failure = None  # the DeviceOpError of a failed product, for the function to raise
        self._lock = threading.Lock()  # XLA may run host callbacks on its own threads

    def product_call(self, primitive, params, out_dtype, module, phase):
        """The host callback of one product equation (mxu/jax/_interpret.py binds it)."""
        lower, name = _products.LOWERINGS[primitive], primitive.name
        out_dtype = np.dtype(out_dtype)

        def call(lhs, rhs):
            with self._lock:
                start = time.perf_counter()
                self._call = new_call()
                try:
                    items, assemble = lower(_products.device_array(lhs),
                                            _products.device_array(rhs), params)
                    out = assemble(self.runner.gemm_batch(items))
                    out = np.asarray(out, order="C").astype(out_dtype, copy=False)
                except (RuntimeError, ValueError) as error:  # the device's, its refusals
                    # XLA reports a callback's exception with its whole traceback: the function
                    # raises this one-line error in its place (DeviceFunction.__call__).
                    shapes = "x".join(map(str, lhs.shape)) + ", " + "x".join(map(str, rhs.shape))
                    self.failure = DeviceOpError(f"mxu.jax: {name}({shapes}) on the device: "
                                                 f"{str(error).splitlines()[0]}")
                    raise _ProductFailed(str(self.failure)) from None
                finally:
                    call_counts, self._call = self._call, None
                    self.report_data.handler_seconds += time.perf_counter() - start
                self.report_data.add(name, module, phase, **call_counts)
                return out
        return call

    def count_host_product(self, primitive, module, phase):
        with self._lock:
            self.report_data.add(primitive, module, phase, calls=1, host_products=1)

    def _record_batch(self, shapes, counters):
        add_program(self._call, shapes, counters)
        self.report_data.device_seconds = self.runner.device_seconds

    def report(self, node=180):
        """The profile, as mxu.torch's (mxu/_report.py)."""
        return self.report_data.as_dict(self.device_info, node)


class DeviceFunction:
    """`fn` with its products on the device: see mxu.jax.on_device."""

    def __init__(self, fn, recorder):
        if not callable(fn):
            raise TypeError(f"mxu.jax.on_device: fn must be callable, got {fn!r}")
        self.fn = fn
        self.recorder = recorder
        self._compiled = {}  # (argument structure, shapes and dtypes) -> (jitted, output tree)
        self.__wrapped__ = fn
        self.__doc__ = getattr(fn, "__doc__", None)

    def __call__(self, *args, **kwargs):
        flat, tree = jax.tree_util.tree_flatten((args, kwargs))
        if any(isinstance(x, jax.core.Tracer) for x in flat):
            raise TypeError("mxu.jax: a device function is called with arrays, not traced by an "
                            "outer jit, grad or vmap: put the transformation inside its function")
        key = (tree, tuple((jax.numpy.shape(x), jax.numpy.result_type(x)) for x in flat))
        entry = self._compiled.get(key)
        if entry is None:
            entry = self._compiled[key] = self._compile(args, kwargs)
        jitted, out_tree = entry
        self.recorder.failure = None
        try:
            # Waiting here brings a failed product's error out of this call, not a later one.
            out = jax.block_until_ready(jitted(*flat))
        except Exception:
            failure, self.recorder.failure = self.recorder.failure, None
            if failure is None:
                raise
            raise failure from None
        return jax.tree_util.tree_unflatten(out_tree, out)

    def _compile(self, args, kwargs):
        def scoped(*a, **k):  # so that backward equations are marked as such (_interpret.SCOPE)
            with jax.named_scope(SCOPE):
                return self.fn(*a, **k)
        # The jaxpr's inputs are the leaves of (args, kwargs), in tree_flatten's order.
        closed, shapes = jax.make_jaxpr(scoped, return_shape=True)(*args, **kwargs)
        out_tree = jax.tree_util.tree_structure(shapes)
        interpreter = Interpreter(self)

        def rewritten(*flat):
            return interpreter.run(closed.jaxpr, closed.consts, flat)
        return jax.jit(rewritten), out_tree

    # What the interpreter asks of its owner.
    @property
    def strict(self):
        return self.recorder.strict

    def product_call(self, *args):
        return self.recorder.product_call(*args)

    def count_host_product(self, *args):
        self.recorder.count_host_product(*args)

    def report(self, node=180):
        """The profile: {'device', 'energy', 'ops', 'totals'} (docs/keras_jax.md); energy_uj and
        seconds_at_fmax by the energy table of `node` nm."""
        return self.recorder.report(node)
