"""What the mode refuses and what it runs elsewhere (issue 58): every op refuses exactly what
PyTorch refuses, with PyTorch's error; bad arguments get a one-line error at once; operands the
device cannot take run on the host, counted; never a silently wrong number. The products run on
test_lowering's exact stand-in device (no simulator); the report's files on the session's
device."""
import errno
import os
import stat

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import mxu.torch  # noqa: E402

import contract  # noqa: E402  (python/tests/torch/contract.py)
from test_lowering import ExactDevice  # noqa: E402


@pytest.fixture
def exact():
    return ExactDevice()


def ones(*shape, dtype=torch.float32):
    return torch.ones(*shape, dtype=dtype)


def host_products(mode):
    return sum(e["host_products"] for e in mode._report._entries.values())


def device_gemms(mode):
    return sum(e["device_gemms"] for e in mode._report._entries.values())


f64 = torch.float64
REFUSED = {
    "bmm batch": lambda: torch.bmm(ones(2, 2, 3), ones(3, 3, 2)),
    "baddbmm batch": lambda: torch.baddbmm(ones(2, 2), ones(2, 2, 3), ones(3, 3, 2)),
    "dot 2-D": lambda: torch.dot(ones(2, 3), ones(6)),
    "mv 2-D vector": lambda: torch.mv(ones(3, 4), ones(4, 1)),
    "mm dtypes": lambda: torch.mm(ones(2, 3), ones(3, 2, dtype=f64)),
    "addmm bias dtype": lambda: torch.addmm(ones(2, dtype=f64), ones(2, 3), ones(3, 2)),
    "mm out dtype": lambda: torch.mm(ones(2, 3), ones(3, 2), out=ones(2, 2, dtype=f64)),
    "mm 1-D": lambda: torch.mm(ones(3), ones(3, 2)),
    "bmm 2-D": lambda: torch.bmm(ones(3, 3), ones(3, 2)),
    "mm inner": lambda: torch.mm(ones(2, 3), ones(4, 2)),
    "addmm_ self shape": lambda: ones(2, 1).addmm_(ones(2, 3), ones(3, 2)),
    "conv channels": lambda: torch.conv2d(ones(1, 3, 5, 5), ones(2, 2, 3, 3)),
    "conv bias dtype": lambda: torch.conv2d(ones(1, 1, 3, 3), ones(1, 1, 2, 2), ones(1, dtype=f64)),
    "conv no output channels": lambda: torch.conv2d(ones(1, 2, 5, 5), ones(0, 2, 3, 3)),
    "mkldnn": lambda: torch.mm(ones(3, 3).to_mkldnn(), ones(3, 3).to_mkldnn()),
}


def _error(call):
    with pytest.raises(Exception) as caught:
        call()
    return type(caught.value), str(caught.value).splitlines()[0]


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_products_refuse_what_pytorch_refuses_with_its_error(exact, case):
    want = _error(REFUSED[case])  # PyTorch's own, on the host
    with mxu.torch.device_mode(exact):
        got = _error(REFUSED[case])
    assert got == want
    assert exact.shapes == []  # nothing reached the device


def test_mixed_dtypes_that_pytorch_takes_run_on_the_host(exact):
    """baddbmm's and addmv's self may have another dtype than the product (the result is the
    product's dtype): the host runs them, counted; strict=True refuses them."""
    self64, a, b = torch.full((2, 2), 0.5, dtype=f64), ones(1, 2, 3), ones(1, 3, 2)
    want = torch.baddbmm(self64, a, b)
    target = self64.clone()
    with mxu.torch.device_mode(exact) as mode:
        got = torch.baddbmm(self64, a, b)
        target.add_(1)  # an op of the host, not a product
    assert got.dtype == torch.float32 and torch.equal(got, want)
    assert host_products(mode) == 1 and exact.shapes == []
    with pytest.raises(mxu.torch.HostProductError, match="float32 and float64"):
        with mxu.torch.device_mode(exact, strict=True):
            torch.addmv(ones(3, dtype=f64), ones(3, 4), ones(4))


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(device=None), TypeError, "device must be an mxu.Device"),
    (dict(strict="no"), TypeError, "strict must be True or False"),
    (dict(watchdog=0), ValueError, "watchdog must be 1 to"),
    (dict(watchdog=-5), ValueError, "watchdog must be 1 to"),
    (dict(watchdog=2**70), ValueError, "watchdog must be 1 to"),
    (dict(watchdog=1.9), TypeError, "watchdog must be a whole number"),
    (dict(watchdog=True), TypeError, "watchdog must be a whole number"),
])
def test_device_mode_arguments_are_refused_at_once(exact, kwargs, error, words):
    kwargs.setdefault("device", exact)
    with pytest.raises(error, match=words) as caught:
        mxu.torch.device_mode(**kwargs)
    assert "\n" not in str(caught.value)


