"""Products on the device for any framework's mode: GemmRunner turns C (M x K) x B (K x N)
[+ bias | + C0] [ReLU] into Device.gemm and Device.gemm_batch calls, NumPy arrays in and out.

A mode (mxu.torch, mxu.jax) reduces each of its ops to GemmRunner.gemm / gemm_batch calls; a
subclass converts its framework's arrays (mxu/torch/_products.py). Here the operands become what
the device takes (float32 arrays rounded to bf16 by the device's driver, or raw bf16 bits as
uint16), transposed views travel as `ta`/`tb` or are laid out row-major first, and a product
beyond one GEMM's limits is split so that the bits stay those of the single GEMM. Framework-free:
it imports neither torch nor jax.
"""
import numbers
import threading
import time

import numpy as np

from mxu._mxu import _GEMM_LIMITS, _gemm_problem_bytes

# One GEMM's limits, the driver's own (driver/gemm_limits.h, through the extension): a product
# past them is split into GEMMs within them.
MAX_DIMENSION = _GEMM_LIMITS["max_dimension"]
MAX_PROBLEM_BYTES = _GEMM_LIMITS["max_problem_bytes"]

_CANONICAL_NAN = np.uint32(0x7FC00000).view(np.float32)


_device_locks = {}  # id(device) -> the lock that serializes its GEMMs across threads and modes
_device_locks_lock = threading.Lock()


def device_lock(device):
    """The one lock of `device` that every mode's runner holds around its device calls."""
    with _device_locks_lock:
        return _device_locks.setdefault(id(device), threading.Lock())


# The device's limit on a GEMM's watchdog (python/arguments.h: kMaxWatchdogCycles).
MAX_WATCHDOG = _GEMM_LIMITS["max_watchdog"]


def check_options(device, strict, watchdog, who):
    """A mode's arguments, refused at once (not at the first product) with one line naming
    `who` (the mode: "mxu.torch", "mxu.jax.on_device", ...)."""
    if not (callable(getattr(device, "gemm", None)) and callable(getattr(device, "info", None))):
        raise TypeError(f"{who}: device must be an mxu.Device, got {device!r}")
    if not isinstance(strict, bool):
        raise TypeError(f"{who}: strict must be True or False, got {strict!r}")
    if watchdog is not None:
        if isinstance(watchdog, bool) or not isinstance(watchdog, numbers.Integral):
            raise TypeError(f"{who}: watchdog must be a whole number of cycles, got "
                            f"{watchdog!r}")
        if not 1 <= watchdog <= MAX_WATCHDOG:
            raise ValueError(f"{who}: watchdog must be 1 to {MAX_WATCHDOG} cycles, got "
                             f"{watchdog}")


def new_call(dtype="bf16"):
    """The counts of one op (or equation) of a mode, before its products ran (mxu/_report.py
    adds them up per op, module, pass and dtype: "bf16", or "int8" for the integer mode's)."""
    return dict(calls=1, device_gemms=0, device_macs=0, device_cycles=0, array_macs=0,
                dma_read_bytes=0, dma_write_bytes=0, column_clocks=0, acc_clocks=0,
                activate_clocks=0, dma_clocks=0, host_products=0, buffer_accesses={},
                dtype=dtype)


def add_program(call, shapes, counters):
    """Adds one device program to `call`: `shapes` the (m, k, n) of its GEMMs, `counters` the
    device's counters after it (Device.counters(): cycles, MACs, DMA bytes, on-chip traffic)."""
    call["device_gemms"] += len(shapes)
    call["device_macs"] += sum(m * k * n for m, k, n in shapes)
    call["device_cycles"] += int(counters["cycles"])
    call["array_macs"] += int(counters["macs"])
    call["dma_read_bytes"] += int(counters["dma_read_bytes"])
    call["dma_write_bytes"] += int(counters["dma_write_bytes"])
    for key in ("column_clocks", "acc_clocks", "activate_clocks", "dma_clocks"):
        call[key] += int(counters[key])
    for key, value in counters.get("buffer_accesses", {}).items():
        call["buffer_accesses"][key] = call["buffer_accesses"].get(key, 0) + int(value)


class DeviceOpError(RuntimeError):
    """The device failed a product (watchdog, DMA fault, a refused GEMM): names the op."""


