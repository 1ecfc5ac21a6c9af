"""Every product of the mode on the session's device (the RTL), bit for bit against the NumPy
reproduction of the numeric contract (contract.py: no code shared with the device or the mode),
each with the lowering docs/torch.md gives it."""
import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import mxu.torch  # noqa: E402

import contract  # noqa: E402  (python/tests/torch/contract.py)


@pytest.fixture(scope="module")
def rows(dev):
    return int(dev.info()["array_rows"])


def bits(t):
    return t.detach().to(torch.float32).contiguous().view(torch.int32).numpy()


def same_bits(got, want):
    want = np.ascontiguousarray(want, np.float32).view(np.int32)
    np.testing.assert_array_equal(bits(got), want)


def rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


def numpy(t):
    return t.detach().to(torch.float32).numpy()


def test_mm_and_transposed_views(dev, rows):
    a, b = rand(20, 37), rand(37, 11, seed=1)
    at, bt = a.t().contiguous().t(), b.t().contiguous().t()  # transposed views
    with mxu.torch.device_mode(dev) as mode:
        c = a @ b
        copied = at @ bt  # laid out row-major on the host
    with mxu.torch.device_mode(dev, transposed="device") as loads:
        loaded = at @ bt  # the device's transposing loads: ta, tb
    want = contract.gemm(numpy(a), numpy(b), rows)
    same_bits(c, want)
    same_bits(copied, want)
    same_bits(loaded, want)
    assert mode.report()["totals"]["device_gemms"] == 2
    # The transposer's loads are the device's work: they cost cycles the copies do not.
    assert loads.report()["totals"]["device_cycles"] > mode.report()["totals"][
        "device_cycles"] / 2


def test_addmm_bias_c0_alpha_beta_and_relu(dev, rows):
    a, b = rand(9, 40), rand(40, 13, seed=1)
    bias, c0 = rand(13, seed=2), rand(9, 13, seed=3)
    with mxu.torch.device_mode(dev):
        with_bias = torch.addmm(bias, a, b)
        with_c0 = torch.addmm(c0, a, b)
        scaled = torch.addmm(c0, a, b, beta=0.5, alpha=-2.0)
        relu = torch._addmm_activation(bias, a, b)
    A, B = numpy(a), numpy(b)
    same_bits(with_bias, contract.gemm(A, B, rows, bias=numpy(bias)))
    same_bits(with_c0, contract.gemm(A, B, rows, c0=numpy(c0)))
    product = contract.gemm(A, B, rows)
    same_bits(scaled, product * np.float32(-2.0) + numpy(c0) * np.float32(0.5))
    same_bits(relu, contract.gemm(A, B, rows, bias=numpy(bias), relu=True))


def test_batched_and_vector_products(dev, rows):
    a3, b3 = rand(3, 6, 21), rand(3, 21, 5, seed=1)
    c, m, v, w = rand(6, 5, seed=2), rand(6, 21, seed=3), rand(21, seed=4), rand(21, seed=5)
    s = rand(6, seed=6)
    with mxu.torch.device_mode(dev):
        bmm = torch.bmm(a3, b3)
        baddbmm = torch.baddbmm(c, a3, b3)
        addbmm = torch.addbmm(c, a3, b3)
        mv = torch.mv(m, v)
        addmv = torch.addmv(s, m, v)
        dot = torch.dot(v, w)
    for i in range(3):
        same_bits(bmm[i], contract.gemm(numpy(a3[i]), numpy(b3[i]), rows))
        same_bits(baddbmm[i], contract.gemm(numpy(a3[i]), numpy(b3[i]), rows, c0=numpy(c)))
    # addbmm: the batches side by side along K, one GEMM
    wide = np.concatenate([numpy(a3[i]) for i in range(3)], axis=1)
    tall = np.concatenate([numpy(b3[i]) for i in range(3)], axis=0)
    same_bits(addbmm, contract.gemm(wide, tall, rows, c0=numpy(c)))
    # mv: vec^T (1 x K) x mat^T; addmv's self is the bias
    same_bits(mv, contract.gemm(numpy(v)[None], numpy(m).T, rows)[0])
    same_bits(addmv, contract.gemm(numpy(v)[None], numpy(m).T, rows, bias=numpy(s))[0])
    same_bits(dot, contract.gemm(numpy(v)[None], numpy(w)[:, None], rows)[0, 0])


