"""PyTorch's quantized linear and convolution as the device's integer mode computes them, in
NumPy int64, written from docs/numerics.md ("The integer mode") and docs/torch.md ("Quantized
models") alone: the reference the mode's quantized products are checked against bit for bit. It
shares no code with the device, the golden model or mxu.torch, and calls none of PyTorch's
quantized kernels (tensors are only read: their integers, scales and zero points).

- The sums: acc[m][n] = sum_k (x - zx) w + q(b[n], sx sw[n]), exact; q rounds b x (1 / s) as
  PyTorch quantizes a bias (float32 reciprocal and product, then to nearest even).
- The requantization: column n's float32 scale sx sw[n] / sy is m / 2^s exactly (m: 24 bits);
  r = acc m / 2^s rounded half away from zero; y = clamp(r + zy, relu ? zy : lo, hi), with
  [lo, hi] = [0, 255] for quint8 outputs and [-128, 127] for qint8.
"""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def ints(q):
    """A quantized tensor's integers, its zero point subtracted (int64)."""
    return q.int_repr().numpy().astype(np.int64) - q.q_zero_point()


def weight_scales(w):
    """Each output channel's weight scale (float64), per tensor or per channel (axis 0)."""
    if "per_channel" in str(w.qscheme()):
        return w.q_per_channel_scales().numpy().astype(np.float64)
    return np.full(w.shape[0], w.q_scale(), dtype=np.float64)


def quantize(values, scales):
    """Float values as PyTorch quantizes them with `scales`: x times the float32 reciprocal,
    in float32, rounded to nearest even (int64, before any zero point and clamp)."""
    inverse = np.float32(1.0) / np.asarray(scales).astype(np.float32)
    return np.rint((np.asarray(values, np.float32) * inverse).astype(np.float32)).astype(np.int64)


def quantized_bias(b, scales):
    """The float bias as PyTorch quantizes it to int32 with `scales` (float64)."""
    return quantize(b, scales)


def requantize(acc, scales32, zy, relu, lo, hi):
    """acc (int64, ... x N), scales32 (N float32): the device's rule."""
    f, e = np.frexp(scales32.astype(np.float64))
    m = np.round(np.ldexp(f, 24)).astype(np.int64)  # exact: a float32 has 24 significant bits
    s = (24 - e).astype(np.int64)
    assert (s >= 1).all() and (s <= 62).all()
    p = acc * m
    r = np.sign(p) * ((np.abs(p) + (np.int64(1) << (s - 1))) >> s)
    return np.clip(r + zy, zy if relu else lo, hi)


def output_scales(sx, sw, sy):
    return (np.float32(sx) * sw.astype(np.float32) / np.float32(sy)).astype(np.float32)


def linear(x, w, b, sy, zy, relu, out_range=(0, 255)):
    """quantized::linear(_relu): x, w quantized tensors, b a float array or None -> ints."""
    sx, sw = x.q_scale(), weight_scales(w)
    acc = ints(x).reshape(-1, w.shape[1]) @ w.int_repr().numpy().astype(np.int64).T
    if b is not None:
        acc = acc + quantized_bias(b, sw * sx)
    y = requantize(acc, output_scales(sx, sw, sy), zy, relu, *out_range)
    return y.reshape(*x.shape[:-1], w.shape[0])


def convolution(x, w, b, stride, padding, dilation, groups, sy, zy, relu, out_range=(0, 255)):
    """quantized::conv{1,2,3}d(_relu) -> ints (N, OC, *out): direct sums over windows of the
    input padded with its zero point (a real 0)."""
    dims = x.dim() - 2
    xi = ints(x)  # zero point subtracted: padding is 0 here
    xi = np.pad(xi, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    wi = w.int_repr().numpy().astype(np.int64)
    oc, cg = wi.shape[0], wi.shape[1]
    kernel = wi.shape[2:]
    span = [d * (k - 1) + 1 for d, k in zip(dilation, kernel)]
    windows = sliding_window_view(xi, span, axis=tuple(range(2, 2 + dims)))
    # (N, C, *positions, *span) -> every stride-th position, every dilation-th tap
    windows = windows[(slice(None), slice(None), *[slice(None, None, st) for st in stride],
                       *[slice(None, None, d) for d in dilation])]
    sx, sw = x.q_scale(), weight_scales(w)
    per_group = oc // groups
    parts = []
    for g in range(groups):
        win = windows[:, g * cg:(g + 1) * cg]  # (N, cg, *out, *kernel)
        wg = wi[g * per_group:(g + 1) * per_group]  # (ocg, cg, *kernel)
        letters = "defg"[:dims]
        taps = "uvw"[:dims]
        parts.append(np.einsum(f"nc{letters}{taps},oc{taps}->no{letters}", win, wg))
    acc = np.concatenate(parts, axis=1)  # (N, OC, *out)
    acc = np.moveaxis(acc, 1, -1)
    if b is not None:
        acc = acc + quantized_bias(b, sw * sx)
    y = requantize(acc, output_scales(sx, sw, sy), zy, relu, *out_range)
    return np.moveaxis(y, -1, 1)


def linear_dynamic(x, sx, zx, w, b):
    """quantized::linear_dynamic once the input is quantized with (sx, zx): float32 result."""
    xq = np.clip(quantize(x, sx) + zx, 0, 255)
    acc = (xq.astype(np.int64) - zx).reshape(-1, w.shape[1]) @ \
        w.int_repr().numpy().astype(np.int64).T
    y = acc.astype(np.float32) * (np.float32(sx) * weight_scales(w).astype(np.float32))
    if b is not None:
        y = y + np.asarray(b, np.float32)
    return y.astype(np.float32)
