"""An on-disk cache of what the commands read from an OSM extract, one entry per layer.

A country extract takes minutes to read; what the commands keep from it (the
catalogue's points, water, admin areas, coastlines) is a few MB. Each layer of
each extract is stored once, as columns: numpy arrays in an uncompressed ``.npz``
(ids, coordinates, WKB geometry bytes with their offsets, tags as JSON), so a
cached layer loads with numpy alone in milliseconds, float64 coordinates and WKB
round-trip exactly (same outputs, byte for byte), and no new dependency is needed
(GeoParquet would need pyarrow, and pandas on every cached start).

An entry is keyed by the extract's identity (size, modification time, a SHA-256
of its first and last MiB), the layer and what selects it (e.g. the catalogue's
fingerprint), and :data:`FORMAT_VERSION`; its file name is the key's SHA-256, and
the key is stored in it. Every read checks the entry's stored key, its SHA-256 and
the shapes of its columns; an entry that fails (empty, truncated, corrupt, written
by another version, a symbolic link, a folder, anything but a regular file) is
deleted with a warning and the extract is read again, never used.

The cache is optional and never fails a run: a cache path that is not a usable
folder is one warning and the run goes on without the cache; a folder it cannot
write to is one warning and the run goes on storing nothing (reading what the
folder holds). An entry is written to a temporary file beside it and renamed into
place, so a reader (or a concurrent run writing the same entry) sees a whole entry
or none; temporary files a killed run left behind are deleted when the cache is
first used (see :data:`STALE_TMP_S`).

The folder is ``<cache dir>/extracts``, where ``<cache dir>`` is the Overpass
cache's (``STATIONS_GENERATOR_CACHE_DIR`` or the user cache folder). Its size is
capped (``STATIONS_GENERATOR_EXTRACT_CACHE_MB``, default 4096): the least recently
used entries go first.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import math
import os
import secrets
import shutil
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from stations_generator import settings

__all__ = [
    "DEFAULT_LIMIT_MB",
    "FORMAT_VERSION",
    "STALE_TMP_S",
    "CacheEntryError",
    "ExtractCache",
    "default_extract_cache_dir",
    "file_identity",
    "pack_json",
    "unpack_json",
]

FORMAT_VERSION = 1
"""Bumped whenever what a layer holds or how it is stored changes."""

#: Cache hits (debug) and dropped entries (warnings) of :meth:`ExtractCache.for_command`.
logger = logging.getLogger(__name__)

DEFAULT_LIMIT_MB = settings.DEFAULT_EXTRACT_CACHE_MB
_MIB = 1 << 20

STALE_TMP_S = 3600.0
"""Seconds after which an untouched temporary file is a dead writer's, and deleted.