def test_batches_run_as_one_program_with_the_same_bits(dev, rows):
    """bmm's batch, a grouped convolution's groups and a convolution backward's two gradients
    run as one device program each (batch=True, the default): the bits of one program per GEMM
    (batch=False), fewer cycles."""
    a3, b3 = rand(24, 10, 16), rand(24, 16, 10, seed=1)
    conv = torch.nn.Conv2d(4, 6, 3, groups=2)
    x = rand(2, 4, 7, 7, seed=2).requires_grad_()
    results = {}
    for batch in (True, False):
        conv.zero_grad()
        x.grad = None
        with mxu.torch.device_mode(dev, batch=batch) as mode:
            y = torch.bmm(a3, b3)
            conv(x).sum().backward()
        ops = {e["op"]: e for e in mode.report()["ops"]}
        results[batch] = (y, x.grad.clone(), conv.weight.grad.clone(), ops)
    (y1, gx1, gw1, ops1), (y0, gx0, gw0, ops0) = results[True], results[False]
    for got, want in ((y1, y0), (gx1, gx0), (gw1, gw0)):
        same_bits(got, numpy(want))
    for i in range(24):
        same_bits(y1[i], contract.gemm(numpy(a3[i]), numpy(b3[i]), rows))
    for op in ("aten.bmm", "aten.convolution", "aten.convolution_backward"):
        assert ops1[op]["device_gemms"] == ops0[op]["device_gemms"] > 1, op
        assert ops1[op]["device_cycles"] < ops0[op]["device_cycles"], op
    with pytest.raises(TypeError, match="batch must be True or False"):
        mxu.torch.device_mode(dev, batch="yes")


@pytest.mark.parametrize("kind", ["linear", "lstm", "gru"])
def test_a_linear_backward_runs_its_two_products_as_one_program(dev, kind):
    """The input's and the weight's gradient of a product whose inputs both need them run as one
    program: the bits of one program each, the same GEMMs (none computed for nothing), fewer
    cycles."""
    torch.manual_seed(3)
    if kind == "linear":
        model = torch.nn.Sequential(torch.nn.Linear(24, 20), torch.nn.ReLU(),
                                    torch.nn.Linear(20, 6))
        x = rand(12, 24, seed=7)
    else:
        model = (torch.nn.LSTM if kind == "lstm" else torch.nn.GRU)(5, 12, batch_first=True)
        x = rand(3, 4, 5, seed=7)
    runs = {}
    for batch in (True, False):
        model.zero_grad()
        with mxu.torch.device_mode(dev, batch=batch) as mode:
            out = model(x)
            (out[0] if isinstance(out, tuple) else out).pow(2).sum().backward()
        runs[batch] = ([p.grad.clone() for p in model.parameters()], mode.report()["totals"])
    (paired, totals), (alone, totals_alone) = runs[True], runs[False]
    for got, want in zip(paired, alone):
        same_bits(got, numpy(want))
    assert totals["device_gemms"] == totals_alone["device_gemms"]
    assert totals["device_macs"] == totals_alone["device_macs"]
    assert totals["device_cycles"] < totals_alone["device_cycles"]


def test_the_profile_prices_energy_and_time_at_fmax(dev):
    with mxu.torch.device_mode(dev) as mode:
        torch.mm(rand(40, 30), rand(30, 20, seed=1))
    report = mode.report()
    totals, energy = report["totals"], report["energy"]
    assert energy["node_nm"] == 180 and energy["table"] == "measured"
    assert totals["energy_uj"] > 0 and totals["energy_uj"] == pytest.approx(
        sum(e["energy_uj"] for e in report["ops"]))
    assert totals["seconds_at_fmax"] == pytest.approx(
        totals["device_cycles"] / (energy["clock_mhz"] * 1e6))
    scaled = mode.report(node=mxu.energy_nodes()[0])
    assert scaled["energy"]["table"] == "scaled"
    assert scaled["totals"]["energy_uj"] < totals["energy_uj"]  # a smaller node spends less
    with pytest.raises(ValueError, match="node 3: no energy table"):
        mode.report(node=3)


def test_special_values(dev, rows):
    """Inf, NaN (any payload: the canonical NaN), -0, subnormals, values that round in bf16."""
    specials = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e-40, -3e-39, 3.0e38, 1.0039063,
                         -2.5, 1e-20, 7.0], np.float32)
    g = np.random.default_rng(7)
    a = torch.from_numpy(g.choice(specials, size=(8, 20)).astype(np.float32))
    b = torch.from_numpy(g.choice(specials, size=(20, 6)).astype(np.float32))
    with mxu.torch.device_mode(dev):
        c = a @ b
    same_bits(c, contract.gemm(a.numpy(), b.numpy(), rows))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_other_float_dtypes_come_back_in_their_dtype(dev, rows, dtype):
    a, b = rand(7, 19).to(dtype), rand(19, 4, seed=1).to(dtype)
    with mxu.torch.device_mode(dev):
        c = a @ b
    assert c.dtype == dtype
    want = contract.gemm(numpy(a), numpy(b), rows)  # float32 first (exact but for float64)
    np.testing.assert_array_equal(
        c.view(torch.int16 if dtype != torch.float64 else torch.int64).numpy(),
        torch.from_numpy(want).to(dtype).view(
            torch.int16 if dtype != torch.float64 else torch.int64).numpy())


