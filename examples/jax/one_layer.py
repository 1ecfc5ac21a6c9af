"""One layer's forward and backward products on the device, and what the report says of them
(docs/keras_jax.md shows its output; the docs test runs it).

  .venv/bin/python examples/jax/one_layer.py
"""
import jax
import jax.numpy as jnp

import mxu
import mxu.jax


def loss(w, x):
    with jax.named_scope("dense"):  # the report's module
        return jnp.tanh(x @ w).sum()


def main():
    dev = mxu.Device(backend="model")
    step = mxu.jax.on_device(jax.value_and_grad(loss, argnums=(0, 1)), dev)
    value, (dw, dx) = step(jnp.ones((64, 32)) / 64, jnp.ones((128, 64)))
    t = step.report()["totals"]
    print({k: t[k] for k in ("device_gemms", "device_macs", "device_cycles", "host_products")})
    print([(e["op"], e["module"], e["phase"], e["device_gemms"]) for e in step.report()["ops"]])


if __name__ == "__main__":
    main()
