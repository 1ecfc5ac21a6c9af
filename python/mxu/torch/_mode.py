"""DeviceMode: every matrix product of a PyTorch program on an mxu device.

Two PyTorch modes work together:
- a TorchDispatchMode sees every aten op below autograd, forward and backward: the products of
  the table (mxu/torch/_ops.py) run on the device, composite ops that arrive whole (under
  torch.inference_mode) are decomposed so that their products reach it, every other op runs on
  the host;
- a TorchFunctionMode, which does nothing to an op, keeps the fused fast paths of
  nn.MultiheadAttention and nn.TransformerEncoderLayer off (they check has_torch_function()) and
  tells forward from backward (Tensor.backward, torch.autograd.backward and .grad pass by it).
Module names come from global forward hooks; a backward product is given the module of the
forward product whose autograd node it belongs to (a hook on that node fires after its products).
"""
import sys
import threading
import time

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode, _pop_mode, _push_mode

from mxu._gemms import DeviceOpError, add_program, check_options, device_lock, new_call
from mxu._report import Report
from mxu.torch import _ops, _quantized
from mxu.torch._checks import ForeignTensorError, HostProductError, NoProducts, check_call
from mxu.torch._pairs import Pairs
from mxu.torch._products import ProductRunner

_thread = threading.local()  # .mode: the DeviceMode active in this thread, if any


def active_mode():
    """The DeviceMode active in this thread, or None."""
    return getattr(_thread, "mode", None)


_composite = {}  # OpOverload -> whether it has a CompositeImplicitAutograd kernel


def _is_composite(func):
    """Whether func decomposes into other aten ops (asked of the dispatcher once per op: the
    question costs about 11 us, and a step may ask it thousands of times)."""
    known = _composite.get(func)
    if known is None:
        known = _composite[func] = torch._C._dispatch_has_kernel_for_dispatch_key(
            func.name(), "CompositeImplicitAutograd")
    return known


def _describe(args):
    shapes = []
    for a in args:
        if isinstance(a, torch.Tensor):
            shapes.append("x".join(str(s) for s in a.shape) or "scalar")
    return "(" + ", ".join(shapes) + ")"


class _FunctionLevel(TorchFunctionMode):
    """Leaves every op as it is; marks backward passes and hands new autograd nodes to the mode."""

    def __init__(self, mode):
        super().__init__()
        self.mode = mode

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        mode = self.mode
        if getattr(func, "__name__", None) in ("backward", "grad") and func in (
                torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad):
            mode._hook_new_nodes()
            outer, mode._phase = mode._phase, "backward"
            try:
                return func(*args, **kwargs)
            finally:
                mode._phase = outer
                mode._settle_backward(None)
                mode._pairs.clear()
        result = func(*args, **kwargs)
        if mode._new_outputs:
            mode._hook_new_nodes()
        return result