def test_k_zero_returns_the_devices_start(exact, rows=4):
    """K = 0: no products, the accumulators' start through the device's store: every NaN the
    canonical 0x7FC00000 (a signalling or negative one too), -0 kept, ReLU the device's."""
    nans = np.array([0xFFC00000, 0xFF800001, 0x7F800001, 0x80000000, 0xBF800000, 0x3F800000],
                    np.uint32).view(np.float32)
    bias = torch.from_numpy(nans.copy())
    c0 = bias.reshape(2, 3)
    a, b = ones(1, 0), ones(0, 6)
    with mxu.torch.device_mode(exact):
        got = [torch.addmm(bias, a, b), torch._addmm_activation(bias, a, b),
               torch.addmm(c0, ones(2, 0), ones(0, 3)), torch.mm(a, b)]
    want = [contract.gemm(np.zeros((1, 0)), np.zeros((0, 6)), rows, bias=nans),
            contract.gemm(np.zeros((1, 0)), np.zeros((0, 6)), rows, bias=nans, relu=True),
            contract.gemm(np.zeros((2, 0)), np.zeros((0, 3)), rows, c0=nans.reshape(2, 3)),
            np.zeros((1, 6), np.float32)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.view(torch.int32).numpy(), w.view(np.int32))


@pytest.mark.parametrize("x_shape, w_shape, transposed", [
    ((0, 2, 5, 5), (3, 2, 3, 3), False),  # batch 0
    ((2, 0, 5, 5), (3, 0, 3, 3), False),  # no input channels (PyTorch: an empty result)
    ((0, 2, 6), (3, 2, 3), False),  # 1-D, batch 0
    ((0, 2, 4, 4), (2, 3, 3, 3), True),  # transposed, batch 0
])
def test_zero_size_convolutions_are_pytorchs(exact, x_shape, w_shape, transposed):
    def run():
        x = torch.ones(x_shape, requires_grad=True)
        w = torch.full(w_shape, 2.0, requires_grad=True)
        b = torch.full((w_shape[1] if transposed else w_shape[0],), 3.0, requires_grad=True)
        conv = {(4, False): torch.conv2d, (3, False): torch.conv1d,
                (4, True): torch.conv_transpose2d}[(len(x_shape), transposed)]
        y = conv(x, w, b)
        y.sum().backward()
        return [y.detach(), x.grad, w.grad, b.grad]
    want = run()
    with mxu.torch.device_mode(exact):
        got = run()
    for g, w in zip(got, want):
        assert g.shape == w.shape and torch.equal(g, w)


@pytest.mark.parametrize("layout", ["sparse_coo", "sparse_csr"])
def test_sparse_operands_run_on_the_host(exact, layout):
    s = torch.eye(3).to_sparse() if layout == "sparse_coo" else torch.eye(3).to_sparse_csr()
    d = torch.arange(6.0).reshape(3, 2)
    with mxu.torch.device_mode(exact) as mode:
        got = [torch.mm(s, d), torch.addmm(d, s, d)]
    assert torch.equal(got[0], d) and torch.equal(got[1], 2 * d)
    assert host_products(mode) == 2 and exact.shapes == []
    with pytest.raises(mxu.torch.HostProductError, match=rf"aten\.mm with {layout} operands"):
        with mxu.torch.device_mode(exact, strict=True):
            torch.mm(s, d)


def test_traced_convolutions_and_conv_tbc_run_on_the_device(exact):
    """torch.jit.trace records convolutions as aten._convolution; conv_tbc is conv1d in the
    (time, batch, channel) layout. Both are lowered as aten.convolution (integer values: the
    stand-in device is exact)."""
    conv = torch.nn.Conv2d(2, 3, 3).double()
    with torch.no_grad():
        conv.weight.copy_(torch.randint(-3, 4, conv.weight.shape))
        conv.bias.copy_(torch.randint(-3, 4, conv.bias.shape))
    x = torch.randint(-3, 4, (2, 2, 5, 5)).double()
    traced = torch.jit.trace(conv, x)
    xt = torch.randint(-3, 4, (7, 2, 3)).double().requires_grad_()
    wt = torch.randint(-3, 4, (3, 3, 4)).double().requires_grad_()
    bt = torch.randint(-3, 4, (4,)).double().requires_grad_()
    want = [conv(x), torch.conv_tbc(xt, wt, bt, 1)]
    want += list(torch.autograd.grad(want[1].sum(), (xt, wt, bt)))
    with mxu.torch.device_mode(exact, strict=True) as mode:
        got = [traced(x), torch.conv_tbc(xt, wt, bt, 1)]
        got += list(torch.autograd.grad(got[1].sum(), (xt, wt, bt)))
    for g, w in zip(got, want):
        assert torch.equal(g, w)
    ops = {e["op"] for e in mode._report._entries.values() if e["device_gemms"]}
    assert {"aten._convolution", "aten.conv_tbc"} <= ops and host_products(mode) == 0


