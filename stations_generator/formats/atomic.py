"""Atomic writes: one file, or a command's whole set of files at once.

One file
--------
:func:`atomic_write_bytes` / :func:`atomic_write_text` write to a temporary file in
the target's folder, fsync it and move it over the target with :func:`os.replace`: a
reader (or a crash) sees the old file or the complete new one, never a half-written one.

A set of files
--------------
A command's files belong together: ``stations.geojson``, ``.csv``, ``.kml``,
``candidates.geojson`` and ``stations.html`` of one ``generate`` run describe one map.
A folder holding the GeoJSON of one run and the KML of another is worse than no output.
:func:`output_set` makes a run's files appear whole or not at all::

    with output_set("out/liechtenstein", owned=["stations.geojson", "stations.html"]) as out:
        ...  # compute (the folder is locked against a second run from here on)
        out.write_text("stations.geojson", text)
        out.write_bytes("stations.html", page)
    # here both files are in place; a stations.html of an earlier run that this run
    # did not write would have been removed (the set owns it)

``owned`` lists every file the command may write, relative to ``folder`` (entries may
lie in other folders, e.g. ``report -o a/report.json --html b/report.html``). A run
replaces the owned files of an earlier run: the ones it writes, and removes the ones it
does not write this time. Nothing else in the folder is touched, so ``-o .`` and a
folder shared by several commands (``generate``, ``report``, ``calibrate``) are safe.

How, step by step
~~~~~~~~~~~~~~~~~
1. **Lock.** Entering takes an exclusive, non-blocking ``flock`` on
   ``FOLDER/.stations-generator/lock`` (the file holds the pid, for the message). A
   second run into the folder fails at once with :class:`~stations_generator.errors.OutputBusyError`
   ("another stations-generator run (pid 1234) is writing to out/x; wait for it or choose
   another -o"). The kernel drops the lock when its process dies, even by SIGKILL, so a
   stale lock never blocks anyone.
2. **Recover.** Under the lock, whatever an interrupted run left is finished first: a
   committed journal is rolled forward, uncommitted staging is deleted.
3. **Stage.** Each write goes to ``FOLDER/.stations-generator/<run>/NAME`` (the target's
   own file system, so the final rename is atomic) and is fsynced. A full disk gives
   :class:`~stations_generator.errors.OutputError` naming the file; the staging is removed.
4. **Commit.** On a clean exit from the ``with`` block a journal, listing the renames and
   the stale owned files to remove, is written to a temporary file, fsynced and renamed
   to ``<run>.journal``: that rename is the commit point. Then each staged file is renamed
   over its target, stale owned files are removed, the folder is fsynced, and the journal
   and the staging folder are deleted. Before the commit point, any crash leaves the old
   set; after it, the next run or reader in the folder completes the new set (replaying a
   journal is idempotent: a staged file that is gone was already moved).
5. **Tidy.** The lock file and the state folder are removed at the end, so a finished
   run leaves nothing but its outputs.

Why this mechanism and not another: swapping a whole folder (a sibling folder renamed
into place, or ``renameat2(RENAME_EXCHANGE)``) is atomic even under SIGKILL, but it
replaces everything in the folder, and the output folder is not the command's own: the
README's ``out/liechtenstein`` gets ``report.json``, ``report.html`` and
``calibration/`` from other commands, and users pass ``-o .``. A manifest written last
would only let this package's readers skip an incomplete set, while Google My Maps,
QGIS or a browser would still open a mix. The journal keeps every output a plain file in
the user's folder; a mix is on disk only between the commit point and the last rename
(a few renames, well under a millisecond), and only if the process is killed with
SIGKILL in that window, until the next run or reader in the folder rolls it forward.

Signals: while a set is open, SIGINT, SIGTERM and SIGHUP (where their handler is the
default) raise :class:`KeyboardInterrupt` / ``SystemExit(128 + signal)``, so the
staging is removed on the way out. During the commit and the clean-up they are held
and raised once it has finished (the set on disk is then whole).

Readers: :func:`reading` wraps the reading of files of a set (``map``, ``roll``,
``route`` read ``stations.geojson``): it rolls an interrupted commit forward, waits
while a commit is in progress, and checks that no file changed while it was read.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import shutil
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from stations_generator.errors import InputError, OutputBusyError, OutputError

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "STATE_DIR",
    "OutputSet",
    "atomic_write_bytes",
    "atomic_write_text",
    "output_set",
    "reading",
    "settle",
]

#: Hidden folder, inside an output folder, that exists only while a run writes there
#: (or after a run was killed, until the next run or reader tidies it).
STATE_DIR = ".stations-generator"
_LOCK = "lock"
_COMMIT_LOCK = "commit.lock"
_JOURNAL = ".journal"
_POINTER = ".primary"
_FORMAT = "stations-generator output set"

#: Seconds a run waits for a folder another process holds only briefly (a reader
#: rolling a journal forward) before it reports the folder as busy; a folder a live
#: run holds is reported at once.
LOCK_WAIT_S = 1.0
#: Seconds a commit or a reader waits for the other to finish its few milliseconds.
COMMIT_WAIT_S = 60.0

#: Test hook: called with the name of each step of the write phase ("staged", "journal",
#: "renamed", ...). Tests kill the process at these points; it is None otherwise.
_CHECKPOINT: Callable[[str], None] | None = None


def _checkpoint(step: str) -> None:
    if _CHECKPOINT is not None:
        _CHECKPOINT(step)


# --------------------------------------------------------------------------- #
# One file
# --------------------------------------------------------------------------- #


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


def _fsync_directory(directory: Path) -> None:
    """Best-effort fsync of a directory so the rename itself is durable."""
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
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"atomic_write_bytes needs bytes, got {type(data).__name__}")
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
    _fsync_directory(parent)


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


# --------------------------------------------------------------------------- #
# Locks
# --------------------------------------------------------------------------- #


def _flock(fd: int, *, exclusive: bool) -> bool:
    """Try to lock ``fd`` without blocking; True when the lock is held."""
    if fcntl is None:  # pragma: no cover - Windows: msvcrt locks are exclusive only
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    return True


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``fd`` is still the file at ``path`` (not one unlinked meanwhile)."""
    try:
        mine, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)


