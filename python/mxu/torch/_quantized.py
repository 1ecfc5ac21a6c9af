"""PyTorch's quantized products on the device's integer mode (docs/torch.md, "Quantized models").

A model quantized by torch.ao.quantization (eager or FX; qnnpack's and onednn's default qconfigs)
runs quantized::linear and quantized::conv{1,2,3}d (with or without a fused ReLU) on quint8 (or
qint8) activations x with zero point zx and scale sx, qint8 weights w with zero point 0 (per
tensor, or per output channel: scale sw[n]), and a float bias b:

    acc[m][n] = sum_k (x[m][k] - zx) w[k][n] + round(b[n] / (sx sw[n]))          exact, int32
    y[m][n]   = clamp(round(acc sx sw[n] / sy) + zy, relu ? zy : 0, 255)           quint8

The device multiplies int8 by int8: x - 128 is exact, and the difference is folded into the bias,
sum_k (x - zx) w = sum_k (x - 128) w - (zx - 128) colsum_n(w), so the sums stay exact. Its
requantizer takes column n's scale sx sw[n] / sy as PyTorch computes it (float32, which the
device's 24-bit multiplier holds exactly) and the zero point zy - 128; its int8 result + 128 is
the quint8 one. Rounding: half away from zero of the exact product on the device, half to even of
a float32 product in PyTorch's kernels: an output differs, by 1, only where the two roundings do.
A convolution is padded with the zero point (a real 0) and lowered as the float one is
(mxu/torch/_conv.py).

quantized::linear_dynamic (nn.quantized.dynamic.Linear) quantizes its float input per call with
PyTorch's own parameters (reduce_range as the engine takes it: qnnpack ignores it), the device
computes the int32 sums, and the host makes the float result float32(acc) x (sx sw) + b, as
qnnpack does. Anything else (per-channel or float activations, weights with a zero point, other
dtypes) raises HostProductError naming the scheme: the mode runs it on the host and counts it. A
call PyTorch refuses (NoProducts) goes to PyTorch, for its own error.
"""
import torch

from mxu._gemms import MAX_DIMENSION
from mxu.torch._checks import HostProductError, NoProducts, short_name
from mxu.torch._conv import convolution_products

_Q = torch.ops.quantized


class OperandError(ValueError):
    """The input does not fit the packed weights (qnnpack's kernels do not check: they return
    numbers)."""

_INT32 = (-(1 << 31), (1 << 31) - 1)


def _activation(x):
    """(int8 operand, its zero point in int8 terms) of a quantized activation."""
    if not x.is_quantized:
        raise NoProducts()
    if x.qscheme() != torch.per_tensor_affine:
        raise HostProductError(f"{short_name(x.qscheme())} activations")
    if x.dtype == torch.quint8:
        return (x.int_repr().to(torch.int16) - 128).to(torch.int8), x.q_zero_point() - 128
    if x.dtype == torch.qint8:
        return x.int_repr(), x.q_zero_point()
    raise HostProductError(f"{short_name(x.dtype)} activations")


def _weight_scales(w):
    """Each output channel's weight scale (float64): symmetric qint8 weights only."""
    if w.dtype != torch.qint8:
        raise HostProductError(f"{short_name(w.dtype)} weights")
    scheme = w.qscheme()
    if scheme in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        if w.q_zero_point() != 0:
            raise HostProductError(f"weights with zero point {w.q_zero_point()}")
        return torch.full((w.shape[0],), w.q_scale(), dtype=torch.float64)
    if scheme in (torch.per_channel_affine, torch.per_channel_symmetric):
        if w.q_per_channel_axis() != 0:
            raise HostProductError(f"weights per channel along axis {w.q_per_channel_axis()}")
        if bool((w.q_per_channel_zero_points() != 0).any()):
            raise HostProductError("per-channel weights with nonzero zero points")
        return w.q_per_channel_scales().to(torch.float64)
    raise HostProductError(f"{short_name(scheme)} weights")


