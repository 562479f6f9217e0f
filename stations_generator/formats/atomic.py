"""A command's whole set of output files, written at once or not at all.

:func:`atomic_write_bytes` / :func:`atomic_write_text` (one file, from
:mod:`stations_generator.formats.atomic_file`) are importable from here too.

A set of files
--------------
A command's files belong together: ``stations.geojson``, ``.csv``, ``.kml``,
``candidates.geojson`` and ``stations.html`` of one ``generate`` run describe one map.
:func:`output_set` makes a run's files appear whole or not at all::

    with output_set("out/liechtenstein", owned=["stations.geojson", "stations.html"]) as out:
        ...  # compute (the folder is locked against a second run from here on)
        out.write_text("stations.geojson", text)
        out.write_bytes("stations.html", page)
    # here both files are in place; a stations.html of an earlier run that this run
    # did not write would have been removed (the set owns it)

``owned`` lists every file the command may write, relative to ``folder`` (entries may
lie in other folders, e.g. ``report -o a/report.json --html b/report.html``). A run
replaces the owned files of an earlier run and removes the ones it does not write this
time. Nothing else in the folder is touched, so ``-o .`` and a folder shared by several
commands are safe. That is also why the set is not swapped in as a whole folder: the
output folder is not the command's own.

Stage, then rename
~~~~~~~~~~~~~~~~~~
Each folder of the set gets a hidden ``.stations-generator`` folder while the run lasts:

1. **Lock**: an exclusive, non-blocking ``flock`` on ``.stations-generator/lock`` (which
   holds the pid, for the message). A second run fails at once with
   :class:`~stations_generator.errors.OutputBusyError`; the kernel drops the lock when
   its process dies, even by SIGKILL.
2. **Recover**: what a killed run left there is finished (committed) or deleted.
3. **Stage**: each file is written, fsynced, to ``.stations-generator/<run>/NAME`` (the
   target's own file system, so the rename is atomic). In the other folders of a
   two-folder set, ``<run>.home`` names the first folder.
4. **Commit**: ``<run>.set`` (the stale owned files to remove, per folder) is written
   atomically into the first folder's ``.stations-generator``: that rename is the commit
   point. The staged files are then renamed into place, stale files removed, and the
   record and the state folders deleted.

A crash before the commit point leaves the old set; after it, the next run or reader of
any of the set's folders finishes the new one (the renames of a committed stage can be
repeated). SIGINT, SIGTERM and SIGHUP are held by the kernel while a set opens, commits
or cleans up; where their action is the default they raise instead of killing, so a
run they stop removes its staging. :func:`reading` lets a reader wait out a commit.
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
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from stations_generator.errors import InputError, OutputBusyError, OutputError
from stations_generator.formats.atomic_file import (
    atomic_write_bytes,
    atomic_write_text,
    check_bytes,
    fsync_directory,
)

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
_RECORD = ".set"  # <run>.set: the commit record, in the set's first folder
_HOME = ".home"  # <run>.home: the path of the first folder, in the set's other folders
_FORMAT = "stations-generator output set"
_RECOVERING = "recovering"

#: Seconds a run waits for a folder another process holds only briefly (a reader
#: finishing a killed run's commit) before it reports the folder as busy; a folder a
#: live run holds is reported at once.
LOCK_WAIT_S = 1.0
#: Seconds a reader waits for a commit (a few renames) to finish.
COMMIT_WAIT_S = 60.0

_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


# --------------------------------------------------------------------------- #
# Locks and signals
# --------------------------------------------------------------------------- #


def _flock(fd: int) -> bool:
    """Try to lock ``fd`` exclusively without blocking; True when the lock is held."""
    if fcntl is None:  # pragma: no cover - Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    return True


def _try_lock(path: Path) -> int | None:
    """Lock the file at ``path`` (created if missing) without waiting; its fd, or None.

    None also when the file was unlinked (a finishing run tidying up) while this
    process opened it. Raises FileNotFoundError when the folder is missing.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        mine, there = os.fstat(fd), os.stat(path)
    except OSError:
        there = None
    if (
        _flock(fd)
        and there is not None
        and (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)
    ):
        return fd
    os.close(fd)
    return None


