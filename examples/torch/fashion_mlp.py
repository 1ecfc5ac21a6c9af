"""The Keras guide's Fashion-MNIST MLP in plain PyTorch, every matrix product on the device.

Flatten, Linear(784, 512), ReLU, Dropout(0.2), Linear(512, 10); cross-entropy, Adam lr 1e-3,
batch 1024, 5 epochs; test accuracy on the 10,000 test images after each epoch. The model knows
nothing of the device: `run.mode()` (mxu.torch.device_mode) sends its products there.
`mxu train --data fashion-mnist --hidden 512 --dropout 0.2 --batch 1024 --epochs 5` trains the
same model in C++.

  PYTHONPATH=build/python /usr/bin/python3 examples/torch/fashion_mlp.py --backend model
"""
import torch
from torch import nn

import common


def main():
    p = common.parser("fashion_mlp", __doc__.splitlines()[0])
    p.add_argument("--epochs", type=common.positive_int, default=5)
    p.add_argument("--batch", type=common.positive_int, default=1024)
    p.add_argument("--lr", type=common.positive_float, default=1e-3)
    p.add_argument("--hidden", type=common.positive_int, default=512)
    p.add_argument("--dropout", type=common.probability, default=0.2)
    common.add_fashion_mnist_arguments(p)
    run = common.start(p)
    a = run.args
    data = common.load_fashion_mnist(run)

    model = nn.Sequential(nn.Flatten(), nn.Linear(784, a.hidden), nn.ReLU(),
                          nn.Dropout(a.dropout), nn.Linear(a.hidden, 10))
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    metrics = common.fit_classifier(run, model, opt, data, a.epochs, a.batch)
    metrics["model"] = f"MLP 784-{a.hidden}-10, dropout {a.dropout}"
    run.finish(metrics)


if __name__ == "__main__":
    main()
