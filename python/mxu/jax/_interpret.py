"""The jaxpr interpreter of mxu.jax: a function's jaxpr evaluated again, equation by equation,
inside jax.jit, with every product equation replaced by a host callback that runs it on the
device.

The function is traced once per argument shapes (jax.make_jaxpr: its jit, grad, vmap and custom
derivative rules are already applied there, so the backward products are equations like the
others). The interpreter then walks the jaxpr under a new jax.jit: dot_general and
conv_general_dilated with float operands become jax.pure_callback calls of the device; call-like
equations (pjit, closed_call, remat, custom_jvp_call, custom_vjp_call) are walked inline; scan,
cond and while are rebuilt (lax.scan, lax.switch, lax.while_loop) around walked bodies, so their
products run on the device at each iteration; every other equation is bound as it was (pmap and
shard_map whole) and runs in XLA on the host. Products that must stay on the host (integer
operands, a product inside a primitive not known here) are counted when they run (a
jax.debug.callback) or, with strict=True, refused before anything runs.
"""
import jax
import numpy as np
from jax import lax
from jax.extend import core as jcore

from mxu._gemms import HostProductError
from mxu.jax import _products

PRODUCTS = frozenset(_products.LOWERINGS)
# Control flow rebuilt around walked bodies, by primitive object (public in jax.lax).
_CONTROL = {lax.scan_p: "_scan", lax.cond_p: "_cond", lax.while_p: "_while"}
# Call-like primitives: their one sub-jaxpr runs once with the equation's inputs, so it is walked
# inline (param name of the jaxpr). By name: their objects live in jax._src, whose modules move
# between JAX releases, and two of them (remat, checkpoint) are one primitive renamed. custom_jvp_call and custom_vjp_call keep only the primal
# computation here: any derivative was already taken when the function was traced.
_INLINE = {"pjit": "jaxpr", "closed_call": "call_jaxpr", "core_call": "call_jaxpr",
           "remat": "jaxpr", "checkpoint": "jaxpr", "custom_jvp_call": "call_jaxpr",
           "custom_vjp_call": "call_jaxpr", "custom_vjp_call_jaxpr": "fun_jaxpr",
           "remat2": "jaxpr"}


def _sub_jaxprs(params):
    for value in params.values():
        values = value if isinstance(value, (tuple, list)) else (value,)
        for v in values:
            if isinstance(v, jcore.ClosedJaxpr):
                yield v.jaxpr
            elif isinstance(v, jcore.Jaxpr):
                yield v


def _hidden_product(jaxpr):
    """The name of a product primitive anywhere inside `jaxpr`, or None."""
    for eqn in jaxpr.eqns:
        if eqn.primitive in PRODUCTS:
            return eqn.primitive.name
        for sub in _sub_jaxprs(eqn.params):
            found = _hidden_product(sub)
            if found:
                return found
    return None


def _closed(value):
    """(jaxpr, consts) of a ClosedJaxpr or an open Jaxpr."""
    if isinstance(value, jcore.ClosedJaxpr):
        return value.jaxpr, value.consts
    return value, ()


def _bind(eqn, invals):
    """The equation's primitive bound again, as jax.core.eval_jaxpr binds it: a call-like one
    (xla_pmap, shard_map) takes its body as a function and other parameters than the equation
    records, which get_bind_params makes."""
    subfuns, params = eqn.primitive.get_bind_params(eqn.params)
    return eqn.primitive.bind(*subfuns, *invals, **params)


# The name scope the interpreter traces a function in: JAX records its transformations (jvp,
# transpose) in an equation's name stack only under a scope.
SCOPE = "mxu_on_device"


def where(stack):
    """(module, phase) of an equation from its name stack (a tuple of JAX's Scope and Transform
    entries, outermost first): a `transpose` transformation is the backward pass; the module is
    the scopes inside the interpreter's own (a Keras layer's name, 'dense_1'), or None."""
    phase = "forward"
    scopes = []
    for entry in stack:
        kind = type(entry).__name__
        if kind == "Transform" and entry.name == "transpose":
            phase = "backward"
        elif kind == "Scope":
            scopes = [] if entry.name == SCOPE else scopes + [entry.name]
    return ("/".join(scopes) or None), phase