def _bias(b, sx, sw, w_int, za):
    """The device's int32 bias per output channel: PyTorch's quantized bias (b / (sx sw[n]),
    rounded as its quantize_per_channel rounds) minus the activation zero point's share of the
    sums, za x colsum_n(w)."""
    n = w_int.shape[0]
    total = -za * w_int.reshape(n, -1).to(torch.int64).sum(dim=1)
    if b is not None:
        total += torch.quantize_per_channel(
            b.detach().to(torch.float32), sw * sx, torch.zeros(n, dtype=torch.int64), 0,
            torch.qint32).int_repr().to(torch.int64)
    if bool((total < _INT32[0]).any() or (total > _INT32[1]).any()):
        raise HostProductError("a bias beyond int32 once the zero point is folded in")
    return total.to(torch.int32)


def _requantization(sx, sw, sy, zy, dtype):
    """(column scales, the device's zero point) for an output of `dtype`, scale sy and zero
    point zy: sx sw[n] / sy in float32 as PyTorch's kernels compute it."""
    scales = torch.tensor(sx, dtype=torch.float32) * sw.to(torch.float32) / torch.tensor(
        sy, dtype=torch.float32)
    if not bool(torch.isfinite(scales).all()) or bool((scales <= 0).any()) or bool(
            (scales >= 2.0**24).any()):
        raise HostProductError("a requantization scale outside (0, 2^24)")
    zd = zy - 128 if dtype == torch.quint8 else zy
    if not -128 <= zd <= 127:
        raise NoProducts()
    return scales, zd


def _quantized_result(y, sy, zy, dtype):
    """The device's int8 result as PyTorch's quantized tensor of `dtype`."""
    if dtype == torch.quint8:
        y = (y.to(torch.int16) + 128).to(torch.uint8)
    return torch._make_per_tensor_quantized_tensor(y, sy, zy)


def _check_features(x, k):
    if x.dim() < 1 or x.shape[-1] != k:
        raise OperandError(f"the input's last dimension is {x.shape[-1] if x.dim() else 'absent'}"
                           f", the packed weights take {k} features")


def _check_k(k):
    """K within one int8 GEMM: the runner does not split an int8 product along K."""
    if k > MAX_DIMENSION:
        raise HostProductError(f"K = {k} (one int8 GEMM sums at most {MAX_DIMENSION} products)")


def _unpacked(unpack, packed):
    """(weight, bias) of packed weights; HostProductError where the engine cannot unpack them
    (qnnpack's 3-D convolutions)."""
    try:
        return unpack(packed)
    except RuntimeError as error:
        raise HostProductError(f"packed weights the {torch.backends.quantized.engine} engine "
                               f"cannot unpack ({str(error).splitlines()[0]})") from None


def _linear(mode, x, packed, sy, zy, relu):
    w, b = _unpacked(_Q.linear_unpack, packed)
    a, za = _activation(x)
    sw = _weight_scales(w)
    n, k = w.shape
    _check_features(x, k)
    if x.numel() == 0:
        raise NoProducts()  # nothing to multiply: PyTorch's own (empty) result
    _check_k(k)
    scales, zd = _requantization(x.q_scale(), sw, sy, zy, x.dtype)
    w_int = w.int_repr()
    y = mode.gemm_int8(a.reshape(-1, k), w_int.t(), _bias(b, x.q_scale(), sw, w_int, za), scales,
                      zd, relu)
    return _quantized_result(y.reshape(*x.shape[:-1], n), sy, zy, x.dtype)


def linear(mode, x, packed, scale, zero_point):
    return _linear(mode, x, packed, scale, zero_point, False)


def linear_relu(mode, x, packed, scale, zero_point):
    return _linear(mode, x, packed, scale, zero_point, True)


def _linear_dynamic(mode, x, packed, reduce_range, relu):
    w, b = _unpacked(_Q.linear_unpack, packed)
    if x.dtype != torch.float32:
        raise HostProductError(f"{short_name(x.dtype)} input to a dynamic linear")
    sw = _weight_scales(w)
    n, k = w.shape
    _check_features(x, k)
    if x.numel() == 0:
        raise NoProducts()
    _check_k(k)
    # PyTorch's own choice of the input's parameters; qnnpack ignores reduce_range (and warns).
    reduce = bool(reduce_range) and torch.backends.quantized.engine != "qnnpack"
    sx, zx = torch._choose_qparams_per_tensor(x.detach(), reduce)
    a, za = _activation(torch.quantize_per_tensor(x.detach(), sx, zx, torch.quint8))
    w_int = w.int_repr()
    acc = mode.gemm_int8(a.reshape(-1, k), w_int.t(), _bias(None, sx, sw, w_int, za))
    y = acc.to(torch.float32) * (torch.tensor(sx, dtype=torch.float32) * sw.to(torch.float32))
    if b is not None:
        y = y + b.detach().to(torch.float32)
    if relu:
        y = torch.relu(y)
    return y.reshape(*x.shape[:-1], n)


