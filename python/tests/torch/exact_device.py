"""An exact stand-in for mxu.Device, for the lowering tests of every mode (mxu.torch's,
mxu.jax's): Device.gemm's and gemm_batch's interface computed exactly in float64, recording the
shapes it was given. With integer-valued operands every product and sum is exact, so any
difference from the framework's own op is a lowering's mistake, not rounding."""
import numpy as np


class ExactDevice:
    """Device.gemm's interface, computed exactly in float64."""

    def __init__(self, rows=4):
        self.rows = rows
        self.shapes = []
        self.batches = []  # the GEMMs of each gemm_batch call

    def info(self):
        return {"array_rows": self.rows, "array_cols": 4, "bus_bytes": 32, "backend": "exact",
                "device": "exact"}

    def gemm(self, a, b, ta=False, tb=False, relu=False, bias=None, accumulate=None, out="fp32"):
        assert a.dtype == np.float32 and b.dtype == np.float32
        a = (a.T if ta else a).astype(np.float64)
        b = (b.T if tb else b).astype(np.float64)
        self.shapes.append((a.shape[0], a.shape[1], b.shape[1]))
        c = a @ b
        if bias is not None:
            c = c + bias
        if accumulate is not None:
            c = c + accumulate
        if relu:
            c = np.maximum(c, 0)
        return c.astype(np.float32)

    def gemm_batch(self, a, b, ta=False, tb=False, relu=False, bias=None, accumulate=None,
                   out="fp32"):
        """Device.gemm_batch's interface: each GEMM as gemm computes it."""
        def pick(x, i):
            return x[i] if isinstance(x, (list, tuple)) else x
        self.batches.append(len(a))
        return [self.gemm(a[i], b[i], pick(ta, i), pick(tb, i), pick(relu, i),
                          None if bias is None else bias[i],
                          None if accumulate is None else accumulate[i]) for i in range(len(a))]

    def counters(self):
        return {"cycles": 1, "macs": 1, "dma_read_bytes": 0, "dma_write_bytes": 0,
                "column_clocks": 0, "acc_clocks": 0, "activate_clocks": 0, "dma_clocks": 0}
