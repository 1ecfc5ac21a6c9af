"""PyTorch's DistributedDataParallel on simulated chips: each rank a process with its own device
under mxu.torch.device_mode, and a DDP communication hook that sums the gradient buckets in rank
order and charges the sum on `mxu train`'s ring interconnect.

    state = mxu.torch.RingAllReduce()                  # after init_process_group("gloo")
    ddp = DistributedDataParallel(model)
    ddp.register_comm_hook(state, mxu.torch.ring_allreduce_hook)
    ...
    report = mxu.torch.gather_report(mode, state)      # rank 0: every chip's; others: None

The hook divides its bucket by the ranks (as DDP's default hook does, before the sum), gathers
every rank's bucket (all_gather) and adds them in rank order 0, 1, ..., N-1 on every rank: the
same bits whatever the ranks' timing (an all_reduce may add in any order), as `mxu train` sums
its ranks' gradients. What the gather moves is the simulation's business; what is charged is a
ring all-reduce of the bucket (mxu/_ring.py), one per bucket, as DDP all-reduces them.
"""
import torch
import torch.distributed as dist

from mxu import _ring


class RingAllReduce:
    """The state of ring_allreduce_hook: the process group (None: the default one) and the ring
    its all-reduces are charged on (link_bytes_per_cycle, link_latency_cycles: `mxu train`'s
    links; link_pj_per_bit: their energy, assumed: mxu/_ring.py)."""

    def __init__(self, process_group=None, **links):
        who = "mxu.torch.RingAllReduce"
        _ring.check_links(links, who)
        if not (dist.is_available() and dist.is_initialized()):
            raise RuntimeError(f"{who}: torch.distributed is not initialized: call "
                               f"torch.distributed.init_process_group first")
        self.process_group = process_group
        self.world_size = dist.get_world_size(process_group)
        self.rank = dist.get_rank(process_group)
        self.ring = _ring.Ring(self.world_size, who=who, **links)

    def summary(self):
        """The interconnect so far: all-reduces, bytes, cycles, link bytes and energy."""
        return self.ring.summary()


def ring_allreduce_hook(state, bucket):
    """A DDP communication hook (DistributedDataParallel.register_comm_hook(state, hook)): the
    bucket's mean over the ranks, summed in rank order, charged as a ring all-reduce."""
    if not isinstance(state, RingAllReduce):
        raise TypeError(f"mxu.torch.ring_allreduce_hook: state must be a "
                        f"mxu.torch.RingAllReduce, got {type(state).__name__}")
    buffer = bucket.buffer()
    buffer.div_(state.world_size)  # first, as DDP's own hook does (no overflow in the sum)
    parts = [torch.empty_like(buffer) for _ in range(state.world_size)]
    dist.all_gather(parts, buffer, group=state.process_group)
    total = parts[0]
    for part in parts[1:]:
        total.add_(part)
    state.ring.all_reduce(buffer.numel() * buffer.element_size())
    future = torch.futures.Future()
    future.set_result(total)
    return future


def gather_report(mode, state, dst=0, node=180, steps=None):
    """Every rank's profile (mode.report(node)) gathered on rank `dst` and made the run's report
    there (mxu/_ring.py: summed over the chips, with 'chips', 'interconnect' and 'step_time', the
    busiest rank's compute plus the all-reduces; `steps`: the steps run, for the record); None on
    the other ranks. Every rank calls it."""
    if not isinstance(state, RingAllReduce):
        raise TypeError(f"mxu.torch.gather_report: state must be a mxu.torch.RingAllReduce, got "
                        f"{type(state).__name__}")
    mine = mode.report(node)
    everyone = [None] * state.world_size if state.rank == dst else None
    dist.gather_object(mine, everyone, dst=dst, group=state.process_group)
    if state.rank != dst:
        return None
    return _ring.report(everyone, state.ring, steps=steps)
