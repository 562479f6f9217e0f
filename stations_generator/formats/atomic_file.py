"""One file written atomically: the old content or the complete new one, never a mix.

:func:`atomic_write_bytes` / :func:`atomic_write_text` write to a temporary file in
the target's folder, fsync it and move it over the target with :func:`os.replace`: a
reader (or a crash) sees the old file or the complete new one, never a half-written one.
Whole sets of files (a command's outputs) are :mod:`stations_generator.formats.atomic`'s.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

__all__ = ["atomic_write_bytes", "atomic_write_text", "check_bytes", "fsync_directory"]


def _current_umask() -> int:
    """Return the process umask without changing it where the platform allows."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split(":", 1)[1].strip(), 8)
    # Portable fallback: briefly set and restore the umask.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _target_mode(path: Path) -> int:
    """Permission bits the finished file should get.

    An existing target keeps its permissions; a new file gets the ordinary
    ``0o666 & ~umask`` (``tempfile.mkstemp`` would otherwise leave it ``0o600``).
    """
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_current_umask()


def fsync_directory(directory: Path) -> None:
    """Fsync a directory so the renames and new names in it are durable (best effort).

    Parameters
    ----------
    directory : Path
        The folder; where it cannot be opened or synced (Windows, some network file
        systems) nothing happens.
    """
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        fd = os.open(directory, flags)
    except OSError:  # e.g. Windows cannot open directories
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def check_bytes(data: object, what: str) -> None:
    """Refuse anything but bytes-like data, naming the function that was given it.

    Parameters
    ----------
    data : object
        What the caller passed as the content.
    what : str
        The function's name, for the message.

    Raises
    ------
    TypeError
        ``data`` is not bytes, bytearray or memoryview.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"{what} needs bytes, got {type(data).__name__}")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically.

    The bytes go to a temporary file in the same directory as ``path``, which is
    flushed, fsynced and then moved over ``path`` with :func:`os.replace`. Missing
    parent directories are created. On any error the temporary file is removed and
    ``path`` is left untouched (absent, or with its previous content).

    Parameters
    ----------
    path : Path
        The destination file.
    data : bytes
        The complete new content.

    Raises
    ------
    TypeError
        If ``data`` is not bytes-like.
    OSError
        If the directory cannot be created or the file cannot be written/replaced.
    """
    check_bytes(data, "atomic_write_bytes")
    path = Path(path)
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    mode = _target_mode(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):  # e.g. filesystems without POSIX modes
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_directory(parent)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically as UTF-8.

    No newline translation is done: every ``"\\n"`` in ``text`` is written as a
    single LF byte on every platform, and no byte-order mark is added.

    Parameters
    ----------
    path : Path
        The destination file.
    text : str
        The complete new content.

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    OSError
        See :func:`atomic_write_bytes`.
    """
    if not isinstance(text, str):
        raise TypeError(f"atomic_write_text needs str, got {type(text).__name__}")
    atomic_write_bytes(path, text.encode("utf-8"))