class HostProductError(RuntimeError):
    """A product that runs on the host (why: e.g. 'int64 operands'). A mode counts it there; with
    strict=True it raises it to the user instead, naming the op (mxu.torch) or the primitive
    (mxu.jax, mxu.keras)."""


# The operand dtypes Device.gemm and gemm_batch take at any strides (python/arguments.cc).
_STRIDED_DTYPES = (np.dtype(np.float32), np.dtype(np.uint16))


def problem_bytes(m, k, n, accumulate, operand_bytes=2, result_bytes=4):
    """What the driver counts for an m x k x n GEMM (driver/gemm_limits.h, through the
    extension): bf16 operands (2 bytes) and a float32 result by default; the int8 mode's are 1
    byte, its result 1 (requantized) or 4."""
    return _gemm_problem_bytes(m, k, n, accumulate, operand_bytes, result_bytes)


def device_operand(array, transposed_loads):
    """(array, transposed): what Device.gemm takes for a 2-D NumPy array of float32 or of bf16
    bits (uint16), or Device.gemm_int8 for one of int8. A C-contiguous array travels as it is;
    the transposed view of one as that array with ta/tb when `transposed_loads`, else laid out
    row-major on the host. Device.gemm lays out a float32 or uint16 view of any strides itself,
    in the same pass as its bf16 conversion (NumPy's copy of a transposed view is 27x a plain
    copy's time); anything else is copied here."""
    if transposed_loads and not array.flags.c_contiguous and array.T.flags.c_contiguous:
        return array.T, True
    if array.dtype in _STRIDED_DTYPES:
        return array, False
    return np.ascontiguousarray(array), False


def no_products(m, n, bias, c0, relu):
    """An m x n float32 result with no products to add (K = 0, or nothing to compute): what the
    device's accumulators hold, its start (bias or C0, else +0), through its store: every NaN the
    canonical 0x7FC00000, and its ReLU (negatives and -0 to +0) (docs/numerics.md)."""
    start = c0 if c0 is not None else bias
    if start is None:
        out = np.zeros((m, n), np.float32)
    else:  # the start as it is (-0 stays -0, as it does in the accumulators)
        out = np.broadcast_to(np.asarray(start, np.float32), (m, n)).copy()
    if relu:
        out = np.where(np.isnan(out) | (out > 0), out, np.float32(0))
    return np.where(np.isnan(out), _CANONICAL_NAN, out).astype(np.float32)


def _chunks(total, size):
    return [(start, min(start + size, total)) for start in range(0, total, size)]


