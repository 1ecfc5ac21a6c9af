"""mxu.Devices: several simulated chips, each an mxu.Device in a process of its own, so that the
chips run side by side on the machine's cores, or on several machines (and the RTL, which SystemC
elaborates once a process, can have several chips too).

    chips = mxu.Devices(8, backend="model")     # 8 worker processes, started now
    chips[3].gemm(a, b)                         # runs in chip 3's process
    chips.close()                               # or `with mxu.Devices(...) as chips:`

    # under `mpirun -np 9 python prog.py`: rank 0 runs the program, ranks 1..8 are the chips
    chips = mxu.Devices(8, backend="model", launcher="mpi")

Each chip is called as an mxu.Device (gemm, gemm_batch, gemm_int8, counters, info, read_csr,
backend), so every mode (mxu.torch.device_mode, mxu.jax.on_device, mxu.keras.DeviceStrategy)
takes one. Two launchers carry the same messages (mxu/_chip_worker.py, which also serves them):
"local", `python -m mxu._chip_worker` processes (this interpreter) over multiprocessing
connections (mxu/_chip_processes.py), and "mpi", the ranks of an mpirun job over mpi4py
(mxu/_chip_mpi.py). A call that gets no answer within `timeout` seconds, or a worker that dies,
raises ChipError naming the chip, and every chip is stopped: none is left behind, none waits
forever. Framework-free.
"""
import numbers
import threading
import time

from mxu import _mxu
from mxu._chip_processes import Processes

# The classes a worker's error is raised as here (others become RuntimeError).
_ERRORS = {cls.__name__: cls for cls in (ValueError, TypeError, RuntimeError, OverflowError,
                                         MemoryError, _mxu.DeviceError, _mxu.CheckError,
                                         _mxu.DtypeError)}
DEFAULT_TIMEOUT = 600.0  # seconds a chip may take to answer one call (a big GEMM on the RTL)
START_TIMEOUT = 120.0  # seconds a worker may take to start and open its device
LAUNCHERS = ("local", "mpi")


class ChipError(RuntimeError):
    """A chip's worker process died or did not answer in time; every chip is stopped."""


def _check_count(chips):
    if isinstance(chips, bool) or not isinstance(chips, numbers.Integral):
        raise TypeError(f"mxu.Devices: chips must be a whole number, got {chips!r}")
    if chips < 1:
        raise ValueError(f"mxu.Devices: chips must be at least 1, got {chips}")


def _check_timeout(timeout):
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) or not timeout > 0:
        raise ValueError(f"mxu.Devices: timeout must be a positive number of seconds, got "
                         f"{timeout!r}")


class Chip:
    """One chip of a Devices pool: an mxu.Device in a worker (see mxu.Devices), reached through
    `link` (its launcher's: send and receive by a deadline)."""

    def __init__(self, pool, rank, link):
        self._pool = pool
        self.rank = rank
        self._link = link
        self._lock = link.lock  # one call at a time on the link (closing it waits for it)
        self._counters = None  # the counters after the last program, sent with its result
        self._info = None
        self._place = {}  # the worker's pid and host, from its answer to "open"

    @property
    def pid(self):
        return self._place.get("pid")

    @property
    def host(self):
        return self._place.get("host")

    @property
    def backend(self):
        return self._info["backend"]

    def _send(self, message, deadline, what):
        try:
            self._link.send(message, deadline)
        except TimeoutError:
            raise self._pool._failed(self, f"did not answer {what} in "
                                           f"{self._pool.timeout:g} s") from None
        except EOFError:
            raise self._pool._failed(self, f"died before {what}") from None

    def _receive(self, deadline, what, seconds):
        try:
            return self._link.receive(deadline)
        except TimeoutError:
            raise self._pool._failed(self, f"did not answer {what} in {seconds:g} s") from None
        except EOFError:
            raise self._pool._failed(self, f"died during {what}") from None

    def _ask(self, method, *args, **kwargs):
        with self._lock:
            self._pool._check_open()
            seconds = self._pool.timeout
            deadline = time.monotonic() + seconds
            self._send((method, args, kwargs), deadline, method)
            answer = self._receive(deadline, method, seconds)
        if answer[0] == "ok":
            return answer[1]
        _, name, message = answer
        raise _ERRORS.get(name, RuntimeError)(f"chip {self.rank}: {message}")

    def _start_opening(self, options, deadline):
        self._send(("open", options), deadline, "its start")

    def _finish_opening(self, deadline):
        answer = self._receive(deadline, "its start", START_TIMEOUT)
        if answer[0] != "ok":
            _, name, message = answer
            raise _ERRORS.get(name, RuntimeError)(f"mxu.Devices: chip {self.rank}: {message}")
        self._info, self._place = answer[1], answer[2]
        self._link.place = self._place

    def _program(self, method, *args, **kwargs):
        result, self._counters = self._ask(method, *args, **kwargs)
        return result

    def gemm(self, a, b, **options):
        return self._program("gemm", a, b, **options)

    def gemm_batch(self, a, b, **options):
        return self._program("gemm_batch", a, b, **options)

    def gemm_int8(self, a, b, **options):
        return self._program("gemm_int8", a, b, **options)

    def counters(self):
        """The last program's counters (sent with its result); the device's before any."""
        if self._counters is None:
            return self._ask("counters")
        return dict(self._counters)

    def info(self):
        return dict(self._info)

    def read_csr(self, addr):
        return self._ask("read_csr", addr)

    def __repr__(self):
        return (f"<mxu chip {self.rank} of {len(self._pool)}: {self._info['device']!r} on "
                f"{self.backend}, {self._link.describe()}>")


