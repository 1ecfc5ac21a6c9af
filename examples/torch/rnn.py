"""An LSTM (or GRU) learns to predict a noisy sine wave's next value, on the device.

nn.LSTM or nn.GRU (--cell) over sequences of --length values, a Linear head reading each step's
hidden state: at every step the prediction of the next value. The data are synthetic, drawn
from the seed: sine waves of random frequency (0.1 to 0.6 radians a step), phase and amplitude
(0.5 to 1), with Gaussian noise (--noise 0.05). Adam, mean squared error. At the end the
held-out set's error beside two references: predicting the last value seen (the naive
forecast) and the noise's own variance (the floor no model beats).

  PYTHONPATH=build/python /usr/bin/python3 examples/torch/rnn.py --backend model --cell gru
"""
import math
import time

import torch
from torch import nn

import common


class Forecaster(nn.Module):
    """A stock recurrent layer and a Linear head on every step's output."""

    def __init__(self, cell, hidden, layers):
        super().__init__()
        rnn = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = rnn(1, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out)


def make_data(n, length, noise, generator):
    """Inputs (n, length, 1) and targets, the next value of each step (n, length, 1)."""
    u = lambda lo, hi: lo + (hi - lo) * torch.rand(n, 1, generator=generator)
    freq, phase, amp = u(0.1, 0.6), u(0, 2 * math.pi), u(0.5, 1.0)
    t = torch.arange(length + 1, dtype=torch.float32)
    wave = amp * torch.sin(freq * t + phase) + noise * torch.randn(n, length + 1,
                                                                  generator=generator)
    return wave[:, :-1, None], wave[:, 1:, None]


def main():
    p = common.parser("rnn", __doc__.splitlines()[0])
    p.add_argument("--cell", choices=("lstm", "gru"), default="lstm")
    p.add_argument("--steps", type=common.positive_int, default=300)
    p.add_argument("--batch", type=common.positive_int, default=32)
    p.add_argument("--lr", type=common.positive_float, default=1e-2)
    p.add_argument("--hidden", type=common.positive_int, default=32)
    p.add_argument("--layers", type=common.positive_int, default=1)
    p.add_argument("--length", type=common.positive_int, default=24)
    p.add_argument("--noise", type=common.probability, default=0.05,
                   help="the noise's standard deviation, in [0, 1) (default 0.05)")
    p.add_argument("--samples", type=common.positive_int, default=500,
                   help="held-out sequences for the final error (default 500)")
    run = common.start(p)
    a = run.args

    model = Forecaster(a.cell, a.hidden, a.layers)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    loss_fn = nn.MSELoss()
    train_gen = torch.Generator().manual_seed(a.seed)
    x_test, y_test = make_data(a.samples, a.length, a.noise,
                               torch.Generator().manual_seed(a.seed + 1_000_003))
    run.log(f"rnn: {a.cell.upper()} {a.layers}x{a.hidden}, next value of a noisy sine "
            f"({a.length} steps), {sum(p.numel() for p in model.parameters())} parameters, "
            f"{a.steps} steps of batch {a.batch}, on {run.where()}")

    losses = []
    every = max(1, a.steps // 10)
    with run.mode():
        t0 = time.perf_counter()
        for step in range(1, a.steps + 1):
            x, y = make_data(a.batch, a.length, a.noise, train_gen)
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if step % every == 0 or step == a.steps:
                run.log(f"step {step}/{a.steps}  loss {loss.item():.5f}  "
                        f"{time.perf_counter() - t0:.1f} s")
        train_s = time.perf_counter() - t0
        model.eval()
        with torch.no_grad():
            test_loss = loss_fn(model(x_test), y_test).item()
    # The first few steps have too little history to know the frequency: the references
    # cover the same steps as the model's error.
    naive = loss_fn(x_test, y_test).item()
    run.finish({"cell": a.cell, "steps": a.steps, "batch": a.batch,
                "first_loss": losses[0], "train_loss": sum(losses[-10:]) / len(losses[-10:]),
                "test_loss": test_loss, "naive_loss": naive, "noise_floor": a.noise ** 2,
                "train_s": round(train_s, 3)})


if __name__ == "__main__":
    main()
