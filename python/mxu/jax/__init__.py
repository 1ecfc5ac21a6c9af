"""JAX on the matrix unit: every matrix product of a JAX function, forward and backward, on an
mxu device (docs/keras_jax.md).

    import jax, mxu, mxu.jax
    dev = mxu.Device(backend="model")
    step = mxu.jax.on_device(train_step, dev)   # train_step: jit, grad, vmap, scan... inside
    params, loss = step(params, x, y)
    step.report()["totals"]                      # device_gemms, device_cycles, host_products
    mxu.jax.write_report(step, "r.json", plot="r.png")

Every dot_general and conv_general_dilated with float operands runs on the device, as the
numeric contract says (docs/numerics.md): bf16 operands, fp32 accumulation in the device's order,
the result in the equation's dtype. Everything else runs in JAX (XLA) on the host, as a TPU
leaves non-matrix work to its other units. Needs jax 0.4.30 (the version scripts/setup.sh
installs into .venv): the interpreter reads jaxprs through jax.extend.core.
"""
try:
    import jax as _jax
except ImportError as _error:
    raise ImportError(f"mxu.jax needs JAX ({_error}): scripts/setup.sh installs jax[cpu]==0.4.30 "
                      "into the project's venv; run .venv/bin/python") from None


def _check_jax():
    """ImportError naming the version needed, when this JAX lacks the internals used here."""
    needed = "jax >= 0.4.30 with jax.extend.core (scripts/setup.sh pins jax[cpu]==0.4.30)"
    try:
        from jax.extend import core
        missing = [name for name in ("ClosedJaxpr", "Jaxpr", "Literal") if not hasattr(core, name)]
    except ImportError:
        missing = ["jax.extend.core"]
    if not hasattr(_jax, "pure_callback"):
        missing.append("jax.pure_callback")
    if missing:
        raise ImportError(f"mxu.jax needs {needed}; jax {_jax.__version__} lacks "
                          f"{', '.join(missing)}")


_check_jax()

from mxu._gemms import DeviceOpError, HostProductError  # noqa: E402
from mxu._report import write_report  # noqa: E402
from mxu.jax._function import DeviceFunction, DeviceRecorder  # noqa: E402

__all__ = ["on_device", "DeviceFunction", "write_report", "HostProductError", "DeviceOpError"]


def on_device(fn, device, strict=False, watchdog=None, transposed="copy", batch=True,
              share=None):
    """`fn` (a function of arrays and pytrees of arrays, pure as jax.jit needs it) with every
    matrix product on `device` (an mxu.Device); the returned DeviceFunction is called as `fn`
    (positional and keyword arguments) and has report(). fn may use jit, grad, vmap, scan,
    cond, while_loop and custom derivative rules inside; call the DeviceFunction itself with
    arrays (it is not traced by an outer transformation). strict=True raises HostProductError,
    naming the primitive, where a product would run on the host (integer operands, a product
    inside a primitive the interpreter does not know: custom_vmap_call, pmap, shard_map).
    watchdog: each device GEMM's cycle limit. transposed: "copy" (transposed operands
    laid out row-major on the host) or "device" (the device's transposing loads; the same bits).
    batch: a batched dot_general's or a grouped convolution's GEMMs as one device program
    (True) or one program each (False; the same bits, other cycles). share: another
    DeviceFunction on the same device whose report (and options) this one adds to, such as a
    training step's for the evaluation's."""
    if share is not None:
        if not isinstance(share, DeviceFunction):
            raise TypeError(f"mxu.jax.on_device: share must be a DeviceFunction, got {share!r}")
        if share.recorder.device is not device:
            raise ValueError("mxu.jax.on_device: share's device is another device")
        return DeviceFunction(fn, share.recorder)
    return DeviceFunction(fn, DeviceRecorder(device, strict=strict, watchdog=watchdog,
                                             transposed=transposed, batch=batch,
                                             who="mxu.jax.on_device"))
