"""Convolutions as device GEMMs: aten.convolution and aten.convolution_backward, 1-D to 3-D,
stride, padding, dilation, groups, transposed.

- A convolution is one GEMM per group over its im2col matrix: rows are (image, output position),
  K runs over (input channel, kernel offset) in that order, the kernel offsets row-major; the
  bias is the device's bias.
- A transposed convolution is the convolution of its input spread out by the stride (zeros
  between the values), padded by dilation x (kernel - 1) - padding, with the kernel flipped and
  its channel axes swapped. Every multiply-add is the device's; none is a host scatter-add.
- The weight gradient is one GEMM per group: grad_output^T (channels x (image, position)) times
  the im2col matrix, K running over (image, output position).
- The input gradient of a convolution is the transposed convolution of grad_output; that of a
  transposed convolution is the convolution of grad_output. The bias gradient is a sum on the
  host (no product), as aten.sum is for nn.Linear.
- Independent products run as one device program (the mode's gemm_batch): a grouped
  convolution's groups, and a backward's input- and weight-gradient products together.
Only data movement (padding, strided views, copies) happens on the host.
"""
import torch
import torch.nn.functional as F

from mxu.torch._checks import NoProducts, check_operands
from mxu.torch._products import as_dtype


def _expand(values, dims):
    values = list(values)
    return values * dims if len(values) == 1 else values


def _pad(x, before, after, value=0):
    """Pads (or, for negative amounts, crops) the spatial dimensions of x (N, C, *S) with
    `value`."""
    widths = []
    for b, a in zip(reversed(before), reversed(after)):
        widths += [b, a]
    return F.pad(x, widths, value=value) if any(widths) else x


def _columns(x, kernel, stride, dilation):
    """x (N, C, *S), already padded -> (N x L, C x K): one row per output position, K over
    (channel, kernel offsets row-major)."""
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    out = [(s - d * (k - 1) - 1) // st + 1
           for s, k, st, d in zip(spatial, kernel, stride, dilation)]
    if len(kernel) == 2 and x.is_floating_point():
        # PyTorch's own im2col (the same column order), 4x faster than copying the strided view.
        cols = F.unfold(x, kernel, dilation=dilation, stride=stride)  # (N, C x K, L)
        return cols.transpose(1, 2).reshape(n * out[0] * out[1], -1), out
    x = x.contiguous()
    strides = x.stride()
    view = x.as_strided(
        (n, *out, c, *kernel),
        (strides[0], *[strides[2 + i] * stride[i] for i in range(len(out))], strides[1],
         *[strides[2 + i] * dilation[i] for i in range(len(out))]))
    length = 1
    for o in out:
        length *= o
    size = c
    for k in kernel:
        size *= k
    return view.reshape(n * length, size), out


def convolution_products(x, weight, bias, stride, padding, dilation, groups, pad_value=0):
    """A convolution (not transposed): x (N, C, *S), weight (OC, C/groups, *K), x padded with
    `pad_value` (an int8 input's zero point: mxu/torch/_quantized.py). Returns its products (one
    per group, (a, b, bias, c0, relu)) and the function that makes the result of theirs."""
    dims = x.dim() - 2
    kernel = list(weight.shape[2:])
    x = _pad(x, padding, padding, pad_value)
    n = x.shape[0]
    oc, cg = weight.shape[0], weight.shape[1]
    ocg = oc // groups
    products = []
    for g in range(groups):
        cols, out = _columns(x[:, g * cg:(g + 1) * cg], kernel, stride, dilation)
        w = weight[g * ocg:(g + 1) * ocg].reshape(ocg, -1)
        b = None if bias is None else bias[g * ocg:(g + 1) * ocg]
        products.append((cols, w.t(), b, None, False))

    def assemble(parts):
        y = parts[0] if groups == 1 else torch.cat(parts, dim=1)
        # (N x L, OC) -> (N, OC, *out)
        return y.reshape(n, *out, oc).permute(0, dims + 1, *range(1, dims + 1)).contiguous()
    return products, assemble


def _transposed(x, weight, bias, stride, padding, dilation, output_padding, groups):
    """A transposed convolution: x (N, Cin, *S), weight (Cin, Cout/groups, *K); returns as
    convolution_products does."""
    dims = x.dim() - 2
    kernel = list(weight.shape[2:])
    n, cin = x.shape[0], x.shape[1]
    spread_shape = [(s - 1) * st + 1 for s, st in zip(x.shape[2:], stride)]
    if any(st > 1 for st in stride):
        spread = x.new_zeros((n, cin, *spread_shape))
        spread[(slice(None), slice(None), *[slice(None, None, st) for st in stride])] = x
    else:
        spread = x
    before = [d * (k - 1) - p for d, k, p in zip(dilation, kernel, padding)]
    after = [b + op for b, op in zip(before, output_padding)]
    spread = _pad(spread, before, after)
    cing, coutg = cin // groups, weight.shape[1]
    flipped = weight.flip(list(range(2, 2 + dims)))
    # (Cin, Cout/g, *K) -> (Cout, Cin/g, *K): each group's channel axes swapped
    w = flipped.reshape(groups, cing, coutg, *kernel).transpose(1, 2).reshape(
        groups * coutg, cing, *kernel)
    return convolution_products(spread, w, bias, [1] * dims, [0] * dims, dilation, groups)


