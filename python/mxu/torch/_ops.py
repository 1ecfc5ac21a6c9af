"""The mode's table of matrix products: one handler per aten op, each lowered to device GEMMs.

A handler takes the mode (its gemm, gemm_batch and gemm_paired calls run the products) and the
op's arguments (its `out=` and in-place forms reuse it: mxu/torch/_mode.py writes the result where
the op would) and returns the result in the operands' dtype. Products of integer or complex
tensors stay on the host (HostProductError, mxu/torch/_checks.py): the device multiplies bf16, and
int8 only through the int8 GEMM API, and a model's integer matmul is not what the int8 mode is
for. The tables are keyed by aten's own op objects, so that a misspelled op fails at import.
docs/torch.md has the table with each lowering's accumulation order.
"""
import numbers

import torch

from mxu.torch._checks import check_operands
from mxu.torch._conv import convolution, convolution_backward
from mxu.torch._products import as_dtype

_aten = torch.ops.aten


def _is_one(x):
    return isinstance(x, numbers.Number) and x == 1


def _start(self, m, n):
    """(bias, c0) for addmm's `self` broadcast to m x n: a row (1-D, or 1 x N) is the device's
    bias, anything else its C0 matrix."""
    if self.dim() <= 1 or (self.dim() == 2 and self.shape[0] == 1):
        return self.reshape(-1).expand(n), None
    return None, self.expand(m, n)


def _addmm(mode, self, mat1, mat2, beta, alpha, relu=False):
    """beta * self + alpha * (mat1 @ mat2): with beta = alpha = 1 the device starts from self
    (its bias or C0); otherwise the product runs on the device alone and the scaling and the sum
    are the host's (as float math on the result)."""
    dtype = check_operands(self, mat1, mat2)
    m, n = mat1.shape[0], mat2.shape[1]
    if _is_one(alpha) and _is_one(beta):
        bias, c0 = _start(self, m, n)
        return as_dtype(mode.gemm(mat1, mat2, bias=bias, c0=c0, relu=relu), dtype)
    product = as_dtype(mode.gemm(mat1, mat2), dtype)
    out = product if _is_one(alpha) else product * alpha
    if beta != 0:  # beta = 0 ignores self, NaN included, as PyTorch does
        out = out + (self if _is_one(beta) else self * beta)
    return torch.relu(out) if relu else out


def mm(mode, self, mat2):
    """In a backward pass, a linear layer's two gradient products run as one program."""
    dtype = check_operands(self, mat2)
    return as_dtype(mode.gemm_paired(self, mat2), dtype)


def addmm(mode, self, mat1, mat2, *, beta=1, alpha=1):
    return _addmm(mode, self, mat1, mat2, beta, alpha)


def addmm_activation(mode, self, mat1, mat2, *, beta=1, alpha=1, use_gelu=False):
    """ReLU on the device (its activation unit); GELU on the host after the product."""
    if use_gelu:
        return torch.nn.functional.gelu(_addmm(mode, self, mat1, mat2, beta, alpha))
    return _addmm(mode, self, mat1, mat2, beta, alpha, relu=True)


def _stack(results, b, m, n, dtype):
    out = torch.empty((b, m, n), dtype=dtype)
    for i, r in enumerate(results):
        out[i] = r
    return out


def bmm(mode, self, mat2):
    """The batch's products as one device program (each GEMM's loads overlap the one before)."""
    dtype = check_operands(self, mat2)
    b, m, n = self.shape[0], self.shape[1], mat2.shape[2]
    results = mode.gemm_batch([(self[i], mat2[i], None, None, False) for i in range(b)])
    return _stack([as_dtype(r, dtype) for r in results], b, m, n, dtype)


def baddbmm(mode, self, batch1, batch2, *, beta=1, alpha=1):
    """One device program; with beta = alpha = 1 each product starts from its slice of self
    (a row: the bias; else C0), otherwise the host scales and adds as in _addmm."""
    dtype = check_operands(self, batch1, batch2)
    b, m, n = batch1.shape[0], batch1.shape[1], batch2.shape[2]
    start = self.expand(b, m, n)
    if _is_one(alpha) and _is_one(beta):
        products = [(batch1[i], batch2[i], *_start(start[i], m, n), False) for i in range(b)]
        return _stack([as_dtype(r, dtype) for r in mode.gemm_batch(products)], b, m, n, dtype)
    results = mode.gemm_batch([(batch1[i], batch2[i], None, None, False) for i in range(b)])
    out = []
    for i, product in enumerate(results):
        product = as_dtype(product, dtype)
        r = product if _is_one(alpha) else product * alpha
        if beta != 0:  # beta = 0 ignores self, NaN included, as PyTorch does
            r = r + (start[i] if _is_one(beta) else start[i] * beta)
        out.append(r)
    return _stack(out, b, m, n, dtype)