def _lock_file(path: Path, *, exclusive: bool, create: bool) -> int | None:
    """Lock the file at ``path`` once, without waiting; the fd, or None if it is busy.

    Raises FileNotFoundError when the file (or its folder) is missing and ``create``
    is false, or the folder is missing.
    """
    flags = (os.O_RDWR | os.O_CREAT) if create else os.O_RDONLY
    fd = os.open(path, flags, 0o666)
    if _flock(fd, exclusive=exclusive) and _same_file(fd, path):
        return fd
    os.close(fd)
    return None


_RECOVERING = "recovering"


def _holder(state: Path) -> tuple[int | None, bool]:
    """The pid in the lock file, and whether it is a live run writing (not recovering)."""
    try:
        words = (state / _LOCK).read_text(encoding="ascii").split()
        pid = int(words[0])
    except (OSError, ValueError, IndexError):
        return None, False
    if _RECOVERING in words[1:]:
        return pid, False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return pid, False  # the pid of a run that ended: the holder has not written yet
    except (PermissionError, OSError):
        pass  # alive, another user's
    return pid, True


# --------------------------------------------------------------------------- #
# Signals
# --------------------------------------------------------------------------- #


class _Signals:
    """SIGINT/SIGTERM/SIGHUP as exceptions while a set is open; held in critical steps.

    A signal whose handler is the default becomes :class:`KeyboardInterrupt` (SIGINT)
    or ``SystemExit(128 + n)``; a handler the program installed is still called, but
    never in the middle of a commit or a clean-up. Ignored signals stay ignored.
    """

    NAMES = ("SIGINT", "SIGTERM", "SIGHUP")

    def __init__(self) -> None:
        self.previous: dict[int, object] = {}
        self.critical = 0
        self.pending: int | None = None

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # only the main thread may set handlers; its caller handles signals
        for name in self.NAMES:
            number = getattr(signal, name, None)
            if number is None:
                continue
            current = signal.getsignal(number)
            if current is signal.SIG_IGN or current is None:
                continue
            self.previous[number] = current
            signal.signal(number, self._handle)

    def restore(self) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)  # type: ignore[arg-type]

    def _handle(self, number: int, frame: object) -> None:
        if self.critical:
            self.pending = self.pending or number
            return
        self._raise(number, frame)

    def _raise(self, number: int, frame: object = None) -> None:
        handler = self.previous.get(number)
        if callable(handler) and handler is not signal.default_int_handler:
            handler(number, frame)  # the program's own handler
            return
        if number == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + number)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Hold signals until the block ends, then raise the first one that came."""
        self.critical += 1
        try:
            yield
        finally:
            self.critical -= 1
            if not self.critical and self.pending is not None:
                number, self.pending = self.pending, None
                self._raise(number)


# --------------------------------------------------------------------------- #
# Journals and recovery
# --------------------------------------------------------------------------- #


def _key(folder: Path) -> str:
    return os.path.normcase(os.path.abspath(folder))


def _read_journal(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return None
    if not isinstance(data.get("folders"), list):
        return None
    return data


def _part(journal: dict, folder: Path) -> dict | None:
    """The journal's entry for ``folder`` (by path; the only one if the folder moved)."""
    parts = [p for p in journal["folders"] if isinstance(p, dict)]
    for part in parts:
        if part.get("path") == _key(folder):
            return part
    return parts[0] if len(parts) == 1 else None


