"""mxu.Devices: several simulated chips, each an mxu.Device in a worker process of its own, so
that the chips run side by side on the machine's cores (and the RTL, which SystemC elaborates once
a process, can have several chips too).

    chips = mxu.Devices(8, backend="model")     # 8 worker processes, started now
    chips[3].gemm(a, b)                         # runs in chip 3's process
    chips.close()                               # or `with mxu.Devices(...) as chips:`

Each chip is called as an mxu.Device (gemm, gemm_batch, gemm_int8, counters, info, read_csr,
backend), so every mode (mxu.torch.device_mode, mxu.jax.on_device, mxu.keras.DeviceStrategy)
takes one. The workers are `python -m mxu._chip_worker` processes (this interpreter), reached over
multiprocessing connections (pickled NumPy arrays). A call that gets no answer within `timeout`
seconds, or a worker that dies, raises ChipError naming the chip, and every worker is stopped:
none is left behind, none waits forever. Workers also end with this process. Framework-free.
"""
import numbers
import os
import subprocess
import sys
import threading
import time
import weakref
from multiprocessing import Pipe

from mxu import _mxu

# The classes a worker's error is raised as here (others become RuntimeError).
_ERRORS = {cls.__name__: cls for cls in (ValueError, TypeError, RuntimeError, OverflowError,
                                         MemoryError, _mxu.DeviceError, _mxu.CheckError,
                                         _mxu.DtypeError)}
DEFAULT_TIMEOUT = 600.0  # seconds a chip may take to answer one call (a big GEMM on the RTL)
START_TIMEOUT = 120.0  # seconds a worker may take to start and open its device


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
    """One chip of a Devices pool: an mxu.Device in a worker process (see mxu.Devices)."""

    def __init__(self, pool, rank, conn, process):
        self._pool = pool
        self.rank = rank
        self._conn = conn
        self._process = process
        self._lock = threading.Lock()  # one call at a time on the connection
        self._counters = None  # the counters after the last program, sent with its result
        self._info = None

    @property
    def pid(self):
        return self._process.pid

    @property
    def backend(self):
        return self._info["backend"]

    def _receive(self, deadline_s, what):
        try:
            if not self._conn.poll(deadline_s):
                raise self._pool._failed(self, f"did not answer {what} in {deadline_s:g} s")
            return self._conn.recv()
        except (EOFError, OSError, ValueError):
            raise self._pool._failed(self, f"died during {what}") from None

    def _ask(self, method, *args, **kwargs):
        with self._lock:
            self._pool._check_open()
            try:
                self._conn.send((method, args, kwargs))
            except (OSError, ValueError):
                raise self._pool._failed(self, f"died before {method}") from None
            answer = self._receive(self._pool.timeout, method)
        if answer[0] == "ok":
            return answer[1]
        _, name, message = answer
        raise _ERRORS.get(name, RuntimeError)(f"chip {self.rank}: {message}")

    def _open(self, options):
        self._conn.send(("open", options))
        answer = self._receive(START_TIMEOUT, "its start")
        if answer[0] != "ok":
            _, name, message = answer
            raise _ERRORS.get(name, RuntimeError)(f"mxu.Devices: chip {self.rank}: {message}")
        self._info = answer[1]

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
                f"{self.backend}, pid {self.pid}>")


def _end(processes, at_once=False):
    """Ends every worker (SIGTERM, then SIGKILL; at_once: SIGKILL, which a stopped one obeys
    too), waiting briefly."""
    for process in processes:
        if process.poll() is None:
            process.kill() if at_once else process.terminate()
    deadline = time.monotonic() + 5
    for process in processes:
        try:
            process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _stop(processes, conns):
    """Ends every worker and closes the connections (at close, collection or exit)."""
    _end(processes)
    for conn in conns:
        try:
            conn.close()
        except OSError:
            pass


class Devices:
    """`chips` simulated chips, each an mxu.Device(backend, device, **options) in a worker
    process of its own (started here, all at once): a sequence of chips, each called as an
    mxu.Device. All must open the same device; a failure to start raises that chip's error.
    timeout: the seconds a chip may take to answer one call (ChipError after, every chip stopped).
    in_process=True opens the chips in this process instead (model backend only: SystemC
    elaborates the RTL once a process): no workers, and no parallelism (the chips share this
    process's interpreter)."""

    def __init__(self, chips, backend="rtl", device=None, timeout=DEFAULT_TIMEOUT,
                 in_process=False, **options):
        _check_count(chips)
        _check_timeout(timeout)
        if backend not in _mxu.backends():
            raise ValueError(f"mxu.Devices: unknown backend {backend!r} (available: "
                             f"{', '.join(repr(b) for b in _mxu.backends())})")
        self.timeout = float(timeout)  # may be changed between calls
        self._closed = False
        self._failure = None
        self._failure_lock = threading.Lock()
        self._processes, self._conns = [], []
        if in_process:
            if backend != "model" and chips > 1:
                raise ValueError(f"mxu.Devices: {chips} chips on the {backend!r} backend need "
                                 f"worker processes (SystemC elaborates the RTL once a "
                                 f"process): leave in_process=False, or use backend='model'")
            import mxu
            self._chips = [mxu.Device(backend=backend, device=device, **options)
                           for _ in range(chips)]
            return
        self._chips = []
        self._finalizer = weakref.finalize(self, _stop, self._processes, self._conns)
        try:
            self._start(chips, dict(backend=backend, device=device, **options))
        except BaseException:
            self.close()
            raise

    def _start(self, chips, options):
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(_mxu.__file__)))
        env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        env["PYTHONPATH"] = os.pathsep.join(
            [package_root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        for rank in range(chips):
            mine, theirs = Pipe()
            process = subprocess.Popen(
                [sys.executable, "-m", "mxu._chip_worker", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL,
                stdout=2)  # a simulator's message must not land in the program's stdout
            theirs.close()
            self._processes.append(process)
            self._conns.append(mine)
            self._chips.append(Chip(self, rank, mine, process))
        for chip in self._chips:  # the workers start side by side; each opens its device
            chip._open(options)
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
                try:
                    code = chip._process.wait(0.5)  # a worker that died: its exit code
                except subprocess.TimeoutExpired:
                    code = None
                status = "" if code is None else f", exit code {code}"
                self._failure = (f"mxu.Devices: chip {chip.rank} (pid {chip.pid}{status}) "
                                 f"{what}; every chip is stopped")
                # The other chips' threads, waiting on their workers, then see them end (EOF).
                _end(self._processes, at_once=True)
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
        """The workers' process ids, chip by chip (empty in_process)."""
        return [p.pid for p in self._processes]

    def close(self):
        """Stops every worker (idempotent); the chips refuse calls after."""
        self._closed = True
        if self._processes:
            for conn in self._conns:
                try:
                    conn.send(("close",))
                except (OSError, ValueError):
                    pass
            self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        where = "worker processes" if self._processes else "this process"
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