def linear_dynamic(mode, x, packed, reduce_range=False):
    return _linear_dynamic(mode, x, packed, reduce_range, False)


def linear_relu_dynamic(mode, x, packed, reduce_range=False):
    return _linear_dynamic(mode, x, packed, reduce_range, True)


# How a convolution's packed weights tell their geometry: 1-D ones are packed as 2-D (height 1).
_CONV_ACCESSORS = {
    1: (_Q.conv1d_unpack, "conv2d"),
    2: (_Q.conv2d_unpack, "conv2d"),
    3: (_Q.conv3d_unpack, "conv3d"),
}


def _geometry(packed, dims):
    unpack, prefix = _CONV_ACCESSORS[dims]
    get = {what: getattr(_Q, f"{prefix}_{what}")(packed)
           for what in ("stride", "padding", "dilation", "groups", "transpose")}
    if get["transpose"]:
        raise HostProductError("transposed packed weights")
    w, b = _unpacked(unpack, packed)
    lists = [list(get[what])[-dims:] for what in ("stride", "padding", "dilation")]
    return w, b, (*lists, int(get["groups"]))


def _convolution(mode, x, packed, sy, zy, relu, dims):
    w, b, (stride, padding, dilation, groups) = _geometry(packed, dims)
    a, za = _activation(x)
    sw = _weight_scales(w)
    if x.dim() != dims + 2 or x.shape[1] != w.shape[1] * groups:
        raise OperandError(f"the input is {'x'.join(map(str, x.shape))}, the packed weights take "
                           f"(N, {w.shape[1] * groups}, {', '.join(['*'] * dims)})")
    if x.numel() == 0:
        raise NoProducts()
    _check_k(w[0].numel())
    scales, zd = _requantization(x.q_scale(), sw, sy, zy, x.dtype)
    w_int = w.int_repr()
    bias = _bias(b, x.q_scale(), sw, w_int, za)
    # Padding is the zero point: a real 0, as PyTorch pads a quantized input.
    products, assemble = convolution_products(a, w_int, bias, stride, padding, dilation, groups,
                                              pad_value=za)
    per_group = w.shape[0] // groups
    parts = [mode.gemm_int8(cols, w_group, bias_group, scales[g * per_group:(g + 1) * per_group],
                           zd, relu)
             for g, (cols, w_group, bias_group, _, _) in enumerate(products)]
    return _quantized_result(assemble(parts), sy, zy, x.dtype)


def _conv(dims, relu):
    def handler(mode, x, packed, scale, zero_point):
        return _convolution(mode, x, packed, scale, zero_point, relu, dims)
    handler.__name__ = f"conv{dims}d{'_relu' if relu else ''}"
    return handler


# quantized:: op -> its handler (every overload of the op: conv2d's .new and its older form).
HANDLERS = {
    _Q.linear: linear,
    _Q.linear_relu: linear_relu,
    _Q.linear_dynamic: linear_dynamic,
    _Q.linear_relu_dynamic: linear_relu_dynamic,
    **{getattr(_Q, f"conv{d}d{r}"): _conv(d, r == "_relu")
       for d in (1, 2, 3) for r in ("", "_relu")},
}

# quantized:: ops with products the mode does not place: host, counted, refused by strict=True
# (transposed convolutions: left for later; fp16 weights: not an integer product). The
# dynamic quantized LSTM and GRU are aten ops: mxu/torch/_ops.py's HIDDEN_PRODUCTS.
HIDDEN_PRODUCTS = frozenset({
    _Q.conv_transpose1d, _Q.conv_transpose2d, _Q.conv_transpose3d, _Q.linear_dynamic_fp16,
})
