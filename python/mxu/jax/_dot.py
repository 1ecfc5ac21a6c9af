"""lax.dot_general as device GEMMs, in NumPy: any contracting and batch dimensions.

The lhs becomes (batch, M, K): its batch dimensions first (in the order the dimension numbers
list them), then its free dimensions, then its contracting ones; the rhs (batch, K, N): batch,
contracting (paired with the lhs's, in the same order), free. K runs over the contracting
dimensions row-major. One GEMM per batch element, all of them as one device program; the result
is laid out as dot_general's: batch, lhs free, rhs free. Transposes are views where NumPy can
make them (the runner then loads them transposed, or the extension lays them out row-major
while it converts them).
"""
import numpy as np


def _free(ndim, *used):
    taken = {d for dims in used for d in dims}
    return [d for d in range(ndim) if d not in taken]


def products(lhs, rhs, dimension_numbers):
    """(products, assemble): the (a, b, bias, c0, relu) of each batch element, and the function
    that lays their float32 results out as dot_general's output."""
    (lc, rc), (lb, rb) = dimension_numbers
    lc, rc, lb, rb = list(lc), list(rc), list(lb), list(rb)
    lf = _free(lhs.ndim, lc, lb)
    rf = _free(rhs.ndim, rc, rb)
    batch_shape = [lhs.shape[d] for d in lb]
    lf_shape = [lhs.shape[d] for d in lf]
    rf_shape = [rhs.shape[d] for d in rf]
    batch = int(np.prod(batch_shape, dtype=np.int64))
    m = int(np.prod(lf_shape, dtype=np.int64))
    n = int(np.prod(rf_shape, dtype=np.int64))
    k = int(np.prod([lhs.shape[d] for d in lc], dtype=np.int64))
    a = lhs.transpose(lb + lf + lc).reshape(batch, m, k)
    b = rhs.transpose(rb + rc + rf).reshape(batch, k, n)
    items = [(a[i], b[i], None, None, False) for i in range(batch)]

    def assemble(parts):
        if not parts:  # an empty batch
            return np.zeros(batch_shape + lf_shape + rf_shape, np.float32)
        out = parts[0][None] if batch == 1 else np.stack(parts)
        return out.reshape(batch_shape + lf_shape + rf_shape)
    return items, assemble
