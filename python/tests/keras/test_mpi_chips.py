"""mxu.Devices(..., launcher="mpi") (issue 67): Keras replicas on chips that are the ranks of an
mpirun job (Open MPI and mpi4py, which the set-up installs), rank 0 running the program. A small
model trained on 2 rank chips (mpirun -np 3) ends with the worker-process chips' weights bit for
bit, the same losses and the same report. Too few ranks, or no mpirun, is one line; a rank that
hangs raises ChipError naming its chip and rank within the timeout, and the job ends (no rank
left behind); a rank that dies ends the job, mpirun naming it. Each run is a process of its own
(mpi_replicas.py)."""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mxu

HELPER = str(Path(__file__).with_name("mpi_replicas.py"))
TOO_FEW = ("ValueError: mxu.Devices: 2 chips need 2 MPI ranks besides rank 0 (mpirun -np 3); "
           "this job has 1")


def run(*command, timeout=120):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


def mpirun(ranks, *args):
    assert shutil.which("mpirun"), "no mpirun: run scripts/setup.sh (openmpi-bin)"
    return run("mpirun", "--oversubscribe", "-np", str(ranks), "-x", "PYTHONPATH",
               sys.executable, HELPER, "--launcher", "mpi", *args)


def last_json(r):
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_rank_chips_give_the_worker_process_chips_bits_and_report():
    local = last_json(run(sys.executable, HELPER, "--launcher", "local"))
    ranks = last_json(mpirun(3))
    assert ranks["weights"] == local["weights"]  # every weight's bits
    assert ranks["loss"] == local["loss"]
    assert ranks == local  # and the report: each chip's counts, the ring's, the step time
    assert [c["host_products"] for c in ranks["chips"]] == [0, 0]
    assert all(c["device_gemms"] > 0 for c in ranks["chips"])
    assert ranks["interconnect"]["all_reduces"] == 6  # 2 epochs of 3 steps


def test_too_few_ranks_is_one_line_from_rank_0():
    r = mpirun(2)
    assert r.returncode != 0
    assert r.stderr.count(TOO_FEW) == 1, r.stderr[-4000:]


def test_the_ranks_serve_pool_after_pool_and_refuse_a_pool_too_many():
    out = last_json(mpirun(3, "--pools"))
    assert out["same"]
    assert out["third"] == ("mxu.Devices: 1 chip needs 1 MPI rank besides rank 0 (mpirun -np "
                            "2); this job has 2, 2 of them taken or lost")
    assert out["bad_device"][:2] == ["mxu.Devices", " chip 0"]
    assert out["bad_device"][2].startswith(" device 'no-such' is neither a device of this build")
    assert out["after_bad"] == 2
    assert out["in_process"] == ("mxu.Devices: in_process=True opens the chips in this process, "
                                 "launcher='mpi' on other ranks: choose one")


def test_no_mpirun_and_a_bad_launcher_are_one_line(monkeypatch):
    for name in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(RuntimeError, match=r"^mxu.Devices: launcher='mpi' needs the program "
                                           r"started by mpirun \(e.g. mpirun -np 3 python "
                                           r"prog.py: .*\); this process was not$"):
        mxu.Devices(2, backend="model", launcher="mpi")
    with pytest.raises(ValueError, match="^mxu.Devices: launcher must be 'local' .* got 'ssh'$"):
        mxu.Devices(2, backend="model", launcher="ssh")


def test_a_rank_that_hangs_raises_naming_it_and_the_job_ends():
    r = mpirun(3, "--fault", "hang")
    assert r.returncode != 0, "the job should be aborted: a rank hung"
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert re.fullmatch(r"mxu.Devices: chip 1 \(MPI rank 2, pid \d+ on \S+\) did not answer "
                        r"gemm in 3 s; no chip takes another call, and the job is aborted "
                        r"\(MPI_Abort\) when this program ends \(mpirun cannot stop one rank "
                        r"alone\)", out["error"]), out["error"]
    assert gone(out["victim"]), "mpirun should have ended the stopped rank"


def gone(pid, seconds=10):
    """Whether `pid` ended (or is a zombie, ended but not yet reaped) within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def test_a_rank_that_dies_ends_the_job_naming_it():
    r = mpirun(3, "--fault", "die")
    assert r.returncode != 0
    assert "process rank 2 with PID" in r.stderr and "signal 9" in r.stderr, r.stderr[-4000:]
