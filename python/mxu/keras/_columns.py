"""Model parallelism over several chips: a Dense layer's kernel split by its output columns, as
`mxu train --parallel model` splits an MLP (Megatron-LM's column-parallel layers).

ColumnRecorder takes the place of one device's recorder under a model's steps (mxu.jax's
DeviceFunction calls it for every product). Each GEMM runs on every chip at once, chip r taking
the r-th slice of the columns (as np.array_split cuts them), the chips side by side:
- a forward product (x W): chip r computes x W_r, its columns of the output; the slices are
  gathered (a ring all-gather of the output, fp32, charged). Every output column's dot product is
  the one chip's, so the bits are too;
- a backward product whose output has the layer's kernel shape (the weight gradient x^T g), or
  its transpose (JAX's g^T x): chip r computes its columns' gradient, which stays on it (nothing
  charged);
- a backward product that contracts over the layer's output columns (the input gradient
  g W^T): chip r computes g_r W_r^T, a partial sum of the whole, and the partial sums are added
  in rank order 0, 1, ..., N-1 (a ring all-reduce of the result, charged): only these bits
  differ from one chip's, as in `mxu train`;
- any other product (a convolution, attention's batched products) is split by its output
  columns like a forward one, its result gathered.
A layer is known by its forward product: (rows, inputs, units) per module (Keras layer) name.
"""
import threading

import numpy as np

from mxu._gemms import DeviceOpError
from mxu.jax import _products
from mxu.jax._function import _ProductFailed
from mxu.keras._replicas import shard_bounds


class ColumnRecorder:
    """The products of one model's steps split over `chips` (the strategy's _Chips)."""

    def __init__(self, chips):
        self.chips = chips
        self.strict = chips.recorders[0].strict
        self.failure = None
        self.device = None  # several chips: no one device to share
        self._layers = {}  # module -> (rows, inputs, units) of its forward product
        self._lock = threading.Lock()

    # ---- what mxu.jax's DeviceFunction asks of its recorder ----
    def product_call(self, primitive, params, out_dtype, module, phase):
        lower, name = _products.LOWERINGS[primitive], primitive.name
        out_dtype = np.dtype(out_dtype)

        def call(lhs, rhs):
            try:
                items, assemble = lower(_products.device_array(lhs),
                                        _products.device_array(rhs), params)
                with self._lock:  # one product at a time over the chips
                    parts = [self._split(item, name, module, phase) for item in items]
                out = assemble(parts)
                return np.asarray(out, order="C").astype(out_dtype, copy=False)
            except (RuntimeError, ValueError) as error:
                shapes = "x".join(map(str, lhs.shape)) + ", " + "x".join(map(str, rhs.shape))
                self.failure = DeviceOpError(f"mxu.jax: {name}({shapes}) on the chips: "
                                             f"{str(error).splitlines()[0]}")
                raise _ProductFailed(str(self.failure)) from None
        return call

    def count_host_product(self, primitive, module, phase):
        self.chips.recorders[0].count_host_product(primitive, module, phase)

    def report(self, node=180):
        return self.chips.report(node)

    # ---- the split ----
    def _kind(self, m, k, n, module, phase):
        if phase == "forward":
            self._layers[module] = (m, k, n)
            return "columns"
        layer = self._layers.get(module)
        if layer is not None:
            rows, inputs, units = layer
            if (m, k, n) == (inputs, rows, units):
                return "weight gradient"
            if (m, k, n) == (units, rows, inputs):  # JAX's g^T x: the kernel's transpose
                return "transposed weight gradient"
            if (m, k, n) == (rows, units, inputs):
                return "input gradient"
        return "columns"

    def _split(self, item, primitive, module, phase):
        a, b, bias, c0, relu = item
        m, k = a.shape
        n = b.shape[1]
        kind = self._kind(m, k, n, module, phase)
        if kind == "input gradient" and bias is None and c0 is None and not relu:
            # chip r: its columns of g and of W, a partial sum
            slices = self._slices(k)
            parts = self._on_chips([(r, (a[:, s:e], b[s:e], None, None, False))
                                    for r, s, e in slices], primitive, module, phase)
            total = parts[0]
            for part in parts[1:]:  # in rank order, as the all-reduce adds them
                total = total + part
            self.chips.ring.all_reduce(4 * m * n)
            return total
        if kind == "transposed weight gradient":  # chip r: the rows of its units
            slices = self._slices(m)
            parts = self._on_chips([(r, (a[s:e], b, bias, None if c0 is None else c0[s:e],
                                         relu)) for r, s, e in slices], primitive, module, phase)
            return np.concatenate(parts, axis=0)
        slices = self._slices(n)
        parts = self._on_chips([(r, (a, b[:, s:e], None if bias is None else bias[s:e],
                                     None if c0 is None else c0[:, s:e], relu))
                                for r, s, e in slices], primitive, module, phase)
        if kind != "weight gradient":  # the output's columns, gathered on every chip
            self.chips.ring.all_gather(4 * m * n)
        return np.concatenate(parts, axis=1)

    def _slices(self, size):
        """(rank, start, stop) of the chips with a share of `size` (chip 0 alone, empty, for 0)."""
        live = [(r, s, e) for r, (s, e) in enumerate(shard_bounds(size, len(self.chips)))
                if e > s]
        return live or [(0, 0, 0)]

    def _on_chips(self, work, primitive, module, phase):
        """Each (rank, GEMM) on its chip, side by side; the products' results in rank order.
        The busiest chip's cycles go to the run's clock."""
        recorders = self.chips.recorders
        before = [recorders[r].cycles for r, _ in work]
        results = self.chips.run([lambda r=r, g=g: recorders[r].run_product(g, primitive, module,
                                                                            phase)
                                  for r, g in work])
        self.chips.add_compute(max(recorders[r].cycles - c for (r, _), c in zip(work, before)))
        return results

