"""The project's rule for output files (host/cli/output_file.cc, the CLI's), for the Python package:

- an output is a regular file, written whole (a hidden temporary file beside it, renamed into
  place) or not at all; devices, FIFOs, sockets and directories are refused, and so is a
  symbolic link to nothing;
- a symbolic link is followed: its target is replaced and the link stays;
- a replaced file keeps its mode; a new one gets 0666 less the umask, as open(2) gives;
- two outputs naming one file are refused.
"""
import errno
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


def _file_among_folders(path):
    """The first folder of `path` (from the root down) that exists and is not a directory."""
    folders = []
    folder = os.path.dirname(path)
    while folder and folder != os.path.dirname(folder):
        folders.append(folder)
        folder = os.path.dirname(folder)
    return next((f for f in reversed(folders) if os.path.exists(f) and not os.path.isdir(f)),
                os.path.dirname(path))


def _name_max(folder):
    """The longest file name `folder` takes, in bytes (255 on the usual file systems)."""
    try:
        return os.pathconf(folder or ".", "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _temporary_prefix(base, folder):
    """The hidden temporary file's prefix, '.<file name>.mxu-': the name cut (at a whole UTF-8
    character) so that the prefix and mkstemp's 8 characters fit where the file's name does."""
    name = os.fsencode(base)[:max(1, _name_max(folder) - 14)]
    if len(name) < len(os.fsencode(base)):
        while name and (name[-1] & 0xC0) == 0x80:  # a character's tail
            name = name[:-1]
        if name and name[-1] & 0x80:  # and its lead
            name = name[:-1]
    return f".{os.fsdecode(name)}.mxu-"


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
    except NotADirectoryError:  # a folder of the path is a file
        raise OutputFileError(f"{name}: '{_file_among_folders(path)}' is not a directory") \
            from None
    except ValueError:  # os.stat's refusal of a NUL character
        raise OutputFileError(f"{name}: the path holds a NUL character") from None
    except OSError as error:  # a name too long, a loop of symbolic links, no permission
        size = len(os.fsencode(os.path.basename(path)))
        longest = _name_max(os.path.dirname(path))
        if error.errno == errno.ENAMETOOLONG and size > longest:  # as the CLI says it
            raise OutputFileError(f"{name}: the file name is too long ({size} bytes; at most "
                                  f"{longest} here)") from None
        raise OutputFileError(f"{name}: {_reason(error)}") from None
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


def write_whole(path, write, what="output"):
    """Calls write(temporary) and renames the temporary file over path's target: the file is
    written whole or not at all, with the old file's mode (a new one: 0666 less the umask).
    check_output(path) first. The file system's refusals (a full disk, a folder gone since the
    check) are OutputFileError naming the path."""
    target = _target(os.fspath(path))
    folder, base = os.path.split(target)
    try:
        fd, temporary = tempfile.mkstemp(prefix=_temporary_prefix(base, folder),
                                         dir=folder or ".")
    except OSError as error:
        raise _write_error(what, path, error) from None
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
    except BaseException as error:
        if fd is not None:
            os.close(fd)
        try:
            os.unlink(temporary)
        except OSError:  # gone with its folder: the error below says why
            pass
        if isinstance(error, OSError) and not isinstance(error, OutputFileError):
            raise _write_error(what, path, error) from None
        raise


def _write_error(what, path, error):
    return OutputFileError(f"cannot write {what} file '{os.fspath(path)}': {_reason(error)}")


def _reason(error):
    """An OSError's reason, as the rest of the line has it: 'file name too long'."""
    reason = error.strerror or str(error)
    return reason[:1].lower() + reason[1:]