def _weight_grad(x, grad, kernel, stride, padding, dilation, groups):
    """d(conv)/d(weight) for x (N, C, *S) and grad (N, OC, *O): (OC, C/groups, *K); as
    convolution_products."""
    x = _pad(x, padding, padding)
    cg, oc = x.shape[1] // groups, grad.shape[1]
    ocg = oc // groups
    products = []
    for g in range(groups):
        cols, out = _columns(x[:, g * cg:(g + 1) * cg], kernel, stride, dilation)
        # Only the output positions the forward pass produced (a larger x may allow more).
        cols = cols.reshape(x.shape[0], *out, -1)[
            (slice(None), *[slice(0, o) for o in grad.shape[2:]])].reshape(-1, cols.shape[1])
        gg = grad[:, g * ocg:(g + 1) * ocg]
        a = gg.transpose(0, 1).reshape(ocg, -1)  # (OCg, N x L), L in row-major order
        products.append((a, cols, None, None, False))

    def assemble(parts):
        parts = [p.reshape(ocg, cg, *kernel) for p in parts]
        return parts[0] if groups == 1 else torch.cat(parts, dim=0)
    return products, assemble


def _run(mode, *lowered):
    """Runs the products of each (products, assemble) as one device program (a convolution's
    groups, and a backward's input and weight gradients, are independent products) and returns
    each one's assembled result."""
    products = [p for ps, _ in lowered for p in ps]
    results = mode.gemm_batch(products)
    out, at = [], 0
    for ps, assemble in lowered:
        out.append(assemble(results[at:at + len(ps)]))
        at += len(ps)
    return out


def _params(weight, stride, padding, dilation, output_padding):
    dims = weight.dim() - 2
    return (_expand(stride, dims), _expand(padding, dims), _expand(dilation, dims),
            _expand(output_padding, dims))


def convolution(mode, input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    dtype = check_operands(input, weight, bias)
    if not (input.numel() and weight.numel()):
        raise NoProducts()  # no multiplications: PyTorch's own (empty) result
    stride, padding, dilation, output_padding = _params(weight, stride, padding, dilation,
                                                        output_padding)
    if transposed:
        lowered = _transposed(input, weight, bias, stride, padding, dilation, output_padding,
                              groups)
    else:
        lowered = convolution_products(input, weight, bias, stride, padding, dilation, groups)
    return as_dtype(_run(mode, lowered)[0], dtype)


def convolution_backward(mode, grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    dtype = check_operands(grad_output, input, weight)
    if not (input.numel() and weight.numel() and grad_output.numel()):
        raise NoProducts()  # empty, or zero, gradients: PyTorch's own
    stride, padding, dilation, output_padding = _params(weight, stride, padding, dilation,
                                                        output_padding)
    kernel = list(weight.shape[2:])
    dims = len(kernel)
    grad_input = grad_weight = grad_bias = None
    lowered = []
    if output_mask[0]:
        if transposed:
            lowered.append(convolution_products(grad_output, weight, None, stride, padding,
                                                dilation, groups))
        else:
            # The output padding that brings the transposed convolution back to input's size.
            extra = [s - ((o - 1) * st - 2 * p + d * (k - 1) + 1)
                     for s, o, st, p, d, k in zip(input.shape[2:], grad_output.shape[2:], stride,
                                                  padding, dilation, kernel)]
            lowered.append(_transposed(grad_output, weight, None, stride, padding, dilation,
                                       extra, groups))
    if output_mask[1]:
        if transposed:
            # A transposed convolution's weight gradient is a convolution's, with grad_output as
            # its input and the input as its output gradient.
            lowered.append(_weight_grad(grad_output, input, kernel, stride, padding, dilation,
                                        groups))
        else:
            lowered.append(_weight_grad(input, grad_output, kernel, stride, padding, dilation,
                                        groups))
    # Both gradients' products in one device program.
    results = _run(mode, *lowered)
    if output_mask[0]:
        grad_input = as_dtype(results.pop(0), dtype)
    if output_mask[1]:
        grad_weight = as_dtype(results.pop(0), dtype)
    if output_mask[2]:
        grad_bias = grad_output.sum(dim=[0, *range(2, 2 + dims)])
    return grad_input, grad_weight, grad_bias
