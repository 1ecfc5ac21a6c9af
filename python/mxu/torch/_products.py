"""One matrix product on the device: torch tensors in, a float32 torch tensor out (or, in the
integer mode, int8 tensors in and an int8 or int32 tensor out).

Every handler of the mode (mxu/torch/_ops.py, _conv.py, _quantized.py) reduces its op to calls
of ProductRunner.gemm: C (M x N) = A (M x K) x B (K x N), starting from a bias row or a C0
matrix, with the device's ReLU (gemm_int8 for the quantized ops). The framework-free runner
(mxu/_gemms.py) makes the device calls, splits a product beyond one GEMM's limits and batches
independent ones; here tensors become its NumPy arrays (without a copy where the layout allows)
and its results tensors again.
"""
import numpy as np
import torch

from mxu._gemms import GemmRunner


def _array(t):
    """A tensor's values as a NumPy array that shares its layout: float32 and int8 (the integer
    mode's) as they are, bfloat16 as its raw bits (uint16), float64 and float16 as float32
    (exact for float16; float64 is rounded to float32, then to bf16 by the device)."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    if t.dtype not in (torch.float32, torch.int8):
        t = t.to(torch.float32)
    return t.numpy()


# The canonical bf16 NaN (docs/numerics.md), as an int16 to write into a bfloat16's bits.
_BF16_NAN = 0x7FC0


def as_dtype(result, dtype):
    """A device result (float32) in the operands' dtype. bfloat16 by the contract's fp32 -> bf16
    (docs/numerics.md: round to nearest even, every NaN 0x7FC0), as mxu.jax and the CLI give it:
    PyTorch's conversion rounds so too, but its vectorized kernels make a NaN 0xFFFF."""
    out = result.to(dtype)
    if dtype == torch.bfloat16 and result.dtype != torch.bfloat16:
        nan = torch.isnan(result)
        if nan.any():
            out.view(torch.int16)[nan] = _BF16_NAN
    return out


class ProductRunner(GemmRunner):
    """GemmRunner on torch tensors: operands, bias, C0 and scales are tensors, results tensors."""

    def _operand(self, t):
        # A transposed view of a contiguous tensor (nn.Linear's W.t()) keeps its strides in
        # NumPy, so the runner sees it as a transposed array (ta/tb, or a row-major copy).
        return super()._operand(_array(t))

    def _values(self, x, dtype):
        if isinstance(x, torch.Tensor):  # values (a bfloat16 bias is widened, not its bits)
            x = x.detach()
            x = (x.to(torch.float32) if x.dtype in (torch.bfloat16, torch.float16) else x).numpy()
        return super()._values(x, dtype)

    def _result(self, c):
        return torch.from_numpy(c)