def _names(part: dict, what: str) -> list[str]:
    names = part.get(what)
    if not isinstance(names, list):
        return []
    # Only plain names: a journal never moves anything out of its folder.
    return [n for n in names if isinstance(n, str) and n and os.path.basename(n) == n]


def _apply(folder: Path, run: str, part: dict) -> None:
    """Move one folder's staged files into place and remove its stale files (idempotent)."""
    stage = folder / STATE_DIR / run
    for name in _names(part, "rename"):
        with contextlib.suppress(FileNotFoundError):  # already moved
            os.replace(stage / name, folder / name)
        _checkpoint("renamed")
    for name in _names(part, "remove"):
        target = folder / name
        if target.is_file() or target.is_symlink():
            with contextlib.suppress(FileNotFoundError):
                target.unlink()
        _checkpoint("removed")
    _fsync_directory(folder)


def _discard(path: Path) -> None:
    """Remove a file or a folder tree if it is there (clean-up: never raises)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def _recover(folder: Path) -> bool:
    """Finish or undo what interrupted runs left in ``folder`` (its run lock held).

    Returns whether anything was found.
    """
    state = folder / STATE_DIR
    try:
        entries = sorted(state.iterdir())
    except OSError:
        return False
    found = False
    for entry in entries:
        if not entry.is_dir():
            continue
        found = True
        run = entry.name
        pointer = state / (run + _POINTER)
        if pointer.exists():
            try:
                journal_path = Path(pointer.read_text(encoding="utf-8").strip())
            except OSError:
                journal_path = None
        else:
            journal_path = state / (run + _JOURNAL)
        journal = _read_journal(journal_path) if journal_path is not None else None
        part = _part(journal, folder) if journal is not None else None
        if part is not None:
            _apply(folder, run, part)  # committed: roll forward
        _discard(entry)  # rolled forward, or never committed
        if pointer.exists():
            _discard(pointer)
            if journal_path is not None and journal is not None:
                # This was the last part? Then the first folder can drop its journal.
                settle(journal_path.parent.parent)
    for entry in entries:
        name = entry.name
        if name.endswith(_JOURNAL):
            found = True
            journal = _read_journal(entry)
            run = name[: -len(_JOURNAL)]
            others = [] if journal is None else [
                Path(p["path"]) for p in journal["folders"]
                if isinstance(p, dict) and isinstance(p.get("path"), str)
            ]  # fmt: skip
            pending = any(
                (other / STATE_DIR / run).exists()
                or (other / STATE_DIR / (run + _POINTER)).exists()
                for other in others
                if _key(other) != _key(folder)
            )
            if not pending:
                _discard(entry)
        elif name.endswith(".tmp") or (name.endswith(_POINTER) and entry.is_file()):
            found = True
            if not (state / name.removesuffix(_POINTER)).is_dir():
                _discard(entry)
    return found


def _tidy(state: Path) -> None:
    """Remove the lock files and the state folder if nothing else is in it."""
    try:
        rest = [p.name for p in state.iterdir() if p.name not in (_LOCK, _COMMIT_LOCK)]
    except OSError:
        return
    if rest:
        return
    for name in (_COMMIT_LOCK, _LOCK):
        with contextlib.suppress(OSError):
            (state / name).unlink()
    with contextlib.suppress(OSError):
        state.rmdir()


def settle(folder: Path | str) -> bool:
    """Finish an interrupted commit in ``folder`` if no run is writing there now.

    Parameters
    ----------
    folder : Path or str
        An output folder.

    Returns
    -------
    bool
        True when an interrupted run's leftovers were found and rolled forward (or,
        if it never committed, removed); False when there was nothing to do, or a run
        is writing there now (it recovers the folder itself), or the folder cannot be
        written.
    """
    folder = Path(folder)
    state = folder / STATE_DIR
    if not state.is_dir():
        return False
    try:
        fd = _lock_file(state / _LOCK, exclusive=True, create=True)
    except OSError:
        return False
    if fd is None:
        return False
    try:
        with contextlib.suppress(OSError):  # tell a run arriving now to wait, not fail
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()} {_RECOVERING}\n".encode("ascii"))
        found = _recover(folder)
        _tidy(state)
    finally:
        os.close(fd)
    return found


# --------------------------------------------------------------------------- #
# Output sets
# --------------------------------------------------------------------------- #


def _write_error(target: Path, exc: OSError) -> OutputError:
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return OutputError(
            f"no space left on device while writing {target}; nothing was changed in "
            f"{target.parent}: free some space or choose another -o"
        )
    reason = exc.strerror or str(exc)
    return OutputError(f"cannot write {target}: {reason}; nothing was changed in {target.parent}")


@dataclass
class _Folder:
    """One folder of a set: its lock, its staging folder and the files it will hold."""

    shown: Path  # as the caller named it, for messages
    path: Path  # absolute
    owned: dict[str, Path] = field(default_factory=dict)  # name -> target as shown
    written: list[str] = field(default_factory=list)
    lock_fd: int | None = None
    commit_fd: int | None = None
    stage: Path | None = None

    @property
    def state(self) -> Path:
        return self.path / STATE_DIR


class OutputSet:
    """The files of one run, staged until the ``with`` block of :func:`output_set` ends.

    Attributes
    ----------
    folder : Path
        The folder the names are relative to.
    written : tuple of Path
        The targets written so far, in order.
    """

    def __init__(self, folder: Path | str, owned: Iterable[str | os.PathLike[str]]) -> None:
        self.folder = Path(folder)
        self._run = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._targets: dict[str, tuple[_Folder, str]] = {}
        self._folders: dict[str, _Folder] = {}
        self._signals = _Signals()
        self._created: list[Path] = []
        self._written: list[Path] = []
        self._journal: Path | None = None
        for entry in owned:
            target = self.folder / entry
            if target.name in ("", ".", "..") or target.name == STATE_DIR:
                raise ValueError(f"not a file name: {entry!r}")
            key = _key(target)
            if key in {_key(t) for t in self._owned_paths()}:
                raise ValueError(f"{target} is named twice")
            where = self._folders.setdefault(
                _key(target.parent), _Folder(target.parent, Path(_key(target.parent)))
            )
            where.owned[target.name] = target
            self._targets[os.fspath(entry)] = (where, target.name)

    def _owned_paths(self) -> Iterator[Path]:
        for where in self._folders.values():
            yield from where.owned.values()

    @property
    def written(self) -> tuple[Path, ...]:
        return tuple(self._written)

    def path(self, name: str | os.PathLike[str]) -> Path:
        """The final path of an owned ``name`` (where it will be after the commit)."""
        where, base = self._lookup(name)
        return where.owned[base]

    def _lookup(self, name: str | os.PathLike[str]) -> tuple[_Folder, str]:
        try:
            return self._targets[os.fspath(name)]
        except KeyError:
            raise ValueError(f"{name!r} is not one of this output set's files") from None

    def write_bytes(self, name: str | os.PathLike[str], data: bytes) -> Path:
        """Stage ``data`` as the owned file ``name``; it appears at the commit.

        Parameters
        ----------
        name : str or PathLike
            One of the ``owned`` entries.
        data : bytes
            The complete content.

        Returns
        -------
        Path
            The final path.

        Raises
        ------
        OutputError
            Disk full, no permission...: one line naming the file.
        ValueError
            ``name`` is not owned, or was already written in this set.
        """
        if not isinstance(data, bytes | bytearray | memoryview):
            raise TypeError(f"write_bytes needs bytes, got {type(data).__name__}")
        where, base = self._lookup(name)
        target = where.owned[base]
        if base in where.written:
            raise ValueError(f"{target} was already written in this output set")
        if where.stage is None:
            raise RuntimeError("write outside the output set's with block")
        if target.is_dir():
            raise OutputError(f"{target} is a folder; remove it or choose another -o")
        staged = where.stage / base
        try:
            fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if target.exists():
                with contextlib.suppress(OSError):
                    os.chmod(staged, stat.S_IMODE(os.stat(target).st_mode))
        except OSError as exc:
            with contextlib.suppress(OSError):
                staged.unlink()
            raise _write_error(target, exc) from None
        where.written.append(base)
        self._written.append(target)
        _checkpoint("staged")
        return target

    def write_text(self, name: str | os.PathLike[str], text: str) -> Path:
        """Stage ``text`` as UTF-8 (no BOM, no newline translation); see :meth:`write_bytes`."""
        if not isinstance(text, str):
            raise TypeError(f"write_text needs str, got {type(text).__name__}")
        return self.write_bytes(name, text.encode("utf-8"))

    # -- life cycle ------------------------------------------------------------

    def _open(self) -> None:
        """Lock every folder (sorted, so two sets never wait on each other), recover, stage."""
        for key in sorted(self._folders):
            where = self._folders[key]
            self._make_folder(where)
            where.lock_fd = self._lock(where)
            _recover(where.path)
        if not self._folders:
            return  # nothing owned (e.g. report to stdout): nothing to lock or stage
        primary = self._primary()
        for key in sorted(self._folders):
            where = self._folders[key]
            try:
                where.commit_fd = os.open(where.state / _COMMIT_LOCK, os.O_RDWR | os.O_CREAT, 0o666)
                stage = where.state / self._run
                stage.mkdir()
                where.stage = stage
                if where is not primary:
                    pointer = where.state / (self._run + _POINTER)
                    pointer.write_text(
                        str(primary.state / (self._run + _JOURNAL)), encoding="utf-8"
                    )
            except OSError as exc:
                raise _write_error(where.shown / STATE_DIR, exc) from None
            _fsync_directory(where.state)
        _checkpoint("opened")

    def _primary(self) -> _Folder:
        return self._folders[sorted(self._folders)[0]]

    def _make_folder(self, where: _Folder) -> None:
        if where.path.exists() and not where.path.is_dir():
            raise InputError(
                f"output {str(where.shown)!r} is a file, not a folder; pass another -o"
            )
        missing: list[Path] = []
        probe = where.path
        while not probe.exists():
            missing.append(probe)
            probe = probe.parent
        try:
            where.path.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise InputError(
                f"output {str(where.shown)!r} is under a file, not a folder; pass another -o"
            ) from None
        except OSError as exc:
            raise OutputError(
                f"cannot create the output folder {where.shown}: {exc.strerror or exc}"
            ) from None
        self._created.extend(reversed(missing))

    def _lock(self, where: _Folder) -> int:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                where.state.mkdir(exist_ok=True)
                fd = _lock_file(where.state / _LOCK, exclusive=True, create=True)
            except FileNotFoundError:
                continue  # another run tidied the state folder away just now
            except OSError as exc:
                raise OutputError(
                    f"cannot write to the output folder {where.shown}: {exc.strerror or exc}"
                ) from None
            if fd is not None:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode("ascii"))
                return fd
            # A live run fails this one at once; a reader rolling a killed run forward
            # (or a run that has just locked) holds the folder for milliseconds only.
            pid, writing = _holder(where.state)
            if writing or time.monotonic() >= deadline:
                raise OutputBusyError(
                    f"another stations-generator run (pid {pid if pid else 'unknown'}) is "
                    f"writing to {where.shown}; wait for it or choose another -o"
                )
            time.sleep(0.01)

    def _commit(self) -> None:
        folders = [self._folders[k] for k in sorted(self._folders)]
        if not folders:
            return
        primary = folders[0]
        parts = []
        for where in folders:
            stale = [
                name
                for name in sorted(where.owned)
                if name not in where.written
                and ((where.path / name).is_file() or (where.path / name).is_symlink())
            ]
            parts.append({"path": _key(where.path), "rename": where.written, "remove": stale})
            assert where.stage is not None
            _fsync_directory(where.stage)
        for where in folders:  # readers hold this shared, for milliseconds
            assert where.commit_fd is not None
            _wait_lock(where.commit_fd, exclusive=True, what=where.shown)
        journal = primary.state / (self._run + _JOURNAL)
        body = {"format": _FORMAT, "version": 1, "run": self._run, "folders": parts}
        tmp = primary.state / (self._run + _JOURNAL + ".tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                json.dump(body, handle)
                handle.flush()
                os.fsync(handle.fileno())
            _checkpoint("journal-written")
            os.replace(tmp, journal)  # the commit point
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise _write_error(journal, exc) from None
        self._journal = journal
        _fsync_directory(primary.state)
        _checkpoint("committed")
        self._roll_forward()

    def _roll_forward(self) -> None:
        assert self._journal is not None
        journal = _read_journal(self._journal)
        assert journal is not None
        for key in sorted(self._folders):
            where = self._folders[key]
            part = _part(journal, where.path)
            if part is not None:
                _apply(where.path, self._run, part)
            if where.stage is not None:
                _discard(where.stage)
                where.stage = None
            _discard(where.state / (self._run + _POINTER))
        _discard(self._journal)
        self._journal = None
        _checkpoint("applied")

    def _abort(self) -> None:
        if self._journal is not None:  # committed: the new set must still appear whole
            with contextlib.suppress(OSError):
                self._roll_forward()
            return
        for where in self._folders.values():
            if where.stage is not None:
                _discard(where.stage)
                where.stage = None
            _discard(where.state / (self._run + _POINTER))
            _discard(where.state / (self._run + _JOURNAL + ".tmp"))

    def _close(self) -> None:
        for where in self._folders.values():
            for name in ("commit_fd", "lock_fd"):
                fd = getattr(where, name)
                if fd is None:
                    continue
                if name == "lock_fd":
                    _tidy(where.state)
                with contextlib.suppress(OSError):
                    os.close(fd)
                setattr(where, name, None)

    def _remove_created(self) -> None:
        """After a failed run: remove the folders it created, if they stayed empty."""
        for folder in reversed(self._created):
            with contextlib.suppress(OSError):
                folder.rmdir()


@contextlib.contextmanager
def output_set(folder: Path | str, owned: Iterable[str | os.PathLike[str]]) -> Iterator[OutputSet]:
    """Write a run's files so that they appear whole, or not at all.

    Parameters
    ----------
    folder : Path or str
        The output folder (created if missing); ``owned`` names are relative to it.
    owned : iterable of str or PathLike
        Every file this command may write. Each run writes some of them; the ones it
        does not write and an earlier run left are removed at the commit. A name may
        contain folders (``"calibration/plot.png"``) or be a path elsewhere.

    Yields
    ------
    OutputSet
        Stage files with :meth:`OutputSet.write_text` / :meth:`OutputSet.write_bytes`.
        They are committed when the block ends without an exception and discarded
        when it raises (the earlier files stay as they were).

    Raises
    ------
    OutputBusyError
        Another run is writing to one of the folders (raised on entering).
    OutputError
        A folder cannot be created or written, or the disk is full.

    Notes
    -----
    See the module docstring for the mechanism. Enter the block before the long
    computation, so a second run into the same folder fails at once.
    """
    out = OutputSet(folder, owned)
    signals = out._signals
    ok = False
    try:
        with signals.held():  # a signal while locking is raised once the set is open
            signals.install()
            out._open()
        yield out
        with signals.held():
            out._commit()
            ok = True
    finally:
        with signals.held():
            try:
                if not ok:
                    out._abort()
            finally:
                out._close()
                if not ok:
                    out._remove_created()
                signals.restore()


# --------------------------------------------------------------------------- #
# Readers
# --------------------------------------------------------------------------- #


def _wait_lock(fd: int, *, exclusive: bool, what: Path | str) -> None:
    deadline = time.monotonic() + COMMIT_WAIT_S
    while not _flock(fd, exclusive=exclusive):
        if time.monotonic() >= deadline:
            raise OutputBusyError(f"{what} stays busy (another run holds it); try again")
        time.sleep(0.005)


def _identity(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _enter_folder(folder: Path) -> int | None:
    """Make ``folder``'s set readable: roll a crash forward, wait out a commit.

    Returns the fd of the shared commit lock to hold while reading, or None.
    """
    for _ in range(100):
        state = folder / STATE_DIR
        if not state.is_dir():
            return None
        settle(folder)
        try:
            fd = _lock_file(state / _COMMIT_LOCK, exclusive=False, create=False)
        except OSError:
            if not state.is_dir():
                return None
            if not (state / _LOCK).exists():
                return None  # leftovers this reader cannot tidy (read-only folder)
            time.sleep(0.005)  # a run is just starting
            continue
        if fd is not None:
            return fd
        # A commit is in progress: wait for it, then look again.
        try:
            fd = os.open(state / _COMMIT_LOCK, os.O_RDONLY)
        except OSError:
            continue
        try:
            _wait_lock(fd, exclusive=False, what=folder)
        finally:
            os.close(fd)
    return None


@contextlib.contextmanager
def reading(*paths: Path | str) -> Iterator[None]:
    """Read files of an output set without seeing a half-committed set.

    Rolls forward a commit an interrupted run left in the files' folders, waits while
    a run commits there, and checks on leaving that no file was replaced while the
    block read it.

    Parameters
    ----------
    *paths : Path or str
        The files the block reads (e.g. ``stations.geojson`` and ``candidates.geojson``).

    Raises
    ------
    OutputBusyError
        A file was replaced by another run while the block read it (run again).
    """
    files = [Path(p) for p in paths]
    held: list[int] = []
    try:
        for key in sorted({_key(p.parent) for p in files}):
            fd = _enter_folder(Path(key))
            if fd is not None:
                held.append(fd)
        before = [_identity(p) for p in files]
        yield
        for path, was in zip(files, before, strict=True):
            if _identity(path) != was:
                raise OutputBusyError(
                    f"{path} was replaced by another run while it was read; run the command again"
                )
    finally:
        for fd in held:
            with contextlib.suppress(OSError):
                os.close(fd)
