"""mxu.Devices's chips as MPI ranks (launcher="mpi"), across machines: the program runs under
`mpirun -np N+1`, rank 0 runs it and ranks 1..N serve its N chips, each an mxu.Device in its own
process. The messages are mxu/_chip_worker.py's, pickled by mpi4py (Open MPI carries them); the
worker loop is its serve().

    mpirun -np 3 python prog.py      # prog.py: mxu.Devices(2, backend="model", launcher="mpi")

Every rank runs the program up to its first mxu.Devices(..., launcher="mpi"). There rank 0
carries on; every other rank serves chips to rank 0, pool after pool, until rank 0's program
ends (its exit sends "exit"), and then exits without running the rest. Each pool has a tag of
its own, so that no answer of an earlier pool is taken for a later one's.

Every wait of rank 0 has a deadline: a send or an answer not done by it raises TimeoutError (the
chip then fails, naming its rank). A rank that dies ends the job (mpirun's rule: it stops every
rank and names the one that died). A rank that hung cannot be stopped from here: it is never
given another chip, and when rank 0's program ends the job is aborted (MPI_Abort), so that no
rank is left behind. The waits poll (MPI's own blocking waits spin a core each, which the chips'
simulations need).
"""
import atexit
import itertools
import os
import sys
import threading
import time
import weakref

from mxu._chip_worker import serve

_LAUNCHED = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK")  # what mpirun sets in its ranks
_EXIT_TAG = 0
_lock = threading.Lock()  # one MPI call at a time (the replicas' threads share rank 0's comm)
_busy, _lost = set(), set()  # ranks serving a pool now; ranks that failed (never used again)
_pending = []  # sends not finished by their deadline: their buffers must outlive them
_tags = itertools.count(_EXIT_TAG + 1)
_open_pools = weakref.WeakSet()
_state = {"comm": None}


def _mpi(who):
    if not any(name in os.environ for name in _LAUNCHED):
        raise RuntimeError(f"{who}: launcher='mpi' needs the program started by mpirun (e.g. "
                           f"mpirun -np 3 python prog.py: rank 0 runs it, ranks 1 and 2 are 2 "
                           f"chips); this process was not")
    try:
        from mpi4py import MPI
    except ImportError:
        raise ImportError(f"{who}: launcher='mpi' needs mpi4py (Debian's python3-mpi4py, which "
                          f"scripts/setup.sh installs)") from None
    return MPI


def _poll(deadline, attempt):
    """attempt()'s first result that is not None, or None once `deadline` passed (None: no
    deadline). Sleeps between attempts, from 20 us to 1 ms."""
    delay = 20e-6
    while True:
        result = attempt()
        if result is not None or (deadline is not None and time.monotonic() >= deadline):
            return result
        time.sleep(delay)
        delay = min(2 * delay, 1e-3)


def enter(who):
    """Returns on rank 0. On every other rank serves chips until rank 0 ends, then exits this
    process: it never returns."""
    MPI = _mpi(who)
    comm = MPI.COMM_WORLD
    if comm.Get_rank() != 0:
        _serve_forever(comm, MPI)
    if _state["comm"] is None:
        _state["comm"] = comm
        atexit.register(_end_job, comm)
    return comm


class _RankChannel:
    """A chip rank's end of its messages with rank 0, for serve(): each answer goes back under
    the tag of the message it answers (its pool's)."""

    def __init__(self, comm, MPI):
        self._comm, self._MPI = comm, MPI
        self._tag = _EXIT_TAG

    def recv(self):
        status = self._MPI.Status()
        message = _poll(None, lambda: self._comm.improbe(0, self._MPI.ANY_TAG, status))
        self._tag = status.Get_tag()
        return message.recv()

    def send(self, message):
        self._comm.send(message, dest=0, tag=self._tag)


def _serve_forever(comm, MPI):
    sys.stdout.flush()
    os.dup2(2, 1)  # a simulator's message must not land in the program's stdout
    channel = _RankChannel(comm, MPI)
    while serve(channel) != "exit":
        pass
    sys.exit(0)


