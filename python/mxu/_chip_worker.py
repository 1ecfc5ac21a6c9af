"""One simulated chip's process (mxu.Devices starts one per chip): it opens an mxu.Device and
runs the calls its parent sends over a multiprocessing connection, NumPy arrays in and out.

    python -m mxu._chip_worker FD     # FD: this end of the parent's multiprocessing.Pipe()

Messages are multiprocessing.connection's (pickled tuples): first ("open", device keywords),
then (method, args, kwargs) for gemm, gemm_batch, gemm_int8, counters, info, read_csr, and
("close",). Each answer is ("ok", value) or ("error", class name, first line of the message).
A program's answer carries the device's counters after it, so the parent needs no second round
trip. The process ends when its parent closes the connection or dies (Linux: PR_SET_PDEATHSIG).
"""
import ctypes
import signal
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


def serve(conn):
    kind, options = conn.recv()
    if kind != "open":
        return
    try:
        import mxu
        device = mxu.Device(**options)
    except Exception as exc:  # the parent raises it, naming the chip
        conn.send(error(exc))
        return
    conn.send(("ok", device.info()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        method = message[0]
        if method == "close":
            conn.send(("ok", None))
            return
        args, kwargs = message[1], message[2]
        try:
            if method in PROGRAMS:
                result = getattr(device, method)(*args, **kwargs)
                answer = ("ok", (result, device.counters()))
            elif method in QUERIES:
                answer = ("ok", getattr(device, method)(*args, **kwargs))
            else:
                answer = ("error", "ValueError", f"unknown chip call {method!r}")
        except Exception as exc:
            answer = error(exc)
        conn.send(answer)


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
