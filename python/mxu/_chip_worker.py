"""One simulated chip's serving loop, whatever carries its messages: a worker process that
mxu.Devices starts (here, over a multiprocessing connection) or an MPI rank under mpirun
(mxu/_chip_mpi.py, over mpi4py). The same messages, the same answers.

    python -m mxu._chip_worker FD     # FD: this end of the parent's multiprocessing.Pipe()

Messages are pickled tuples: first ("open", device keywords), answered ("ok", info, place)
(place: this process's pid and host, for the errors that name the chip); then
(method, args, kwargs) for gemm, gemm_batch, gemm_int8, counters, info, read_csr; and ("close",).
Each answer is ("ok", value) or ("error", class name, first line of the message). A program's
answer carries the device's counters after it, so the parent needs no second round trip. A worker
process ends when its parent closes the connection or dies (Linux: PR_SET_PDEATHSIG).
"""
import ctypes
import os
import signal
import socket
import sys
from multiprocessing.connection import Connection

PROGRAMS = ("gemm", "gemm_batch", "gemm_int8")
QUERIES = ("counters", "info", "read_csr")


def die_with_parent():
    """SIGKILL when the parent dies, even by SIGKILL (Linux; elsewhere the closed connection)."""
    try:
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def error(exc):
    lines = str(exc).splitlines()
    return ("error", type(exc).__name__, lines[0] if lines else type(exc).__name__)


def answer(device, message):
    """The answer to one call on the chip's device."""
    method, args, kwargs = message
    try:
        if method in PROGRAMS:
            result = getattr(device, method)(*args, **kwargs)
            return ("ok", (result, device.counters()))
        if method in QUERIES:
            return ("ok", getattr(device, method)(*args, **kwargs))
        return ("error", "ValueError", f"unknown chip call {method!r}")
    except Exception as exc:
        return error(exc)


def serve(channel):
    """One chip's life on `channel` (recv() and send(message)): opens the device the first
    message names, answers calls until ("close",). Returns how it ended: "close", "failed" (the
    device did not open), "gone" (the channel closed) or the first message's kind when it was
    not "open" (MPI's "exit")."""
    try:
        first = channel.recv()
    except (EOFError, OSError):
        return "gone"
    if first[0] == "close":  # a pool closing after this chip's open failed
        channel.send(("ok", None))
    if first[0] != "open":
        return first[0]
    try:
        import mxu
        device = mxu.Device(**first[1])
    except Exception as exc:  # the parent raises it, naming the chip
        channel.send(error(exc))
        return "failed"
    channel.send(("ok", device.info(), {"pid": os.getpid(), "host": socket.gethostname()}))
    while True:
        try:
            message = channel.recv()
        except (EOFError, OSError):  # the parent is gone
            return "gone"
        if message[0] == "close":
            channel.send(("ok", None))
            return "close"
        channel.send(answer(device, message))


def main():
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent's Ctrl-C is the parent's to handle
    conn = Connection(int(sys.argv[1]))
    try:
        serve(conn)
    finally:
        conn.close()


if __name__ == "__main__":
    main()
