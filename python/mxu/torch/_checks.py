"""What a product handler checks before its products run, and the exceptions that send an op
elsewhere: to the host (HostProductError: mxu/_gemms.py's, which mxu.jax's strict mode raises too),
to PyTorch for its own result or error (NoProducts), or back to the user (ForeignTensorError).

The handlers (mxu/torch/_ops.py, _conv.py, _quantized.py) raise these; the mode
(mxu/torch/_mode.py) catches them and counts the product on the host, calls PyTorch, or raises
the error to the user with the op's name. Below the handlers: it imports none of them.
"""
import torch

from mxu._gemms import HostProductError  # the one class of mxu.torch, mxu.jax and mxu.keras

# The dtypes whose products the device runs (as bf16 operands).
FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


class NoProducts(Exception):
    """PyTorch's own result: the op has no multiplications to run (a zero-size convolution), or
    PyTorch refuses the call (its own error)."""


class ForeignTensorError(ValueError):
    """A product's operand lies on a torch device other than the CPU."""


def short_name(value):
    """A torch dtype, layout or scheme as a message names it: "int64", not "torch.int64"."""
    return str(value).replace("torch.", "")


def _tensors(values):
    """The tensors among an op's arguments (an `out=` tuple's too)."""
    for v in values:
        if isinstance(v, torch.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (t for t in v if isinstance(t, torch.Tensor))


def _each_tensor(f, v):
    """f of a tensor, of each tensor of a list or tuple of them; anything else as it is."""
    if isinstance(v, torch.Tensor):
        return f(v)
    if isinstance(v, (list, tuple)) and any(isinstance(t, torch.Tensor) for t in v):
        return type(v)(_each_tensor(f, t) for t in v)
    return v


def _meta(v):
    return _each_tensor(
        lambda t: torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta"), v)


def _copy(v):
    return _each_tensor(lambda t: t.detach().clone(), v)


def _each(f, kwargs):
    return {k: f(v) for k, v in kwargs.items()}


# Ops whose meta kernel is missing in PyTorch 1.13, checked as the op they lower to: (op, how
# many of the arguments it takes).
_CHECKED_AS = {torch.ops.aten._convolution: (torch.ops.aten.convolution.default, 9)}


def _pytorch_refuses(func, args, kwargs):
    """Raises PyTorch's own error where PyTorch refuses the call. Shapes are checked by its meta
    kernels (no data: microseconds). Operands of differing dtypes (or an `out=` of another dtype),
    which meta kernels let through, run on the host on copies: its CPU kernel refuses them before
    any arithmetic; where it takes them (baddbmm's, addmv's self) the product is the host's."""
    check, keep = _CHECKED_AS.get(func.overloadpacket, (func, None))
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
        names = sorted(short_name(d) for d in dtypes)
        raise HostProductError(f"operands of dtypes {' and '.join(names)}")


def _signature(v):
    """What PyTorch's checks of an argument depend on (not its values)."""
    if isinstance(v, torch.Tensor):
        return (tuple(v.shape), v.stride(), v.dtype)
    if isinstance(v, (list, tuple)):
        return tuple(_signature(x) for x in v)
    return v


_ACCEPTED = set()  # signatures of calls PyTorch took: a model repeats its shapes every step
_ACCEPTED_MAX = 4096


def _check_on_cpu(t):
    if t.device.type != "cpu":
        raise ForeignTensorError(f"an operand on torch device '{t.device}'")


def check_call(func, args, kwargs):
    """Refuses what PyTorch refuses (its own error); HostProductError for operands the device
    cannot take (sparse or mkldnn layouts, mixed dtypes), ForeignTensorError for another torch
    device."""
    for t in _tensors([*args, *kwargs.values()]):
        if t.layout != torch.strided:
            raise HostProductError(f"{short_name(t.layout)} operands")
        _check_on_cpu(t)
    key = (func, _signature(args), _signature(sorted(kwargs.items())))
    if key in _ACCEPTED:  # the meta check costs 100 us or more; this, a few
        return
    _pytorch_refuses(func, args, kwargs)
    if len(_ACCEPTED) >= _ACCEPTED_MAX:
        _ACCEPTED.clear()
    _ACCEPTED.add(key)


def check_operands(*tensors):
    """The operands' dtype when the device can take them; HostProductError otherwise."""
    dtype = None
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            continue
        _check_on_cpu(t)
        if t.dtype not in FLOAT_DTYPES:
            raise HostProductError(f"{short_name(t.dtype)} operands")
        dtype = dtype or t.dtype
    return dtype
