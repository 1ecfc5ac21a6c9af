"""The numeric contract (docs/numerics.md) in NumPy, written from the document alone: the
reference the mode's products are checked against bit for bit. It shares no code with the
device, the golden model or mxu.torch.

- bf16: float32 rounded to nearest even at bit 16; NaN -> 0x7FC0.
- A product of two bf16 values is exact in float32 unless it under- or overflows, where float32
  rounds it once: NumPy's float32 multiply is the contract's.
- C = A x B on an R-row array: K cut into tiles of R; within a tile a float32 partial sum starts
  at +0.0 and adds the products in increasing k; the accumulator starts from the bias row or C0
  (else from the first tile's sum) and adds each tile's sum in increasing k; ReLU last.
- Every NaN is the canonical 0x7FC00000.
"""
import numpy as np


def to_bf16(x):
    """float32 array -> float32 array holding bf16 values (round to nearest even)."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32).copy()
    out[np.isnan(x)] = np.float32(np.nan)
    return out


def canonical(x):
    x = np.array(x, dtype=np.float32)
    x[np.isnan(x)] = np.uint32(0x7FC00000).view(np.float32)
    return x


def gemm(a, b, rows, bias=None, c0=None, relu=False):
    """a (M x K), b (K x N): float32 arrays (rounded to bf16 here); bias (N) or c0 (M x N);
    relu: negatives and -0 become +0, NaN stays NaN (docs/isa.md, STORE)."""
    a = to_bf16(np.asarray(a, np.float32))
    b = to_bf16(np.asarray(b, np.float32))
    m, k = a.shape
    n = b.shape[1]
    with np.errstate(all="ignore"):
        acc = None
        if bias is not None:
            acc = np.broadcast_to(np.asarray(bias, np.float32), (m, n)).copy()
        elif c0 is not None:
            acc = np.asarray(c0, np.float32).copy()
        for k0 in range(0, k, rows):
            tile = np.zeros((m, n), np.float32)
            for kk in range(k0, min(k0 + rows, k)):
                tile = tile + a[:, kk:kk + 1] * b[kk:kk + 1, :]
            acc = tile if acc is None else acc + tile
        if acc is None:
            acc = np.zeros((m, n), np.float32)
        if relu:
            acc = np.where(np.isnan(acc) | (acc > 0), acc, np.float32(0))  # -0 -> +0
    return canonical(acc)