def _holder(state: Path) -> tuple[int | None, bool]:
    """The pid in the lock file, and whether it is a live run writing (not recovering)."""
    try:
        words = (state / _LOCK).read_text(encoding="ascii").split()
        pid = int(words[0])
    except (OSError, ValueError, IndexError):
        return None, False  # the holder has not written its pid yet
    if _RECOVERING in words[1:]:
        return pid, False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return pid, False  # the pid of a run that ended: the holder has not written yet
    except OSError:
        pass  # alive, another user's
    return pid, True


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Let the kernel hold SIGINT/SIGTERM/SIGHUP until the block ends."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _stop(number: int, _frame: object) -> None:
    if number == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + number)


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """SIGINT/SIGTERM/SIGHUP at their default action raise in the block, not kill."""
    changed: dict[int, object] = {}
    if threading.current_thread() is threading.main_thread():  # only it may set handlers
        for number in _SIGNALS:
            if signal.getsignal(number) == signal.SIG_DFL:
                changed[number] = signal.signal(number, _stop)
    try:
        yield
    finally:
        for number, handler in changed.items():
            signal.signal(number, handler)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- #
# Commit records and recovery
# --------------------------------------------------------------------------- #


def _key(folder: Path | str) -> str:
    return os.path.normcase(os.path.abspath(folder))


def _discard(path: Path) -> None:
    """Remove a file or a folder tree if it is there (clean-up: never raises)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def _read_record(path: Path) -> dict[str, list[str]] | None:
    """A commit record: stale file names by folder key; None if absent or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return None
    folders = data.get("folders")
    if not isinstance(folders, dict):
        return None
    # Only plain names: a record never removes anything outside its folder.
    return {
        str(key): [n for n in names if isinstance(n, str) and n and os.path.basename(n) == n]
        for key, names in folders.items()
        if isinstance(names, list)
    }


def _part(record: dict[str, list[str]], folder: Path) -> list[str] | None:
    """The stale names of ``folder`` in ``record`` (by path; the only part if it moved)."""
    if _key(folder) in record:
        return record[_key(folder)]
    return next(iter(record.values())) if len(record) == 1 else None


def _apply(folder: Path, stage: Path, stale: list[str]) -> None:
    """Move every staged file of a committed set into place and remove the stale ones.

    Idempotent: a staged file that is gone was moved already.
    """
    for staged in sorted(stage.iterdir()):
        with contextlib.suppress(FileNotFoundError):
            os.replace(staged, folder / staged.name)
    for name in stale:
        target = folder / name
        if target.is_file() or target.is_symlink():
            with contextlib.suppress(FileNotFoundError):
                target.unlink()
    fsync_directory(folder)


def _recover(folder: Path) -> bool:
    """Finish or undo what killed runs left in ``folder`` (its lock held).

    A committed stage is moved into place, an uncommitted one deleted; a record is
    deleted once no folder of its set still has a stage. Returns whether anything
    was found.
    """
    state = folder / STATE_DIR
    try:
        entries = sorted(state.iterdir())
    except OSError:
        return False
    for stage in (e for e in entries if e.is_dir()):
        home = _read_home(state / (stage.name + _HOME)) or folder
        record = _read_record(home / STATE_DIR / (stage.name + _RECORD))
        stale = _part(record, folder) if record is not None else None
        if stale is not None:
            _apply(folder, stage, stale)  # committed: roll forward
        _discard(stage)
        if _key(home) != _key(folder):
            settle(home)  # its record may be the last thing left of the set
    for entry in entries:
        if entry.is_dir() or entry.name == _LOCK:
            continue
        if entry.name.endswith(_RECORD):
            _settle_record(folder, entry)
        else:  # a <run>.home whose stage is gone, or a record never renamed into place
            _discard(entry)
    return any(e.name != _LOCK for e in entries)


def _read_home(path: Path) -> Path | None:
    try:
        return Path(path.read_text(encoding="utf-8").strip())
    except OSError:
        return None


def _settle_record(folder: Path, record_path: Path) -> None:
    """Finish the set's other folders if they can be locked; then drop the record."""
    record = _read_record(record_path) or {}
    run = record_path.name.removesuffix(_RECORD)
    others = [Path(key) for key in record if key != _key(folder)]
    for other in others:
        if (other / STATE_DIR / run).is_dir():
            settle(other)
    if not any((other / STATE_DIR / run).is_dir() for other in others):
        _discard(record_path)


