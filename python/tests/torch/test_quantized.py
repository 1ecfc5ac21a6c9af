"""Quantized models on the device's integer mode (mxu/torch/_quantized.py): every quantized
linear and convolution bit for bit against the NumPy int64 reproduction (int8_contract.py), and
within 1 of PyTorch's own kernels; the report's int8 counts; the schemes that stay on the host."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.ao.quantization as tq  # noqa: E402
from torch import nn  # noqa: E402

import mxu  # noqa: E402
import mxu.torch  # noqa: E402

import int8_contract as ref  # noqa: E402  (python/tests/torch/int8_contract.py)

ENGINES = ("qnnpack", "onednn")


@pytest.fixture(autouse=True)
def keep_engine():
    """Each test chooses its engine; the process's is restored after it."""
    before = torch.backends.quantized.engine
    yield
    torch.backends.quantized.engine = before


@pytest.fixture(params=ENGINES)
def engine(request):
    torch.backends.quantized.engine = request.param
    return request.param


def gen(seed):
    return torch.Generator().manual_seed(seed)


def activation(shape, seed, scale=0.05, zero_point=100, high=255):
    """A quint8 activation; high=127 keeps it where onednn's AVX2 kernels do not saturate."""
    values = torch.randint(0, high + 1, shape, generator=gen(seed), dtype=torch.uint8)
    return torch._make_per_tensor_quantized_tensor(values, scale, zero_point)


def weights(out_channels, *rest, seed, per_channel):
    w = torch.randn(out_channels, *rest, generator=gen(seed)) * 0.1
    if per_channel:
        scales = w.reshape(out_channels, -1).abs().amax(1).double() / 127
        return torch.quantize_per_channel(w, scales, torch.zeros(out_channels, dtype=torch.long),
                                          0, torch.qint8)
    return torch.quantize_per_tensor(w, float(w.abs().max()) / 127, 0, torch.qint8)


def int8_totals(mode):
    return {k: mode.report()["totals"][k] for k in
            ("device_gemms", "device_gemms_int8", "host_products")}


def close_to_pytorch(got, pytorch, engine):
    """Each output within 1 of PyTorch's own kernel (where the two roundings differ)."""
    difference = np.abs(got.astype(np.int64) - pytorch.int_repr().numpy().astype(np.int64))
    assert difference.max() <= 1, engine
    return difference


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("relu", [False, True])
def test_linear_exact(dev, engine, per_channel, relu):
    x = activation((3, 5, 40), seed=1, high=127 if engine == "onednn" else 255)
    w = weights(24, 40, seed=2, per_channel=per_channel)
    b = torch.randn(24, generator=gen(3))
    packed = torch.ops.quantized.linear_prepack(w, b)
    op = torch.ops.quantized.linear_relu if relu else torch.ops.quantized.linear
    pytorch = op(x, packed, 0.2, 120)
    with mxu.torch.device_mode(dev, strict=True) as mode:
        y = op(x, packed, 0.2, 120)
    assert y.dtype == torch.quint8 and y.q_scale() == 0.2 and y.q_zero_point() == 120
    got = y.int_repr().numpy()
    np.testing.assert_array_equal(got, ref.linear(x, w, b.numpy(), 0.2, 120, relu))
    close_to_pytorch(got, pytorch, engine)
    assert int8_totals(mode) == {"device_gemms": 1, "device_gemms_int8": 1, "host_products": 0}
    entry, = mode.report()["ops"]
    assert entry["op"] == f"quantized.linear{'_relu' if relu else ''}"
    assert entry["dtype"] == "int8" and entry["device_macs"] == 15 * 40 * 24


CONVOLUTIONS = [  # dims, in, out, kernel, stride, padding, dilation, groups, size
    (1, 4, 6, 3, 2, 2, 2, 2, 11),
    (2, 3, 8, 3, 1, 1, 1, 1, 7),
    (2, 4, 6, 2, 2, 0, 1, 2, 8),
    (2, 2, 4, 3, 1, 2, 2, 1, 6),
    (3, 2, 4, 2, 1, 1, 1, 2, 4),
]


@pytest.mark.parametrize("case", CONVOLUTIONS, ids=lambda c: f"conv{c[0]}d_k{c[3]}s{c[4]}"
                         f"p{c[5]}d{c[6]}g{c[7]}")
