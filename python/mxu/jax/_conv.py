"""lax.conv_general_dilated as device GEMMs, in NumPy: any dimension numbers, window strides,
padding (negative crops), lhs dilation (a transposed convolution, the input gradient), rhs
dilation, feature groups and batch groups (the weight gradient of a grouped convolution).

- The operands are brought to (N, C, *S) and (O, I, *K) by the dimension numbers; the lhs is
  spread by its dilation (zeros between the values) and padded; then each group is one GEMM over
  its im2col matrix: rows (image, output position) row-major, K over (input channel, kernel
  offset) with the kernel offsets row-major, as mxu.torch lowers aten.convolution.
- feature_group_count G: group g takes input channels g*C/G.. and output features g*O/G..;
  batch_group_count B: group g takes images g*N/B.. and output features g*O/B.. (XLA's
  semantics), and the output has N/B images.
- JAX's own backward passes arrive as convolutions of this kind (the input gradient with lhs
  dilation and a reversed kernel, the weight gradient with the batch as the contracted feature
  dimension), so they need no rules of their own.
Only data movement (spreading, padding, strided views, copies) happens on the host.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided


def _spread_and_pad(x, dilation, padding):
    """x (N, C, *S) spread by `dilation` (d - 1 zeros between values) and padded by `padding`
    ((low, high) per spatial dimension; a negative amount crops)."""
    if any(d > 1 for d in dilation):
        shape = [(s - 1) * d + 1 if s else 0 for s, d in zip(x.shape[2:], dilation)]
        spread = np.zeros(x.shape[:2] + tuple(shape), x.dtype)
        spread[(slice(None), slice(None), *[slice(None, None, d) for d in dilation])] = x
        x = spread
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    if any(lo or hi for lo, hi in grow):
        x = np.pad(x, [(0, 0), (0, 0)] + grow)
    crop = tuple(slice(-min(lo, 0), x.shape[2 + i] + min(hi, 0))
                 for i, (lo, hi) in enumerate(padding))
    return x[(slice(None), slice(None)) + crop]


def _columns(x, kernel, strides, dilation):
    """x (N, C, *S), spread and padded -> (N x L, C x K) and the output's spatial shape: one row
    per output position, K over (channel, kernel offsets row-major)."""
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    out = [max(0, (s - d * (k - 1) - 1) // st + 1)
           for s, k, st, d in zip(spatial, kernel, strides, dilation)]
    positions = int(np.prod(out, dtype=np.int64))
    offsets = int(np.prod(kernel, dtype=np.int64))
    if offsets <= positions:
        # A layer's kernel (few offsets, many positions): one strided slice of the image per
        # offset, copied whole, 2-3x faster than copying the window view element by element.
        channels_last = np.moveaxis(x, 1, -1)  # (N, *S, C), a view
        cols = np.empty((n, *out, c, offsets), x.dtype)
        for i, offset in enumerate(np.ndindex(*kernel)):
            window = tuple(slice(o * d, o * d + (q - 1) * st + 1, st)
                           for o, d, q, st in zip(offset, dilation, out, strides))
            cols[..., i] = channels_last[(slice(None),) + window]
        return cols.reshape(n * positions, c * offsets), out
    # A weight gradient's "kernel" (the output gradient: many offsets, few positions): the
    # window view, copied once.
    x = np.ascontiguousarray(x)
    st = x.strides
    view = as_strided(x, (n, *out, c, *kernel),
                      (st[0], *[st[2 + i] * strides[i] for i in range(len(out))], st[1],
                       *[st[2 + i] * dilation[i] for i in range(len(out))]), writeable=False)
    return view.reshape(n * positions, c * offsets), out


def products(lhs, rhs, params):
    """(products, assemble) for conv_general_dilated(lhs, rhs, **params): one GEMM (a, b, bias,
    c0, relu) per group, and the function that lays their float32 results out as the
    primitive's output."""
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    x = lhs.transpose(lhs_spec)  # (N, C, *S)
    w = rhs.transpose(rhs_spec)  # (O, I, *K)
    dims = x.ndim - 2
    strides = list(params["window_strides"])
    lhs_dilation = list(params["lhs_dilation"] or [1] * dims)
    rhs_dilation = list(params["rhs_dilation"] or [1] * dims)
    fgc = int(params["feature_group_count"])
    bgc = int(params["batch_group_count"])
    x = _spread_and_pad(x, lhs_dilation, list(params["padding"]))
    kernel = list(w.shape[2:])
    n, c, o = x.shape[0], x.shape[1], w.shape[0]
    groups = fgc * bgc  # one of them is 1 (XLA allows no both)
    cg, og, ng = c // fgc, o // groups, n // bgc
    items, out = [], None
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg] if fgc > 1 else x[g * ng:(g + 1) * ng]
        cols, out = _columns(xs, kernel, strides, rhs_dilation)
        wg = w[g * og:(g + 1) * og].reshape(og, -1)  # (O/G, I x K)
        items.append((cols, wg.T, None, None, False))
    images = n // bgc

    def assemble(parts):
        if not parts or any(p.size == 0 for p in parts):
            y = np.zeros((images, *out, o), np.float32)
        else:
            y = parts[0] if groups == 1 else np.concatenate(parts, axis=1)
            y = y.reshape(images, *out, o)
        y = y.transpose(0, dims + 1, *range(1, dims + 1))  # (N, O, *out)
        return y.transpose(np.argsort(out_spec))
    return items, assemble
