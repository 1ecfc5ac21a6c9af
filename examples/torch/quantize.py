"""The CNN example's model in int8: PyTorch's own post-training quantization, on the device.

Trains fashion_cnn.py's CNN in fp32 on the host (or loads --checkpoint), quantizes it with
torch.ao.quantization (eager mode: QuantStub and DeQuantStub around it, Conv2d + ReLU and Linear
+ ReLU fused, the engine's default qconfig, calibrated on --calibration training images), and
runs the test set four ways: the fp32 model on the host, the quantized model on the host
(PyTorch's own int8 kernels), the quantized model on the device's integer mode, and the fp32
model on the device in bf16. Prints the four accuracies, how many of the quantized logits differ
from PyTorch's and by how much, and the device's cycles and energy in int8 against bf16.

  PYTHONPATH=build/python /usr/bin/python3 examples/torch/quantize.py --backend model
"""
import os
import time

import torch
import torch.ao.quantization as tq
from torch import nn

import common
import fashion_cnn

ENGINES = ("qnnpack", "onednn")


def load(run):
    """fashion_cnn.py's model from --checkpoint if it exists (else None), before anything runs."""
    a = run.args
    if not (a.checkpoint and os.path.exists(a.checkpoint)):
        return None
    model = fashion_cnn.cnn()
    try:
        model.load_state_dict(torch.load(a.checkpoint))
    except Exception as e:  # not a checkpoint of this model
        run.fail(f"--checkpoint {a.checkpoint}: not a checkpoint of the CNN ({e})".splitlines()[0])
    return model


def train(run, data):
    """fashion_cnn.py's model, trained in fp32 on the host (and saved to --checkpoint)."""
    a = run.args
    model = fashion_cnn.cnn()
    x, y = data[0], data[1]
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    generator = torch.Generator().manual_seed(a.seed)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(1, a.epochs + 1):
        loss, acc = common.train_epoch(model, opt, loss_fn, x, y, a.batch, generator)
        run.log(f"epoch {epoch}/{a.epochs} (fp32, host)  loss {loss:.4f}  train {100 * acc:5.1f}%")
    if a.checkpoint:  # written whole: a new file renamed over the old
        temporary = a.checkpoint + ".partial"
        torch.save(model.state_dict(), temporary)
        os.replace(temporary, a.checkpoint)
    return model


def quantize(run, model, x):
    """PyTorch's eager post-training quantization of `model`, calibrated on `x`."""
    torch.backends.quantized.engine = run.args.engine
    q = nn.Sequential(tq.QuantStub(), *model, tq.DeQuantStub()).eval()
    q.qconfig = tq.get_default_qconfig(run.args.engine)
    # (Conv2d, ReLU) at 1, 2 and 4, 5; (Linear, ReLU) at 8, 9 (the stub is 0).
    tq.fuse_modules(q, [["1", "2"], ["4", "5"], ["8", "9"]], inplace=True)
    tq.prepare(q, inplace=True)
    with torch.no_grad():
        for i in range(0, len(x), 256):
            q(x[i:i + 256])
    return tq.convert(q)


def evaluate(model, x, y, logits_of=None):
    """Test accuracy; with `logits_of` (a quantized module), its int outputs, concatenated."""
    kept = []
    hook = None if logits_of is None else logits_of.register_forward_hook(
        lambda module, inputs, output: kept.append(output.int_repr()))
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(x), 1000):
            correct += (model(x[i:i + 1000]).argmax(1) == y[i:i + 1000]).sum().item()
    if hook is not None:
        hook.remove()
    return correct / len(x), (torch.cat(kept) if kept else None)


def device_costs(report):
    t = report["totals"]
    return {"gemms": t["device_gemms"], "int8_gemms": t["device_gemms_int8"],
            "macs": t["device_macs"], "cycles": t["device_cycles"],
            "energy_uj": t["energy_uj"], "host_products": t["host_products"]}


def main():
    p = common.parser("quantize", __doc__.splitlines()[0])
    p.add_argument("--engine", choices=ENGINES, default="qnnpack",
                   help="PyTorch's quantized engine and its default qconfig (default: qnnpack)")
    p.add_argument("--epochs", type=common.positive_int, default=1)
    p.add_argument("--batch", type=common.positive_int, default=32)
    p.add_argument("--lr", type=common.positive_float, default=2e-3)
    p.add_argument("--calibration", type=common.positive_int, default=1000,
                   help="training images the observers see (default: 1000)")
    p.add_argument("--checkpoint", metavar="FILE.pt",
                   help="load the fp32 model from FILE.pt if it exists, else train and save it")
    common.add_fashion_mnist_arguments(p)
    run = common.start(p)
    loaded = load(run)
    x, y, xt, yt = data = common.load_fashion_mnist(run)
    run.log(f"quantize: {len(x)} train / {len(xt)} test images, engine {run.args.engine}, "
            f"on {run.where()}" + (f"; the fp32 model from {run.args.checkpoint}" if loaded
                                   else ""))
    model = loaded if loaded is not None else train(run, data)
    quantized = quantize(run, model, x[:run.args.calibration])
    logits = quantized[10]  # the last Linear, quantized
    metrics = {"engine": run.args.engine, "calibration_samples": min(run.args.calibration, len(x)),
               "test_samples": len(xt)}
    metrics["fp32_host_accuracy"], _ = evaluate(model, xt, yt)
    t0 = time.perf_counter()
    metrics["int8_host_accuracy"], host_logits = evaluate(quantized, xt, yt, logits)
    metrics["int8_host_s"] = round(time.perf_counter() - t0, 3)
    if run.dev is not None:
        t0 = time.perf_counter()
        with run.mode() as mode:
            metrics["int8_device_accuracy"], device_logits = evaluate(quantized, xt, yt, logits)
        metrics["int8_device_s"] = round(time.perf_counter() - t0, 3)
        differ = (device_logits.to(torch.int16) - host_logits.to(torch.int16)).abs()
        metrics["logits_differing"] = (differ > 0).float().mean().item()
        metrics["logits_max_difference"] = int(differ.max())
        int8 = device_costs(mode.report())
        with run.mxu.torch.device_mode(run.dev) as bf16_mode:
            metrics["bf16_device_accuracy"], _ = evaluate(model, xt, yt)
        bf16 = device_costs(bf16_mode.report())
        metrics["int8_device"], metrics["bf16_device"] = int8, bf16
        metrics["int8_over_bf16_cycles"] = int8["cycles"] / bf16["cycles"]
        metrics["int8_over_bf16_energy"] = int8["energy_uj"] / bf16["energy_uj"]
        if not run.args.json:
            for name, costs in (("int8", int8), ("bf16", bf16)):
                run.log(f"  {name} on the device: {costs['gemms']} GEMMs, {costs['cycles']:,} "
                        f"cycles, {costs['energy_uj']:,.0f} uJ, {costs['host_products']} host "
                        "products")
    run.finish(metrics)


if __name__ == "__main__":
    main()
