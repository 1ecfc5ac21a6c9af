"""DeviceStrategy: Keras models made in its scope run their steps' products on an mxu device, or
as replicas on several chips.

Keras's JAX trainer builds model.fit's, evaluate's and predict's step functions, pure functions
of (state, data), and hands each to JAXTrainer._make_function, which loops them over the data.
That one method is wrapped here, once per process: for a model made inside a one-device
strategy's scope the step function becomes mxu.jax's DeviceFunction first (the same jaxpr
interpreter), so every product of the step, forward and backward, runs on the device; on several
chips it becomes the model's data-parallel step (mxu/keras/_replicas.py), which make_train_,
make_test_ and make_predict_function name. Models made outside any scope, and the steps of models
made before, are not touched.
"""
import contextlib
import threading

from keras.src.backend.jax.trainer import JAXTrainer

from mxu._chips import Devices
from mxu._ring import check_links
from mxu.jax._function import DeviceFunction, DeviceRecorder
from mxu.keras._chips import Chips, chips_of

_active = threading.local()  # .strategy: the strategy whose scope this thread is in
_building = threading.local()  # .kind: the step JAXTrainer.make_<kind>_function is making
_installed = False
_install_lock = threading.Lock()


def _naming(kind, make):
    def make_function(self, *args, **kwargs):
        outer, _building.kind = getattr(_building, "kind", None), kind
        try:
            return make(self, *args, **kwargs)
        finally:
            _building.kind = outer
    return make_function


def _install():
    """Wraps JAXTrainer.__init__ (a model remembers the strategy it was made in),
    JAXTrainer._make_function (its steps go through that strategy's device or chips) and the
    three make_<kind>_function (which step it is)."""
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
                step_function = strategy._step(self, step_function,
                                               getattr(_building, "kind", None))
            return make_function(self, step_function, *args, **kwargs)

        JAXTrainer.__init__ = __init__
        JAXTrainer._make_function = _make_function
        for kind in ("train", "test", "predict"):
            name = f"make_{kind}_function"
            setattr(JAXTrainer, name, _naming(kind, getattr(JAXTrainer, name)))
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

    `device` may also be several chips (mxu.Devices(8, backend="model"), or a list of devices,
    all of one device): the model then runs as num_replicas_in_sync replicas, one per chip, each
    step's batch split across them and the gradients summed in rank order, charged as a ring
    all-reduce (link_bytes_per_cycle, link_latency_cycles: `mxu train`'s links; link_pj_per_bit:
    the links' energy, assumed); see mxu/keras/_replicas.py and docs/keras_jax.md ("Several
    chips"). parallel="model" runs one replica over the chips instead, every Dense kernel split
    by its output columns (mxu/keras/_columns.py). fit, evaluate and predict all count into one
    report. strict, watchdog, transposed, batch: as mxu.jax.on_device takes them."""

    def __init__(self, device, strict=False, watchdog=None, transposed="copy", batch=True,
                 parallel="data", **links):
        who = "mxu.keras.DeviceStrategy"
        check_links(links, who)
        if parallel not in ("data", "model"):
            raise ValueError(f"{who}: parallel must be 'data' (replicas) or 'model' (kernels "
                             f"split by columns), got {parallel!r}")
        self._parallel = parallel
        chips = chips_of(device, who)
        if chips is None:
            if links or parallel != "data":
                given = sorted(links) + (["parallel"] if parallel != "data" else [])
                raise TypeError(f"{who}: {', '.join(given)}: these settings need several "
                                f"chips (mxu.Devices), not one device")
            self._recorder = DeviceRecorder(device, strict=strict, watchdog=watchdog,
                                            transposed=transposed, batch=batch, who=who)
            self._chips = None
        else:
            self._chips = Chips(chips, dict(strict=strict, watchdog=watchdog,
                                            transposed=transposed, batch=batch), links, who,
                                pool=device if isinstance(device, Devices) else None)
        _install()

    @property
    def num_replicas_in_sync(self):
        """The replicas, one per chip (the guides scale the batch size by this); one with
        parallel="model" (one replica over every chip)."""
        return 1 if self._chips is None or self._parallel == "model" else len(self._chips)

    def _step(self, model, step_function, kind):
        """What runs `step_function` (a model's jitted train, test or predict step)."""
        if self._chips is None:
            return DeviceFunction(step_function, self._recorder)
        if self._parallel == "model":
            return self._chips.columns_of(model, step_function)
        if kind is None:
            raise RuntimeError("mxu.keras: a step function that is not fit's, evaluate's or "
                               "predict's cannot run as replicas")
        return self._chips.steps_of(model).step(kind)

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
        Keras layer and pass; totals with device_gemms, device_cycles, host_products). On
        several chips: summed over the chips, with 'chips' (each chip's totals), 'interconnect'
        (the all-reduces' bytes, cycles and link energy) and 'step_time' (the run's cycles and
        seconds at Fmax, busiest chip plus interconnect, and the scaling efficiency)."""
        if self._chips is None:
            return self._recorder.report(node)
        return self._chips.report(node)
