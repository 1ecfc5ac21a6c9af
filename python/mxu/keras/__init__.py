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

Keras runs on JAX here: importing mxu.keras before keras selects the JAX backend unless
KERAS_BACKEND says otherwise (then it fails, naming the backend). Needs keras 3.15.1 and jax
0.4.30, as scripts/setup.sh installs them into .venv.
"""
import os as _os
import sys as _sys

if "keras" not in _sys.modules:
    _os.environ.setdefault("KERAS_BACKEND", "jax")

import keras as _keras  # noqa: E402

if _keras.backend.backend() != "jax":
    raise ImportError(f"mxu.keras needs Keras on the JAX backend (KERAS_BACKEND=jax); this Keras "
                      f"runs on {_keras.backend.backend()!r}")

import mxu.jax  # noqa: E402,F401  (checks the JAX version)
from mxu._report import write_report  # noqa: E402
from mxu.jax import DeviceOpError, HostProductError  # noqa: E402
from mxu.keras._strategy import DeviceStrategy  # noqa: E402

__all__ = ["DeviceStrategy", "write_report", "DeviceOpError", "HostProductError"]
