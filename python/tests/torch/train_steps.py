"""Trains a small MLP or CNN for some steps under mxu.torch.device_mode and prints one JSON line:
a digest of every parameter's bits and the report's totals. test_training.py runs it once per
backend (one device per process) and compares the digests."""
import argparse
import hashlib
import json

import torch
import torch.nn as nn

import mxu
import mxu.torch


def model_and_data(kind):
    g = torch.Generator().manual_seed(0)
    if kind == "mlp":
        model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
        x = torch.randn(32, 64, generator=g)
    else:
        model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(4, 6, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten(),
                              nn.Linear(6 * 2 * 2, 10))
        x = torch.randn(8, 1, 8, 8, generator=g)
    y = torch.randint(0, 10, (x.shape[0],), generator=g)
    return model, x, y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", required=True)
    parser.add_argument("--model", choices=("mlp", "cnn"), required=True)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    model, x, y = model_and_data(args.model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    dev = mxu.Device(backend=args.backend)
    losses = []
    with mxu.torch.device_mode(dev) as mode:
        for _ in range(args.steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    digest = hashlib.sha256()
    for p in model.parameters():
        digest.update(p.detach().numpy().tobytes())
    print(json.dumps({"digest": digest.hexdigest(), "losses": losses,
                      "totals": mode.report()["totals"]}))


if __name__ == "__main__":
    main()