def _tidy(state: Path) -> None:
    """Remove the lock file and the state folder if nothing else is in it."""
    try:
        if any(p.name != _LOCK for p in state.iterdir()):
            return
    except OSError:
        return
    with contextlib.suppress(OSError):
        (state / _LOCK).unlink()
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
        fd = _try_lock(state / _LOCK)
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
    stage: Path | None = None

    @property
    def state(self) -> Path:
        return self.path / STATE_DIR

    def stale(self) -> list[str]:
        """Owned files an earlier run left that this run did not write."""
        return [
            name
            for name in sorted(self.owned)
            if name not in self.written
            and ((self.path / name).is_file() or (self.path / name).is_symlink())
        ]


def _make_folder(where: _Folder) -> list[Path]:
    """Create ``where``'s folder; return the folders created, outermost first."""
    if where.path.exists() and not where.path.is_dir():
        raise InputError(f"output {str(where.shown)!r} is a file, not a folder; pass another -o")
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
    return missing[::-1]


def _lock_folder(where: _Folder) -> int:
    """Lock ``where`` for this run; a live run's lock fails at once, a reader's is waited out."""
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            where.state.mkdir(exist_ok=True)
            fd = _try_lock(where.state / _LOCK)
        except FileNotFoundError:
            fd = None  # another run tidied the state folder away just now
        except OSError as exc:
            raise OutputError(
                f"cannot write to the output folder {where.shown}: {exc.strerror or exc}"
            ) from None
        if fd is not None:
            try:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode("ascii"))  # for the busy message
            except OSError as exc:  # a full disk
                _tidy(where.state)
                os.close(fd)
                raise _write_error(where.shown / STATE_DIR, exc) from None
            return fd
        pid, writing = _holder(where.state)
        if writing or time.monotonic() >= deadline:
            raise OutputBusyError(
                f"another stations-generator run (pid {pid if pid else 'unknown'}) is "
                f"writing to {where.shown}; wait for it or choose another -o"
            )
        time.sleep(0.01)


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
        self._created: list[Path] = []
        self._written: list[Path] = []
        self._record: Path | None = None  # set at the commit point
        self._stale: dict[str, list[str]] = {}  # the record's content
        seen: set[str] = set()
        for entry in owned:
            target = self.folder / entry
            if target.name in ("", ".", "..") or target.name == STATE_DIR:
                raise ValueError(f"not a file name: {entry!r}")
            if _key(target) in seen:
                raise ValueError(f"{target} is named twice")
            seen.add(_key(target))
            where = self._folders.setdefault(
                _key(target.parent), _Folder(target.parent, Path(_key(target.parent)))
            )
            where.owned[target.name] = target
            self._targets[os.fspath(entry)] = (where, target.name)

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

    def _sorted(self) -> list[_Folder]:
        """The folders in a fixed order: the first one holds the commit record."""
        return [self._folders[key] for key in sorted(self._folders)]

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
        check_bytes(data, "write_bytes")
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
        return target

    def write_text(self, name: str | os.PathLike[str], text: str) -> Path:
        """Stage ``text`` as UTF-8 (no BOM, no newline translation); see :meth:`write_bytes`."""
        if not isinstance(text, str):
            raise TypeError(f"write_text needs str, got {type(text).__name__}")
        return self.write_bytes(name, text.encode("utf-8"))

    # -- life cycle ------------------------------------------------------------

    def _open(self) -> None:
        """Lock every folder (sorted, so two sets never wait on each other), recover, stage."""
        folders = self._sorted()
        for where in folders:
            self._created.extend(_make_folder(where))
            where.lock_fd = _lock_folder(where)
        # Twice: a killed run's set in two of these folders is finished in the first
        # pass and its record (which waits for the other folder) dropped in the second.
        for _ in range(2):
            for where in folders:
                _recover(where.path)
        for where in folders:
            try:
                if where is not folders[0]:
                    atomic_write_text(where.state / (self._run + _HOME), str(folders[0].path))
                (where.state / self._run).mkdir()
                where.stage = where.state / self._run
            except OSError as exc:
                raise _write_error(where.shown / STATE_DIR, exc) from None
            fsync_directory(where.state)

    def _commit(self) -> None:
        """Write the commit record (the commit point), then move the files into place."""
        folders = self._sorted()
        if not folders:
            return  # nothing owned (e.g. report to stdout)
        for where in folders:
            assert where.stage is not None
            fsync_directory(where.stage)
        self._stale = {_key(w.path): w.stale() for w in folders}
        record = folders[0].state / (self._run + _RECORD)
        try:
            atomic_write_text(record, json.dumps({"format": _FORMAT, "folders": self._stale}))
        except OSError as exc:
            raise _write_error(record, exc) from None
        self._record = record
        self._finish()

    def _finish(self) -> None:
        """Move every folder's staged files into place (idempotent), then drop the record."""
        for where in self._sorted():
            if where.stage is not None and self._record is not None:
                _apply(where.path, where.stage, self._stale[_key(where.path)])
                _discard(where.stage)
                where.stage = None
            _discard(where.state / (self._run + _HOME))
        if self._record is not None:
            _discard(self._record)
            self._record = None

    def _abort(self) -> None:
        if self._record is not None:  # committed: the new set must still appear whole
            with contextlib.suppress(OSError):
                self._finish()
            return
        for where in self._folders.values():
            if where.stage is not None:
                _discard(where.stage)
                where.stage = None
            _discard(where.state / (self._run + _HOME))

    def _close(self, ok: bool) -> None:
        """Unlock and tidy every folder; after a failed run, remove folders it created."""
        for where in self._folders.values():
            if where.lock_fd is not None:
                _tidy(where.state)
                with contextlib.suppress(OSError):
                    os.close(where.lock_fd)
                where.lock_fd = None
        if not ok:
            for folder in reversed(self._created):
                with contextlib.suppress(OSError):
                    folder.rmdir()  # only if it stayed empty


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
    ok = False
    with _signals_raise():
        try:
            with _signals_held():  # a signal now is raised once the set is open
                out._open()
            yield out
            with _signals_held():
                out._commit()
                ok = True
        finally:
            with _signals_held():
                try:
                    if not ok:
                        out._abort()
                finally:
                    out._close(ok)


