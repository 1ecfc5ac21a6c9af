"""PyTorch on the matrix unit: every matrix product of an unmodified model, forward and backward,
on an mxu device (docs/torch.md).

    import mxu, mxu.torch
    dev = mxu.Device(backend="model")
    with mxu.torch.device_mode(dev) as mode:
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
    mode.report()["totals"]          # device_gemms, device_macs, device_cycles, host_products
    mxu.torch.write_report(mode, "r.json", plot="r.png")

Products follow the numeric contract (docs/numerics.md): bf16 operands, fp32 accumulation in the
device's order, addmm's bias as the accumulators' starting value; results come back in the
operands' dtype. Every other op runs on the host, as a TPU leaves non-matrix work to other units.

Several chips: DistributedDataParallel with one rank (one device) a process, and
mxu.torch.ring_allreduce_hook as its communication hook (mxu/torch/_ddp.py; examples/torch/ddp.py).
"""
from mxu._gemms import DeviceOpError
from mxu._report import write_report
from mxu.torch._checks import ForeignTensorError, HostProductError
from mxu.torch._ddp import RingAllReduce, gather_report, ring_allreduce_hook
from mxu.torch._mode import DeviceMode, active_mode

__all__ = ["device_mode", "DeviceMode", "write_report", "active_mode", "DeviceOpError",
           "ForeignTensorError", "HostProductError", "RingAllReduce", "ring_allreduce_hook",
           "gather_report"]


def device_mode(device, strict=False, watchdog=None, transposed="copy", batch=True):
    """A context manager that runs every matrix product on `device` (an mxu.Device) in this
    thread. strict=True raises HostProductError where a product would run on the host (an op
    that hides one, such as aten._trilinear, or integer operands). watchdog: each device GEMM's
    cycle limit (default: the device's); past it the op raises DeviceOpError. transposed: how a
    transposed operand (nn.Linear's W.t()) reaches the device: "copy" (laid out row-major on the
    host first) or "device" (the device's transposing loads, ta/tb); the bits are the same.
    batch: independent products of one op (bmm's and baddbmm's batch, a grouped convolution's
    groups, a convolution backward's two gradients) run as one device program, each GEMM's
    loads overlapping the one before it (True), or one program each (False: as before batching;
    the bits are the same, the cycles differ)."""
    return DeviceMode(device, strict=strict, watchdog=watchdog, transposed=transposed,
                      batch=batch)
