"""A linear layer's two backward products as one device program.

AddmmBackward0 and MmBackward0 compute their inputs' gradients (grad @ mat2^T and mat1^T @ grad)
as two separate aten.mm calls, one after the other. The mode remembers each forward product
whose two inputs both need gradients; when the first backward product of one arrives, both run
as one device batch, and the other's result waits here for its call. PyTorch asks for each in
one of two forms (for a column-major operand, such as nn.Linear's W^T, the transposed product,
transposed back): one result serves both, since C^T = B^T A^T adds the same products in the same
order (the bits are the same).
"""


def _view(t):
    """What identifies a tensor's values here: its storage, shape, strides, version, dtype."""
    return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t._version, t.dtype)


def _transposed_view(t):
    """_view(t.t()) without making the view."""
    return (t.data_ptr(), tuple(reversed(t.shape)), tuple(reversed(t.stride())), t._version,
            t.dtype)


class Pairs:
    """Forward products whose backward makes two products, and second products computed ahead."""

    def __init__(self):
        self._forward = []  # [mat1, mat2] of forward products in order; None once paired
        self._by_storage = {}  # data_ptr of mat1 or mat2 -> indices into _forward, ascending
        self._waiting = {}  # (_view(a), _view(b)) -> mm(a, b)'s float32 result

    def remember(self, mat1, mat2):
        index = len(self._forward)
        self._forward.append((mat1, mat2))
        for t in {mat1.data_ptr(), mat2.data_ptr()}:
            self._by_storage.setdefault(t, []).append(index)

    def clear(self):
        """At the end of a backward pass (or the mode): nothing carries over."""
        self._forward.clear()
        self._by_storage.clear()
        self._waiting.clear()

    def waiting(self):
        return len(self._waiting)

    def take(self, a, b):
        """mm(a, b)'s result if it was computed with the product before it, else None."""
        return self._waiting.pop((_view(a), _view(b)), None)

    def partner(self, a, b):
        """When mm(a, b) is one of the two gradient products of a remembered product: the other
        one, as the operands (a, b) of GEMM(a, b) and the two calls that may ask for it, each
        with whether its result is that GEMM's transposed. The input's gradient is grad @ mat2^T
        (or mat2 @ grad^T, transposed by PyTorch), the weight's mat1^T @ grad (or grad^T @ mat1);
        which comes first depends on the node (MmBackward0 computes the weight's first)."""
        # Only products sharing a storage with a or b can match (an index keeps a long RNN's
        # backward linear); the latest first: a backward pass runs the nodes in reverse (an
        # RNN's steps share their weight, so only the order tells whose product this is).
        candidates = set(self._by_storage.get(a.data_ptr(), ())) | set(
            self._by_storage.get(b.data_ptr(), ()))
        for i in sorted(candidates, reverse=True):
            if self._forward[i] is None:
                continue
            mat1, mat2 = self._forward[i]
            grad = self._grad_of_input_product(a, b, mat1, mat2)
            if grad is not None:  # the weight's gradient comes next
                self._forget(i)
                return (mat1.t(), grad), [((_transposed_view(mat1), _view(grad)), False),
                                          ((_transposed_view(grad), _view(mat1)), True)]
            grad = self._grad_of_weight_product(a, b, mat1, mat2)
            if grad is not None:  # the input's gradient comes next
                self._forget(i)
                return (grad, mat2.t()), [((_view(grad), _transposed_view(mat2)), False),
                                          ((_view(mat2), _transposed_view(grad)), True)]
        return None

    def _forget(self, i):
        mat1, mat2 = self._forward[i]
        self._forward[i] = None
        for t in {mat1.data_ptr(), mat2.data_ptr()}:
            self._by_storage[t].remove(i)

    @staticmethod
    def _grad_of_input_product(a, b, mat1, mat2):
        rows, cols = mat1.shape[0], mat2.shape[1]
        if _view(b) == _transposed_view(mat2) and tuple(a.shape) == (rows, cols):
            return a  # grad @ mat2^T
        if _view(a) == _view(mat2) and tuple(b.shape) == (cols, rows):
            return b.t()  # mat2 @ grad^T
        return None

    @staticmethod
    def _grad_of_weight_product(a, b, mat1, mat2):
        rows, cols = mat1.shape[0], mat2.shape[1]
        if _view(a) == _transposed_view(mat1) and tuple(b.shape) == (rows, cols):
            return b  # mat1^T @ grad
        if _view(b) == _view(mat1) and tuple(a.shape) == (cols, rows):
            return a.t()  # grad^T @ mat1
        return None

    def expect(self, calls, result):
        """The other product's result, for each call that may ask for it."""
        for key, transposed in calls:
            self._waiting[key] = result.t().contiguous() if transposed else result