class Interpreter:
    """Walks jaxprs for one DeviceFunction (`owner`: its product calls and its counters)."""

    def __init__(self, owner):
        self.owner = owner

    def run(self, jaxpr, consts, args, stack=()):
        env = {}

        def read(v):
            return v.val if isinstance(v, jcore.Literal) else env[v]

        for var, value in zip(jaxpr.constvars, consts):
            env[var] = value
        for var, value in zip(jaxpr.invars, args):
            env[var] = value
        for eqn in jaxpr.eqns:
            invals = [read(v) for v in eqn.invars]
            outvals = self._equation(eqn, invals, stack)
            if not eqn.primitive.multiple_results:
                outvals = [outvals]
            for var, value in zip(eqn.outvars, outvals):
                env[var] = value
        return [read(v) for v in jaxpr.outvars]

    def _equation(self, eqn, invals, stack):
        name = eqn.primitive.name
        here = stack + tuple(eqn.source_info.name_stack.stack)
        if eqn.primitive in PRODUCTS:
            return self._product(eqn, invals, here)
        if name in _INLINE and _INLINE[name] in eqn.params:
            jaxpr, consts = _closed(eqn.params[_INLINE[name]])
            outs = self.run(jaxpr, consts, invals, here)
            return outs if eqn.primitive.multiple_results else outs[0]
        if eqn.primitive in _CONTROL:
            return getattr(self, _CONTROL[eqn.primitive])(eqn, invals, here)
        hidden = next((p for p in map(_hidden_product, _sub_jaxprs(eqn.params)) if p), None)
        if hidden:
            self._host_product(name, f"{name} holds a {hidden} that the interpreter cannot "
                               "reach", here)
        return _bind(eqn, invals)

    # ---- products ----
    def _product(self, eqn, invals, here):
        name = eqn.primitive.name
        lhs, rhs = eqn.invars[0].aval, eqn.invars[1].aval
        kinds = {np.dtype(lhs.dtype).name, np.dtype(rhs.dtype).name}
        if not kinds <= set(_products.FLOAT_KINDS):
            self._host_product(name, f"{name} with {'/'.join(sorted(kinds))} operands (the "
                               "device multiplies floats; integer products stay on the host)",
                               here)
            return _bind(eqn, invals)
        out = eqn.outvars[0].aval
        call = self.owner.product_call(eqn.primitive, eqn.params, out.dtype, *where(here))
        return jax.pure_callback(call, jax.ShapeDtypeStruct(out.shape, out.dtype), *invals)

    def _host_product(self, name, why, here):
        """Counted each time it runs (strict: refused now, before anything ran)."""
        module, phase = where(here)
        if self.owner.strict:
            raise HostProductError(f"mxu.jax: {why}: it would run on the host (strict=True)")
        jax.debug.callback(lambda: self.owner.count_host_product(name, module, phase))

    # ---- control flow: rebuilt around walked bodies ----
    def _scan(self, eqn, invals, here):
        p = eqn.params
        jaxpr, consts = _closed(p["jaxpr"])
        nc, ncarry = p["num_consts"], p["num_carry"]
        scan_consts, init, xs = invals[:nc], invals[nc:nc + ncarry], invals[nc + ncarry:]

        def body(carry, x):
            outs = self.run(jaxpr, consts, list(scan_consts) + list(carry) + list(x), here)
            return outs[:ncarry], outs[ncarry:]
        carry, ys = lax.scan(body, list(init), list(xs), length=p["length"],
                             reverse=p["reverse"], unroll=p["unroll"])
        return list(carry) + list(ys)

    def _cond(self, eqn, invals, here):
        index, operands = invals[0], invals[1:]
        branches = [self._branch(b, here) for b in eqn.params["branches"]]
        return list(lax.switch(index, branches, *operands))

    def _branch(self, closed, here):
        jaxpr, consts = _closed(closed)
        return lambda *operands: self.run(jaxpr, consts, operands, here)

    def _while(self, eqn, invals, here):
        p = eqn.params
        cj, cconsts_closed = _closed(p["cond_jaxpr"])
        bj, bconsts_closed = _closed(p["body_jaxpr"])
        nc, nb = p["cond_nconsts"], p["body_nconsts"]
        cond_consts, body_consts, init = invals[:nc], invals[nc:nc + nb], invals[nc + nb:]

        def cond(carry):
            return self.run(cj, cconsts_closed, list(cond_consts) + list(carry), here)[0]

        def body(carry):
            return self.run(bj, bconsts_closed, list(body_consts) + list(carry), here)
        return list(lax.while_loop(cond, body, list(init)))
