"""The lowerings of mxu.torch (products, convolutions) against PyTorch's own ops, on an exact
stand-in device: integer-valued operands, so that every product and sum is exact and any
difference is a lowering's mistake (a wrong index, stride, flip or padding), not rounding.
No simulator: the device here is a float64 matrix product that records what it was given."""
import itertools

import pytest

torch = pytest.importorskip("torch")
import mxu.torch  # noqa: E402

from exact_device import ExactDevice  # noqa: E402  (python/tests/torch/exact_device.py)


def integers(*shape, requires_grad=False):
    t = torch.randint(-3, 4, shape).to(torch.float64)
    return t.requires_grad_(requires_grad)


def run_both(fn, inputs):
    """fn(*inputs) and its gradients, on the host and under the mode (the same output
    gradient for both)."""
    results = []
    grad = None
    for on_device in (False, True):
        leaves = [x.detach().clone().requires_grad_(x.requires_grad) for x in inputs]
        mode = mxu.torch.device_mode(ExactDevice()) if on_device else None
        if on_device:
            with mode:
                y = fn(*leaves)
                y.backward(grad)
        else:
            y = fn(*leaves)
            grad = integers(*y.shape)
            y.backward(grad)
        results.append((y.detach(), [x.grad for x in leaves if x.requires_grad],
                        mode.report() if on_device else None))
    return results


CONV_CASES = [
    # dims, stride, padding, dilation, groups, transposed, output_padding
    (1, 1, 0, 1, 1, False, 0),
    (1, 2, 1, 2, 2, False, 0),
    (2, 1, 1, 1, 1, False, 0),
    (2, (2, 1), (1, 0), (1, 2), 1, False, 0),
    (2, 2, 0, 1, 2, False, 0),
    (2, 3, 2, 1, 1, False, 0),
    (3, 1, 1, 1, 1, False, 0),
    (3, 2, 0, (1, 2, 1), 1, False, 0),
    (1, 2, 1, 1, 1, True, 1),
    (2, 1, 0, 1, 1, True, 0),
    (2, 2, 1, 1, 2, True, 1),
    (2, (2, 3), (0, 1), (2, 1), 1, True, (1, 2)),
    (3, 2, 1, 1, 1, True, 0),
]


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: "-".join(map(str, c)))
def test_convolution_forward_and_backward_match_pytorch(case):
    dims, stride, padding, dilation, groups, transposed, output_padding = case
    torch.manual_seed(0)
    size = {1: (9,), 2: (7, 8), 3: (5, 6, 5)}[dims]
    kernel = {1: (3,), 2: (3, 2), 3: (2, 3, 2)}[dims]
    cin, cout = 4, 6
    x = integers(2, cin, *size, requires_grad=True)
    if transposed:
        w = integers(cin, cout // groups, *kernel, requires_grad=True)
    else:
        w = integers(cout, cin // groups, *kernel, requires_grad=True)
    b = integers(cout, requires_grad=True)

    def expand(v):
        return tuple(v) if isinstance(v, tuple) else (v,) * dims

    def conv(x, w, b):
        return torch.convolution(x, w, b, expand(stride), expand(padding), expand(dilation),
                                 transposed, expand(output_padding), groups)

    (y_host, g_host, _), (y_dev, g_dev, report) = run_both(conv, [x, w, b])
    assert torch.equal(y_host, y_dev)
    for host, dev in zip(g_host, g_dev):
        assert torch.equal(host, dev)
    assert report["totals"]["host_products"] == 0
    # forward, input gradient, weight gradient: one GEMM per group each
    assert report["totals"]["device_gemms"] == 3 * groups


@pytest.mark.parametrize("op", ["mm", "addmm", "addmm_beta", "bmm", "bmm_broadcast",
                                "baddbmm", "addbmm", "mv", "addmv", "dot", "matmul_3d_2d",
                                "einsum", "linear_no_bias"])
def test_products_match_pytorch(op):
    torch.manual_seed(0)
    a = integers(5, 7, requires_grad=True)
    b = integers(7, 3, requires_grad=True)
    a3 = integers(2, 5, 7, requires_grad=True)
    b3 = integers(2, 7, 3, requires_grad=True)
    v = integers(7, requires_grad=True)
    c = integers(5, 3, requires_grad=True)
    bias = integers(3, requires_grad=True)
    fns = {
        "mm": (lambda a, b: a @ b, [a, b]),
        "addmm": (lambda bias, a, b: torch.addmm(bias, a, b), [bias, a, b]),
        "addmm_beta": (lambda c, a, b: torch.addmm(c, a, b, beta=2, alpha=-3), [c, a, b]),
        "bmm": (lambda a, b: torch.bmm(a, b), [a3, b3]),
        "bmm_broadcast": (lambda a, b: a @ b, [a3, b]),
        "baddbmm": (lambda c, a, b: torch.baddbmm(c, a, b), [c, a3, b3]),
        "addbmm": (lambda c, a, b: torch.addbmm(c, a, b), [c, a3, b3]),
        "mv": (lambda a, v: torch.mv(a, v), [a, v]),
        "addmv": (lambda s, a, v: torch.addmv(s, a, v), [integers(5, requires_grad=True), a, v]),
        "dot": (lambda x, y: torch.dot(x, y), [v, integers(7, requires_grad=True)]),
        "matmul_3d_2d": (lambda a, b: torch.matmul(a, b), [a3, b]),
        "einsum": (lambda a, b: torch.einsum("bik,bkj->bij", a, b), [a3, b3]),
        "linear_no_bias": (lambda x, w: torch.nn.functional.linear(x, w), [a, b.t().detach()
                                                                         .requires_grad_()]),
    }
    fn, inputs = fns[op]
    (y_host, g_host, _), (y_dev, g_dev, report) = run_both(fn, inputs)
    assert torch.equal(y_host, y_dev)
    for host, dev in zip(g_host, g_dev):
        assert torch.equal(host, dev)
    assert report["totals"]["host_products"] == 0
    assert report["totals"]["device_gemms"] > 0


def test_out_and_in_place_forms_write_their_target():
    torch.manual_seed(0)
    a, b, c = integers(4, 6), integers(6, 3), integers(4, 3)
    dev = ExactDevice()
    with mxu.torch.device_mode(dev):
        out = torch.empty(0, dtype=torch.float64)
        torch.mm(a, b, out=out)
        inplace = c.clone()
        inplace.addmm_(a, b)
        baddbmm = c.clone().expand(2, 4, 3).contiguous()
        baddbmm.baddbmm_(a.expand(2, 4, 6), b.expand(2, 6, 3))
    assert torch.equal(out, a @ b)
    assert torch.equal(inplace, c + a @ b)
    assert torch.equal(baddbmm, (c + a @ b).expand(2, 4, 3))
    assert len(dev.shapes) == 4


def test_a_product_beyond_one_gemm_is_split_exactly():
    """K past 65,535 is cut at tile boundaries and chained through C0; M likewise split."""
    dev = ExactDevice(rows=4)
    a = torch.ones(3, 70000, dtype=torch.float64)
    b = torch.ones(70000, 2, dtype=torch.float64)
    with mxu.torch.device_mode(dev):
        c = a @ b
    assert torch.equal(c, torch.full((3, 2), 70000.0, dtype=torch.float64))
    assert [s[1] % 4 for s in dev.shapes[:-1]] == [0] * (len(dev.shapes) - 1)
    assert sum(s[1] for s in dev.shapes) == 70000