class Devices:
    """`chips` simulated chips, each an mxu.Device(backend, device, **options) in a worker of its
    own (started here, all at once): a sequence of chips, each called as an mxu.Device. All must
    open the same device; a failure to start raises that chip's error.
    timeout: the seconds a chip may take to answer one call (ChipError after, every chip stopped).
    launcher: "local", worker processes on this machine; "mpi", the ranks of the mpirun job this
    program runs in (rank 0 runs the program, ranks 1..chips are the chips; the other ranks stop
    at this line, serving, see mxu/_chip_mpi.py).
    in_process=True opens the chips in this process instead (model backend only: SystemC
    elaborates the RTL once a process): no workers, and no parallelism (the chips share this
    process's interpreter)."""

    def __init__(self, chips, backend="rtl", device=None, timeout=DEFAULT_TIMEOUT,
                 in_process=False, launcher="local", **options):
        if launcher not in LAUNCHERS:
            raise ValueError(f"mxu.Devices: launcher must be 'local' (worker processes) or "
                             f"'mpi' (the ranks of mpirun's job), got {launcher!r}")
        if launcher == "mpi":
            from mxu import _chip_mpi
            _chip_mpi.enter("mxu.Devices")  # ranks 1..: serve chips, then exit, from here
        _check_count(chips)
        _check_timeout(timeout)
        if backend not in _mxu.backends():
            raise ValueError(f"mxu.Devices: unknown backend {backend!r} (available: "
                             f"{', '.join(repr(b) for b in _mxu.backends())})")
        self.timeout = float(timeout)  # may be changed between calls
        self.launcher = launcher
        self._closed = False
        self._failure = None
        self._failure_lock = threading.Lock()
        self._workers = None
        self._processes = []  # the local workers' (Popen)
        if in_process:
            if launcher != "local":
                raise ValueError("mxu.Devices: in_process=True opens the chips in this process, "
                                 "launcher='mpi' on other ranks: choose one")
            if backend != "model" and chips > 1:
                raise ValueError(f"mxu.Devices: {chips} chips on the {backend!r} backend need "
                                 f"worker processes (SystemC elaborates the RTL once a "
                                 f"process): leave in_process=False, or use backend='model'")
            import mxu
            self._chips = [mxu.Device(backend=backend, device=device, **options)
                           for _ in range(chips)]
            return
        self._chips = []
        try:
            if launcher == "mpi":
                self._workers = _chip_mpi.Ranks(chips, "mxu.Devices")
            else:
                self._workers = Processes(chips)
                self._processes = self._workers.processes
            self._chips = [Chip(self, rank, link)
                           for rank, link in enumerate(self._workers.links)]
            self._open(dict(backend=backend, device=device, **options))
        except BaseException:
            self.close()
            raise

    def _open(self, options):
        """Every worker opens its device side by side; all must open the same one."""
        deadline = time.monotonic() + START_TIMEOUT
        for chip in self._chips:
            chip._start_opening(options, deadline)
        for chip in self._chips:
            chip._finish_opening(deadline)
        first = self._chips[0].info()
        for chip in self._chips[1:]:
            if chip.info() != first:
                raise ValueError(f"mxu.Devices: chip {chip.rank} opened another device than "
                                 f"chip 0 ({chip.info()['device']!r}, {first['device']!r})")

    # ---- failures ----
    def _check_open(self):
        if self._failure is not None:
            raise ChipError(self._failure)
        if self._closed:
            raise ChipError("mxu.Devices: the chips are closed")

    def _failed(self, chip, what):
        """Stops every worker and returns the ChipError naming `chip` (the first failure's)."""
        with self._failure_lock:
            if self._failure is None:
                self._failure = (f"mxu.Devices: chip {chip.rank} ({chip._link.describe()}) "
                                 f"{what}; {self._workers.stopped}")
                # The other chips' threads, waiting on their workers, then see them end.
                self._workers.fail(chip._link)
        return ChipError(self._failure)

    # ---- the sequence ----
    def __len__(self):
        return len(self._chips)

    def __getitem__(self, index):
        return self._chips[index]

    def __iter__(self):
        return iter(self._chips)

    @property
    def backend(self):
        return self._chips[0].backend

    def info(self):
        """Chip 0's info (every chip opened the same device)."""
        return self._chips[0].info()

    def pids(self):
        """The workers' process ids, chip by chip (empty in_process; under mpirun, each on its
        rank's machine: Chip.host)."""
        return [chip.pid for chip in self._chips] if self._workers is not None else []

    def close(self):
        """Stops every worker (idempotent); the chips refuse calls after. Under mpirun the
        ranks go back to waiting for another pool."""
        self._closed = True
        if self._workers is not None:
            self._workers.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        where = "this process" if self._workers is None else self._workers.where()
        return (f"<mxu.Devices: {len(self)} x {self.info()['device']!r} on {self.backend}, "
                f"in {where}>")


def run_side_by_side(calls, pool):
    """The results of `calls` (functions of no arguments, one per chip), each run in a thread of
    `pool` (a ThreadPoolExecutor): the chips work in parallel while the threads wait on them. The
    first failure in the calls' order is raised, after all of them finished."""
    if len(calls) == 1:
        return [calls[0]()]
    futures = [pool.submit(call) for call in calls]
    outcomes = []
    for future in futures:
        try:
            outcomes.append((True, future.result()))
        except BaseException as exc:  # noqa: B902  re-raised below, in the calls' order
            outcomes.append((False, exc))
    for ok, value in outcomes:
        if not ok:
            raise value
    return [value for _, value in outcomes]