def addbmm(mode, self, batch1, batch2, *, beta=1, alpha=1):
    """sum_i batch1[i] @ batch2[i] is one GEMM over the batches laid side by side along K:
    [batch1[0] batch1[1] ...] (M x bK) x [batch2[0]; batch2[1]; ...] (bK x N)."""
    check_operands(self, batch1, batch2)
    b, m, k = batch1.shape
    a = batch1.permute(1, 0, 2).reshape(m, b * k)
    return _addmm(mode, self, a, batch2.reshape(b * k, batch2.shape[2]), beta, alpha)


def mv(mode, self, vec):
    """mat @ vec as the row vec^T (1 x K) times mat^T (K x M): the same sums in the same order,
    and addmv's `self` becomes the device's bias."""
    dtype = check_operands(self, vec)
    return as_dtype(mode.gemm(vec.reshape(1, -1), self.t()).reshape(-1), dtype)


def addmv(mode, self, mat, vec, *, beta=1, alpha=1):
    check_operands(self, mat, vec)
    return _addmm(mode, self, vec.reshape(1, -1), mat.t(), beta, alpha).reshape(-1)


def dot(mode, self, tensor):
    dtype = check_operands(self, tensor)
    return as_dtype(mode.gemm(self.reshape(1, -1), tensor.reshape(-1, 1)).reshape(()), dtype)


def _convolution(mode, input, weight, bias, stride, padding, dilation, transposed, output_padding,
                 groups, *backend_flags):
    """torch.jit.trace's convolution: aten.convolution's lowering (benchmark, deterministic,
    cudnn_enabled, allow_tf32 choose host kernels: nothing to the device)."""
    return convolution(mode, input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups)


def _tbc(x):
    """(time, batch, channel) <-> (batch, channel, time): conv_tbc's layout and conv1d's."""
    return x.permute(1, 2, 0)


def conv_tbc(mode, self, weight, bias, pad=0):
    """conv_tbc (input (T, B, Cin), weight (K, Cin, Cout)) is conv1d of the input as (B, Cin, T)
    with the weight as (Cout, Cin, K), padded by `pad`; the result back as (T, B, Cout)."""
    y = convolution(mode, _tbc(self), weight.permute(2, 1, 0), bias, [1], [pad], [1], False,
                    [0], 1)
    return y.permute(2, 0, 1).contiguous()


# aten op (its overload packet: every overload, default and out, uses the handler) -> handler.
# The in-place packets (addmm_, ...) too, with the result copied into `self`.
HANDLERS = {
    _aten.mm: mm,
    _aten.addmm: addmm,
    _aten.addmm_: addmm,
    _aten._addmm_activation: addmm_activation,
    _aten.bmm: bmm,
    _aten.baddbmm: baddbmm,
    _aten.baddbmm_: baddbmm,
    _aten.addbmm: addbmm,
    _aten.addbmm_: addbmm,
    _aten.mv: mv,
    _aten.addmv: addmv,
    _aten.addmv_: addmv,
    _aten.dot: dot,
    _aten.vdot: dot,  # real operands: vdot is dot (complex ones stay on the host)
    _aten.convolution: convolution,
    _aten.convolution_backward: convolution_backward,
    _aten._convolution: _convolution,  # torch.jit.trace's convolutions
    _aten.conv_tbc: conv_tbc,
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
    _aten._trilinear, _aten._native_multi_head_attention, _aten._transformer_encoder_layer_fwd,
    _aten._cdist_forward, _aten._cdist_backward, _aten._euclidean_dist, _aten.linalg_vecdot,
    _aten.mkldnn_convolution, _aten.mkldnn_linear, _aten._slow_conv2d_forward,
    _aten._slow_conv2d_backward, _aten.slow_conv3d_forward, _aten.slow_conv_dilated2d,
    _aten.slow_conv_dilated3d, _aten.slow_conv_transpose2d, _aten.slow_conv_transpose3d,
    _aten._nnpack_spatial_convolution, _aten.thnn_conv2d, _aten.fbgemm_linear_fp16_weight,
    _aten._thnn_fused_lstm_cell, _aten._thnn_fused_gru_cell, _aten._scaled_dot_product_attention,
    _aten._sparse_mm, _aten._sparse_addmm, _aten.sspaddmm, _aten._sparse_sparse_matmul,
    # A dynamic quantized LSTM or GRU runs its whole recurrence as one op, over packed weights
    # the mode cannot open (nn.quantized.dynamic.Linear's products do reach the device).
    _aten.quantized_lstm, _aten.quantized_gru, _aten.quantized_lstm_cell, _aten.quantized_gru_cell,
    _aten.quantized_rnn_relu_cell, _aten.quantized_rnn_tanh_cell, _aten.fbgemm_linear_int8_weight,
    _aten.fbgemm_linear_int8_weight_fp32_activation,
    # Ops of PyTorch releases after Debian's 1.13, where the running PyTorch has them.
    *(getattr(_aten, name) for name in ("_mkldnn_matmul", "mkldnn_rnn_layer",
                                        "_scaled_dot_product_flash_attention")
      if hasattr(_aten, name)),
})
