"""A small transformer encoder learns to reverse (or sort) token sequences, on the device.

Token embedding plus a learned positional embedding, nn.TransformerEncoder of 2
nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True), a Linear
head per position. The data are synthetic, drawn from the seed: random sequences of --length
tokens over --vocab symbols, the target their reversal (--task reverse) or their sorted order
(--task sort). Adam, cross-entropy per token; the per-token accuracy on a held-out set at the
end, in model.eval() under torch.no_grad() (PyTorch's fused inference path stays off under the
mode, so that evaluation runs on the device too).

  PYTHONPATH=build/python /usr/bin/python3 examples/torch/transformer.py --backend model
"""
import time

import torch
from torch import nn

import common


class Encoder(nn.Module):
    """Embeddings, a stock nn.TransformerEncoder, and a per-position classifier."""

    def __init__(self, vocab, length, d_model=64, nhead=4, ff=128, layers=2, dropout=0.0):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(length, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=ff, dropout=dropout,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1])
        return self.head(self.encoder(self.embed(tokens) + self.pos(positions)))


def make_data(task, n, length, vocab, generator):
    x = torch.randint(0, vocab, (n, length), generator=generator)
    y = x.flip(1) if task == "reverse" else x.sort(1).values
    return x, y


def main():
    p = common.parser("transformer", __doc__.splitlines()[0])
    p.add_argument("--task", choices=("reverse", "sort"), default="reverse")
    p.add_argument("--steps", type=common.positive_int, default=200)
    p.add_argument("--batch", type=common.positive_int, default=64)
    p.add_argument("--lr", type=common.positive_float, default=2e-3)
    p.add_argument("--length", type=common.positive_int, default=10)
    p.add_argument("--vocab", type=common.positive_int, default=16)
    p.add_argument("--layers", type=common.positive_int, default=2)
    p.add_argument("--dropout", type=common.probability, default=0.0)
    p.add_argument("--samples", type=common.positive_int, default=1000,
                   help="held-out sequences for the accuracy (default 1000)")
    run = common.start(p)
    a = run.args
    if a.vocab < 2:
        p.error(f"--vocab {a.vocab}: at least 2 symbols")

    model = Encoder(a.vocab, a.length, layers=a.layers, dropout=a.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    loss_fn = nn.CrossEntropyLoss()
    train_gen = torch.Generator().manual_seed(a.seed)
    x_test, y_test = make_data(a.task, a.samples, a.length, a.vocab,
                               torch.Generator().manual_seed(a.seed + 1_000_003))
    run.log(f"transformer: {a.task} {a.length} tokens over {a.vocab} symbols, "
            f"{sum(p.numel() for p in model.parameters())} parameters, {a.steps} steps of "
            f"batch {a.batch}, on {run.where()}")

    losses = []
    every = max(1, a.steps // 10)
    with run.mode() as mode:
        t0 = time.perf_counter()
        model.train()
        for step in range(1, a.steps + 1):
            x, y = make_data(a.task, a.batch, a.length, a.vocab, train_gen)
            opt.zero_grad()
            loss = loss_fn(model(x).reshape(-1, a.vocab), y.reshape(-1))
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if step % every == 0 or step == a.steps:
                run.log(f"step {step}/{a.steps}  loss {loss.item():.4f}  "
                        f"{time.perf_counter() - t0:.1f} s")
        train_s = time.perf_counter() - t0
        before = run.totals()
        model.eval()
        with torch.no_grad():
            logits = model(x_test)
        accuracy = (logits.argmax(-1) == y_test).float().mean().item()
        sequences = (logits.argmax(-1) == y_test).all(1).float().mean().item()
        test_loss = loss_fn(logits.reshape(-1, a.vocab), y_test.reshape(-1)).item()
        after = run.totals()
    metrics = {"task": a.task, "steps": a.steps, "batch": a.batch,
               "first_loss": losses[0], "train_loss": sum(losses[-10:]) / len(losses[-10:]),
               "test_loss": test_loss, "test_accuracy": accuracy,
               "test_sequence_accuracy": sequences, "train_s": round(train_s, 3)}
    if mode is not None:
        metrics["eval_device_gemms"] = after["device_gemms"] - before["device_gemms"]
        metrics["eval_host_products"] = after["host_products"] - before["host_products"]
    run.finish(metrics)


if __name__ == "__main__":
    main()