class Failing(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.nn.Linear(3, 3)

    def forward(self, x):
        self.inner(x)
        raise ValueError("a forward that fails")


def test_a_forward_that_raises_leaves_no_stale_module(exact):
    outer = torch.nn.Sequential(torch.nn.Linear(3, 3), Failing())
    with mxu.torch.device_mode(exact) as mode:
        with pytest.raises(ValueError, match="fails"):
            outer(ones(2, 3))
        torch.mm(ones(2, 3), ones(3, 2))  # outside any module
        torch.nn.Linear(3, 2)(ones(2, 3))  # a module of its own, called alone
    modules = {(e["op"], e["module"]) for e in mode._report._entries.values()}
    assert modules == {("aten.addmm", "0"), ("aten.addmm", "1.inner"), ("aten.mm", None),
                       ("aten.addmm", "Linear")}


def test_write_report_follows_the_output_rule(dev, tmp_path):
    with mxu.torch.device_mode(dev) as mode:
        torch.mm(ones(4, 3), ones(3, 2))
    path = tmp_path / "r.json"
    path.write_text("old")
    path.chmod(0o644)
    link = tmp_path / "link.json"
    link.symlink_to(path)
    mxu.torch.write_report(mode, str(link))
    assert link.is_symlink() and stat.S_IMODE(path.stat().st_mode) == 0o644
    assert path.read_text().startswith("{")
    path.chmod(0o640)
    mxu.torch.write_report(mode, str(path))  # replaced, not made 0600
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refusals = [("", "needs a file name"), (str(tmp_path), "it is a directory"),
                (str(fifo), "not a regular file")]  # (as a FIFO, so is /dev/null refused)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nothing")
    refusals.append((str(dangling), "a symbolic link to nothing"))
    for bad, words in refusals:
        with pytest.raises(ValueError, match=words):
            mxu.torch.write_report(mode, bad)
    with pytest.raises(ValueError, match="name one file"):
        mxu.torch.write_report(mode, str(tmp_path / "x.json"), plot=str(tmp_path / "x.json"))
    with pytest.raises(ValueError, match="name one file"):
        mxu.torch.write_report(mode, str(path), plot=str(link))
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "fifo", "link.json",
                                                          "r.json"]
    new = tmp_path / "new.json"
    mxu.torch.write_report(mode, str(new))
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask


def test_a_path_the_file_system_refuses_is_an_output_file_error(dev, tmp_path):
    """Issue 69: a path under a regular file, or a name too long, raised the file system's raw
    NotADirectoryError or OSError."""
    with mxu.torch.device_mode(dev) as mode:
        torch.mm(ones(4, 3), ones(3, 2))
    afile = tmp_path / "afile"
    afile.write_text("")
    long_name = "x" * 300 + ".json"
    refusals = [(afile / "r.json", f"'{afile}' is not a directory"),
                (afile / "sub" / "r.json", f"'{afile}' is not a directory"),
                (tmp_path / long_name, f"the file name is too long (305 bytes; at most "
                                       f"{os.pathconf(tmp_path, 'PC_NAME_MAX')} here)"),
                (f"{tmp_path}/nul\0.json", "the path holds a NUL character")]
    for path, words in refusals:
        for kwargs in ({}, {"plot": str(path)}):
            report = str(path) if not kwargs else str(tmp_path / "r.json")
            with pytest.raises(mxu._output.OutputFileError) as caught:
                mxu.torch.write_report(mode, report, **kwargs)
            message = str(caught.value)
            assert message.startswith(f"cannot write {'plot' if kwargs else 'report'} file "
                                      f"'{path}': ") and message.endswith(words), message
            assert "\n" not in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # nothing written
    # The longest name there is (in bytes; 2 a character here): its hidden temporary file's name
    # is cut to fit.
    longest = tmp_path / ("\u00e9" * ((os.pathconf(tmp_path, "PC_NAME_MAX") - 5) // 2) + ".json")
    mxu.torch.write_report(mode, str(longest))
    assert longest.read_text().startswith("{")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", longest.name]


def test_a_failure_while_writing_is_an_output_file_error_and_leaves_nothing(tmp_path):
    path = tmp_path / "r.json"

    def full_disk(temporary):
        with open(temporary, "w") as f:
            f.write("{")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    with pytest.raises(mxu._output.OutputFileError,
                       match=f"^cannot write report file '{path}': no space left on device$"):
        mxu._output.write_whole(str(path), full_disk, "report")
    assert list(tmp_path.iterdir()) == []
