"""A small CNN on Fashion-MNIST in plain PyTorch, every matrix product on the device.

Conv2d(1, 16, 3, padding=1), ReLU, MaxPool2d(2), Conv2d(16, 32, 3, padding=1), ReLU,
MaxPool2d(2), Flatten, Linear(32*7*7, 64), ReLU, Linear(64, 10); cross-entropy, Adam lr 2e-3,
batch 32, 1 epoch (--epochs 2 for a point more); test accuracy on the 10,000 test images after
each epoch.

  PYTHONPATH=build/python /usr/bin/python3 examples/torch/fashion_cnn.py --backend model
"""
import torch
from torch import nn

import common


def cnn():
    """The model (examples/torch/quantize.py quantizes it)."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, 10))


def main():
    p = common.parser("fashion_cnn", __doc__.splitlines()[0])
    p.add_argument("--epochs", type=common.positive_int, default=1)
    p.add_argument("--batch", type=common.positive_int, default=32)
    p.add_argument("--lr", type=common.positive_float, default=2e-3)
    common.add_fashion_mnist_arguments(p)
    run = common.start(p)
    a = run.args
    data = common.load_fashion_mnist(run)

    model = cnn()
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    metrics = common.fit_classifier(run, model, opt, data, a.epochs, a.batch)
    metrics["model"] = "CNN conv3x3-16 pool2 conv3x3-32 pool2 1568-64-10"
    run.finish(metrics)


if __name__ == "__main__":
    main()
