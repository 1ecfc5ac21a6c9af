"""Keras 3 on the matrix unit (the JAX backend): an unmodified model's fit, evaluate and predict
with every matrix product on an mxu device, as the guides' TPUStrategy runs them on a TPU
(docs/keras_jax.md).

    import mxu, mxu.keras
    strategy = mxu.keras.DeviceStrategy(mxu.Device(backend="model"))
    with strategy.scope():
        model = create_model()
        model.compile(optimizer="adam", loss=..., metrics=["accuracy"])
    model.fit(x_train, y_train, epochs=5, batch_size=1024)
    strategy.report()["totals"]         # device_gemms, device_cycles, host_products
    mxu.keras.write_report(strategy, "r.json")

On several chips, the guides' program changes only in the line that makes the strategy:
`mxu.keras.DeviceStrategy(mxu.Devices(8, backend="model"))` runs 8 replicas, one chip (worker
process) each, the batch split across them and the gradients summed in rank order, charged on
`mxu train`'s ring interconnect (mxu/keras/_replicas.py; docs/keras_jax.md, "Several chips").

Keras runs on JAX here. Where nothing chose a backend yet (no KERAS_BACKEND, no keras.json),
importing mxu.keras before keras makes JAX Keras's default (mxu/keras/_backend.py: the keras.json
Keras would write, naming JAX; the project's venv does the same at its first `import keras`);
another backend chosen by KERAS_BACKEND or keras.json is refused with one ImportError naming the
fix. Needs keras 3.15.1 and jax 0.4.30, as scripts/setup.sh installs them into .venv.
"""
import sys as _sys

from mxu.keras import _backend

if "keras" not in _sys.modules:
    _backend.write_default()
    _backend.check()  # before Keras's own import of another backend fails less clearly

import keras as _keras  # noqa: E402

_backend.check(_keras.backend.backend())

import mxu.jax  # noqa: E402,F401  (checks the JAX version)
from mxu._report import write_report  # noqa: E402
from mxu.jax import DeviceOpError, HostProductError  # noqa: E402
from mxu.keras._strategy import DeviceStrategy  # noqa: E402

__all__ = ["DeviceStrategy", "write_report", "DeviceOpError", "HostProductError"]
