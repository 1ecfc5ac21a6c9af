"""The project's rule for output files (host/cli/output_file.cc, the CLI's), for the Python package:

- an output is a regular file, written whole (a hidden temporary file beside it, renamed into
  place) or not at all; devices, FIFOs, sockets and directories are refused, and so is a
  symbolic link to nothing;
- a symbolic link is followed: its target is replaced and the link stays;
- a replaced file keeps its mode; a new one gets 0666 less the umask, as open(2) gives;
- two outputs naming one file are refused.
"""
import os
import stat
import tempfile


class OutputFileError(OSError, ValueError):
    """An output path the rule refuses (an OSError, and a ValueError: a bad argument)."""


def _new_file_mode():
    """0666 less the umask (umask has no getter: set it and put it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _target(path):
    """The file an output path is written to: a symbolic link's target, so the link stays."""
    return os.path.realpath(path) if os.path.islink(path) else path


def _identity(path):
    """(resolved path, inode or None): two outputs name one file when either matches."""
    try:
        st = os.stat(path)
        inode = (st.st_dev, st.st_ino)
    except OSError:
        inode = None
    return os.path.realpath(path), inode


def check_output(path, what="output"):
    """Raises OutputFileError (one line, naming the path) where `path` cannot be an output."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"the {what} path must be a str or os.PathLike, got {path!r}")
    path = os.fspath(path)
    name = f"cannot write {what} file '{path}'"
    if not path:
        raise OutputFileError(f"the {what} path is empty: it needs a file name")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if path.endswith(os.sep) or (st is not None and stat.S_ISDIR(st.st_mode)):
        raise OutputFileError(f"{name}: it is a directory")
    if st is None and os.path.islink(path):
        raise OutputFileError(f"{name}: a symbolic link to nothing")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputFileError(f"{name}: not a regular file (outputs are files, written whole)")
    parent = os.path.dirname(_target(path)) or "."
    if not os.path.isdir(parent):
        raise OutputFileError(f"{name}: no such directory '{parent}'")
    # The temporary file is made in that directory and renamed over the old file.
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputFileError(f"{name}: the directory '{parent}' is not writable")
    if st is not None and not os.access(path, os.W_OK):
        raise OutputFileError(f"{name}: the file is not writable")


def check_outputs(paths):
    """check_output for each (what, path) of one call, and no two naming one file."""
    seen = []
    for what, path in paths:
        check_output(path, what)
        key, inode = _identity(path)
        for other_what, other_key, other_inode in seen:
            if key == other_key or (inode is not None and inode == other_inode):
                raise OutputFileError(f"the {other_what} and the {what} name one file "
                                      f"'{os.fspath(path)}': give each output its own")
        seen.append((what, key, inode))


def write_whole(path, write):
    """Calls write(temporary) and renames the temporary file over path's target: the file is
    written whole or not at all, with the old file's mode (a new one: 0666 less the umask).
    check_output(path) first."""
    target = _target(os.fspath(path))
    folder, base = os.path.split(target)
    fd, temporary = tempfile.mkstemp(prefix=f".{base}.mxu-", dir=folder or ".")
    try:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = _new_file_mode()
        os.fchmod(fd, mode)  # mkstemp makes 0600
        os.close(fd)
        fd = None
        write(temporary)
        os.replace(temporary, target)
    except BaseException:
        if fd is not None:
            os.close(fd)
        os.unlink(temporary)
        raise