class GemmRunner:
    """Runs products on one device and tells `record_batch(shapes, counters)` what each device
    program cost (`shapes`: the (m, k, n) of its GEMMs). Operands are 2-D NumPy arrays, float32
    or bf16 bits (uint16); bias a float32 vector, c0 a float32 matrix; results float32 arrays.
    A subclass converts another framework's arrays by overriding _operand, _values and _result.
    """

    def __init__(self, device, lock, record_batch, watchdog=None, transposed="copy", batch=True):
        if transposed not in ("copy", "device"):
            raise ValueError(f"transposed must be 'copy' or 'device', got {transposed!r}")
        if not isinstance(batch, bool):
            raise TypeError(f"batch must be True or False, got {batch!r}")
        self.device = device
        # A transposed operand (a layer's W.t(), the backward's x.t()) as the device's
        # transposing load ("device": ta/tb; a B operand loads up to 1.5x slower through the
        # transposer) or laid out row-major by the host first ("copy", as a runtime lays out
        # weights). The bits are the same; cycles and host time differ.
        self._transposed_loads = transposed == "device"
        # The device's watchdog for each GEMM, in cycles (None: the device's own setting).
        self._options = {} if watchdog is None else {"watchdog": int(watchdog)}
        self._lock = lock
        self._record_batch = record_batch
        self._batch = batch
        info = device.info()
        self.rows = int(info["array_rows"])
        self.cols = int(info["array_cols"])
        self.device_seconds = 0.0

    # ---- a framework's arrays (a subclass overrides _operand, _values, _result) ----
    def _operand(self, x):
        """(array, transposed) for Device.gemm from a 2-D operand."""
        return device_operand(x, self._transposed_loads)

    def _values(self, x, dtype):
        """A bias, C0 or scales as a contiguous NumPy array of `dtype` (None stays None; a NumPy
        array of that dtype passes through, such as a split product's partial C)."""
        return None if x is None else np.ascontiguousarray(x, dtype)

    def _vector(self, x):
        return self._values(x, np.float32)

    def _result(self, c):
        """A float32 NumPy result as the framework's array."""
        return c

    # ---- products ----
    def gemm(self, a, b, bias=None, c0=None, relu=False):
        """A (M x K) x B (K x N) [+ bias (N) | + C0 (M x N)] [ReLU] as float32 (M x N)."""
        m, k = a.shape
        n = b.shape[1]
        if k == 0 or m == 0 or n == 0:
            return self._result(no_products(m, n, self._vector(bias), self._vector(c0), relu))
        mc, kc, nc = self._blocking(m, k, n, c0 is not None or k > MAX_DIMENSION)
        if (mc, kc, nc) == (m, k, n):
            return self._result(self._one(a, b, bias, c0, relu))
        # Rows and columns of C are independent; K is cut at tile boundaries (kc is a multiple of
        # the array's rows) and each piece starts from the previous one's C: the accumulator sees
        # the same sequence of tile sums as in one GEMM, so the bits are the same.
        c0 = self._vector(c0)
        out = np.empty((m, n), np.float32)
        for m0, m1 in _chunks(m, mc):
            for n0, n1 in _chunks(n, nc):
                part = None
                pieces = _chunks(k, kc)
                for i, (k0, k1) in enumerate(pieces):
                    start = part if part is not None else (
                        c0[m0:m1, n0:n1] if c0 is not None else None)
                    part = self._one(a[m0:m1, k0:k1], b[k0:k1, n0:n1],
                                     bias[n0:n1] if bias is not None and i == 0 else None,
                                     start, relu and i == len(pieces) - 1)
                out[m0:m1, n0:n1] = part
        return self._result(out)

    def gemm_batch(self, products):
        """Independent products as few device programs as the host memory allows (one for any
        batch a model makes): `products` a list of (a, b, bias, c0, relu) as gemm takes them.
        Each result is bit-identical to gemm's. Products beyond one GEMM's limits, and empty
        ones, run as gemm runs them."""
        if not self._batch:
            return [self.gemm(a, b, bias=bias, c0=c0, relu=relu) for a, b, bias, c0, relu in
                    products]
        results = [None] * len(products)
        batch, footprint = [], 0
        for i, (a, b, bias, c0, relu) in enumerate(products):
            m, k = a.shape
            n = b.shape[1]
            if min(m, k, n) == 0 or self._blocking(m, k, n, c0 is not None) != (m, k, n):
                results[i] = self.gemm(a, b, bias=bias, c0=c0, relu=relu)
                continue
            size = self._footprint(m, k, n, c0 is not None)
            if batch and footprint + size > MAX_PROBLEM_BYTES:
                self._run_batch(products, batch, results)
                batch, footprint = [], 0
            batch.append(i)
            footprint += size
        if batch:
            self._run_batch(products, batch, results)
        return results

    def _footprint(self, m, k, n, accumulate):
        """Host-memory bytes one GEMM of a batch takes: its tiles padded, each buffer on its own
        4 KiB page (the driver's layout)."""
        kp = -(-k // self.rows) * self.rows
        np_ = -(-n // self.cols) * self.cols
        return problem_bytes(m, kp, np_, accumulate) + 5 * 4096

    def _run_batch(self, products, indices, results):
        if len(indices) == 1:
            i = indices[0]
            a, b, bias, c0, relu = products[i]
            results[i] = self._result(self._one(a, b, bias, c0, relu))
            return
        a_arrays, b_arrays, tas, tbs, relus, biases, starts, shapes = [], [], [], [], [], [], [], []
        for i in indices:
            a, b, bias, c0, relu = products[i]
            a_array, ta = self._operand(a)
            b_array, tb = self._operand(b)
            a_arrays.append(a_array)
            b_arrays.append(b_array)
            tas.append(ta)
            tbs.append(tb)
            relus.append(bool(relu))
            biases.append(self._vector(bias))
            starts.append(self._vector(c0))
            shapes.append((a.shape[0], a.shape[1], b.shape[1]))
        outs = self._on_device(shapes, lambda: self.device.gemm_batch(
            a_arrays, b_arrays, ta=tas, tb=tbs, relu=relus,
            bias=None if all(x is None for x in biases) else biases,
            accumulate=None if all(x is None for x in starts) else starts, **self._options))
        for i, c in zip(indices, outs):
            results[i] = self._result(c)

    def gemm_int8(self, a, b, bias=None, scales=None, zero_point=0, relu=False):
        """The integer mode: A (M x K) x B (K x N), int8, + bias (N int32 values). With scales
        (N positive float32 values, column n's) the int8 result that the device's requantizer
        makes, clamp(round(C x scale) + zero_point, relu ? zero_point : -128, 127); without, the
        int32 sums (relu: negatives to 0). Rows and columns of C are independent: past one
        GEMM's limits the product runs as several, with the same bits. K must fit one GEMM (the
        requantizer takes the whole sum)."""
        m, k = a.shape
        n = b.shape[1]
        if k > MAX_DIMENSION:
            raise ValueError(f"K = {k} exceeds one int8 GEMM's {MAX_DIMENSION}")
        result_bytes = 1 if scales is not None else 4
        mc, nc = min(m, MAX_DIMENSION), min(n, MAX_DIMENSION)
        while problem_bytes(mc, k, nc, False, 1, result_bytes) > MAX_PROBLEM_BYTES:
            if mc >= nc and mc > 1:
                mc = (mc + 1) // 2
            else:
                nc = (nc + 1) // 2
        if (mc, nc) == (m, n):
            return self._result(self._one_int8(a, b, bias, scales, zero_point, relu))
        out = np.empty((m, n), np.int8 if scales is not None else np.int32)
        for m0, m1 in _chunks(m, mc):
            for n0, n1 in _chunks(n, nc):
                out[m0:m1, n0:n1] = self._one_int8(
                    a[m0:m1], b[:, n0:n1], None if bias is None else bias[n0:n1],
                    None if scales is None else scales[n0:n1], zero_point, relu)
        return self._result(out)

    def _one_int8(self, a, b, bias, scales, zero_point, relu):
        a_array, ta = self._operand(a)
        b_array, tb = self._operand(b)
        options = dict(self._options)
        if scales is not None:
            options.update(scales=self._values(scales, np.float64), zero_point=int(zero_point))
        bias_array = self._values(bias, np.int32)
        shape = (a.shape[0], a.shape[1], b.shape[1])
        return self._on_device([shape], lambda: self.device.gemm_int8(
            a_array, b_array, ta=ta, tb=tb, relu=relu, bias=bias_array, **options))

    def _blocking(self, m, k, n, accumulate):
        tile_k = (MAX_DIMENSION // self.rows) * self.rows
        mc, kc, nc = min(m, MAX_DIMENSION), min(k, tile_k) if k > MAX_DIMENSION else k, min(
            n, MAX_DIMENSION)
        accumulate = accumulate or kc < k
        while problem_bytes(mc, kc, nc, accumulate) > MAX_PROBLEM_BYTES:
            if mc >= nc and mc > 1:
                mc = (mc + 1) // 2
            elif nc > 1:
                nc = (nc + 1) // 2
            else:
                kc = max(self.rows, (kc // 2) // self.rows * self.rows)
                accumulate = True
        return mc, kc, nc

    def _one(self, a, b, bias, c0, relu):
        """One device GEMM: a float32 NumPy result (c0 may already be one, from a split)."""
        a_array, ta = self._operand(a)
        b_array, tb = self._operand(b)
        bias_array, c0_array = self._vector(bias), self._vector(c0)
        shape = (a.shape[0], a.shape[1], b.shape[1])
        return self._on_device([shape], lambda: self.device.gemm(
            a_array, b_array, ta=ta, tb=tb, relu=relu, bias=bias_array, accumulate=c0_array,
            **self._options))

    def _on_device(self, shapes, run):
        """run()'s result: one device program, under the device's lock (its counters are this
        program's only then), timed, and its counters told to record_batch with the (m, k, n)
        `shapes` of its GEMMs."""
        start = time.perf_counter()
        with self._lock:
            result = run()
            counters = self.device.counters()
        self.device_seconds += time.perf_counter() - start
        self._record_batch(shapes, counters)
        return result
