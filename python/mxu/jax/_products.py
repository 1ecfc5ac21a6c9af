"""The device side of mxu.jax: a dot_general or conv_general_dilated equation's operands, as
NumPy arrays from a host callback, become device GEMMs (their lowerings: _dot.py, _conv.py; the
calls: mxu/_gemms.py) and come back in the equation's output dtype.

Operands as the numeric contract takes them (docs/numerics.md): float32 rounded to bf16 by the
device's driver, bfloat16 as its raw bits, float16 widened to float32 (exact), float64 rounded
to float32 first; fp32 accumulation in the device's order; the float32 result converted to the
output's dtype (round to nearest even).
"""
import numpy as np
from jax import lax

from mxu.jax import _conv, _dot

try:  # JAX's bfloat16 NumPy type (ml_dtypes, a JAX dependency)
    from ml_dtypes import bfloat16 as _BF16
except ImportError:  # pragma: no cover - JAX always brings ml_dtypes
    _BF16 = None

FLOAT_KINDS = ("float16", "bfloat16", "float32", "float64")
# The equations whose products run on the device, and how each lowers to GEMMs: keyed by the
# primitive objects, as mxu.torch keys its handlers by op objects.
LOWERINGS = {lax.dot_general_p: lambda lhs, rhs, params: _dot.products(
                 lhs, rhs, params["dimension_numbers"]),
             lax.conv_general_dilated_p: _conv.products}


def device_array(x):
    """A float operand as the runner takes it: float32, or bf16 bits as uint16."""
    x = np.asarray(x)
    if _BF16 is not None and x.dtype == _BF16:
        return x.view(np.uint16)
    return x.astype(np.float32, copy=False)