def _end_job(comm):
    """At rank 0's exit: closes the pools still open, tells every other rank to exit, and
    aborts the job if a rank hung (it would never reach MPI_Finalize)."""
    for pool in list(_open_pools):
        pool.close()
    deadline = time.monotonic() + 5
    for rank in range(1, comm.Get_size()):
        if rank not in _lost:
            with _lock:
                request = comm.isend(("exit",), dest=rank, tag=_EXIT_TAG)
            if _poll(deadline, lambda: True if request.Test() else None) is None:
                _lost.add(rank)
    if _lost:
        sys.stdout.flush()
        sys.stderr.flush()
        comm.Abort(1)


class RankLink:
    """Rank 0's messages with one chip rank under one pool's tag: send and receive by a deadline
    (time.monotonic()), raising TimeoutError when it passes."""

    def __init__(self, comm, rank, tag):
        self._comm, self.rank, self._tag = comm, rank, tag
        self.lock = threading.Lock()  # held by a call from its send to its answer
        self.place = None  # the rank's pid and host, from its answer to "open"

    def send(self, message, deadline):
        with _lock:
            request = self._comm.isend(message, dest=self.rank, tag=self._tag)
        if _poll(deadline, lambda: self._test(request)) is None:
            _pending.append(request)
            raise TimeoutError

    @staticmethod
    def _test(request):
        with _lock:
            return True if request.Test() else None

    def receive(self, deadline):
        def probe():
            with _lock:
                return self._comm.improbe(self.rank, self._tag)
        message = _poll(deadline, probe)
        if message is None:
            raise TimeoutError
        with _lock:
            return message.recv()

    def describe(self):
        if self.place is None:
            return f"MPI rank {self.rank}"
        return f"MPI rank {self.rank}, pid {self.place['pid']} on {self.place['host']}"


def _release(links):
    """Closes every chip rank that still answers, after the call it is running (it goes back
    to waiting for a pool)."""
    deadline = time.monotonic() + 5
    for link in links:
        if link.rank in _lost or link.rank not in _busy:
            continue
        if not link.lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
            _lost.add(link.rank)
            continue
        try:
            link.send(("close",), deadline)
            link.receive(deadline)
            _busy.discard(link.rank)
        except TimeoutError:
            _lost.add(link.rank)
        finally:
            link.lock.release()


class Ranks:
    """`chips` MPI ranks for one pool (rank 0's free ones, in order); `links` one RankLink
    each."""

    stopped = ("no chip takes another call, and the job is aborted (MPI_Abort) when this "
               "program ends (mpirun cannot stop one rank alone)")

    def __init__(self, chips, who):
        comm = _state["comm"]
        size = comm.Get_size()
        free = [r for r in range(1, size) if r not in _busy and r not in _lost]
        if chips > len(free):
            taken = size - 1 - len(free)
            many = "s" if chips > 1 else ""
            raise ValueError(f"{who}: {chips} chip{many} need{'' if many else 's'} {chips} MPI "
                             f"rank{many} besides rank 0 (mpirun -np {chips + 1}); this job has "
                             f"{size - 1}"
                             + (f", {taken} of them taken or lost" if taken else ""))
        tag = next(_tags)
        self.links = [RankLink(comm, rank, tag) for rank in free[:chips]]
        _busy.update(link.rank for link in self.links)
        self._finalizer = weakref.finalize(self, _release, self.links)
        _open_pools.add(self)

    def where(self):
        ranks = [link.rank for link in self.links]
        return f"MPI ranks {ranks[0]}-{ranks[-1]}" if len(ranks) > 1 else f"MPI rank {ranks[0]}"

    def fail(self, link):
        """After `link`'s chip failed: its rank is never used again (the others answer as they
        finish)."""
        _lost.add(link.rank)

    def close(self):
        self._finalizer()
