"""mxu: the matrix unit's driver from Python, NumPy arrays in and out.

Open a device (one per process) and run GEMMs on it, bit-exact against the golden model:

    import mxu, numpy as np
    dev = mxu.Device()                        # the RTL of the build's default device
    a = np.ones((64, 96), np.float32)         # float32 is rounded to bf16
    c = dev.gemm(a, a.T.copy(), check=True)   # raises mxu.CheckError on a mismatch
    dev.counters()["cycles"], dev.info()["array_rows"]

mxu.Device(backend="rtl", device=None, ...) opens a backend ("rtl", "model", "cross":
mxu.backends()) for a device: one of this build's (mxu.built_devices(), each verilated, on any
backend), or any device spec ("32x8:pe=2", as `mxu --device` takes it) on the model backend.
The golden model (golden_gemm, golden_gemm_int8), the bf16 conversions, quantize_multiplier and
the CSR addresses (CSR) need no device. Errors: ValueError and TypeError for bad arguments
(DtypeError, both, in the int8 mode), DeviceError and CheckError (RuntimeErrors) from the device
and the check. docs/driver.md ("Python") has the whole API. mxu.Devices(n, backend, device) opens n
simulated chips, each a Device in a worker process of its own (mxu/_chips.py; under mpirun,
launcher="mpi", an MPI rank of its own), for the frameworks' replicas (docs/keras_jax.md, "Several chips").

The package holds one compiled extension per device of the build: mxu._mxu (the default device:
everything here comes from it) and mxu._mxu_<id> for each other device.
"""
import importlib as _importlib
import re as _re


def _interpreter_check():
    """ImportError with one line naming the fix, when this interpreter cannot load the package:
    the extensions are built for one Python (the build's, Debian's /usr/bin/python3 by default)
    and need NumPy. Without it a foreign interpreter reports a circular import or no module."""
    import glob
    import os
    import sys
    import sysconfig
    here = os.path.dirname(os.path.abspath(__file__))
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ""
    built = sorted(glob.glob(os.path.join(here, "_mxu.*.so")))
    if built and not os.path.exists(os.path.join(here, "_mxu" + suffix)):
        tag = os.path.basename(built[0])[len("_mxu."):-len(".so")]
        return ImportError(
            f"mxu: this build's extension is for {tag}, not for this Python "
            f"{sys.version.split()[0]} ({sys.executable}): run it with the python3 the build used "
            f"(Debian's /usr/bin/python3), or rebuild with cmake -DPython3_EXECUTABLE=...")
    try:
        import numpy  # noqa: F401
    except ImportError:
        return ImportError(
            f"mxu: needs NumPy, which this Python ({sys.executable}) lacks: run it with Debian's "
            f"/usr/bin/python3 (apt install python3-numpy), or install numpy for this one")
    return None


_problem = _interpreter_check()
if _problem is not None:
    raise _problem
del _problem

from mxu import _mxu  # noqa: E402
from mxu._mxu import *  # noqa: F401,F403,E402  everything the extension defines
from mxu._mxu import (  # noqa: E402
    CSR, CheckError, DeviceError, DtypeError, backends, bf16_to_float, built_devices,
    float_to_bf16, golden_gemm, golden_gemm_int8, quantize_multiplier)

__all__ = sorted([name for name in dir(_mxu) if not name.startswith("_")])

_DEFAULTS = _mxu._DEVICE_DEFAULTS


def _extension(device):
    """The extension that opens `device` (None: the default device), and the spec it is given.

    A device of the build is verilated in its own extension (mxu._mxu_<id>, <id> the name with
    every character other than a letter, digit or underscore made '_', as cmake/devices.cmake
    names it); any other spec goes to the default extension, whose factory simulates it on the
    model backend and refuses it, naming the built devices, on the others.
    """
    if device is None:
        return _mxu, ""
    if not isinstance(device, str):
        raise TypeError(f"device: expected a device name or spec (str), got "
                        f"{type(device).__name__}")
    built = built_devices()
    if device not in built or device == built[0]:
        return _mxu, device
    name = "mxu._mxu_" + _re.sub(r"[^A-Za-z0-9_]", "_", device)
    try:
        return _importlib.import_module(name), device
    except ModuleNotFoundError:
        target = "mxu_python_" + name[len("mxu._mxu_"):]
        raise ImportError(f"device '{device}' is built, but its extension {name} is not (cmake "
                          f"--build build --target {target})") from None


class Device:
    """A device on a backend, with the host memory's timing. One RTL device ("rtl" or "cross")
    per process, whichever device: SystemC elaborates the RTL once (a second raises RuntimeError).
    The model backend opens as many as asked, one per simulated chip.

    backend: "rtl" (the verilated RTL), "model" (the fast C++ model) or "cross" (both, compared
    after every program). device: None for the build's default device; a device of this build
    (mxu.built_devices()) on any backend; or, on the model backend, any device spec as `mxu
    --device` takes it (ROWSxCOLS[-flush][:ub=N][:acc=N][:wfifo=N][:pe=N][:bus=B]...). A spec
    that is neither, or one that is not built on the rtl or cross backend, raises ValueError.
    mem_latency, mem_bytes_per_cycle, mem_in_flight: the host memory's timing
    (mem_bytes_per_cycle None: as wide as the device's memory port, its bus_bytes); watchdog: the
    device cycles a GEMM may take (DeviceError after).
    """

    def __init__(self, backend="rtl", device=None, mem_latency=_DEFAULTS["mem_latency"],
                 mem_bytes_per_cycle=_DEFAULTS["mem_bytes_per_cycle"],
                 mem_in_flight=_DEFAULTS["mem_in_flight"], watchdog=_DEFAULTS["watchdog"]):
        if backend not in backends():  # before the one-device rule: the argument is wrong
            raise ValueError(f"unknown backend {backend!r} (available: "
                             f"{', '.join(repr(b) for b in backends())})")
        extension, spec = _extension(device)
        self._device = extension.Device(backend=backend, device=spec, mem_latency=mem_latency,
                                        mem_bytes_per_cycle=mem_bytes_per_cycle,
                                        mem_in_flight=mem_in_flight, watchdog=watchdog)

    def gemm(self, a, b, **options):
        return self._device.gemm(a, b, **options)

    def gemm_int8(self, a, b, **options):
        return self._device.gemm_int8(a, b, **options)

    def gemm_batch(self, a, b, **options):
        return self._device.gemm_batch(a, b, **options)

    def counters(self):
        return self._device.counters()

    def info(self):
        return self._device.info()

    def read_csr(self, addr):
        return self._device.read_csr(addr)

    @property
    def backend(self):
        """The backend's name ("rtl", "model", "cross")."""
        return self._device.backend

    def __repr__(self):
        return f"<mxu.Device {self._device.info()['device']!r} on {self.backend}>"

    gemm.__doc__ = _mxu.Device.gemm.__doc__
    gemm_int8.__doc__ = _mxu.Device.gemm_int8.__doc__
    gemm_batch.__doc__ = _mxu.Device.gemm_batch.__doc__
    counters.__doc__ = _mxu.Device.counters.__doc__
    info.__doc__ = _mxu.Device.info.__doc__
    read_csr.__doc__ = _mxu.Device.read_csr.__doc__


# Several chips, each a Device in a worker process of its own (mxu/_chips.py).
from mxu._chips import ChipError, Devices  # noqa: E402

__all__ += ["ChipError", "Devices"]
