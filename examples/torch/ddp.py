"""The Keras guide's MLP under PyTorch's DistributedDataParallel, one simulated chip a rank.

Flatten, Linear(784, hidden), ReLU, Dropout, Linear(hidden, 10) (fashion_mlp.py's model);
cross-entropy, Adam. Each rank is a process with its own device under mxu.torch.device_mode;
each step's global batch (--batch) is split across the ranks in order (rank r the r-th slice),
and mxu.torch.ring_allreduce_hook sums the gradient buckets in rank order (the same bits
whatever the timing) and charges them on `mxu train`'s ring. Rank 0 prints each step's loss (the
ranks' losses averaged in rank order: the global batch's mean) and the test set's accuracy (each
rank testing its slice), and gathers every rank's report: compute cycles per chip, the
interconnect, the step time at Fmax, the scaling efficiency, the energy with the links'.

  PYTHONPATH=build/python /usr/bin/python3 examples/torch/ddp.py --ranks 2 --backend model

The ranks start here with torch.multiprocessing (spawn) and meet by env:// on 127.0.0.1 (gloo):
Debian's torchrun (torch 1.13) fails in its launcher on Python 3.11. A launcher that starts one
process per rank with RANK and WORLD_SIZE set (or Open MPI's mpirun, across machines too), and
MASTER_ADDR and MASTER_PORT, runs each as that rank:

  mpirun -np 2 -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT=29500 -x PYTHONPATH=build/python \
      /usr/bin/python3 examples/torch/ddp.py --backend model
"""
import contextlib
import json
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
from torch import nn

import common


def arguments(argv=None):
    p = common.parser("ddp", __doc__.splitlines()[0])
    p.add_argument("--ranks", type=common.positive_int, default=2,
                   help="ranks (processes, one chip each) started here (default: 2)")
    p.add_argument("--steps", type=common.positive_int, default=50)
    p.add_argument("--batch", type=common.positive_int, default=1024,
                   help="the global batch, split across the ranks (default: 1024)")
    p.add_argument("--lr", type=common.positive_float, default=1e-3)
    p.add_argument("--hidden", type=common.positive_int, default=512)
    p.add_argument("--dropout", type=common.probability, default=0.2)
    common.add_fashion_mnist_arguments(p)
    args = p.parse_args(argv)
    launched = launched_rank()
    world = launched[1] if launched else args.ranks
    if args.batch % world:
        p.error(f"--batch {args.batch} does not divide by the {world} ranks (each rank takes an "
                f"equal slice)")
    if args.backend == "host" and (args.device or args.report):
        p.error(f"--{'device' if args.device else 'report'} needs a device backend")
    if args.plot:
        p.error("--plot: this example writes no plot (--report writes the gathered report)")
    return p, args


def launched_rank():
    """(rank, world size) when a launcher started this process as one rank: RANK and WORLD_SIZE
    (torch's env:// names), or Open MPI's under mpirun; None otherwise."""
    for rank, size in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE")):
        if rank in os.environ and size in os.environ:
            return int(os.environ[rank]), int(os.environ[size])
    return None


