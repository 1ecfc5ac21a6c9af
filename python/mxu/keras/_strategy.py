"""DeviceStrategy: Keras models made in its scope run their steps' products on an mxu device.

Keras's JAX trainer builds model.fit's, evaluate's and predict's step functions, pure functions
of (state, data), and hands each to JAXTrainer._make_function, which loops them over the data.
That one method is wrapped here, once per process: for a model made inside a strategy's scope
the step function becomes mxu.jax's DeviceFunction first (the same jaxpr interpreter), so every
product of the step, forward and backward, runs on the device. Models made outside any scope,
and the steps of models made before, are not touched.
"""
import contextlib
import threading

from keras.src.backend.jax.trainer import JAXTrainer

from mxu.jax._function import DeviceFunction, DeviceRecorder

_active = threading.local()  # .strategy: the strategy whose scope this thread is in
_installed = False
_install_lock = threading.Lock()


def _install():
    """Wraps JAXTrainer.__init__ (a model remembers the strategy it was made in) and
    JAXTrainer._make_function (its steps go through that strategy's device)."""
    global _installed
    with _install_lock:
        if _installed:
            return
        init, make_function = JAXTrainer.__init__, JAXTrainer._make_function

        def __init__(self, *args, **kwargs):
            init(self, *args, **kwargs)
            # object.__setattr__: Keras's attribute tracking is not set up yet, and needs not
            # see this.
            object.__setattr__(self, "_mxu_strategy", getattr(_active, "strategy", None))

        def _make_function(self, step_function, *args, **kwargs):
            strategy = getattr(self, "_mxu_strategy", None)
            if strategy is not None:
                step_function = DeviceFunction(step_function, strategy._recorder)
            return make_function(self, step_function, *args, **kwargs)

        JAXTrainer.__init__ = __init__
        JAXTrainer._make_function = _make_function
        _installed = True


class DeviceStrategy:
    """Runs the products of the Keras models made in its scope on `device` (an mxu.Device), as
    the guides' TPUStrategy places a model on a TPU:

        strategy = mxu.keras.DeviceStrategy(dev)
        with strategy.scope():
            model = create_model()
            model.compile(...)
        model.fit(x, y, epochs=5, batch_size=1024)     # the products on the device
        strategy.report()["totals"]

    fit, evaluate and predict all count into one report. strict, watchdog, transposed, batch:
    as mxu.jax.on_device takes them."""

    def __init__(self, device, strict=False, watchdog=None, transposed="copy", batch=True):
        self._recorder = DeviceRecorder(device, strict=strict, watchdog=watchdog,
                                        transposed=transposed, batch=batch,
                                        who="mxu.keras.DeviceStrategy")
        _install()

    @property
    def num_replicas_in_sync(self):
        """One device (the guides scale the batch size by this)."""
        return 1

    @contextlib.contextmanager
    def scope(self):
        """Models made inside run their products on the device (for their whole life)."""
        outer = getattr(_active, "strategy", None)
        if outer is not None and outer is not self:
            raise RuntimeError("mxu.keras: another DeviceStrategy's scope is active in this "
                               "thread; leave it before entering this one")
        _active.strategy = self
        try:
            yield self
        finally:
            _active.strategy = outer

    def report(self, node=180):
        """The profile of every step run so far, as mxu.torch's and mxu.jax's (per primitive,
        Keras layer and pass; totals with device_gemms, device_cycles, host_products)."""
        return self._recorder.report(node)
