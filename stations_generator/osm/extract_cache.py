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
fingerprint), and :data:`FORMAT_VERSION`. Every read checks the entry's stored key,
its SHA-256 and the shapes of its columns; an entry that fails (truncated,
corrupt, written by another version) is deleted and rebuilt, never used.

The folder is ``<cache dir>/extracts``, where ``<cache dir>`` is the Overpass
cache's (``STATIONS_GENERATOR_CACHE_DIR`` or the user cache folder). Its size is
capped (``STATIONS_GENERATOR_EXTRACT_CACHE_MB``, default 4096): the least recently
used entries go first.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import secrets
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from stations_generator import settings

__all__ = [
    "DEFAULT_LIMIT_MB",
    "FORMAT_VERSION",
    "ExtractCache",
    "default_extract_cache_dir",
    "file_identity",
]

FORMAT_VERSION = 1
"""Bumped whenever what a layer holds or how it is stored changes."""

#: Cache hits (debug) and dropped entries (warnings) of :meth:`ExtractCache.for_command`.
logger = logging.getLogger(__name__)

DEFAULT_LIMIT_MB = settings.DEFAULT_EXTRACT_CACHE_MB
_MIB = 1 << 20


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


def _columns_digest(columns: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(columns):
        arr = np.ascontiguousarray(columns[name])
        digest.update(f"{name}|{arr.dtype.str}|{arr.shape}|".encode())
        digest.update(arr.tobytes())
    return digest.hexdigest()


class ExtractCache:
    """Layers of extracts on disk (see the module docstring).

    Parameters
    ----------
    folder : Path, optional
        Where entries go [default: :func:`default_extract_cache_dir`].
    enabled : bool
        False neither reads nor writes (``--no-cache``).
    limit_mb : float, optional
        Cap on the folder's size [default: ``STATIONS_GENERATOR_EXTRACT_CACHE_MB`` or 4096].
    log, warn : callable, optional
        Get a line for each hit, and for each dropped entry or failed write.
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
        self.limit_bytes = int(max(0.0, limit_mb) * _MIB)
        self._log = log
        self._warn = warn
        self._identities: dict[tuple[str, int, int], str] = {}

    @classmethod
    def for_command(cls, cache_dir: Path | None, use_cache: bool) -> ExtractCache:
        """A command's cache: ``<--cache-dir>/extracts``, off with ``--no-cache``.

        Hits are debug records (``-v``); dropped entries are warnings.
        """
        return cls(
            Path(cache_dir) / "extracts" if cache_dir is not None else None,
            enabled=use_cache,
            log=logger.debug,
            warn=logger.warning,
        )

    # -- keys ---------------------------------------------------------------

    def key(self, path: Path, layer: str) -> str:
        """The entry key of ``layer`` of the extract at ``path``."""
        st = os.stat(path)
        stamp = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
        ident = self._identities.get(stamp)
        if ident is None:
            ident = self._identities[stamp] = file_identity(path)
        return f"v{FORMAT_VERSION}|{layer}|{ident}"

    def path(self, key: str) -> Path:
        return self.folder / f"{hashlib.sha256(key.encode('utf-8')).hexdigest()}.npz"

    # -- read / write -------------------------------------------------------

    def load(self, key: str) -> dict[str, np.ndarray] | None:
        """The columns stored under ``key``, or None (absent, disabled, or dropped as bad)."""
        if not self.enabled:
            return None
        entry = self.path(key)
        try:
            data = entry.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._drop(entry, f"unreadable ({exc})")
            return None
        try:
            columns = self._parse(data, key)
        except (CacheEntryError, ValueError, OSError, KeyError, zipfile.BadZipFile) as exc:
            self._drop(entry, f"invalid ({exc})")
            return None
        try:
            os.utime(entry)  # least recently used goes first
        except OSError:
            pass
        if self._log is not None:
            self._log(f"extract layer from cache {entry}")
        return columns

    @staticmethod
    def _parse(data: bytes, key: str) -> dict[str, np.ndarray]:
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
        """Write ``columns`` under ``key`` (atomically), then trim the folder to its cap."""
        if not self.enabled:
            return
        meta = {"key": key, "sha256": _columns_digest(columns)}
        payload = dict(columns)
        payload["__meta__"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
        entry = self.path(key)
        tmp = entry.with_name(f".{entry.name}.{secrets.token_hex(4)}.tmp")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                np.savez(fh, **payload)
            os.replace(tmp, entry)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            if self._warn is not None:
                self._warn(f"could not write the extract cache {entry} ({exc}); going on without")
            return
        self._trim(keep=entry)

    def _trim(self, keep: Path) -> None:
        try:
            entries = [
                (p.stat().st_mtime_ns, p.stat().st_size, p) for p in self.folder.glob("*.npz")
            ]
        except OSError:
            return
        total = sum(size for _, size, _ in entries)
        for _, size, p in sorted(entries, key=lambda e: (e[0], e[2].name)):
            if total <= self.limit_bytes:
                break
            if p == keep:
                continue
            try:
                p.unlink()
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
            entry.unlink()
        except OSError:
            pass
        if self._warn is not None:
            self._warn(f"extract cache entry {entry.name} is {why}; dropped, reading the extract")


def pack_json(values: list[Any]) -> np.ndarray:
    """A JSON list as a uint8 column."""
    text = json.dumps(values, ensure_ascii=False, separators=(",", ":"))
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def unpack_json(column: np.ndarray, count: int) -> list[Any]:
    """The list :func:`pack_json` stored; it must hold ``count`` items."""
    values = json.loads(bytes(column).decode("utf-8"))
    if not isinstance(values, list) or len(values) != count:
        raise CacheEntryError("column lengths differ")
    return values
