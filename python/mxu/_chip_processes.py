"""mxu.Devices's chips as worker processes on this machine (launcher="local"): one
`python -m mxu._chip_worker` per chip (this interpreter), reached over a multiprocessing
connection. Every wait has a deadline: a write to a worker that stopped reading times out
(SO_SNDTIMEO) as a read does (poll). A failure ends every worker at once; close ends them in
order; they also end with this process (the workers' PR_SET_PDEATHSIG) or when the pool is
collected.
"""
import os
import socket
import struct
import subprocess
import sys
import threading
import time
import weakref
from multiprocessing import Pipe

from mxu import _mxu


class ProcessLink:
    """The connection to one worker process: send and receive by a deadline (time.monotonic()),
    raising TimeoutError when it passes and EOFError when the worker is gone."""

    def __init__(self, conn, process):
        self._conn = conn
        self.process = process
        self.lock = threading.Lock()  # held by a call from its send to its answer
        self._socket = socket.socket(fileno=os.dup(conn.fileno()))  # for its send timeout

    def send(self, message, deadline):
        seconds = max(1e-3, deadline - time.monotonic())  # 0 would mean no timeout
        whole = int(seconds)
        try:
            self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                                    struct.pack("ll", whole, int((seconds - whole) * 1e6)))
            self._conn.send(message)
        except BlockingIOError:  # the worker stopped reading, its socket's buffer is full
            raise TimeoutError from None
        except (OSError, ValueError):
            raise EOFError from None

    def receive(self, deadline):
        try:
            ready = self._conn.poll(max(0.0, deadline - time.monotonic()))
            message = self._conn.recv() if ready else None
        except (EOFError, OSError, ValueError):
            raise EOFError from None
        if not ready:
            raise TimeoutError
        return message

    def describe(self):
        """The worker, for an error: its pid and, if it died, its exit code."""
        try:
            code = self.process.wait(0.5)
        except subprocess.TimeoutExpired:
            return f"pid {self.process.pid}"
        return f"pid {self.process.pid}, exit code {code}"

    def close(self):
        for end in (self._conn, self._socket):
            try:
                end.close()
            except OSError:
                pass


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


def _stop(processes, links):
    """Ends every worker and closes the connections (at close, collection or exit)."""
    _end(processes)
    for link in links:
        link.close()


class Processes:
    """`chips` worker processes, started here side by side; `links` one ProcessLink each."""

    stopped = "every chip is stopped"  # what a failure did, for its error

    def __init__(self, chips):
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(_mxu.__file__)))
        env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        env["PYTHONPATH"] = os.pathsep.join(
            [package_root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        self.processes, self.links = [], []
        self._finalizer = weakref.finalize(self, _stop, self.processes, self.links)
        for _ in range(chips):
            mine, theirs = Pipe()
            try:
                process = subprocess.Popen(
                    [sys.executable, "-m", "mxu._chip_worker", str(theirs.fileno())],
                    pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL,
                    stdout=2)  # a simulator's message must not land in the program's stdout
            finally:
                theirs.close()
            self.processes.append(process)
            self.links.append(ProcessLink(mine, process))

    def where(self):
        return "worker processes"

    def fail(self, link):
        """After `link`'s chip failed: the other chips' waits end as their workers do (EOF)."""
        _end(self.processes, at_once=True)

    def close(self):
        deadline = time.monotonic() + 1
        for link in self.links:
            try:
                link.send(("close",), deadline)
            except (TimeoutError, EOFError):
                pass
        self._finalizer()
