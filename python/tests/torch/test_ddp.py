"""PyTorch's DistributedDataParallel on simulated chips (issue 67): examples/torch/ddp.py with 2
ranks, each on its own model-backend chip, against 1 rank on the same global batches: every
step's loss within 1e-6 (relative), no host products on any chip, rank 0's gathered report with
both chips, and the all-reduces charged by the ring's formula (written out here). Bad input is
one line. Each run is a process of its own (its ranks, processes too); mpirun starts the same
ranks (Open MPI, which the set-up installs)."""
import json
import math
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch.distributed as dist

import mxu.torch

ROOT = Path(__file__).resolve().parents[3]
SMALL = ["--samples", "256", "--test-samples", "64", "--steps", "3", "--batch", "32",
         "--hidden", "16", "--dropout", "0"]
PARAMETER_BYTES = 4 * (784 * 16 + 16 + 16 * 10 + 10)  # one DDP bucket (under its first 1 MB)


def run(*args):
    return subprocess.run([sys.executable, str(ROOT / "examples" / "torch" / "ddp.py"), *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))


def run_json(*args):
    r = run(*args, "--json")
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def two_ranks():
    return run_json("--ranks", "2", *SMALL)


def test_two_ranks_give_one_ranks_losses_with_every_product_on_their_chips(two_ranks):
    one, two = run_json("--ranks", "1", *SMALL), two_ranks
    assert len(two["losses"]) == 3
    for a, b in zip(one["losses"], two["losses"]):
        assert abs(a - b) <= 1e-6 * abs(a), (one["losses"], two["losses"])
    assert [c["rank"] for c in two["chips"]] == [0, 1]  # every rank's report, on rank 0
    assert all(c["host_products"] == 0 and c["device_gemms"] > 0 for c in two["chips"])
    link = two["interconnect"]
    assert link["all_reduces"] == 3 and link["all_reduce_bytes"] == 3 * PARAMETER_BYTES
    ring = 2 * (2 - 1) * (350 + math.ceil(PARAMETER_BYTES / 2 / 88))
    assert link["all_reduce_cycles"] == 3 * ring
    assert one["interconnect"]["cycles"] == 0 and one["step_time"]["scaling_efficiency"] == 1.0
    step = two["step_time"]
    assert step["cycles"] == max(c["device_cycles"] for c in two["chips"]) + 3 * ring
    assert 0 < step["scaling_efficiency"] < 1


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="no mpirun (openmpi-bin)")
def test_mpirun_starts_the_same_ranks(two_ranks):
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()),
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    r = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", "-x", "MASTER_ADDR", "-x",
                        "MASTER_PORT", "-x", "PYTHONPATH", sys.executable,
                        str(ROOT / "examples" / "torch" / "ddp.py"), *SMALL, "--json"],
                       capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert r.returncode == 0, r.stderr[-4000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["ranks"] == 2 and out["losses"] == two_ranks["losses"]
    assert out["chips"] == two_ranks["chips"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_batch_the_ranks_do_not_divide_is_one_line():
    r = run("--ranks", "2", "--batch", "33")
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == ("ddp: error: --batch 33 does not divide by the 2 ranks (each "
                                "rank takes an equal slice)")


def test_the_hook_needs_torch_distributed_and_its_state():
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="^mxu.torch.RingAllReduce: torch.distributed is not "
                                           "initialized: call torch.distributed."
                                           "init_process_group first$"):
        mxu.torch.RingAllReduce()
    with pytest.raises(TypeError, match="^mxu.torch.ring_allreduce_hook: state must be a "
                                        "mxu.torch.RingAllReduce, got NoneType$"):
        mxu.torch.ring_allreduce_hook(None, None)