class DeviceMode(TorchDispatchMode):
    """Runs every matrix product on `device` (an mxu.Device) while active; see device_mode()."""

    def __init__(self, device, strict=False, watchdog=None, transposed="copy", batch=True):
        super().__init__()
        check_options(device, strict, watchdog, "mxu.torch")
        self.device = device
        self.strict = strict
        self._runner = ProductRunner(device, device_lock(device), self._record_batch, watchdog,
                                     transposed, batch)
        info = device.info()
        self._device_info = {k: info[k] for k in ("backend", "device", "array_rows",
                                                  "array_cols", "pe_stages", "subnormals",
                                                  "bus_bytes")
                             if k in info}
        self._report = Report(self._runner.rows, self._runner.cols)
        self._phase = "forward"
        self._call = None  # the counts of the op being run
        self._modules = []  # the names of the modules whose forward is running
        self._names = {}  # id(module) -> qualified name, from the outermost module called
        self._new_outputs = []  # (result, module, op, args) of forward products: hooked nodes
        self._pairs = Pairs()  # linear layers' two backward products, run as one program
        self._batch = bool(batch)
        self._pending = []  # backward calls not yet given their module
        self._function_level = _FunctionLevel(self)
        self._hooks = []
        self._thread = None

    # ---- entering and leaving ----
    def __enter__(self):
        if active_mode() is not None:
            raise RuntimeError("mxu.torch: a device_mode is already active in this thread; "
                               "leave it before entering another (modes do not nest)")
        if self._thread is not None:
            raise RuntimeError("mxu.torch: this device_mode is already active (in another "
                               "thread); each thread enters a mode of its own")
        self._thread = threading.get_ident()
        _thread.mode = self
        module = torch.nn.modules.module
        self._hooks = [module.register_module_forward_pre_hook(self._enter_module),
                       module.register_module_forward_hook(self._leave_module)]
        self._function_level.__enter__()
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _pop_mode()
        self._function_level.__exit__(exc_type, exc_value, traceback)
        for hook in self._hooks:
            hook.remove()
        self._hooks = []
        self._hook_new_nodes()
        self._settle_backward(None)
        self._pairs.clear()
        self._modules = []
        _thread.mode = None
        self._thread = None
        return False

    # ---- modules ----
    # self._modules holds (name, frame): the frame of the Module.__call__ that runs the module's
    # forward (the hooks' caller). A forward that raises never reaches the forward hook, so an
    # entry whose frame has left the call stack is stale and dropped (_live_modules).
    def _enter_module(self, module, inputs):
        if threading.get_ident() != self._thread:  # the hooks are global: other threads' too
            return
        self._live_modules(sys._getframe(1))
        if not self._modules and id(module) not in self._names:
            self._names = {id(m): name for name, m in module.named_modules()}
            self._names[id(module)] = type(module).__name__
        self._modules.append((self._names.get(id(module), type(module).__name__),
                              sys._getframe(1)))

    def _leave_module(self, module, inputs, output):
        if threading.get_ident() != self._thread:
            return
        self._live_modules(sys._getframe(1))
        if self._modules and self._modules[-1][1] is sys._getframe(1):
            self._modules.pop()

    def _live_modules(self, frame):
        """Drops the entries whose forward has left the call stack (one that raised)."""
        while self._modules:
            top = self._modules[-1][1]
            f = frame
            while f is not None and f is not top:
                f = f.f_back
            if f is not None:
                return  # the innermost is running, and so are those it runs inside
            self._modules.pop()

    # ---- the ops ----
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        packet = func.overloadpacket
        name = packet.__name__
        if func.namespace == "quantized":
            return self._run_quantized(func, name, args, kwargs)
        handler = _ops.HANDLERS.get(packet)
        if handler is None:
            if packet in _ops.HIDDEN_PRODUCTS:
                self._host_product(f"aten.{name}", f"aten.{name} computes a matrix product "
                                   "inside itself", args)
                return func(*args, **kwargs)
            if _is_composite(func):
                _push_mode(self)  # the parts come back here
                try:
                    result = func.decompose(*args, **kwargs)
                finally:
                    _pop_mode()
                if result is not NotImplemented:
                    return result
            return func(*args, **kwargs)
        return self._run_product(func, name, handler, args, kwargs)

    def _run_quantized(self, func, name, args, kwargs):
        """A quantized:: op: its products on the integer mode (mxu/torch/_quantized.py); one
        with products the mode cannot place on the host, counted; any other (quantize, add...)
        as it is."""
        handler = _quantized.HANDLERS.get(func.overloadpacket)
        if handler is not None:
            return self._run_product(func, name, handler, args, kwargs, namespace="quantized")
        if func.overloadpacket in _quantized.HIDDEN_PRODUCTS:
            op = f"quantized.{name}"
            self._host_product(op, f"{op} computes a matrix product the mode does not place",
                               args, dtype="int8")
        return func(*args, **kwargs)

    def _run_product(self, func, name, handler, args, kwargs, namespace="aten"):
        op = f"{namespace}.{name}"
        integer = namespace == "quantized"  # the integer mode's products (int8 operands)
        start = time.perf_counter()
        try:
            try:
                if not integer:  # a quantized op's handler checks its own operands
                    check_call(func, args, kwargs)  # PyTorch's own refusals
                call_kwargs = dict(kwargs)
                out = call_kwargs.pop("out", None)
                self._call = new_call("int8" if integer else "bf16")
                result = self._handle(op, handler, args, call_kwargs)
            except HostProductError as why:
                self._call = None
                self._host_product(op, f"{op} with {why}", args,
                                   dtype="int8" if integer else "bf16")
                return func(*args, **kwargs)
            except NoProducts:
                self._call = None
                return func(*args, **kwargs)  # PyTorch's refusals come through as they are
            except ForeignTensorError as why:
                self._call = None
                raise ForeignTensorError(f"mxu.torch: {op}{_describe(args)}: {why}; the "
                                         "device mode takes CPU tensors") from None
            except _quantized.OperandError as why:
                self._call = None
                raise _quantized.OperandError(f"mxu.torch: {op}{_describe(args)}: {why}") \
                    from None
        finally:
            self._report.handler_seconds += time.perf_counter() - start
        call, self._call = self._call, None
        if self._phase == "backward":
            self._pending.append((op, call))
        else:
            self._report.add(op, self._module(), self._phase, **call)
        if name.endswith("_"):  # in place: the result lands in self
            args[0].copy_(result)
            result = args[0]
        elif out is not None:
            if isinstance(out, torch.Tensor):
                out.resize_(result.shape).copy_(result)
            else:
                for o, r in zip(out, result):
                    if r is not None:
                        o.resize_(r.shape).copy_(r)
            result = out
        if self._phase == "forward" and torch.is_grad_enabled() and isinstance(
                result, torch.Tensor):
            self._new_outputs.append((result, self._module(), op, args))
        return result

    def _handle(self, op, handler, args, kwargs):
        """The handler's result; the device's errors (watchdog, refusals) as DeviceOpError."""
        try:
            return handler(self, *args, **kwargs)
        except (HostProductError, NoProducts, ForeignTensorError, DeviceOpError,
                _quantized.OperandError):
            self._call = None
            raise
        except (RuntimeError, ValueError) as error:  # the device's errors, its refusals
            self._call = None
            raise DeviceOpError(f"mxu.torch: {op}{_describe(args)} on the device: {error}") \
                from error

    def _module(self):
        self._live_modules(sys._getframe(1))
        return self._modules[-1][0] if self._modules else None

    # The handlers' two calls: a GEMM on the device, and independent GEMMs as one program
    # (products: a list of (a, b, bias, c0, relu)).
    def gemm(self, a, b, bias=None, c0=None, relu=False):
        return self._runner.gemm(a, b, bias=bias, c0=c0, relu=relu)

    def gemm_batch(self, products):
        return self._runner.gemm_batch(products)

    # The integer mode's GEMM (quantized ops): int8 tensors in; int8 out with scales, else int32.
    def gemm_int8(self, a, b, bias=None, scales=None, zero_point=0, relu=False):
        return self._runner.gemm_int8(a, b, bias=bias, scales=scales, zero_point=zero_point,
                                      relu=relu)

    # mm's call: in a backward pass, the first of a linear layer's two gradient products brings
    # the second with it, as one program; the second then finds its result waiting.
    def gemm_paired(self, a, b):
        if self._phase != "backward" or not self._batch:
            return self.gemm(a, b)
        waiting = self._pairs.take(a, b)
        if waiting is not None:
            return waiting
        found = self._pairs.partner(a, b)
        if found is None:
            return self.gemm(a, b)
        (other_a, other_b), calls = found
        first, second = self.gemm_batch([(a, b, None, None, False),
                                         (other_a, other_b, None, None, False)])
        self._pairs.expect(calls, second)
        return first

    def _record_batch(self, shapes, counters):
        """A program's counters, for the op being run; `shapes` (m, k, n) of its GEMMs."""
        add_program(self._call, shapes, counters)
        self._report.device_seconds = self._runner.device_seconds

    def _host_product(self, op, why, args, dtype="bf16"):
        if self.strict:
            raise HostProductError(f"mxu.torch: {why} {_describe(args)}: it would run on the "
                                   "host (strict=True)")
        self._report.add(op, self._module(), self._phase, dtype=dtype, calls=1, host_products=1)

    # ---- backward ----
    def _hook_new_nodes(self):
        """Hooks the autograd nodes of the forward products made since the last call."""
        new, self._new_outputs = self._new_outputs, []
        for result, module, op, args in new:
            node = result.grad_fn
            if node is not None:
                node.register_hook(self._node_hook(module, node.name()))
                self._remember_pair(node, args)

    # The backward nodes of mm and addmm, and where their (mat1, mat2) sit in their inputs (and
    # in the forward op's arguments): the positions of _ops.BACKWARD_PRODUCTS.
    _PAIRED_NODES = {name: _ops.BACKWARD_PRODUCTS[name]
                     for name in ("MmBackward0", "AddmmBackward0")}

    def _remember_pair(self, node, args):
        """A product whose two matrix inputs both need gradients: its backward's two products
        can run as one program (mxu/torch/_pairs.py)."""
        if not self._batch:
            return
        if node.name() not in self._PAIRED_NODES:
            # An in-place op on the result (an RNN cell's gates += ...) put its node in front.
            node = next((n for n, _ in node.next_functions
                         if n is not None and n.name() in self._PAIRED_NODES), None)
            if node is None:
                return
        where = self._PAIRED_NODES[node.name()]
        inputs = node.next_functions
        if all(i < len(inputs) and inputs[i][0] is not None for i in where):
            self._pairs.remember(args[where[0]], args[where[1]])

    def _node_hook(self, module, node_name):
        def after_backward(grad_inputs, grad_outputs):
            mode = active_mode()
            if mode is not None and mode._phase == "backward":
                mode._settle_backward(module)
                return
            # A backward outside any mode: its products ran on the host.
            positions = _ops.BACKWARD_PRODUCTS.get(node_name, ())
            count = sum(1 for i in positions if i < len(grad_inputs) and
                        grad_inputs[i] is not None)
            if count:
                self._report.add(f"{node_name} (backward outside the mode)", module, "backward",
                                 calls=1, host_products=count)
        return after_backward

    def _settle_backward(self, module):
        pending, self._pending = self._pending, []
        for op, call in pending:
            self._report.add(op, module, "backward", **call)

    # ---- the profile ----
    def report(self, node=180):
        """The profile: {'device': ..., 'energy': ..., 'ops': [...], 'totals': {...}}
        (docs/torch.md); energy_uj and seconds_at_fmax by the energy table of `node` nm
        (mxu.energy_nodes(): 180 measured, the others scaled)."""
        return self._report.as_dict(self._device_info, node)