def local_batches(n, batch, steps, rank, world, seed):
    """Each step's slice of the global batch for `rank`: the same shuffled order on every rank."""
    generator = torch.Generator().manual_seed(seed)
    order = torch.cat([torch.randperm(n, generator=generator)
                       for _ in range(-(-steps * batch // n))])
    share = batch // world
    for step in range(steps):
        start = step * batch + rank * share
        yield order[start:start + share]


def evaluate(model, loss_fn, x, y, rank, world):
    """The test set's mean loss and accuracy, each rank testing its slice on its chip, the sums
    added in rank order."""
    bounds = [len(x) * r // world for r in range(world + 1)]
    mine = slice(bounds[rank], bounds[rank + 1])
    loss, accuracy = common.evaluate(model, loss_fn, x[mine], y[mine])
    n = bounds[rank + 1] - bounds[rank]
    sums = torch.tensor([loss * n, accuracy * n], dtype=torch.float64)
    every = [torch.zeros_like(sums) for _ in range(world)]
    dist.all_gather(every, sums)
    total = sum(every[1:], every[0])
    return total[0].item() / len(x), total[1].item() / len(x)


def train(rank, world, args, data):
    """One rank's run; rank 0 returns the summary, the others None."""
    x, y, xt, yt = data
    torch.manual_seed(args.seed)  # the same initial weights on every rank (DDP broadcasts too)
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, args.hidden), nn.ReLU(),
                          nn.Dropout(args.dropout), nn.Linear(args.hidden, 10))
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(ddp.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    state, mode = None, None
    if args.backend != "host":
        import mxu
        import mxu.torch
        dev = mxu.Device(backend=args.backend, device=args.device)  # this rank's chip
        state = mxu.torch.RingAllReduce()
        ddp.register_comm_hook(state, mxu.torch.ring_allreduce_hook)
        mode = mxu.torch.device_mode(dev, batch=not args.unbatched)
    losses = []
    start = time.perf_counter()
    with mode if mode is not None else contextlib.nullcontext():
        for step, idx in enumerate(local_batches(len(x), args.batch, args.steps, rank, world,
                                                 args.seed)):
            opt.zero_grad()
            loss = loss_fn(ddp(x[idx]), y[idx])
            loss.backward()
            opt.step()
            every = [torch.zeros(()) for _ in range(world)]
            dist.all_gather(every, loss.detach())
            global_loss = sum(every[1:], every[0]) / world  # in rank order
            losses.append(global_loss.item())
            if rank == 0 and (step + 1) % max(1, args.steps // 10) == 0:
                log(args, f"step {step + 1}/{args.steps}  loss {losses[-1]:.4f}")
        train_s = time.perf_counter() - start
        test_loss, test_accuracy = evaluate(model, loss_fn, xt, yt, rank, world)
    report = None if mode is None else mxu.torch.gather_report(mode, state, steps=args.steps)
    if rank != 0:
        return None
    out = {"example": "ddp", "backend": args.backend, "device": args.device, "seed": args.seed,
           "ranks": world, "steps": args.steps, "batch": args.batch,
           "model": f"MLP 784-{args.hidden}-10, dropout {args.dropout}", "losses": losses,
           "first_train_loss": losses[0], "train_loss": losses[-1], "test_loss": test_loss,
           "test_accuracy": test_accuracy, "train_s": round(train_s, 3)}
    if report is not None:
        out.update(device_totals=report["totals"], chips=report["chips"],
                   interconnect=report["interconnect"], step_time=report["step_time"])
        if args.report:
            with open(args.report, "w") as f:
                json.dump(report, f, indent=2)
    return out


def log(args, line):
    print(line, file=sys.stderr if args.json else sys.stdout, flush=True)


def summary(args, out, wall):
    out["wall_s"] = round(wall, 3)
    if args.json:
        print(json.dumps(out))
        return
    print(f"  ranks {out['ranks']}, {out['steps']} steps of {out['batch']} "
          f"({out['batch'] // out['ranks']} a rank): loss {out['first_train_loss']:.4f} -> "
          f"{out['train_loss']:.4f}, test accuracy {100 * out['test_accuracy']:.2f}%, "
          f"wall {wall:.1f} s")
    if "chips" in out:
        for chip in out["chips"]:
            print(f"  chip {chip['rank']}: {chip['device_cycles']:,} cycles, "
                  f"{chip['device_gemms']} GEMMs, {chip['host_products']} host products")
        link, time_ = out["interconnect"], out["step_time"]
        print(f"  interconnect: {link['all_reduces']} all-reduces, {link['all_reduce_bytes']:,} "
              f"bytes, {link['cycles']:,} cycles, {link['link_energy_uj']:.1f} uJ")
        print(f"  at Fmax: {time_['cycles']:,} cycles ({1e3 * time_['seconds_at_fmax']:.2f} ms), "
              f"scaling efficiency {100 * time_['scaling_efficiency']:.1f}%; energy "
              f"{out['device_totals']['energy_uj_with_links']:,.0f} uJ with the links")


def rank_main(rank, world, args, port, data):
    """A rank started here (torch.multiprocessing.spawn) or by a launcher (port None)."""
    if port is not None:
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                          WORLD_SIZE=str(world))
    torch.set_num_threads(args.threads or 1)  # the ranks share the machine's cores
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world)
    try:
        start = time.perf_counter()
        out = train(rank, world, args, data)
        if out is not None:
            summary(args, out, time.perf_counter() - start)
    finally:
        dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    _, args = arguments()
    if args.backend != "host":
        common.import_mxu_torch("ddp")  # one line and exit 1 when it cannot be imported
    import fashion_mnist
    try:
        x, y, xt, yt = fashion_mnist.load(args.samples, args.test_samples)
    except fashion_mnist.DataError as e:
        sys.exit(f"ddp: error: {e}")
    data = tuple(torch.from_numpy(a) for a in (x, y, xt, yt))
    launched = launched_rank()
    if launched is not None:  # a launcher started this rank (MASTER_ADDR, MASTER_PORT set)
        if not ("MASTER_ADDR" in os.environ and "MASTER_PORT" in os.environ):
            sys.exit("ddp: error: a launched rank needs MASTER_ADDR and MASTER_PORT (rank 0's "
                     "address and a free port)")
        rank_main(*launched, args, None, data)
        return
    log(args, f"ddp: {args.ranks} ranks, {len(x)} train / {len(xt)} test images, global batch "
              f"{args.batch}, {args.steps} steps, on "
              f"{'the host' if args.backend == 'host' else f'the {args.backend} backend'}")
    torch.multiprocessing.spawn(rank_main, args=(args.ranks, args, free_port(), data),
                                nprocs=args.ranks, join=True)


if __name__ == "__main__":
    main()