# --------------------------------------------------------------------------- #
# Readers
# --------------------------------------------------------------------------- #


def _identity(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _committing(folder: Path) -> bool:
    """Whether a commit record lies in ``folder`` (a run is moving its files in)."""
    try:
        return any(name.endswith(_RECORD) for name in os.listdir(folder / STATE_DIR))
    except OSError:
        return False


def _quiet_identities(files: list[Path], folders: list[Path]) -> list[tuple | None]:
    """The files' identities, taken while no commit was under way in their folders."""
    deadline = time.monotonic() + COMMIT_WAIT_S
    # A record this process cannot finish (a read-only folder) is not a commit under way.
    folders = [
        f for f in folders if os.access(f / STATE_DIR, os.W_OK) or not (f / STATE_DIR).exists()
    ]
    while True:
        for folder in folders:
            settle(folder)  # a killed run's commit: finish it
        if not any(_committing(f) for f in folders):
            identities = [_identity(p) for p in files]
            # A commit that began meanwhile may have moved some files but not others.
            if not any(_committing(f) for f in folders):
                return identities
        if time.monotonic() >= deadline:
            busy = next((f for f in folders if _committing(f)), folders[0])
            raise OutputBusyError(f"{busy} stays busy (another run holds it); try again")
        time.sleep(0.005)


@contextlib.contextmanager
def reading(*paths: Path | str) -> Iterator[None]:
    """Read files of an output set without seeing a half-committed set.

    Finishes a commit an interrupted run left in the files' folders, waits while a
    run commits there, and checks on leaving that no file was replaced while the
    block read it.

    Parameters
    ----------
    *paths : Path or str
        The files the block reads (e.g. ``stations.geojson`` and ``candidates.geojson``).

    Raises
    ------
    OutputBusyError
        A file was replaced by another run while the block read it (run again), or a
        commit did not finish within ``COMMIT_WAIT_S``.
    """
    files = [Path(p) for p in paths]
    folders = [Path(key) for key in sorted({_key(p.parent) for p in files})]
    before = _quiet_identities(files, folders)
    yield
    for path, was in zip(files, before, strict=True):
        if _identity(path) != was:
            raise OutputBusyError(
                f"{path} was replaced by another run while it was read; run the command again"
            )