def bf16_bits(x):
    """The contract's fp32 -> bf16 of float32 values, as uint16: round to nearest even, NaN the
    canonical 0x7FC0."""
    out = (contract.to_bf16(x).view(np.uint32) >> 16).astype(np.uint16)
    out[np.isnan(x)] = 0x7FC0
    return out


def test_bfloat16_results_have_the_canonical_nan(dev, rows):
    """Issue 69: a NaN in a bfloat16 result came back 0xFFFF (PyTorch's vectorized float ->
    bfloat16 conversion); the contract's, mxu.jax's and the CLI's is 0x7FC0. mm (addmm's and
    every 2-D product's conversion), bmm's batch and a convolution."""
    a, b = rand(6, 20).to(torch.bfloat16), rand(20, 5, seed=1).to(torch.bfloat16)
    a[0, 3], a[1, 0], a[1, 1], b[0, 2], b[1, 2] = float("nan"), float("inf"), 1.0, 1.0, \
        float("-inf")  # row 0 all NaN; (1, 2) Inf - Inf; the rest finite
    x = rand(1, 2, 5, 5, seed=2).to(torch.bfloat16)
    x[0, 1, 2, 2] = float("nan")
    w = rand(3, 2, 3, 3, seed=3).to(torch.bfloat16)
    with mxu.torch.device_mode(dev):
        c = a @ b
        batched = torch.bmm(torch.stack([a, a.flip(0)]), torch.stack([b, b]))
        conv = torch.nn.functional.conv2d(x, w, padding=1)
    want = contract.gemm(numpy(a), numpy(b), rows)
    assert np.isnan(want).sum() == 5 + 1
    np.testing.assert_array_equal(c.view(torch.int16).numpy().view(np.uint16), bf16_bits(want))
    for result in (batched, conv):
        nan = torch.isnan(result)
        assert result.dtype == torch.bfloat16 and nan.any()
        assert (result.view(torch.int16)[nan] == 0x7FC0).all()


def test_linear_forward_and_backward(dev, rows):
    """nn.Linear: addmm forward; backward grad_input = gO @ W, grad_W = (x^T @ gO)^T."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(24, 10)
    x = rand(12, 24, seed=1).requires_grad_()
    g = rand(12, 10, seed=2)
    with mxu.torch.device_mode(dev) as mode:
        y = layer(x)
        y.backward(g)
    W, X, G = numpy(layer.weight), numpy(x), numpy(g)
    same_bits(y, contract.gemm(X, W.T, rows, bias=numpy(layer.bias)))
    same_bits(x.grad, contract.gemm(G, W, rows))
    same_bits(layer.weight.grad, contract.gemm(X.T, G, rows).T)
    report = mode.report()
    phases = {(e["op"], e["phase"], e["module"]) for e in report["ops"]}
    assert ("aten.addmm", "forward", "Linear") in phases
    assert ("aten.mm", "backward", "Linear") in phases
    assert report["totals"]["device_gemms"] == 3


def im2col(x, kh, kw, stride, pad):
    """(N, C, H, W) -> (N*OH*OW, C*kh*kw): rows (image, output row, output column), columns
    (channel, kernel row, kernel column); written apart from the mode's lowering."""
    n, c, h, w = x.shape
    xp = np.zeros((n, c, h + 2 * pad, w + 2 * pad), np.float32)
    xp[:, :, pad:pad + h, pad:pad + w] = x
    oh, ow = (h + 2 * pad - kh) // stride + 1, (w + 2 * pad - kw) // stride + 1
    cols = np.zeros((n, oh, ow, c, kh, kw), np.float32)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, :, :, i, j] = xp[:, :, i:i + stride * oh:stride,
                                        j:j + stride * ow:stride].transpose(0, 2, 3, 1)
    return cols.reshape(n * oh * ow, c * kh * kw), oh, ow