The bound is by age, not by process id (a pid says nothing across the machines that
share a network folder, and pids are reused). A writer touches its file with every
write and writes a layer in seconds, so an hour without a write means a killed run;
a live writer whose file were deleted anyway would only lose that one cache write
(its rename fails, which is warned about).
"""

_TMP_SUFFIX = ".tmp"


def default_extract_cache_dir() -> Path:
    """``STATIONS_GENERATOR_EXTRACT_CACHE_DIR``, else ``<cache dir>/extracts``.

    ``<cache dir>`` is ``STATIONS_GENERATOR_CACHE_DIR`` or the Overpass cache's default
    (:func:`stations_generator.settings.extract_cache_dir`).

    Returns
    -------
    pathlib.Path
        The folder (not created here).
    """
    return settings.extract_cache_dir()


def file_identity(path: Path) -> str:
    """Size, modification time and a SHA-256 of the first and last MiB of ``path``.

    Reading 2 MiB costs milliseconds on any file; an extract replaced by another
    (a new download, even of the same size and time) changes the hash.

    Parameters
    ----------
    path : pathlib.Path
        The extract.

    Returns
    -------
    str
        ``"<size>:<mtime ns>:<sha256 hex>"``.
    """
    st = os.stat(path)
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        digest.update(fh.read(_MIB))
        if st.st_size > 2 * _MIB:
            fh.seek(-_MIB, os.SEEK_END)
        digest.update(fh.read(_MIB))
    return f"{st.st_size}:{st.st_mtime_ns}:{digest.hexdigest()}"


class CacheEntryError(ValueError):
    """A cache entry that cannot be trusted (it is then rebuilt)."""


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _columns_digest(columns: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(columns):
        arr = np.ascontiguousarray(columns[name])
        digest.update(f"{name}|{arr.dtype.str}|{arr.shape}|".encode())
        # the array's own bytes, not a copy (a cached admin layer holds ~100 MiB of WKB)
        digest.update(arr.tobytes() if arr.dtype.hasobject else arr.reshape(-1).view(np.uint8))
    return digest.hexdigest()


def _read_regular_file(entry: Path) -> bytes:
    """The bytes of ``entry``, which must be a regular file (not a link, folder or FIFO).

    Opened without following a link and without blocking (a FIFO would wait for a
    writer forever), then checked with ``fstat``: what is read is what was checked.
    """
    if entry.is_symlink():
        raise CacheEntryError("a symbolic link, not a file")
    flags = os.O_RDONLY
    for name in ("O_BINARY", "O_NOFOLLOW", "O_NONBLOCK"):  # where the platform has them
        flags |= getattr(os, name, 0)
    fd = os.open(entry, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CacheEntryError("not a regular file")
        fh = open(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        return fh.read()


def _remove(entry: Path) -> None:
    """Delete ``entry``: a link itself (never its target), a folder with what it holds."""
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry)
    else:
        entry.unlink(missing_ok=True)


class ExtractCache:
    """Layers of extracts on disk (see the module docstring).

    Parameters
    ----------
    folder : Path, optional
        Where entries go [default: :func:`default_extract_cache_dir`].
    enabled : bool
        False neither reads nor writes (``--no-cache``).
    limit_mb : float, optional
        Cap on the folder's size, a finite number of MiB above 0 [default:
        ``STATIONS_GENERATOR_EXTRACT_CACHE_MB`` or 4096].
    log, warn : callable, optional
        Get a line for each hit and each stale temporary file deleted, and for each
        dropped entry and an unusable folder (once).

    Raises
    ------
    ValueError
        If ``limit_mb`` is not a finite number above 0.
    InputError
        If ``limit_mb`` is not given and ``STATIONS_GENERATOR_EXTRACT_CACHE_MB`` is not
        such a number.
    """

    def __init__(
        self,
        folder: Path | None = None,
        *,
        enabled: bool = True,
        limit_mb: float | None = None,
        log: Callable[[str], None] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.folder = Path(folder) if folder is not None else default_extract_cache_dir()
        self.enabled = enabled
        if limit_mb is None:
            limit_mb = settings.extract_cache_mb()
        elif (
            isinstance(limit_mb, bool)
            or not isinstance(limit_mb, int | float)
            or not (math.isfinite(limit_mb) and limit_mb > 0)
        ):
            raise ValueError(f"limit_mb must be a finite number of MiB above 0, got {limit_mb!r}")
        self.limit_bytes = int(limit_mb * _MIB)
        self._log = log
        self._warn = warn
        self._identities: dict[tuple[str, int, int], str] = {}
        self._checked = False  # the folder is checked on first use, not here
        self._writable = True

    @classmethod
    def for_command(cls, cache_dir: Path | None, use_cache: bool) -> ExtractCache:
        """A command's cache: ``<--cache-dir>/extracts``, off with ``--no-cache``.

        Hits are debug records (``-v``); dropped entries are warnings.

        Parameters
        ----------
        cache_dir : pathlib.Path or None
            The command's ``--cache-dir``; None for :func:`default_extract_cache_dir`.
        use_cache : bool
            False for ``--no-cache``.

        Returns
        -------
        ExtractCache
        """
        return cls(
            Path(cache_dir) / "extracts" if cache_dir is not None else None,
            enabled=use_cache,
            log=logger.debug,
            warn=logger.warning,
        )

    # -- keys ---------------------------------------------------------------

    def key(self, path: Path, layer: str) -> str:
        """The entry key of ``layer`` of the extract at ``path``.

        Parameters
        ----------
        path : pathlib.Path
            The extract.
        layer : str
            The layer and what selects it.

        Returns
        -------
        str
            ``v<FORMAT_VERSION>|<layer>|<file identity>``.
        """
        st = os.stat(path)
        stamp = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
        ident = self._identities.get(stamp)
        if ident is None:
            ident = self._identities[stamp] = file_identity(path)
        return f"v{FORMAT_VERSION}|{layer}|{ident}"

    def path(self, key: str) -> Path:
        """The file of the entry of ``key``: the key's SHA-256 in the folder."""
        return self.folder / f"{hashlib.sha256(key.encode('utf-8')).hexdigest()}.npz"

    # -- the folder ---------------------------------------------------------

    @property
    def writable(self) -> bool:
        """Whether entries are still stored: on, and no write has failed in this run."""
        return self.enabled and self._writable

    def _ready(self) -> bool:
        """Whether the cache is in use; on the first call, check the folder and clean it."""
        if self.enabled and not self._checked:
            self._checked = True
            self._check_folder()
        return self.enabled

    def _check_folder(self) -> None:
        """Turn the cache off (one warning) unless its folder is a folder or is absent."""
        try:
            st = os.stat(self.folder)
        except FileNotFoundError:
            return  # the first store makes it
        except OSError as exc:
            self._turn_off(f"cannot be used ({_one_line(exc.strerror or exc)})")
            return
        if not stat.S_ISDIR(st.st_mode):
            self._turn_off("is not a folder")
            return
        try:
            self._clean_temp_files()
        except OSError as exc:
            self._turn_off(f"cannot be read ({_one_line(exc.strerror or exc)})")

    def _turn_off(self, why: str) -> None:
        self.enabled = False
        if self._warn is not None:
            self._warn(
                f"extract cache folder {self.folder} {why}; running without the extract "
                "cache (point STATIONS_GENERATOR_EXTRACT_CACHE_DIR or --cache-dir at a folder)"
            )

    def _clean_temp_files(self) -> None:
        """Delete the temporary files of writers that died (see :data:`STALE_TMP_S`)."""
        now = time.time()
        with os.scandir(self.folder) as found:
            for item in found:
                if not (item.name.startswith(".") and item.name.endswith(_TMP_SUFFIX)):
                    continue
                try:
                    if now - item.stat(follow_symlinks=False).st_mtime <= STALE_TMP_S:
                        continue
                    os.unlink(item.path)
                except OSError:
                    continue  # gone already, or not ours to delete
                if self._log is not None:
                    self._log(f"deleted the stale temporary file {item.name} of the extract cache")

    # -- read / write -------------------------------------------------------

    def load(self, key: str) -> dict[str, np.ndarray] | None:
        """The columns stored under ``key``, or None (absent, disabled, or dropped as bad).

        Parameters
        ----------
        key : str
            The entry's key (:meth:`key`).

        Returns
        -------
        dict of str to numpy.ndarray or None
        """
        if not self._ready():
            return None
        entry = self.path(key)
        try:
            data = _read_regular_file(entry)
        except FileNotFoundError:
            return None
        except CacheEntryError as exc:
            self._drop(entry, str(exc))
            return None
        except OSError as exc:
            self._drop(entry, f"unreadable ({_one_line(exc.strerror or exc)})")
            return None
        try:
            columns = self._parse(data, key)
        # Anything raised while parsing untrusted bytes means a bad entry: numpy's
        # EOFError for an empty file (which click would take for Ctrl-C), zipfile's
        # BadZipFile, zlib.error, a MemoryError for a header that lies about a size...
        except Exception as exc:
            kind = "" if isinstance(exc, CacheEntryError) else f"{type(exc).__name__}: "
            self._drop(entry, f"invalid ({kind}{_one_line(exc)})")
            return None
        with contextlib.suppress(OSError):
            os.utime(entry)  # least recently used goes first
        if self._log is not None:
            self._log(f"extract layer from cache {entry}")
        return columns

    @staticmethod
    def _parse(data: bytes, key: str) -> dict[str, np.ndarray]:
        if not data:
            raise CacheEntryError("empty")
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            columns = {name: npz[name] for name in npz.files}
        meta_raw = columns.pop("__meta__", None)
        if meta_raw is None:
            raise CacheEntryError("no metadata")
        meta = json.loads(bytes(meta_raw).decode("utf-8"))
        if not isinstance(meta, dict) or meta.get("key") != key:
            raise CacheEntryError("written for another extract or version")
        if meta.get("sha256") != _columns_digest(columns):
            raise CacheEntryError("checksum mismatch")
        return columns

    def store(self, key: str, columns: dict[str, np.ndarray]) -> None:
        """Write ``columns`` under ``key`` (atomically), then trim the folder to its cap.

        A failure to write is one warning, after which nothing more is written.

        Parameters
        ----------
        key : str
            The entry's key (:meth:`key`).
        columns : dict of str to numpy.ndarray
            What to store.
        """
        if not self._ready() or not self._writable:
            return
        meta = {"key": key, "sha256": _columns_digest(columns)}
        payload = dict(columns)
        payload["__meta__"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
        entry = self.path(key)
        tmp = entry.with_name(f".{entry.name}.{secrets.token_hex(8)}{_TMP_SUFFIX}")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if entry.is_dir() and not entry.is_symlink():
                _remove(entry)  # a folder in an entry's place: a rename cannot replace it
            try:
                with open(tmp, "xb") as fh:  # "x": never through a link planted at the name
                    np.savez(fh, **payload)
                    fh.flush()
                    os.fsync(fh.fileno())  # no empty entry after a power cut
                os.replace(tmp, entry)  # atomic: readers and other writers see all or none
            finally:  # an error or Ctrl-C mid-write leaves no temporary file
                with contextlib.suppress(OSError):
                    tmp.unlink(missing_ok=True)
        except OSError as exc:
            self._writable = False
            if self._warn is not None:
                self._warn(
                    f"cannot write the extract cache in {self.folder} "
                    f"({_one_line(exc.strerror or exc)}); running without storing to it"
                )
            return
        self._trim(keep=entry)

    def _trim(self, keep: Path) -> None:
        try:
            names = list(self.folder.glob("*.npz"))
        except OSError:
            return
        entries = []
        for p in names:
            with contextlib.suppress(OSError):  # gone meanwhile (another run's trim)
                st = p.lstat()
                entries.append((st.st_mtime_ns, st.st_size, p))
        total = sum(size for _, size, _ in entries)
        for _, size, p in sorted(entries, key=lambda e: (e[0], e[2].name)):
            if total <= self.limit_bytes:
                break
            if p == keep:
                continue
            try:
                _remove(p)
                total -= size
            except OSError:
                pass

    def drop(self, key: str, why: str) -> None:
        """Delete the entry of ``key`` (one its reader could not use), saying ``why``.

        Parameters
        ----------
        key : str
            The entry's key (:meth:`key`).
        why : str
            What is wrong with it, e.g. ``"invalid (...)"``; the warning reads
            "extract cache entry NAME is WHY; dropped, reading the extract".
        """
        self._drop(self.path(key), why)

    def _drop(self, entry: Path, why: str) -> None:
        try:
            _remove(entry)
            done = "dropped"
        except OSError as exc:
            done = f"cannot delete it ({_one_line(exc.strerror or exc)})"
        if self._warn is not None:
            self._warn(f"extract cache entry {entry.name} is {why}; {done}, reading the extract")


def pack_json(values: list[Any]) -> np.ndarray:
    """A JSON list as a uint8 column.

    Parameters
    ----------
    values : list
        JSON-serialisable values.

    Returns
    -------
    numpy.ndarray
        The UTF-8 bytes of the compact JSON text.
    """
    text = json.dumps(values, ensure_ascii=False, separators=(",", ":"))
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def unpack_json(column: np.ndarray, count: int) -> list[Any]:
    """The list :func:`pack_json` stored; it must hold ``count`` items.

    Parameters
    ----------
    column : numpy.ndarray
        A column :func:`pack_json` made.
    count : int
        How many items it must hold.

    Returns
    -------
    list

    Raises
    ------
    CacheEntryError
        If it is not a list of ``count`` items.
    """
    values = json.loads(bytes(column).decode("utf-8"))
    if not isinstance(values, list) or len(values) != count:
        raise CacheEntryError("column lengths differ")
    return values
