"""One matrix product on the device: torch tensors in, a float32 torch tensor out.

Every handler of the mode (mxu/torch/_ops.py, _conv.py) reduces its op to calls of
ProductRunner.gemm: C (M x N) = A (M x K) x B (K x N), starting from a bias row or a C0 matrix,
with the device's ReLU. Here the operands become what the device takes (float32 arrays rounded to
bf16 on the device's side, or raw bf16 bits), transposed views travel as `ta`/`tb`, and a product
beyond one GEMM's limits is split so that the bits stay those of the single GEMM.
"""
import time

import numpy as np
import torch

# One GEMM's limits, as driver/gemm_limits.h sets them for `mxu gemm` and mxu.Device.gemm (a test
# checks that the device refuses what lies past them).
MAX_DIMENSION = 65535
MAX_PROBLEM_BYTES = 2 << 30

FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


class DeviceOpError(RuntimeError):
    """The device failed a product (watchdog, DMA fault, a refused GEMM): names the op."""


def problem_bytes(m, k, n, accumulate, operand_bytes=2, result_bytes=4):
    """What driver/gemm_limits.h counts for an m x k x n GEMM: bf16 operands (2 bytes) and a
    float32 result by default; the int8 mode's are 1 byte, its result 1 (requantized) or 4."""
    return (operand_bytes * (m * k + k * n) + result_bytes * m * n +
            (4 * m * n if accumulate else 0) + 4 * n)