@pytest.mark.parametrize("relu", [False, True])
def test_convolution_exact(dev, case, relu):
    dims, cin, cout, k, stride, padding, dilation, groups, size = case
    # qnnpack has no 3-D convolution: onednn, on activations its AVX2 kernels do not saturate.
    engine = "onednn" if dims == 3 else "qnnpack"
    torch.backends.quantized.engine = engine
    modules = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}
    float_conv = modules[dims](cin, cout, k, stride=stride, padding=padding, dilation=dilation,
                               groups=groups)
    quantized = {1: torch.ao.nn.quantized.Conv1d, 2: torch.ao.nn.quantized.Conv2d,
                 3: torch.ao.nn.quantized.Conv3d}[dims]
    if relu:
        import torch.nn.intrinsic.quantized as fused  # (not yet under torch.ao in 1.13)
        quantized = {1: fused.ConvReLU1d, 2: fused.ConvReLU2d, 3: fused.ConvReLU3d}[dims]
    conv = quantized(cin, cout, k, stride=stride, padding=padding, dilation=dilation,
                     groups=groups)
    w = weights(cout, cin // groups, *([k] * dims), seed=4, per_channel=dims == 2)
    b = float_conv.bias.detach()
    conv.set_weight_bias(w, b)
    conv.scale, conv.zero_point = 0.15, 90
    x = activation((2, cin, *([size] * dims)), seed=5, zero_point=110,
                   high=127 if engine == "onednn" else 255)
    pytorch = conv(x)
    with mxu.torch.device_mode(dev, strict=True) as mode:
        y = conv(x)
    got = y.int_repr().numpy()
    want = ref.convolution(x, w, b.numpy(), [stride] * dims, [padding] * dims, [dilation] * dims,
                           groups, 0.15, 90, relu)
    np.testing.assert_array_equal(got, want)
    close_to_pytorch(got, pytorch, engine)
    assert int8_totals(mode) == {"device_gemms": groups, "device_gemms_int8": groups,
                                 "host_products": 0}


def test_dynamic_linear_is_qnnpacks_bits(dev):
    torch.backends.quantized.engine = "qnnpack"
    x = torch.randn(6, 30, generator=gen(6))
    w = weights(20, 30, seed=7, per_channel=False)
    b = torch.randn(20, generator=gen(8))
    packed = torch.ops.quantized.linear_prepack(w, b)
    pytorch = torch.ops.quantized.linear_dynamic(x, packed, False)
    with mxu.torch.device_mode(dev, strict=True) as mode:
        y = torch.ops.quantized.linear_dynamic(x, packed, False)
    sx, zx = torch._choose_qparams_per_tensor(x, False)
    want = ref.linear_dynamic(x.numpy(), sx, zx, w, b.numpy())
    np.testing.assert_array_equal(y.numpy().view(np.int32), want.view(np.int32))
    np.testing.assert_array_equal(y.numpy().view(np.int32), pytorch.numpy().view(np.int32))
    assert int8_totals(mode) == {"device_gemms": 1, "device_gemms_int8": 1, "host_products": 0}


class Small(nn.Module):
    """Conv2d + ReLU, a grouped Conv2d, Conv1d, Linear + ReLU, Linear."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.conv, self.relu = nn.Conv2d(1, 4, 3, padding=1), nn.ReLU()
        self.grouped = nn.Conv2d(4, 4, 3, groups=2, stride=2)
        self.conv1d = nn.Conv1d(4, 6, 3, padding=2, dilation=2)
        self.fc, self.fc_relu, self.out = nn.Linear(18, 8), nn.ReLU(), nn.Linear(8, 5)

    def forward(self, x):
        x = self.grouped(self.relu(self.conv(self.quant(x)))).flatten(2)
        x = self.conv1d(x)[:, :, :3].flatten(1)
        return self.dequant(self.out(self.fc_relu(self.fc(x))))


def quantized_small(engine, fx):
    torch.manual_seed(0)
    model = Small().eval()
    calibration = [torch.randn(8, 1, 7, 7, generator=gen(i)) for i in range(4)]
    if fx:
        from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
        qconfigs = tq.get_default_qconfig_mapping(engine)
        prepared = prepare_fx(model, qconfigs, example_inputs=(calibration[0],))
    else:
        model.qconfig = tq.get_default_qconfig(engine)
        tq.fuse_modules(model, [["conv", "relu"], ["fc", "fc_relu"]], inplace=True)
        prepared = tq.prepare(model)
    with torch.no_grad():
        for x in calibration:
            prepared(x)
    return convert_fx(prepared) if fx else tq.convert(prepared)


@pytest.mark.parametrize("fx", [False, True], ids=["eager", "fx"])
def test_quantized_model_runs_on_the_integer_mode(dev, engine, fx):
    """Both engines' default qconfigs, eager and FX: every product on the device."""
    model = quantized_small(engine, fx)
    x = torch.randn(4, 1, 7, 7, generator=gen(9))
    pytorch = model(x)
    with mxu.torch.device_mode(dev, strict=True) as mode:
        y = model(x)
    # 1 + 2 groups + 1 + 1 + 1 GEMMs, none on the host.
    assert int8_totals(mode) == {"device_gemms": 6, "device_gemms_int8": 6, "host_products": 0}
    if engine == "qnnpack":  # its kernels are exact: 1 step of the output scale at most
        assert float((y - pytorch).abs().max()) <= model.out.scale * 1.0001


def test_report_prices_int8_with_its_table(dev):
    torch.backends.quantized.engine = "qnnpack"
    x = activation((16, 64), seed=10)
    w = weights(32, 64, seed=11, per_channel=False)
    packed = torch.ops.quantized.linear_prepack(w, None)
    with mxu.torch.device_mode(dev) as mode:
        torch.ops.quantized.linear(x, packed, 0.5, 128)
        torch.ops.aten.mm(torch.randn(16, 64), torch.randn(64, 32))
    report = mode.report()
    int8, = [e for e in report["ops"] if e["dtype"] == "int8"]
    bf16, = [e for e in report["ops"] if e["dtype"] == "bf16"]
    info = dev.info()
    counts = {"cycles": int8["device_cycles"], "device_macs": int8["array_macs"],
              "dma_read_bytes": int8["dma_read_bytes"], "dma_write_bytes": int8["dma_write_bytes"],
              "buffer_accesses": int8["buffer_accesses"], "array_rows": info["array_rows"],
              **{k: int8[k] for k in ("column_clocks", "acc_clocks", "activate_clocks",
                                      "dma_clocks")},
              "array_cols": info["array_cols"], "bus_bytes": info["bus_bytes"]}
    assert int8["energy_uj"] == pytest.approx(mxu.energy(180, dict(counts, dtype="int8"))[
        "total_uj"])
    assert int8["energy_uj"] < mxu.energy(180, dict(counts, dtype="bf16"))["total_uj"]
    totals = report["totals"]
    assert totals["device_gemms_int8"] == 1 and totals["device_gemms"] == 2
    assert totals["device_macs_int8"] == 16 * 64 * 32
    assert totals["device_cycles_int8"] == int8["device_cycles"]
    assert totals["device_cycles"] == int8["device_cycles"] + bf16["device_cycles"]
    assert totals["energy_uj"] == pytest.approx(int8["energy_uj"] + bf16["energy_uj"])


def test_schemes_the_mode_cannot_place_run_on_the_host(dev):
    torch.backends.quantized.engine = "qnnpack"
    x = activation((4, 16), seed=12)
    w = torch.quantize_per_tensor(torch.randn(8, 16, generator=gen(13)) * 0.1, 0.01, 3,
                                  torch.qint8)  # asymmetric weights: zero point 3
    packed = torch.ops.quantized.linear_prepack(w, None)
    pytorch = torch.ops.quantized.linear(x, packed, 0.1, 128)
    with mxu.torch.device_mode(dev) as mode:
        y = torch.ops.quantized.linear(x, packed, 0.1, 128)
    assert torch.equal(y.int_repr(), pytorch.int_repr())  # PyTorch's own, on the host
    assert int8_totals(mode) == {"device_gemms": 0, "device_gemms_int8": 0, "host_products": 1}
    entry, = mode.report()["ops"]
    assert entry["op"] == "quantized.linear" and entry["dtype"] == "int8"
    with mxu.torch.device_mode(dev, strict=True):
        with pytest.raises(mxu.torch.HostProductError,
                           match=r"quantized\.linear with weights with zero point 3"):
            torch.ops.quantized.linear(x, packed, 0.1, 128)


def test_dynamic_lstm_is_counted_on_the_host(dev):
    torch.backends.quantized.engine = "qnnpack"
    # (quantize_dynamic swaps submodules: the root stays as it is)
    lstm = torch.ao.quantization.quantize_dynamic(nn.Sequential(nn.LSTM(6, 4)), {nn.LSTM},
                                                  dtype=torch.qint8)
    assert type(lstm[0]).__module__.startswith("torch.ao.nn.quantized.dynamic")
    x = torch.randn(3, 2, 6, generator=gen(14))
    with mxu.torch.device_mode(dev) as mode:
        lstm(x)
    assert mode.report()["totals"]["host_products"] == 1
    with mxu.torch.device_mode(dev, strict=True):
        with pytest.raises(mxu.torch.HostProductError, match=r"aten\.quantized_lstm"):
            lstm(x)


def test_an_input_that_does_not_fit_the_weights_is_refused(dev):
    """qnnpack's own kernel returns numbers for it; the mode refuses it, naming the shapes."""
    torch.backends.quantized.engine = "qnnpack"
    w = weights(8, 16, seed=15, per_channel=False)
    packed = torch.ops.quantized.linear_prepack(w, None)
    with mxu.torch.device_mode(dev) as mode:
        with pytest.raises(ValueError, match=r"quantized\.linear\(4x12\): the input's last "
                           r"dimension is 12, the packed weights take 16 features"):
            torch.ops.quantized.linear(activation((4, 12), seed=16), packed, 0.1, 128)
        conv = torch.ao.nn.quantized.Conv2d(3, 4, 3)
        with pytest.raises(ValueError, match=r"quantized\.conv2d\(1x2x5x5\): the input is "
                           r"1x2x5x5, the packed weights take \(N, 3, \*, \*\)"):
            conv(activation((1, 2, 5, 5), seed=17))
    assert mode.report()["totals"]["device_gemms"] == 0
