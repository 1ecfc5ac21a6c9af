"""The flow's failures and work directories: a one-line exit, --keep and --out checked and made,
a tool run with a limit."""
import os
import subprocess
import sys


def die(msg: str, code: int = 2) -> None:
    print(f"ppa.sh: {msg}", file=sys.stderr)
    sys.exit(code)


# In a --keep DIR that this script (or fpga_ecp5.sh) made: its files are the run's own to
# replace, and no other directory's files are ever overwritten.
KEEP_MARK = ".mxu-keep"


def keep_dir_problem(path: str, tool: str) -> str | None:
    """Why --keep PATH cannot be tool's work directory (None where it can): it must be new, empty,
    or an earlier run's of the same tool (marked)."""
    if os.path.exists(path) and not os.path.isdir(path):
        return f"--keep {path}: not a directory"
    if os.path.isdir(path):
        try:
            entries = os.listdir(path)
        except OSError as e:
            return f"--keep {path}: {e.strerror}"
        mark = os.path.join(path, KEEP_MARK)
        if entries and not (os.path.isfile(mark) and open(mark).read().strip() == tool):
            return (f"--keep {path}: a directory with files not made by {tool}: "
                    "name a new or empty one")
    return None


def make_keep_dir(path: str, tool: str) -> str:
    """The --keep directory, created and marked as tool's; the caller checked it first."""
    path = os.path.abspath(path)  # the tools run in it: a relative path would not resolve there
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, KEEP_MARK), "w") as f:
        f.write(tool + "\n")
    return path


def out_dir_problem(path: str) -> str | None:
    """Why --out PATH cannot hold the energy tables (None where it can)."""
    if os.path.exists(path) and not os.path.isdir(path):
        return f"--out {path}: not a directory"
    return None


def run(cmd, timeout, **kw):
    return subprocess.run(cmd, timeout=timeout, text=True, capture_output=True, **kw)