def _operand(t, transposed_loads):
    """(array, transposed): what Device.gemm (or gemm_int8) takes for a 2-D tensor. A contiguous
    tensor travels as it is; a transposed view of a contiguous one as that tensor with ta/tb when
    `transposed_loads`, else copied to row-major on the host; anything else is copied. float32
    arrays are rounded to bf16 by the device's driver; bfloat16 tensors travel as their raw bits;
    float64 and float16 become float32 first (exact for float16; float64 is rounded to float32,
    then to bf16); int8 tensors (the integer mode's) as they are."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    elif t.dtype not in (torch.float32, torch.int8):
        t = t.to(torch.float32)
    if transposed_loads and not t.is_contiguous() and t.t().is_contiguous():
        array, transposed = t.t().numpy(), True
    else:
        array, transposed = t.contiguous().numpy(), False
    if array.dtype == np.int16:
        array = array.view(np.uint16)
    return array, transposed


_CANONICAL_NAN = torch.tensor(0x7FC00000, dtype=torch.int32).view(torch.float32)


def _no_products(m, n, bias, c0, relu):
    """An m x n result with no products to add (K = 0, or nothing to compute): what the device's
    accumulators hold, its start (bias or C0, else +0), through its store: every NaN the
    canonical 0x7FC00000, and its ReLU (negatives and -0 to +0) (docs/numerics.md)."""
    start = c0 if c0 is not None else bias
    if start is None:
        out = torch.zeros((m, n), dtype=torch.float32)
    else:  # the start as it is (-0 stays -0, as it does in the accumulators)
        out = start.detach().to(torch.float32).expand(m, n).clone()
    if relu:
        out = torch.where(torch.isnan(out) | (out > 0), out, torch.zeros((), dtype=torch.float32))
    return torch.where(torch.isnan(out), _CANONICAL_NAN, out)


def _chunks(total, size):
    return [(start, min(start + size, total)) for start in range(0, total, size)]


class ProductRunner:
    """Runs products on one device and tells `record` what each device GEMM cost."""

    def __init__(self, device, lock, record, watchdog=None, transposed="copy", record_batch=None,
                 batch=True):
        if transposed not in ("copy", "device"):
            raise ValueError(f"transposed must be 'copy' or 'device', got {transposed!r}")
        self.device = device
        # A transposed operand (nn.Linear's W.t(), the backward's x.t()) as the device's
        # transposing load ("device": ta/tb; a B operand loads up to 1.5x slower through the
        # transposer) or laid out row-major by the host first ("copy", as a runtime lays out
        # weights). The bits are the same; cycles and host time differ.
        self._transposed_loads = transposed == "device"
        # The device's watchdog for each GEMM, in cycles (None: the device's own setting).
        self._options = {} if watchdog is None else {"watchdog": int(watchdog)}
        self._lock = lock
        self._record = record
        # A batch's program: record_batch(shapes, counters), the shapes (m, k, n) of its GEMMs.
        self._record_batch = record_batch
        if not isinstance(batch, bool):
            raise TypeError(f"batch must be True or False, got {batch!r}")
        self._batch = batch
        info = device.info()
        self.rows = int(info["array_rows"])
        self.cols = int(info["array_cols"])
        self.device_seconds = 0.0

    def gemm(self, a, b, bias=None, c0=None, relu=False):
        """A (M x K) x B (K x N) [+ bias (N) | + C0 (M x N)] [ReLU] as float32 (M x N)."""
        m, k = a.shape
        n = b.shape[1]
        if k == 0 or m == 0 or n == 0:
            return _no_products(m, n, bias, c0, relu)
        mc, kc, nc = self._blocking(m, k, n, c0 is not None or k > MAX_DIMENSION)
        if (mc, kc, nc) == (m, k, n):
            return self._one(a, b, bias, c0, relu)
        # Rows and columns of C are independent; K is cut at tile boundaries (kc is a multiple of
        # the array's rows) and each piece starts from the previous one's C: the accumulator sees
        # the same sequence of tile sums as in one GEMM, so the bits are the same.
        out = torch.empty((m, n), dtype=torch.float32)
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
        return out

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
            results[i] = self._one(a, b, bias, c0, relu)
            return
        a_arrays, b_arrays, tas, tbs, relus, biases, starts, shapes = [], [], [], [], [], [], [], []
        for i in indices:
            a, b, bias, c0, relu = products[i]
            a_array, ta = _operand(a, self._transposed_loads)
            b_array, tb = _operand(b, self._transposed_loads)
            a_arrays.append(a_array)
            b_arrays.append(b_array)
            tas.append(ta)
            tbs.append(tb)
            relus.append(bool(relu))
            biases.append(None if bias is None else
                          bias.detach().to(torch.float32).contiguous().numpy())
            starts.append(None if c0 is None else
                          c0.detach().to(torch.float32).contiguous().numpy())
            shapes.append((a.shape[0], a.shape[1], b.shape[1]))
        start = time.perf_counter()
        with self._lock:
            outs = self.device.gemm_batch(
                a_arrays, b_arrays, ta=tas, tb=tbs, relu=relus,
                bias=None if all(x is None for x in biases) else biases,
                accumulate=None if all(x is None for x in starts) else starts, **self._options)
            counters = self.device.counters()
        self.device_seconds += time.perf_counter() - start
        self._record_batch(shapes, counters)
        for i, c in zip(indices, outs):
            results[i] = torch.from_numpy(c)

    def gemm_int8(self, a, b, bias=None, scales=None, zero_point=0, relu=False):
        """The integer mode: A (M x K) x B (K x N), int8 tensors, + bias (N int32 values). With
        scales (N positive float32 values, column n's) the int8 result that the device's
        requantizer makes, clamp(round(C x scale) + zero_point, relu ? zero_point : -128, 127);
        without, the int32 sums (relu: negatives to 0). Rows and columns of C are independent:
        past one GEMM's limits the product runs as several, with the same bits. K must fit one
        GEMM (the requantizer takes the whole sum)."""
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
            return self._one_int8(a, b, bias, scales, zero_point, relu)
        out = torch.empty((m, n), dtype=torch.int8 if scales is not None else torch.int32)
        for m0, m1 in _chunks(m, mc):
            for n0, n1 in _chunks(n, nc):
                out[m0:m1, n0:n1] = self._one_int8(
                    a[m0:m1], b[:, n0:n1], None if bias is None else bias[n0:n1],
                    None if scales is None else scales[n0:n1], zero_point, relu)
        return out

    def _one_int8(self, a, b, bias, scales, zero_point, relu):
        a_array, ta = _operand(a, self._transposed_loads)
        b_array, tb = _operand(b, self._transposed_loads)
        options = dict(self._options)
        if scales is not None:
            options.update(scales=scales.detach().to(torch.float64).contiguous().numpy(),
                           zero_point=int(zero_point))
        start = time.perf_counter()
        with self._lock:
            c = self.device.gemm_int8(
                a_array, b_array, ta=ta, tb=tb, relu=relu,
                bias=None if bias is None else bias.detach().to(torch.int32).contiguous().numpy(),
                **options)
            counters = self.device.counters()
        self.device_seconds += time.perf_counter() - start
        self._record(a.shape[0], a.shape[1], b.shape[1], counters)
        return torch.from_numpy(c)

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
        a_array, ta = _operand(a, self._transposed_loads)
        b_array, tb = _operand(b, self._transposed_loads)
        bias_array = None if bias is None else bias.detach().to(torch.float32).contiguous().numpy()
        c0_array = None if c0 is None else c0.detach().to(torch.float32).contiguous().numpy()
        start = time.perf_counter()
        with self._lock:
            c = self.device.gemm(a_array, b_array, ta=ta, tb=tb, relu=relu, bias=bias_array,
                                 accumulate=c0_array, **self._options)
            counters = self.device.counters()
        self.device_seconds += time.perf_counter() - start
        self._record(a.shape[0], a.shape[1], b.shape[1], counters)
        return torch.from_numpy(c)