def test_conv2d_forward_and_backward(dev, rows):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
    x = rand(2, 3, 7, 6, seed=1).requires_grad_()
    with mxu.torch.device_mode(dev) as mode:
        y = conv(x)
        g = rand(*y.shape, seed=2)
        y.backward(g)
    cols, oh, ow = im2col(numpy(x), 3, 3, 2, 1)
    W = numpy(conv.weight).reshape(4, -1)
    want = contract.gemm(cols, W.T, rows, bias=numpy(conv.bias))
    same_bits(y, want.reshape(2, oh, ow, 4).transpose(0, 3, 1, 2))
    G = numpy(g).transpose(1, 0, 2, 3).reshape(4, -1)  # (OC, N x OH x OW)
    same_bits(conv.weight.grad, contract.gemm(G, cols, rows).reshape(conv.weight.shape))
    # The input gradient: the transposed convolution, i.e. the convolution of g spread out by
    # the stride and padded by k - 1 - p, with the kernel flipped and its channel axes swapped.
    spread = np.zeros((2, 4, (oh - 1) * 2 + 1, (ow - 1) * 2 + 1), np.float32)
    spread[:, :, ::2, ::2] = numpy(g)
    extra_h = 7 - ((oh - 1) * 2 - 2 + 3)
    extra_w = 6 - ((ow - 1) * 2 - 2 + 3)
    padded = np.zeros((2, 4, spread.shape[2] + 2 + extra_h, spread.shape[3] + 2 + extra_w),
                      np.float32)
    padded[:, :, 1:1 + spread.shape[2], 1:1 + spread.shape[3]] = spread
    gcols, gh, gw = im2col(padded, 3, 3, 1, 0)
    flipped = numpy(conv.weight)[:, :, ::-1, ::-1].transpose(1, 0, 2, 3).reshape(3, -1)
    grad_input = contract.gemm(gcols, flipped.T, rows).reshape(2, gh, gw, 3).transpose(0, 3, 1, 2)
    same_bits(x.grad, grad_input)
    assert mode.report()["totals"]["host_products"] == 0


def test_integer_products_stay_on_the_host(dev):
    a = torch.arange(12).reshape(3, 4)
    with mxu.torch.device_mode(dev) as mode:
        c = a @ a.t()
    assert torch.equal(c, torch.arange(12).reshape(3, 4) @ torch.arange(12).reshape(3, 4).t())
    totals = mode.report()["totals"]
    assert totals["host_products"] == 1 and totals["device_gemms"] == 0
    with pytest.raises(mxu.torch.HostProductError, match="int64"):
        with mxu.torch.device_mode(dev, strict=True):
            a @ a.t()


def test_hidden_products_are_counted_or_refused(dev):
    bilinear = torch.nn.Bilinear(3, 4, 2)
    x1, x2 = rand(5, 3), rand(5, 4, seed=1)
    with mxu.torch.device_mode(dev) as mode:
        bilinear(x1, x2)
    assert mode.report()["totals"]["host_products"] >= 1
    with pytest.raises(mxu.torch.HostProductError, match="_trilinear"):
        with mxu.torch.device_mode(dev, strict=True):
            bilinear(x1, x2)


def test_backward_outside_the_mode_runs_on_the_host_and_is_counted(dev):
    layer = torch.nn.Linear(8, 3)
    x = rand(4, 8).requires_grad_()
    with mxu.torch.device_mode(dev) as mode:
        y = layer(x).sum()
    y.backward()
    totals = mode.report()["totals"]
    assert totals["device_gemms"] == 1
    assert totals["host_products"] == 2  # grad_input and grad_weight


def test_a_tensor_on_another_torch_device_is_refused(dev):
    with pytest.raises(mxu.torch.ForeignTensorError, match=r"aten\.mm.*meta"):
        with mxu.torch.device_mode(dev):
            torch.empty(3, 4, device="meta") @ torch.empty(4, 2, device="meta")


def test_a_device_error_names_the_op_and_leaves_tensors_untouched(dev):
    c = rand(16, 16)
    before = c.clone()
    with pytest.raises(mxu.torch.DeviceOpError, match=r"aten\.addmm_\(16x16, 16x64, 64x16\)"):
        with mxu.torch.device_mode(dev, watchdog=20):
            c.addmm_(rand(16, 64), rand(64, 16))
    assert torch.equal(c, before)


def test_modes_do_not_nest_and_belong_to_their_thread(dev, rows):
    with mxu.torch.device_mode(dev):
        with pytest.raises(RuntimeError, match="already active"):
            with mxu.torch.device_mode(dev):
                pass
    a, b = rand(5, 9), rand(9, 3, seed=1)
    seen = {}

    def other_thread():
        seen["outside"] = mxu.torch.active_mode()
        with mxu.torch.device_mode(dev) as mode:
            seen["c"] = a @ b
        seen["gemms"] = mode.report()["totals"]["device_gemms"]

    with mxu.torch.device_mode(dev) as mode:
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
    assert seen["outside"] is None  # this thread's mode is not the other's
    assert seen["gemms"] == 1 and mode.report()["totals"]["device_gemms"] == 0
    same_bits(seen["c"], contract.gemm(numpy(a), numpy(b), rows))


