"""The mode's table of matrix products: one handler per aten op, each lowered to device GEMMs.

A handler takes the op's arguments (its `out=` and in-place forms reuse it: mxu/torch/_mode.py
writes the result where the op would) and returns the result in the operands' dtype. Products of
integer or complex tensors stay on the host (`HostProduct`): the device multiplies bf16 and int8
only through the int8 GEMM API, and a model's integer matmul is not what the int8 mode is for.
docs/torch.md has the table with each lowering's accumulation order.
"""
import numbers

import torch

from mxu.torch._conv import convolution, convolution_backward
from mxu.torch._products import FLOAT_DTYPES


class HostProduct(Exception):
    """This product runs on the host (why: e.g. 'int64 operands')."""


class NoProducts(Exception):
    """PyTorch's own result: the op has no multiplications to run (a zero-size convolution), or
    PyTorch refuses the call (its own error)."""


class ForeignTensor(ValueError):
    """A product's operand lies on another torch device than the CPU."""


def _tensors(values):
    """The tensors among an op's arguments (an `out=` tuple's too)."""
    for v in values:
        if isinstance(v, torch.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (t for t in v if isinstance(t, torch.Tensor))


def _meta(v):
    if isinstance(v, torch.Tensor):
        return torch.empty_strided(v.shape, v.stride(), dtype=v.dtype, device="meta")
    if isinstance(v, (list, tuple)) and any(isinstance(t, torch.Tensor) for t in v):
        return type(v)(_meta(t) for t in v)
    return v


# Ops whose meta kernel is missing in PyTorch 1.13, checked as the op they lower to: (op, how
# many of the arguments it takes).
_CHECKED_AS = {"_convolution": (torch.ops.aten.convolution.default, 9)}


def _copy(v):
    if isinstance(v, torch.Tensor):
        return v.detach().clone()
    if isinstance(v, (list, tuple)) and any(isinstance(t, torch.Tensor) for t in v):
        return type(v)(_copy(t) for t in v)
    return v


def _each(f, kwargs):
    return {k: f(v) for k, v in kwargs.items()}


def _pytorch_refuses(func, args, kwargs, name):
    """Raises PyTorch's own error where PyTorch refuses the call. Shapes are checked by its meta
    kernels (no data: microseconds). Operands of differing dtypes (or an `out=` of another dtype),
    which meta kernels let through, run on the host on copies: its CPU kernel refuses them before
    any arithmetic; where it takes them (baddbmm's, addmv's self) the product is the host's."""
    check, keep = _CHECKED_AS.get(name, (func, None))
    refused = False
    try:
        check(*_meta(args[:keep]), **({} if keep else _each(_meta, kwargs)))
    except NotImplementedError:  # no meta kernel (convolution_backward): the CPU's checks only
        pass
    except Exception:
        refused = True
    if refused:  # the CPU kernel says so in its own words (and where it takes the call, it is)
        func(*_copy(args), **_each(_copy, kwargs))
    dtypes = {t.dtype for t in _tensors([*args, *kwargs.values()])}
    if len(dtypes) > 1:
        func(*_copy(args), **_each(_copy, kwargs))  # the model's tensors stay as they are
        names = sorted(str(d).replace("torch.", "") for d in dtypes)
        raise HostProduct(f"operands of dtypes {' and '.join(names)}")


def _signature(v):
    """What PyTorch's checks of an argument depend on (not its values)."""
    if isinstance(v, torch.Tensor):
        return (tuple(v.shape), v.stride(), v.dtype)
    if isinstance(v, (list, tuple)):
        return tuple(_signature(x) for x in v)
    return v


_ACCEPTED = set()  # signatures of calls PyTorch took: a model repeats its shapes every step
_ACCEPTED_MAX = 4096


def check_call(func, name, args, kwargs):
    """Refuses what PyTorch refuses (its own error); HostProduct for operands the device cannot
    take (sparse or mkldnn layouts, mixed dtypes), ForeignTensor for another torch device."""
    for t in _tensors([*args, *kwargs.values()]):
        if t.layout != torch.strided:
            raise HostProduct(f"{str(t.layout).replace('torch.', '')} operands")
        if t.device.type != "cpu":
            raise ForeignTensor(f"an operand on torch device '{t.device}'")
    key = (func, _signature(args), _signature(sorted(kwargs.items())))
    if key in _ACCEPTED:  # the meta check costs 100 us or more; this, a few
        return
    _pytorch_refuses(func, args, kwargs, name)
    if len(_ACCEPTED) >= _ACCEPTED_MAX:
        _ACCEPTED.clear()
    _ACCEPTED.add(key)


def check_operands(*tensors):
    """The operands' dtype when the device can take them; HostProduct otherwise."""
    dtype = None
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            continue
        if t.device.type != "cpu":
            raise ForeignTensor(f"an operand on torch device '{t.device}'")
        if t.dtype not in FLOAT_DTYPES:
            raise HostProduct(f"{str(t.dtype).replace('torch.', '')} operands")
        dtype = dtype or t.dtype
    return dtype


def _is_one(x):
    return isinstance(x, numbers.Number) and x == 1


def _start(self, m, n):
    """(bias, c0) for addmm's `self` broadcast to m x n: a row (1-D, or 1 x N) is the device's
    bias, anything else its C0 matrix."""
    if self.dim() <= 1 or (self.dim() == 2 and self.shape[0] == 1):
        return self.reshape(-1).expand(n), None
    return None, self.expand(m, n)


def _addmm(ctx, self, mat1, mat2, beta, alpha, relu=False):
    """beta * self + alpha * (mat1 @ mat2): with beta = alpha = 1 the device starts from self
    (its bias or C0); otherwise the product runs on the device alone and the scaling and the sum
    are the host's (as float math on the result)."""
    dtype = check_operands(self, mat1, mat2)
    m, n = mat1.shape[0], mat2.shape[1]
    if _is_one(alpha) and _is_one(beta):
        bias, c0 = _start(self, m, n)
        return ctx.gemm(mat1, mat2, bias=bias, c0=c0, relu=relu).to(dtype)
    product = ctx.gemm(mat1, mat2).to(dtype)
    out = product if _is_one(alpha) else product * alpha
    if beta != 0:  # beta = 0 ignores self, NaN included, as PyTorch does
        out = out + (self if _is_one(beta) else self * beta)
    return torch.relu(out) if relu else out


def mm(ctx, self, mat2):
    """In a backward pass, a linear layer's two gradient products run as one program."""
    dtype = check_operands(self, mat2)
    return ctx.gemm_paired(self, mat2).to(dtype)


def addmm(ctx, self, mat1, mat2, *, beta=1, alpha=1):
    return _addmm(ctx, self, mat1, mat2, beta, alpha)


def addmm_activation(ctx, self, mat1, mat2, *, beta=1, alpha=1, use_gelu=False):
    """ReLU on the device (its activation unit); GELU on the host after the product."""
    if use_gelu:
        return torch.nn.functional.gelu(_addmm(ctx, self, mat1, mat2, beta, alpha))
    return _addmm(ctx, self, mat1, mat2, beta, alpha, relu=True)


def _stack(results, b, m, n, dtype):
    out = torch.empty((b, m, n), dtype=dtype)
    for i, r in enumerate(results):
        out[i] = r
    return out


def bmm(ctx, self, mat2):
    """The batch's products as one device program (each GEMM's loads overlap the one before)."""
    dtype = check_operands(self, mat2)
    b, m, n = self.shape[0], self.shape[1], mat2.shape[2]
    results = ctx.gemm_batch([(self[i], mat2[i], None, None, False) for i in range(b)])
    return _stack(results, b, m, n, dtype)


def baddbmm(ctx, self, batch1, batch2, *, beta=1, alpha=1):
    """One device program; with beta = alpha = 1 each product starts from its slice of self
    (a row: the bias; else C0), otherwise the host scales and adds as in _addmm."""
    dtype = check_operands(self, batch1, batch2)
    b, m, n = batch1.shape[0], batch1.shape[1], batch2.shape[2]
    start = self.expand(b, m, n)
    if _is_one(alpha) and _is_one(beta):
        products = [(batch1[i], batch2[i], *_start(start[i], m, n), False) for i in range(b)]
        return _stack([r.to(dtype) for r in ctx.gemm_batch(products)], b, m, n, dtype)
    results = ctx.gemm_batch([(batch1[i], batch2[i], None, None, False) for i in range(b)])
    out = []
    for i, product in enumerate(results):
        product = product.to(dtype)
        r = product if _is_one(alpha) else product * alpha
        if beta != 0:  # beta = 0 ignores self, NaN included, as PyTorch does
            r = r + (start[i] if _is_one(beta) else start[i] * beta)
        out.append(r)
    return _stack(out, b, m, n, dtype)


def addbmm(ctx, self, batch1, batch2, *, beta=1, alpha=1):
    """sum_i batch1[i] @ batch2[i] is one GEMM over the batches laid side by side along K:
    [batch1[0] batch1[1] ...] (M x bK) x [batch2[0]; batch2[1]; ...] (bK x N)."""
    check_operands(self, batch1, batch2)
    b, m, k = batch1.shape
    a = batch1.permute(1, 0, 2).reshape(m, b * k)
    return _addmm(ctx, self, a, batch2.reshape(b * k, batch2.shape[2]), beta, alpha)


def mv(ctx, self, vec):
    """mat @ vec as the row vec^T (1 x K) times mat^T (K x M): the same sums in the same order,
    and addmv's `self` becomes the device's bias."""
    dtype = check_operands(self, vec)
    return ctx.gemm(vec.reshape(1, -1), self.t()).reshape(-1).to(dtype)


def addmv(ctx, self, mat, vec, *, beta=1, alpha=1):
    check_operands(self, mat, vec)
    return _addmm(ctx, self, vec.reshape(1, -1), mat.t(), beta, alpha).reshape(-1)


def dot(ctx, self, tensor):
    dtype = check_operands(self, tensor)
    return ctx.gemm(self.reshape(1, -1), tensor.reshape(-1, 1)).reshape(()).to(dtype)


def _convolution(ctx, input, weight, bias, stride, padding, dilation, transposed, output_padding,
                 groups, *backend_flags):
    """torch.jit.trace's convolution: aten.convolution's lowering (benchmark, deterministic,
    cudnn_enabled, allow_tf32 choose host kernels: nothing to the device)."""
    return convolution(ctx, input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups)


def _tbc(x):
    """(time, batch, channel) <-> (batch, channel, time): conv_tbc's layout and conv1d's."""
    return x.permute(1, 2, 0)


def conv_tbc(ctx, self, weight, bias, pad=0):
    """conv_tbc (input (T, B, Cin), weight (K, Cin, Cout)) is conv1d of the input as (B, Cin, T)
    with the weight as (Cout, Cin, K), padded by `pad`; the result back as (T, B, Cout)."""
    y = convolution(ctx, _tbc(self), weight.permute(2, 1, 0), bias, [1], [pad], [1], False,
                    [0], 1)
    return y.permute(2, 0, 1).contiguous()


# aten op -> (handler, the autograd node whose backward runs products, which of that node's
# gradients are products). Every overload of a packet (default, out) uses its handler; the
# in-place packets (addmm_, ...) too, with the result copied into `self`.
HANDLERS = {
    "mm": mm,
    "addmm": addmm,
    "addmm_": addmm,
    "_addmm_activation": addmm_activation,
    "bmm": bmm,
    "baddbmm": baddbmm,
    "baddbmm_": baddbmm,
    "addbmm": addbmm,
    "addbmm_": addbmm,
    "mv": mv,
    "addmv": addmv,
    "addmv_": addmv,
    "dot": dot,
    "vdot": dot,  # real operands: vdot is dot (complex ones stay on the host)
    "convolution": convolution,
    "convolution_backward": convolution_backward,
    "_convolution": _convolution,  # torch.jit.trace's convolutions
    "conv_tbc": conv_tbc,
}

# The products each backward node runs when it computes the gradient at that input position:
# counted as host products when a backward runs outside the mode. Positions follow the node's
# inputs (AddmmBackward0: self, mat1, mat2).
BACKWARD_PRODUCTS = {
    "MmBackward0": (0, 1),
    "AddmmBackward0": (1, 2),
    "BmmBackward0": (0, 1),
    "BaddbmmBackward0": (1, 2),
    "AddbmmBackward0": (1, 2),
    "MvBackward0": (1,),
    "AddmvBackward0": (2,),
    "ConvolutionBackward0": (0, 1),
}

# Ops that compute a matrix product inside themselves, out of the mode's sight. They run on the
# host (counted in host_products); strict=True refuses them.
HIDDEN_PRODUCTS = frozenset({
    "_trilinear", "_native_multi_head_attention", "_transformer_encoder_layer_fwd",
    "_cdist_forward", "_cdist_backward", "_euclidean_dist", "linalg_vecdot", "mkldnn_convolution",
    "mkldnn_linear", "_slow_conv2d_forward", "_slow_conv2d_backward",
    "slow_conv3d_forward", "slow_conv_dilated2d", "slow_conv_dilated3d",
    "slow_conv_transpose2d", "slow_conv_transpose3d", "_nnpack_spatial_convolution",
    "thnn_conv2d", "_mkldnn_matmul", "fbgemm_linear_fp16_weight", "_thnn_fused_lstm_cell",
    "_thnn_fused_gru_cell", "mkldnn_rnn_layer", "_scaled_dot_product_attention",
    "_scaled_dot_product_flash_attention", "_sparse_mm", "_sparse_addmm", "sspaddmm",
    "_sparse_sparse_matmul",
    # A dynamic quantized LSTM or GRU runs its whole recurrence as one op, over packed weights
    # the mode cannot open (nn.quantized.dynamic.Linear's products do reach the device).
    "quantized_lstm", "quantized_gru", "quantized_lstm_cell", "quantized_gru_cell",
    "quantized_rnn_relu_cell", "quantized_rnn_tanh_cell", "fbgemm_linear_int8_weight",
    "fbgemm_linear_int8_weight_fp32_activation",
})