def test_a_product_past_the_dimension_limit_is_split_with_the_same_bits(dev, rows):
    a, b = rand(2, 66000), rand(66000, 3, seed=1)
    with mxu.torch.device_mode(dev) as mode:
        c = a @ b
    same_bits(c, contract.gemm(numpy(a), numpy(b), rows))
    assert mode.report()["totals"]["device_gemms"] == 2
    with pytest.raises(ValueError):  # the split's limit is the device's
        dev.gemm(np.zeros((1, 65536), np.float32), np.zeros((65536, 1), np.float32))


def test_write_report_writes_json_and_a_chart_whole(dev, tmp_path):
    import json
    import struct
    layer = torch.nn.Linear(20, 6)
    x = rand(8, 20).requires_grad_()
    with mxu.torch.device_mode(dev) as mode:
        layer(x).sum().backward()
    report = mxu.torch.write_report(mode, str(tmp_path / "r.json"), plot=str(tmp_path / "r.png"))
    assert json.loads((tmp_path / "r.json").read_text()) == json.loads(json.dumps(report))
    assert [e["phase"] for e in report["ops"]] == ["forward", "backward"]
    assert report["totals"]["device_gemms"] == 3 and report["totals"]["device_cycles"] > 0
    png = (tmp_path / "r.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width >= 640 and 200 <= height <= 400  # two panels of one module's bars
    with pytest.raises(OSError):  # a folder that does not exist: nothing written anywhere
        mxu.torch.write_report(mode, str(tmp_path / "missing" / "r.json"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "r.png"]


def test_the_report_picture_is_per_module_with_values(dev, tmp_path, monkeypatch):
    """Issue 58: the picture draws each module's cycles and energy (the layers the JSON names),
    forward beside backward, horizontal bars with their values, not one bar per aten op."""
    from mxu import _mxu
    drawn = []
    monkeypatch.setattr(_mxu, "write_bar_panels",
                        lambda path, title, panels, **kw: drawn.append((panels, kw)) or
                        open(path, "wb").close())
    model = torch.nn.Sequential(torch.nn.Linear(20, 6), torch.nn.ReLU(), torch.nn.Linear(6, 3))
    with mxu.torch.device_mode(dev) as mode:
        model(rand(8, 20)).sum().backward()
    report = mxu.torch.write_report(mode, str(tmp_path / "r.json"), plot=str(tmp_path / "r.png"))
    (panels, kw), = drawn
    assert kw == {"horizontal": True, "values": True}
    assert [p[0] for p in panels] == ["device cycles", "energy (uJ, 180 nm)"]
    for (_, labels, series), key in zip(panels, ("device_cycles", "energy_uj")):
        # The two Linear layers (with the op kinds they ran), not a bar per addmm and mm.
        assert labels == ["0 (addmm, mm)", "2 (addmm, mm)"]
        assert [name for name, _ in series] == ["forward", "backward"]
        for module, forward, backward in zip("02", series[0][1], series[1][1]):
            for phase, value in (("forward", forward), ("backward", backward)):
                assert value == pytest.approx(sum(
                    e[key] for e in report["ops"] if e["module"] == module and
                    e["phase"] == phase))


def test_fused_paths_and_inference_mode_still_reach_the_device(dev):
    """nn.TransformerEncoderLayer in eval() would take aten._transformer_encoder_layer_fwd;
    under torch.inference_mode linear, matmul and lstm arrive whole: all are decomposed into
    products the device runs."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32,
                                             batch_first=True).eval()
    lstm = torch.nn.LSTM(8, 12, batch_first=True)
    x, s = rand(2, 5, 16), rand(2, 4, 8, seed=1)
    host = layer(x), lstm(s)[0]
    for context in (torch.no_grad, torch.inference_mode):
        with context(), mxu.torch.device_mode(dev, strict=True) as mode:
            y, h = layer(x), lstm(s)[0]
        totals = mode.report()["totals"]
        ops = {e["op"] for e in mode.report()["ops"]}
        assert totals["host_products"] == 0
        assert {"aten.bmm", "aten.addmm"} <= ops
        # bf16 operands: close to the host's float32, not equal
        assert torch.allclose(y, host[0], atol=0.1) and torch.allclose(h, host[1], atol=0.05)
